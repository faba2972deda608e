"""The FAQ's spot answer ranks each job twice (spot allowed, then on-demand only): the two rankings share
one set of estimates, so no fine-tune layout or batch setup is estimated twice, and the answer is the
one two independent rankings give (real estimator)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import pytest

from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.faq import faq
from gpuscout.advise.rank import Ranker
from gpuscout.advise.workload import FinetuneWorkload
from gpuscout.errors import ConfigurationRejected
from tests.advise.helpers import NOW, offer
from tests.advise.test_faq import OFFERS as FAQ_OFFERS

# the FAQ tests' offers and an 8x A100 box with a spot price
OFFERS = [*FAQ_OFFERS, offer("vastai", "A100-SXM4-80GB", 8, 9.0, spot=5.0, instance="8xa100")]


def _key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return (args, tuple(sorted(kwargs.items())))


def _counting(be: Backends) -> tuple[Backends, Counter[Any]]:
    """``be`` with its training estimator counting each distinct call."""
    seen: Counter[Any] = Counter()

    def training(*args: Any, **kwargs: Any) -> Any:
        seen[_key(args, kwargs)] += 1
        return be.training(*args, **kwargs)

    return dataclasses.replace(be, training=training), seen


def test_the_spot_answer_estimates_each_fine_tune_layout_once() -> None:
    be, seen = _counting(default_backends())
    answer = faq("llama-3.1-8b", OFFERS, backends=be, now=NOW).answers[2]
    assert answer.figures["finetune_spot_total"] is not None  # both rankings found a row
    assert answer.figures["finetune_on_demand_total"] is not None
    assert seen, "the fine-tune was estimated"
    twice = [k for k, n in seen.items() if n > 1]
    assert not twice, f"{len(twice)} of {len(seen)} layouts estimated more than once"


@pytest.mark.parametrize("model", ["llama-3.1-8b", "mixtral-8x7b"])
def test_the_shared_estimates_give_the_answer_of_two_independent_rankings(model: str) -> None:
    be = default_backends()
    spot = faq(model, OFFERS, backends=be, now=NOW).answers[2]
    method = spot.figures["method"]
    w = FinetuneWorkload(model=model, method=method, dataset_tokens=1e8)  # type: ignore[arg-type]

    def best(allowed: bool) -> Any:
        ranker = Ranker(w.model_copy(update={"spot_allowed": allowed}), backends=be, now=NOW)
        return ranker.advise(OFFERS, top=1, diagnose=False).rows[0]

    on_spot, on_demand = best(True), best(False)
    assert on_spot.config.spot and not on_demand.config.spot
    assert spot.offers[:2] == (on_spot, on_demand)  # the same rows, field for field
    assert spot.figures["finetune_spot_total"] == round(on_spot.cost.total, 2)
    assert spot.figures["finetune_on_demand_total"] == round(on_demand.cost.total, 2)


def test_shared_estimates_answer_each_call_once_refusals_included() -> None:
    from gpuscout.advise.faq import shared_estimates

    calls: Counter[Any] = Counter()

    def training(model: str, *args: Any, **kwargs: Any) -> Any:
        calls[model] += 1
        if model == "too-big":
            raise ConfigurationRejected("gpus", "does not fit")
        return object()

    def inference(*args: Any, **kwargs: Any) -> Any:
        calls["inference"] += 1
        return args

    be = dataclasses.replace(default_backends(), training=training, inference=inference)
    shared = shared_estimates(be)
    first = shared.training("m", gpus=1, micro_batch=2)
    assert shared.training("m", micro_batch=2, gpus=1) is first  # keyword order does not matter
    assert shared.training("m", gpus=2, micro_batch=2) is not first
    for _ in range(2):
        with pytest.raises(ConfigurationRejected):
            shared.training("too-big", gpus=1)
    assert calls["m"] == 2 and calls["too-big"] == 1
    # a ranking asks for a session: every ranking handed these backends shares the one memo
    session = shared.inference.session()  # type: ignore[attr-defined]
    session("m", gpus=1)
    shared.inference("m", gpus=1)
    assert calls["inference"] == 1
    # an argument that cannot be hashed goes through, uncached
    shared.inference("m", gpus=1, extra=[1])
    shared.inference("m", gpus=1, extra=[1])
    assert calls["inference"] == 3
