"""A row's billing assumption vouches with the provider record's confidence only for terms it states:
"unknown billing increment (assumed per-hour), minimum unknown (confirmed)" contradicted itself (Verda's
record is confirmed for its API and spot prices, not for a billing step it does not know)."""

from __future__ import annotations

from gpuscout.advise.rank import rank
from gpuscout.advise.workload import ServeWorkload
from gpuscout.knowledge.providers import provider_terms
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer

W = ServeWorkload(model="small", concurrency=4)


def _billing(provider: str) -> str:
    (row,) = rank(W, [offer(provider, price=2.0)], backends=fake_backends(), now=NOW)
    return row.assumptions["billing"]


def test_unknown_terms_are_not_vouched_for() -> None:
    verda = provider_terms("verda")
    assert verda.billing_increment_s is None and verda.confidence == "confirmed"
    said = _billing("verda")
    assert said.startswith("Verda")
    assert said.endswith(": unknown billing increment (assumed per-hour), minimum unknown"), said
    assert "confirmed" not in said


def test_stated_terms_keep_their_confidence() -> None:
    assert _billing("persec") == "Persec: per-second, no minimum (unverified)"
