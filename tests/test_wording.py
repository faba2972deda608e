"""Wording every layer shares: ``plural`` in a leaf module the import contract keeps at the bottom, the
catalog's counts spelled through it, and the advisor's errors naming its own request-shape fields
(``prompt_tokens`` / ``output_tokens``), not the estimator's (``context_in`` / ``context_out``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.backends import in_workload_words
from gpuscout.catalog.validate import validate_offers
from gpuscout.errors import InvalidInputError, WrongModelKind
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.wording import plural
from tests.catalog.helpers import make_offer, many_offers
from tests.conftest import REPO
from tests.test_architecture import LINT_IMPORTS, _lint


@pytest.mark.parametrize(
    ("count", "noun", "many", "reads"),
    [
        (1, "user", None, "user"),
        (0, "user", None, "users"),
        (0.5, "user", None, "users"),
        (8, "GPU", None, "GPUs"),
        ("1", "request", None, "request"),  # the figure as printed: f"{0.9996:.3g}" is "1"
        (" 1 ", "request", None, "request"),
        ("1.5", "request", None, "requests"),
        (2, "pass", "passes", "passes"),
        (1, "runs", "run", "runs"),  # a verb agrees the same way ("1 sequence runs", "2 ... run")
        (None, "row", None, "rows"),
    ],
)
def test_plural_agrees_with_the_figure_read(
    count: float | str | None, noun: str, many: str | None, reads: str
) -> None:
    assert plural(count, noun, many) == reads


def test_the_advisor_reexports_the_same_plural() -> None:
    from gpuscout.advise import reasons

    assert reasons.plural is plural


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")
def test_wording_is_the_lowest_layer(tmp_path: Path) -> None:
    # wording imports nothing from gpuscout, so every layer (errors included) may import it
    shutil.copytree(REPO / "src" / "gpuscout", tmp_path / "src" / "gpuscout")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    wording = tmp_path / "src" / "gpuscout" / "wording.py"
    wording.write_text(
        wording.read_text(encoding="utf-8") + "\nfrom gpuscout import errors\n", encoding="utf-8"
    )
    done = _lint(tmp_path / "src", tmp_path)
    assert done.returncode != 0, done.stdout
    assert "gpuscout.wording is not allowed to import gpuscout.errors" in done.stdout


def test_the_catalog_counts_one_duplicate_in_the_singular() -> None:
    accs = {a.name: a for a in all_accelerators()}
    offers = [*many_offers(9), make_offer(instance_type="i-0", price_usd_per_hour=9.0)]
    report = validate_offers("s", offers, accelerators=accs)
    assert report.duplicates == 1 and report.reason == "collapsed 1 duplicate"
    twice = validate_offers(
        "s", [*offers, make_offer(instance_type="i-1", price_usd_per_hour=9.0)], accelerators=accs
    )
    assert twice.reason == "collapsed 2 duplicates"


# ---- the request shape in the advisor's words --------------------------------------------------------
H100 = make_offer(
    provider="lambda",
    instance_type="gpu_1x_h100",
    region="us-west-1",
    price_usd_per_hour=3.0,
    observed_at=None,
)


def test_an_estimator_error_about_the_request_shape_names_the_workload_fields() -> None:
    # the engine's --max-model-len is shorter than prompt + output: the estimator's error, raised
    # through the advisor, said "context_in + context_out" to a caller who gave prompt_tokens
    workload = {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "engine": "vllm --max-model-len 1000",
        "prompt_tokens": 2000,
    }
    with pytest.raises(InvalidInputError) as caught:
        advise(workload, [H100])
    exc = caught.value
    assert exc.field == "engine"
    assert "(prompt_tokens + output_tokens: 2,000 + 256)" in exc.message
    assert exc.accepted == "--max-model-len >= 2256, or prompt_tokens + output_tokens <= 1000"
    assert "context_in" not in str(exc) and "context_out" not in str(exc)


def test_the_estimators_field_names_become_the_workloads_and_other_errors_pass_unchanged() -> None:
    shape = in_workload_words(
        InvalidInputError(
            "context_in", "2,000 prompt + 9 output tokens exceed ...", "context_in + context_out <= 8"
        )
    )
    assert (shape.field, shape.accepted) == ("prompt_tokens", "prompt_tokens + output_tokens <= 8")
    out = in_workload_words(
        InvalidInputError("context_out", "context_in + context_out must be at least 1 token")
    )
    assert (out.field, out.message) == (
        "output_tokens",
        "prompt_tokens + output_tokens must be at least 1 token",
    )
    kind = WrongModelKind("sdxl", "diffusion", "a language model", "sdxl is a diffusion model")
    assert in_workload_words(kind) is kind  # its type and details kept for the faces' links


def test_the_answer_counts_one_offer_and_one_burst_in_the_singular() -> None:
    from collections import Counter

    from gpuscout.advise.answer import _rejections

    assert _rejections(Counter(), 1) == "1 offer looked at"
    assert _rejections(Counter({"fit": 1}), 1).startswith("of 1 offer: ")
    assert _rejections(Counter(), 2) == "2 offers looked at"
