"""The Python API as a renter meets it (a review of ``import gpuscout``):

- ``gpuscout.estimate`` lost its signature and docstring once another function had been touched
  (``gpuscout.can_run`` imports the ``gpuscout.estimate`` package, which then stands for the function):
  ``inspect.signature`` gave ``(*args, **kwargs)``;
- ``help(gpuscout)`` listed only ``advice`` and ``recommend``;
- ``gpuscout.advice(workload, offers=[1, 2])`` raised an ``AttributeError`` from deep in the ranking.
"""

from __future__ import annotations

import inspect
import pydoc
import subprocess
import sys

import pytest

import gpuscout
from gpuscout.advise.api import OFFERS_ACCEPTED, advise
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate as estimate_function
from tests.advise.helpers import offer

WORKLOAD = {"kind": "serve", "model": "llama-3.1-8b"}


def test_estimate_keeps_its_signature_and_doc_once_the_package_stands_for_it() -> None:
    gpuscout.can_run  # noqa: B018 - imports the gpuscout.estimate package, which shadows the lazy name
    assert inspect.signature(gpuscout.estimate) == inspect.signature(estimate_function)
    assert "model" in inspect.signature(gpuscout.estimate).parameters
    assert inspect.unwrap(gpuscout.estimate) is estimate_function
    assert (estimate_function.__doc__ or "").strip() in (gpuscout.estimate.__doc__ or "")
    assert gpuscout.estimate("llama-3.1-8b", "H100").model == estimate_function("llama-3.1-8b", "H100").model


def test_in_a_fresh_interpreter_too() -> None:
    code = (
        "import gpuscout, inspect; gpuscout.can_run; "
        "print(inspect.signature(gpuscout.estimate).parameters['gpu'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("gpu")


def test_help_lists_every_public_function() -> None:
    text = pydoc.render_doc(gpuscout, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    for name in gpuscout.__all__:
        if name != "__version__":
            assert f"{name}(" in text, name  # in the functions, or (estimate, a package too) the docstring
    assert set(gpuscout.__all__) <= set(dir(gpuscout))


@pytest.mark.parametrize("offers", [[1, 2], 5, "H100", {"a": 1}, [offer(), None]])
def test_offers_that_are_not_offers_are_a_field_error(offers: object) -> None:
    with pytest.raises(InvalidInputError) as raised:
        gpuscout.advice(WORKLOAD, offers=offers)  # type: ignore[arg-type]
    assert raised.value.field == "offers" and raised.value.accepted == OFFERS_ACCEPTED
    assert "Offer" in str(raised.value)
    with pytest.raises(InvalidInputError):
        advise(WORKLOAD, offers)  # type: ignore[arg-type]


def test_offers_of_any_iterable_still_rank() -> None:
    given = [offer("a", "H100-SXM", 1, 2.0, instance="x"), offer("b", "RTX4090", 1, 0.5, memory=24)]
    assert gpuscout.advice(WORKLOAD, offers=iter(given)).rows
    assert gpuscout.recommend(WORKLOAD, offers=tuple(given))


def test_a_training_task_names_the_real_entry_point() -> None:
    # "use gpuscout.estimate.training" named a module path whose attribute raised AttributeError
    with pytest.raises(InvalidInputError) as raised:
        gpuscout.estimate("llama-3.1-8b", "H100", task="train")
    assert "use gpuscout.estimate_training for training" in str(raised.value)
    assert callable(gpuscout.estimate_training)
