"""The FAQ's four answers rank the catalog eleven times (each precision, each card class, spot and
on-demand) and size the model themselves: they share one memo of the estimator (a pure function of its
arguments), so no inference or training setup is estimated twice in one FAQ, and the answers are those
of independent estimates (real estimator)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.faq import faq
from tests.advise.helpers import NOW
from tests.advise.test_faq_spot_once import OFFERS


def _key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return (args, tuple(sorted(kwargs.items())))


class _CountingInference:
    """An inference estimator that counts each distinct call, its sessions included (what a ranking
    asks of ``Backends.inference``)."""

    def __init__(self, inner: Any, seen: Counter[Any]) -> None:
        self._inner, self._seen = inner, seen

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._seen[_key(args, kwargs)] += 1
        return self._inner(*args, **kwargs)

    def session(self) -> Any:
        session = getattr(self._inner, "session", None)
        return _CountingInference(session() if callable(session) else self._inner, self._seen)


def _counting(be: Backends) -> tuple[Backends, Counter[Any], Counter[Any]]:
    inference: Counter[Any] = Counter()
    training: Counter[Any] = Counter()

    def train(*args: Any, **kwargs: Any) -> Any:
        training[_key(args, kwargs)] += 1
        return be.training(*args, **kwargs)

    counted = dataclasses.replace(be, inference=_CountingInference(be.inference, inference), training=train)
    return counted, inference, training


def test_one_faq_estimates_each_setup_once() -> None:
    be, inference, training = _counting(default_backends())
    f = faq("llama-3.1-8b", OFFERS, backends=be, now=NOW)
    assert [a.key for a in f.answers] == ["vram", "card_class", "spot", "slow_generation"]
    assert inference and training, "the answers were estimated"
    twice = [k for k, n in inference.items() if n > 1]
    assert not twice, f"{len(twice)} of {len(inference)} inference setups estimated more than once"
    assert not [k for k, n in training.items() if n > 1]


def test_the_shared_estimates_give_the_answers_of_unshared_ones() -> None:
    """The same answers as backends whose every call reaches the estimator afresh (no session, no memo)."""
    be = default_backends()
    fresh = dataclasses.replace(be, inference=lambda *a, **k: be.inference(*a, **k))
    for model in ("llama-3.1-8b", "mixtral-8x7b"):
        assert faq(model, OFFERS, backends=be, now=NOW) == faq(model, OFFERS, backends=fresh, now=NOW)
