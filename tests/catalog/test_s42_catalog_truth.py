"""The catalog's truth, read the same by every face: one staleness rule (a live price fetched over two
days before the store's newest live fetch, or flagged by its feed; never the bundled snapshot's by
age), vGPU slices priced per whole GPU's worth, a live Prime Intellect resale at its first party's
price read as one offer, and a provider that shut down said so."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.catalog.provider_ids import NoOffersFrom
from gpuscout.catalog.query import STALE_AFTER, OfferQuery, ProviderShutDown, shut_down
from gpuscout.catalog.reader import SqliteReader, open_reader
from gpuscout.catalog.rows import OFFER_COLUMNS
from gpuscout.catalog.sources.azure import PRICES_URL, AzureSource
from gpuscout.catalog.sources.primeintellect import AVAILABILITY_URL, PrimeIntellectSource
from gpuscout.catalog.sources.vultr import METAL_URL, PLANS_URL, VultrSource
from gpuscout.catalog.store import Store
from tests.catalog.helpers import STORE_KINDS, make_offer, temp_store
from tests.catalog.sources.samples import by_type, fetch, sample

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with temp_store(request.param, tmp_path) as s:
        yield s


def _live(store: Store, ages: dict[str, timedelta]) -> None:
    """One live snapshot per provider, its one row fetched ``age`` ago."""
    for provider, age in ages.items():
        row = make_offer(provider=provider, instance_type=f"{provider}-1", observed_at=NOW - age)
        store.write_snapshot(provider, [row])


def _stale(store: Store, **query: Any) -> dict[str, bool]:
    return {o.provider: o.stale for o in store.current_offers(OfferQuery(**query))}


# ---- 1. one staleness rule -----------------------------------------------------------------------
def test_a_live_row_fetched_over_two_days_before_the_newest_is_stale_in_every_read(store: Store) -> None:
    _live(store, {"vastai": timedelta(hours=1), "lium": timedelta(days=85), "runpod": timedelta(hours=40)})
    assert _stale(store) == {"vastai": False, "lium": True, "runpod": False}
    fresh = OfferQuery(exclude_stale=True)
    assert sorted(o.provider for o in store.current_offers(fresh)) == ["runpod", "vastai"]
    assert store.count_offers(fresh) == 2 and store.offer_page(fresh)[1] == 2
    assert store.offer_totals(fresh) == (2, 2) and store.count_offers() == 3


def test_a_store_refreshed_three_days_ago_still_has_fresh_rows(store: Store) -> None:
    # the same refresh three days back (its rows a day apart at most): none is stale, by any clock
    _live(
        store, {"vastai": timedelta(days=3), "lium": timedelta(days=4), "runpod": timedelta(days=3, hours=5)}
    )
    assert _stale(store) == {"vastai": False, "lium": False, "runpod": False}
    assert store.count_offers(OfferQuery(exclude_stale=True)) == 3


def test_the_rule_is_two_days_before_the_newest_fetch(store: Store) -> None:
    assert timedelta(days=2) == STALE_AFTER
    _live(
        store,
        {
            "vastai": timedelta(days=10),
            "lium": timedelta(days=12, hours=1),
            "runpod": timedelta(days=11, hours=23),
        },
    )
    assert _stale(store) == {"vastai": False, "lium": True, "runpod": False}


def test_bundled_and_user_rows_are_never_stale_by_age_and_a_flag_always_is(store: Store) -> None:
    _live(store, {"vastai": timedelta(hours=1)})
    old = NOW - timedelta(days=200)
    bundled = [make_offer(provider="aws", observed_at=None), make_offer(provider="gcp", observed_at=old)]
    store.write_snapshot("snapshot", bundled, fallback=True)
    store.write_snapshot("file:/home/me/offers.csv", [make_offer(provider="mycloud", observed_at=old)])
    store.write_snapshot("lambda", [make_offer(provider="lambda", observed_at=NOW, stale=True)])
    assert _stale(store) == {"vastai": False, "aws": False, "gcp": False, "mycloud": False, "lambda": True}
    assert store.count_offers(OfferQuery(exclude_stale=True)) == 4


def test_a_snapshot_only_store_has_nothing_stale_by_age(store: Store) -> None:
    store.write_snapshot("snapshot", [make_offer(provider="aws", observed_at=None)], fallback=True)
    assert _stale(store) == {"aws": False}


def test_the_sqlite3_reader_reads_the_same_rule(tmp_path: Path) -> None:
    from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
    from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME

    url = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        _live(store, {"vastai": timedelta(hours=1), "lium": timedelta(days=3)})
    reader = open_reader(url)
    assert isinstance(reader, SqliteReader)
    try:
        assert {o.provider: o.stale for o in reader.current_offers()} == {"vastai": False, "lium": True}
        fresh = OfferQuery(exclude_stale=True)
        assert [o.provider for o in reader.offer_page(fresh)[0]] == ["vastai"]
        assert reader.count_offers(fresh) == 1 and reader.offer_totals(fresh) == (1, 1)
        rows, total = reader.offer_page_rows(OfferQuery(providers=("lium",)))  # the JSON API's rows
        assert total == 1 and bool(rows[0][OFFER_COLUMNS.index("stale")]) is True
    finally:
        reader.close()


# ---- 2. vGPU slices --------------------------------------------------------------------------------
def _vultr() -> dict[str, Offer]:
    plans = sample("vultr")["plans_fixture"]["plans"]
    metal = sample("vultr")["plans_metal_fixture"]
    with respx.mock:
        respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json={"plans": plans, "meta": {}}))
        respx.get(METAL_URL).mock(return_value=httpx.Response(200, json={**metal, "meta": {}}))
        return by_type(fetch(VultrSource()))


def test_a_vgpu_slice_is_a_share_of_one_gpu_priced_per_whole_gpu() -> None:
    slice_ = _vultr()["vcg-a100-1c-6g-4vram"]
    assert (
        slice_.fractional and slice_.gpu_memory_gb == 4 and slice_.price_usd_per_hour == pytest.approx(0.123)
    )
    assert slice_.interconnect is Interconnect.UNKNOWN  # joined to no other GPU: no NVLink match
    assert slice_.gpus_worth == pytest.approx(0.05) and slice_.slice_label == "1/20"
    assert slice_.price_usd_per_gpu_hour == pytest.approx(2.46)  # 0.123 x 80 / 4
    whole = make_offer(price_usd_per_hour=8.0, spot_price_usd_per_hour=4.0, gpu_count=4)
    assert (whole.gpus_worth, whole.slice_label, whole.price_usd_per_gpu_hour) == (4, "", 2.0)
    a10 = make_offer(accelerator="A10", gpu_memory_gb=10, fractional=True, price_usd_per_hour=0.5)
    assert a10.slice_label == "5/12" and a10.price_usd_per_gpu_hour == pytest.approx(1.2)
    unknown = make_offer(accelerator="NoSuchGPU", gpu_memory_gb=4, fractional=True, price_usd_per_hour=1.0)
    assert unknown.gpus_worth == 1 and unknown.slice_label == ""  # no card to take a share of


@respx.mock
def test_an_azure_a10_slice_is_a_sixth_of_one() -> None:
    item = dict(sample("azure")["Items_gpu_fixtures"][0])
    item.update(armSkuName="Standard_NV6ads_A10_v5", meterName="NV6ads A10 v5", retailPrice=0.454)
    respx.get(PRICES_URL).mock(
        return_value=httpx.Response(200, json={"Items": [item], "NextPageLink": None, "Count": 1})
    )
    (offer,) = fetch(AzureSource())
    assert offer.fractional and offer.slice_label == "1/6" and offer.interconnect is Interconnect.UNKNOWN
    assert offer.price_usd_per_gpu_hour == pytest.approx(0.454 * 6)


def test_a_slice_sorts_by_its_whole_gpus_worth(store: Store) -> None:
    slice_ = make_offer(provider="vultr", instance_type="slice", accelerator="A100-SXM4-80GB",
                        gpu_memory_gb=4, fractional=True, price_usd_per_hour=0.123)  # fmt: skip
    whole = replace(
        slice_, instance_type="whole", gpu_memory_gb=80, fractional=False, price_usd_per_hour=2.397
    )
    store.write_snapshot("vultr", [slice_, whole])
    by_gpu = store.current_offers(OfferQuery(sort="price_per_gpu"))
    assert [(o.instance_type, round(o.price_usd_per_gpu_hour or 0, 3)) for o in by_gpu] == [
        ("whole", 2.397),
        ("slice", 2.46),
    ]
    assert store.current_offers(OfferQuery(interconnect="nvlink")) == []  # neither states NVLink


# ---- 3. a live resale at its first party's price is one offer ---------------------------------------
def _resale(instance: str, price: float, count: int = 1) -> Offer:
    return make_offer(provider="primeintellect", instance_type=instance, region="CANADA-1",
                      accelerator="H100-PCIe", gpu_count=count, price_usd_per_hour=price,
                      observed_at=NOW)  # fmt: skip


def _own(instance: str, price: float, count: int = 1, **kw: Any) -> Offer:
    return make_offer(provider="hyperstack", instance_type=instance, region="CANADA-1",
                      accelerator="H100-PCIe", gpu_count=count, price_usd_per_hour=price, **kw)  # fmt: skip


@pytest.mark.parametrize("bundled", [True, False], ids=["bundled-first-party", "live-first-party"])
def test_a_live_resale_at_the_first_partys_price_is_listed_once(store: Store, bundled: bool) -> None:
    own = [
        _own("n3-H100x1", 1.90, observed_at=None if bundled else NOW),
        _own("n3-H100x2", 3.80, 2, observed_at=None if bundled else NOW),
        _own("n3-H100x4", 7.60, 4, observed_at=None if bundled else NOW, also_listed_by=("primeintellect",)),
    ]
    store.write_snapshot("snapshot" if bundled else "hyperstack", own, fallback=bundled)
    store.write_snapshot("primeintellect", [
        _resale("hyperstack:n3-H100x1", 1.9),  # the same box at the same price: one row
        _resale("hyperstack:n3-H100x2", 3.1, 2),  # cheaper: another route, stays
        _resale("hyperstack:n3-H100x4", 7.6, 4),  # the first party names it already: not twice
    ])  # fmt: skip
    query = OfferQuery(gpus=("H100-PCIe",))
    offers, total = store.offer_page(query)
    rows = {(o.provider, o.instance_type): o for o in offers}
    assert total == len(offers) == 4 == store.count_offers(query)
    assert ("primeintellect", "hyperstack:n3-H100x1") not in rows
    assert ("primeintellect", "hyperstack:n3-H100x4") not in rows
    assert rows[("hyperstack", "n3-H100x1")].also_listed_by == ("primeintellect",)
    assert rows[("hyperstack", "n3-H100x4")].also_listed_by == ("primeintellect",)
    assert rows[("primeintellect", "hyperstack:n3-H100x2")].price_usd_per_hour == 3.1
    assert rows[("hyperstack", "n3-H100x2")].also_listed_by == ()
    assert store.count_offers(OfferQuery(providers=("primeintellect",))) == 1


@respx.mock
def test_a_prime_intellect_row_names_the_offer_it_resells(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIME_INTELLECT_API_KEY", "key")
    item = sample("primeintellect")
    respx.get(AVAILABILITY_URL).mock(
        return_value=httpx.Response(
            200, json={"items": [item, {**item, "provider": "lambdalabs"}], "totalCount": 2}
        )
    )
    offers = fetch(PrimeIntellectSource())
    assert [o.extra["resale_of"] for o in offers] == ["hyperstack/n3-H100x1", "lambda/n3-H100x1"]
    assert "resale of hyperstack n3-H100x1" in offers[0].notes
    assert "resold from lambdalabs (resale of lambda n3-H100x1)" in offers[1].notes


# ---- 4. a provider that shut down ------------------------------------------------------------------
def test_a_provider_that_shut_down_is_said_so_with_date_and_source() -> None:
    gone = shut_down(NoOffersFrom("--provider", "Cudo", ["runpod"]))
    assert isinstance(gone, ProviderShutDown) and isinstance(gone, NoOffersFrom)
    assert (gone.field, gone.name, gone.suggestions) == ("--provider", "Cudo", [])
    assert str(gone) == (
        "--provider: Cudo Compute shut down on 2026-03-31 (https://github.com/dstackai/dstack/pull/4018); "
        "its offers are no longer listed"
    )
    typo = NoOffersFrom("--provider", "lamdba", ["lambda"])
    assert shut_down(typo) is typo
