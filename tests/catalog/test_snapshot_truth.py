"""The bundled snapshot holds offers a renter can actually rent, described truthfully (issue 10):
no defunct provider listed or recommended, no retired size, no spot price that is not an
interruptible price, no offer repeated per region without availability information, and the usable
memory of a card is what the card reports."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpuscout import recommend  # the Python face: reads the catalog when no offers are given
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog import api
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.estimate.memory import GIB, capacity_bytes
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.providers import defunct_providers, provider_terms
from tests.catalog.helpers import make_offer

# Azure sizes Microsoft retired (NC/NC_Promo K80, NV/NV_Promo M60, NCv3 V100): data audit 4.3
RETIRED_AZURE = re.compile(r"Standard_(NC(6|12|24|24r)(_Promo)?|NV(6|12|24)(_Promo)?|NC(6|12|24|24r)s_v3)")
# A region is a provider's own id, a country (`country:XX`), `unstated`, or a summary of `regions`
CANONICAL_REGION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*|country:[A-Z]{2}|unstated")


@pytest.fixture(scope="module")
def offers() -> list[Offer]:
    return SnapshotSource().offers()


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'catalog.sqlite3'}"


def test_no_offer_of_a_defunct_provider_is_in_the_bundled_snapshot(offers: list[Offer]) -> None:
    assert defunct_providers() == {"cudo"}
    assert not [o for o in offers if o.provider in defunct_providers()]


def test_a_defunct_providers_offers_are_not_listed_or_recommended_but_stay_in_history(db: str) -> None:
    """Offers a store already holds (an older bundled snapshot, an offer file, a past refresh) drop out
    of listings and recommendations once the provider is defunct; `gpuscout history` keeps them."""
    cudo = make_offer(
        provider="cudo", instance_type="a100-1x", accelerator="A100-PCIe-80GB", price_usd_per_hour=0.5
    )
    alive = make_offer(
        provider="testcloud", instance_type="a100-1x", accelerator="A100-PCIe-80GB", price_usd_per_hour=3.0
    )
    with api.open_store(db) as store:
        store.write_snapshot("cudo", [cudo])
        store.write_snapshot("testcloud", [alive])
        listed = store.current_offers(OfferQuery(gpus=("A100-PCIe-80GB",)))
        assert {o.provider for o in listed} >= {"testcloud"} and "cudo" not in {o.provider for o in listed}
        assert store.count_offers(OfferQuery(providers=("cudo",))) == 0
        history = store.price_history("A100-PCIe-80GB", provider="cudo")
        assert [p.min_usd_per_gpu_hour for p in history] == [0.5]
    assert "cudo" not in {o.provider for o in api.current_offers(db=db)}
    recs = recommend(
        ServeWorkload(model="llama-3.1-8b", precision="bf16", concurrency=1),
        db=db,
        include_rejected=True,
        now=datetime(2026, 12, 1, tzinfo=UTC),
    )
    assert recs and "cudo" not in {r.offer.provider for r in recs}


def test_no_retired_azure_size(offers: list[Offer]) -> None:
    azure = [o.instance_type for o in offers if o.provider == "azure"]
    assert azure and not [t for t in azure if RETIRED_AZURE.fullmatch(t)]
    assert "K80" not in {o.accelerator for o in offers}  # the NC-series was the last K80 anywhere here


def test_no_spot_price_at_or_above_on_demand_unless_the_source_states_it_as_interruptible(
    offers: list[Offer],
) -> None:
    for o in offers:
        if o.spot_price_usd_per_hour is None or o.price_usd_per_hour is None:
            continue
        if o.spot_price_usd_per_hour >= o.price_usd_per_hour * (1 - 1e-4):
            assert o.price_is_interruptible, (o.provider, o.instance_type, o.region)
    assert not [o for o in offers if o.provider == "runpod" and o.spot_price_usd_per_hour is not None]
    mithril = [o for o in offers if o.provider == "mithril"]
    assert mithril and all(o.price_is_interruptible for o in mithril)  # an auction price
    # AWS p5/p5en/p6 spot rows at 10-15 % of on-demand (below every on-demand price of the GPU) are gone
    big = [o for o in offers if o.provider == "aws" and re.match(r"p(5|5en|6-)", o.instance_type)]
    assert big and all(
        o.spot_price_usd_per_hour is None or o.spot_price_usd_per_hour >= 0.15 * (o.price_usd_per_hour or 0)
        for o in big
    )


def test_no_instance_type_repeated_across_regions_without_availability_information(
    offers: list[Offer],
) -> None:
    """The same offer at the same price in several regions is one row listing them; only rows whose
    description differs (a per-region price, a note on one region's row) stay apart."""
    terms = Counter(
        (
            o.provider,
            o.instance_type,
            o.gpu_count,
            o.price_usd_per_hour,
            o.spot_price_usd_per_hour,
            o.vcpus,
            o.ram_gb,
            o.accelerator,
            o.gpu_memory_gb,
            o.notes,
        )
        for o in offers
    )
    assert [k for k, n in terms.items() if n > 1] == []
    lam = [o for o in offers if o.provider == "lambda"]
    assert len(lam) == 22 and len({o.instance_type for o in lam}) == 22
    assert all(o.region == "all listed (17 regions)" and len(o.regions) == 17 for o in lam)
    for o in offers:
        if o.regions:  # `region` is then a summary of them
            assert len(o.regions) > 1
            n = f"{len(o.regions)} regions"
            assert o.region in (n, f"all listed ({n})", f"price list ({n})")  # price list: OCI


def test_region_filter_finds_an_offer_by_any_of_its_regions(db: str) -> None:
    found = api.current_offers(OfferQuery(providers=("lambda",), regions=("us-east-1",)), db=db)
    assert len(found) == 22
    assert api.count_offers(OfferQuery(providers=("runpod",), regions=("country:SE",)), db=db) == 5


def test_regions_have_a_canonical_form(offers: list[Offer]) -> None:
    for o in offers:
        for region in o.regions or (o.region,):
            assert CANONICAL_REGION.fullmatch(region), (o.provider, o.instance_type, region)
    regions = {r for o in offers for r in (o.regions or (o.region,))}
    assert not regions & {"unspecified", "default", "US", "FI"}  # placeholders and bare country codes
    vast = next(o for o in offers if o.instance_type == "1x-A100_SXM4-32-65536")
    assert vast.regions == ("country:DE", "country:US") and "Bavaria, DE, EU" in vast.extra["region_source"]


def test_vast_group_medians_are_labelled_as_such(offers: list[Offer]) -> None:
    vast = [o for o in offers if o.provider == "vastai"]
    assert vast and all(o.extra.get("price_basis") == "group-median" and "median" in o.notes for o in vast)


def test_aggregator_copies_of_first_party_offers_are_shown_once(offers: list[Offer]) -> None:
    # a resale at the first party's price is shown once; at another price it is another offer
    pi = [o.instance_type.split("__")[0] for o in offers if o.provider == "primeintellect"]
    assert "hyperstack" not in pi and {"lambdalabs", "nebius"} <= set(pi)
    hyperstack = next(o for o in offers if o.provider == "hyperstack" and o.instance_type == "n3-H100x1")
    assert hyperstack.also_listed_by == ("primeintellect",)
    lam = next(o for o in offers if o.provider == "lambda" and o.instance_type == "gpu_8x_h100_sxm5")
    assert lam.also_listed_by == () and lam.price_usd_per_hour == 31.92
    resale = next(o for o in offers if o.instance_type == "lambdalabs__8xH100_80GB__208__1800")
    assert resale.price_usd_per_hour == 23.92 and "resale of lambda gpu_8x_h100_sxm5" in resale.notes
    verda = next(o for o in offers if o.provider == "verda" and o.instance_type == "1H100.80S.32V")
    assert verda.also_listed_by == ()  # Spheron's data-crunch copies are dearer: their own rows
    # resold capacity with no first-party row in the snapshot stays, saying whose it is
    resold = [
        o for o in offers if o.provider == "primeintellect" and o.instance_type.startswith("datacrunch__")
    ]
    assert resold and all(o.extra["resold_from"] == "verda" for o in resold)


def test_usable_memory_of_an_l4_is_22_5_gib_not_24() -> None:
    l4 = resolve_gpu("L4")
    assert l4.usable_memory_gib == pytest.approx(22.5, abs=0.01)
    assert capacity_bytes(l4) / GIB == pytest.approx(22.5, abs=0.01)  # what the fit check uses
    assert l4.memory_gb == 24


def test_terms_of_every_snapshot_provider_are_curated(offers: list[Offer]) -> None:
    for provider in {o.provider for o in offers}:
        terms = provider_terms(provider)
        assert terms.source_url and terms.pricing_url.startswith("https://"), provider
        assert not terms.defunct
