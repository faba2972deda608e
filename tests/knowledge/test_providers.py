"""Provider terms: the curated table loads, covers the snapshot's providers, and is honest."""

from __future__ import annotations

import csv

import pytest

from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.providers import (
    CONFIDENCE_LEVELS,
    all_provider_terms,
    canonical_provider,
    known_provider_terms,
    provider_terms,
)
from tests.conftest import REFERENCE


def test_at_least_twenty_providers_with_provenance() -> None:
    terms = all_provider_terms()
    assert len(terms) >= 20
    for t in terms:
        assert t.source_url.startswith("https://"), t.name
        assert t.confidence in CONFIDENCE_LEVELS, t.name
        assert t.notes, t.name


def test_every_snapshot_provider_has_terms() -> None:
    with (REFERENCE / "price_snapshot.csv").open() as f:
        snapshot_providers = {row["provider"] for row in csv.DictReader(f)}
    assert len(snapshot_providers) == 22
    missing = {p for p in snapshot_providers if canonical_provider(p) is None}
    assert missing == set()


def test_snapshot_vast_is_an_alias_of_vastai() -> None:
    assert provider_terms("vast").name == "vastai"
    assert provider_terms("DataCrunch").name == "verda"
    assert provider_terms("lambdalabs").name == "lambda"


def test_hyperscaler_spot_notices() -> None:
    assert provider_terms("aws").spot_interruption_notice_s == 120
    assert provider_terms("gcp").spot_interruption_notice_s == 30
    assert provider_terms("azure").spot_interruption_notice_s == 30


def test_unverified_rows_are_not_dated() -> None:
    # verified_at is a dated check; an unverified row cannot carry one.
    for t in all_provider_terms():
        if t.confidence == "unverified":
            assert t.verified_at is None, t.name


def test_providers_md_unverified_items_stay_unverified() -> None:
    # providers.md marks Lambda per-minute billing and RunPod egress as unverified leads.
    assert provider_terms("lambda").confidence == "unverified"
    assert provider_terms("runpod").confidence == "unverified"
    # Vultr / DO included transfer are confirmed API fields in providers.md.
    assert provider_terms("vultr").confidence == "confirmed"
    assert provider_terms("vultr").egress_free_gb_per_month == 10240
    assert provider_terms("digitalocean").egress_free_gb_per_month == 60_000  # 60 TB/month
    # Hyperstack: per-minute, secondary (rate card transcribed 2026-08-26).
    hs = provider_terms("hyperstack")
    assert (hs.billing_increment_s, hs.confidence, hs.verified_at) == (60, "secondary", "2026-08-26")


def test_marketplace_per_offer_terms_are_unknown_at_provider_level() -> None:
    vast = provider_terms("vastai")
    assert vast.storage_usd_per_gb_month is None
    assert vast.egress_usd_per_gb is None
    assert vast.spot_available


def test_unknown_provider_gets_conservative_default() -> None:
    t = provider_terms("acme-gpus")
    assert t.name == "acme-gpus"
    assert t.billing_increment_s == 3600
    assert t.minimum_charge_s == 3600
    assert t.confidence == "unverified"
    assert t.egress_usd_per_gb is None and t.storage_usd_per_gb_month is None
    assert "No curated terms" in t.notes


def test_known_provider_terms_suggests_closest() -> None:
    with pytest.raises(UnknownNameError) as info:
        known_provider_terms("runpd")
    assert "runpod" in info.value.suggestions
    assert info.value.field == "provider"
