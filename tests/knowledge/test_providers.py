"""Provider terms: the curated table loads, covers the snapshot's providers, and is honest."""

from __future__ import annotations

import csv

import pytest

from gpuscout.catalog.snapshot_build import REFERENCE_CSV as SNAPSHOT_REFERENCE
from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.providers import (
    CONFIDENCE_LEVELS,
    ProviderDataError,
    _parse_row,
    all_provider_terms,
    canonical_provider,
    defunct_providers,
    is_defunct,
    known_provider_terms,
    provider_terms,
)


def test_at_least_twenty_providers_with_provenance() -> None:
    terms = all_provider_terms()
    assert len(terms) >= 20
    for t in terms:
        assert t.source_url.startswith("https://"), t.name
        assert t.confidence in CONFIDENCE_LEVELS, t.name
        assert t.notes, t.name


def test_every_snapshot_provider_has_terms() -> None:
    with SNAPSHOT_REFERENCE.open() as f:
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


def test_unverified_leads_stay_unverified_and_confirmed_fields_stay_confirmed() -> None:
    # Vultr / DO included transfer are confirmed API fields in providers.md.
    assert provider_terms("vultr").egress_free_gb_per_month == 10240
    assert provider_terms("digitalocean").egress_free_gb_per_month == 60_000  # 60 TB/month
    # Hyperstack: per-minute, secondary (rate card transcribed 2026-08-26).
    hs = provider_terms("hyperstack")
    assert (hs.billing_increment_s, hs.confidence, hs.verified_at) == (60, "secondary", "2026-08-26")
    # Leads the 2026-12 audit could not confirm stay leads (or unknown).
    assert provider_terms("paperspace").billing_increment_s is None
    assert provider_terms("verda").billing_increment_s is None


# The 2026-12 data audit's corrections (section 3), each with its source in providers.yaml.
AUDITED = {
    # provider: (billing increment s, minimum s, egress $/GB, storage $/GB-month, spot, confidence)
    "lambda": (60, None, 0.0, 0.186, False, "confirmed"),  # docs.lambda.ai/public-cloud/billing
    "runpod": (1, None, 0.0, 0.07, True, "confirmed"),  # docs.runpod.io billing + storage
    "vastai": (1, None, None, None, True, "secondary"),  # vast.ai/pricing via api-evangelist
    "digitalocean": (1, 60, None, None, False, "secondary"),  # per second since 2026-01-01
    "scaleway": (60, None, None, None, False, "confirmed"),  # docs-content PR #5727
    "coreweave": (60, 0, 0.0, 0.07, True, "secondary"),  # CoreWeave docs + pricing page
    "tensordock": (1, None, None, 0.036, True, "secondary"),  # spot instances documented
}


@pytest.mark.parametrize("name", sorted(AUDITED))
def test_audited_terms(name: str) -> None:
    t = provider_terms(name)
    got = (
        t.billing_increment_s,
        t.minimum_charge_s,
        t.egress_usd_per_gb,
        t.storage_usd_per_gb_month,
        t.spot_available,
        t.confidence,
    )
    assert got == AUDITED[name]
    if t.confidence == "confirmed":
        assert t.verified_at is not None  # read against the provider's docs, and when
    assert "Sources:" in t.notes  # every corrected figure says where it comes from


def test_azure_minimum_charge_is_unknown_not_assumed() -> None:
    # No 60 s minimum is documented for Azure VMs (audit: doubtful): unknown, so the advisor's
    # conservative default applies instead of an invented figure.
    assert provider_terms("azure").minimum_charge_s is None
    assert provider_terms("azure").billing_increment_s == 1


def test_cudo_is_defunct_since_its_shutdown_with_a_source() -> None:
    cudo = provider_terms("cudo")
    assert cudo.defunct and cudo.status == "defunct"
    assert cudo.status_since == "2026-03-31"
    assert cudo.status_source == "https://github.com/dstackai/dstack/pull/4018"
    assert defunct_providers() == frozenset({"cudo"})
    assert is_defunct("Cudo") and not is_defunct("runpod") and not is_defunct("acme-gpus")
    assert all(t.status == "active" for t in all_provider_terms() if t.name != "cudo")


# Providers the new live adapters report under (issue 10): each has curated terms, a display name
# and a link to its own price page.
ADAPTER_PROVIDERS = ("scaleway", "akash", "lium", "primeintellect", "jarvislabs", "ovhcloud", "hyperstack")


@pytest.mark.parametrize("name", ADAPTER_PROVIDERS)
def test_adapter_providers_have_display_names_and_price_pages(name: str) -> None:
    t = known_provider_terms(name)
    assert t.name == name and t.display_name and t.display_name != name
    assert t.pricing_url.startswith("https://")


def test_every_provider_links_its_price_page() -> None:
    for t in all_provider_terms():
        assert t.pricing_url.startswith("https://"), t.name


def _row(**changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "name": "acme",
        "display_name": "Acme",
        "kind": "gpu-cloud",
        "billing_increment_s": 60,
        "minimum_charge_s": None,
        "egress_usd_per_gb": None,
        "egress_free_gb_per_month": None,
        "storage_usd_per_gb_month": None,
        "spot_available": False,
        "spot_interruption_notice_s": None,
        "source_url": "https://acme.example/docs",
        "verified_at": None,
        "confidence": "unverified",
        "status": "active",
        "pricing_url": "https://acme.example/pricing",
        "notes": "test row",
    }
    row.update(changes)
    return row


def test_malformed_status_rows_are_refused_naming_the_field() -> None:
    assert _parse_row(_row()).status == "active"
    gone = _parse_row(
        _row(status="defunct", status_since="2026-01-02", status_source="https://acme.example/news")
    )
    assert gone.defunct and gone.status_since == "2026-01-02"
    for changes, field in (
        ({"status": "retired"}, "acme.status"),
        ({"status": "defunct", "status_source": "https://acme.example/news"}, "acme.status_since"),
        ({"status": "defunct", "status_since": "2026-01-02"}, "acme.status_source"),
        ({"pricing_url": "http://acme.example"}, "acme.pricing_url"),
        ({"verified_at": "last week"}, "acme.verified_at"),
    ):
        with pytest.raises(ProviderDataError, match=field):
            _parse_row(_row(**changes))
    row = _row()
    del row["status"]
    with pytest.raises(ProviderDataError, match="missing status"):
        _parse_row(row)


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


def test_a_malformed_providers_table_is_a_gpuscout_error() -> None:
    from gpuscout.errors import GpuscoutError
    from gpuscout.knowledge.providers import ProviderDataError

    assert issubclass(ProviderDataError, GpuscoutError) and issubclass(ProviderDataError, ValueError)
