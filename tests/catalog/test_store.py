"""Store behaviour on SQLite and PostgreSQL: round trip, current = latest good, filters, sorts."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gpuscout.catalog import schema
from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.store import Store, format_age
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.catalog.helpers import STORE_KINDS, make_offer, many_offers, temp_store


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with temp_store(request.param, tmp_path) as s:
        yield s


def test_offer_round_trips_field_by_field(store: Store) -> None:
    offer = make_offer(
        zone="us-east-1a",
        vcpus=26.0,
        ram_gb=225.0,
        disk_gb=512.0,
        interconnect=Interconnect.NVLINK,
        internode="infiniband",
        availability=Availability.LIMITED,
        available_count=3,
        billing_terms="testcloud",
        stale=True,
        fractional=False,
        storage_usd_per_gb_month=0.1,
        egress_usd_per_gb=0.05,
        secure=True,
        spot_price_usd_per_hour=1.25,
        notes="a note",
        extra={"k": "v"},
    )
    store.write_snapshot("src-a", [offer])
    [back] = store.current_offers()
    assert back == offer
    assert back.extra == {"k": "v"}
    assert back.observed_at == offer.observed_at and back.observed_at is not None
    assert back.observed_at.tzinfo is not None
    assert back.interconnect is Interconnect.NVLINK and back.availability is Availability.LIMITED


def test_unknown_observed_time_stays_unknown(store: Store) -> None:
    store.write_snapshot("src-a", [make_offer(observed_at=None)])
    [back] = store.current_offers()
    assert back.observed_at is None
    [status] = store.sources_status()
    assert status.data_observed_at is None and status.age_s is None and status.age_text == "unknown"


def test_current_is_latest_good_snapshot_and_history_is_kept(store: Store) -> None:
    store.write_snapshot("src-a", many_offers(3))
    second = store.write_snapshot("src-a", many_offers(5))
    store.record_attempt("src-a", "failed", error="HTTP 500")
    assert store.count_offers() == 5
    assert store.last_good_row_count("src-a") == 5
    [status] = store.sources_status()
    assert status.current_snapshot_id == second.snapshot_id
    assert status.last_status == "failed" and status.last_error == "HTTP 500"
    assert status.row_count == 5
    assert len(store.snapshots("src-a")) == 3


def test_sources_are_independent(store: Store) -> None:
    store.write_snapshot("a", many_offers(2, provider="pa"))
    store.write_snapshot("b", many_offers(3, provider="pb"))
    store.write_snapshot("a", many_offers(4, provider="pa"))
    assert store.count_offers() == 7
    assert store.count_offers(OfferQuery(providers=("pb",))) == 3


def test_record_attempt_rejects_ok_status(store: Store) -> None:
    with pytest.raises(InvalidInputError):
        store.record_attempt("a", "ok")


def _corpus() -> list:  # type: ignore[type-arg]
    return [
        make_offer(
            instance_type="h100x8",
            accelerator="H100-SXM",
            gpu_count=8,
            price_usd_per_hour=20.0,
            spot_price_usd_per_hour=8.0,
            interconnect=Interconnect.NVLINK,
            region="us-east-1",
        ),
        make_offer(
            instance_type="h100pcie",
            accelerator="H100-PCIe",
            price_usd_per_hour=2.0,
            region="eu-west-1",
            interconnect=Interconnect.PCIE,
            availability=Availability.UNAVAILABLE,
        ),
        make_offer(
            instance_type="a100-40",
            accelerator="A100-SXM4-40GB",
            gpu_memory_gb=40.0,
            price_usd_per_hour=1.2,
            provider="other",
            region="EU-central",
            stale=True,
        ),
        make_offer(
            instance_type="4090",
            accelerator="RTX4090",
            gpu_memory_gb=24.0,
            price_usd_per_hour=0.4,
            spot_price_usd_per_hour=0.2,
            provider="other",
            region="us_west%",
        ),
        make_offer(
            instance_type="b200x2",
            accelerator="B200",
            gpu_memory_gb=180.0,
            gpu_count=2,
            price_usd_per_hour=11.0,
        ),
    ]


def _names(offers) -> list[str]:  # type: ignore[no-untyped-def]
    return [o.instance_type for o in offers]


def test_filters(store: Store) -> None:
    store.write_snapshot("s", _corpus())
    q = OfferQuery
    assert set(_names(store.current_offers(q(gpus=("H100-SXM", "H100-PCIe"))))) == {"h100x8", "h100pcie"}
    assert set(_names(store.current_offers(q(min_vram_gb=80)))) == {"h100x8", "h100pcie", "b200x2"}
    assert set(_names(store.current_offers(q(min_total_vram_gb=300)))) == {"h100x8", "b200x2"}
    assert _names(store.current_offers(q(gpu_count=2))) == ["b200x2"]
    assert set(_names(store.current_offers(q(providers=("OTHER",))))) == {"a100-40", "4090"}
    assert set(_names(store.current_offers(q(regions=("eu",))))) == {"h100pcie", "a100-40"}
    assert _names(store.current_offers(q(regions=("_west%",)))) == ["4090"]  # LIKE characters are literal
    assert set(_names(store.current_offers(q(spot=True)))) == {"h100x8", "4090"}
    assert "h100pcie" not in _names(store.current_offers(q(available_only=True)))
    assert _names(store.current_offers(q(interconnect="nvlink"))) == ["h100x8"]
    assert set(_names(store.current_offers(q(max_price_usd_per_hour=2.0)))) == {"h100pcie", "a100-40", "4090"}
    assert set(_names(store.current_offers(q(spot=True, max_price_usd_per_hour=1.0)))) == {"4090"}
    assert "a100-40" not in _names(store.current_offers(q(exclude_stale=True)))
    assert store.count_offers(q(providers=("other",), limit=1)) == 2
    with pytest.raises(InvalidInputError, match="interconnect"):
        store.current_offers(q(interconnect="infiniband"))


def _spec_value(offer, attr: str) -> float:  # type: ignore[no-untyped-def]
    acc = resolve_gpu(offer.accelerator)
    return float(getattr(acc, attr)) / offer.price_usd_per_gpu_hour


@pytest.mark.parametrize(
    ("sort", "key", "reverse"),
    [
        ("price", lambda o: o.price_usd_per_hour, False),
        ("price_per_gpu", lambda o: o.price_usd_per_gpu_hour, False),
        ("price_per_gb_vram", lambda o: o.price_usd_per_hour / o.total_memory_gb, False),
        ("bandwidth_per_dollar", lambda o: _spec_value(o, "bandwidth_gbps"), True),
        ("tflops_per_dollar", lambda o: _spec_value(o, "bf16_tflops"), True),
        # ties (two 80 GB offers) are broken by the per-GPU price, cheapest first
        ("gpu_memory", lambda o: (-o.gpu_memory_gb, o.price_usd_per_gpu_hour), False),
    ],
)
def test_sorts_match_python(store: Store, sort: str, key, reverse: bool) -> None:  # type: ignore[no-untyped-def]
    corpus = _corpus()
    store.write_snapshot("s", corpus)
    expected = [o.instance_type for o in sorted(corpus, key=key, reverse=reverse)]
    assert _names(store.current_offers(OfferQuery(sort=sort))) == expected
    if sort != "gpu_memory":
        assert _names(store.current_offers(OfferQuery(sort=sort, descending=True))) == expected[::-1]


def _view_corpus() -> list:  # type: ignore[type-arg]
    """Offers for the comparison-table sorts: mixed-case names and sources, every availability,
    unknown interconnects, and a tie on total memory (80 GB twice)."""
    nv, pcie, unk = Interconnect.NVLINK, Interconnect.PCIE, Interconnect.UNKNOWN
    av = Availability
    rows = [  # instance, GPUs, GB/GPU, fabric, availability, source, $/h, spot $/h
        ("Zeta-1", 4, 80.0, nv, av.AVAILABLE, "b-feed:x", 10.0, 4.0),
        ("alpha-2", 1, 80.0, pcie, av.LIMITED, "A-feed:x", 3.0, 2.5),
        ("Beta-3", 2, 40.0, unk, av.UNAVAILABLE, "c-feed:x", 4.0, None),
        ("gamma-4", 1, 24.0, unk, av.UNKNOWN, "a-feed:y", 0.5, None),
        ("delta-5", 8, 24.0, pcie, av.AVAILABLE, "B-feed:z", 8.0, 2.0),
    ]
    part = {80.0: "H100-SXM", 40.0: "A100-SXM4-40GB", 24.0: "RTX4090"}
    return [
        make_offer(
            instance_type=i,
            accelerator=part[m],
            gpu_count=n,
            gpu_memory_gb=m,
            interconnect=f,
            availability=a,
            source=src,
            price_usd_per_hour=p,
            spot_price_usd_per_hour=sp,
        )
        for i, n, m, f, a, src, p, sp in rows
    ]


_AVAILABILITY_RANK = {"available": 0, "limited": 1, "unknown": 2, "unavailable": 3}


@pytest.mark.parametrize(
    ("sort", "key", "best_high"),
    [
        ("total_vram", lambda o: o.total_memory_gb, True),
        ("instance_type", lambda o: o.instance_type.lower(), False),
        ("interconnect", lambda o: {"nvlink": 0, "pcie": 1}.get(o.interconnect.value), False),
        ("availability", lambda o: _AVAILABILITY_RANK[o.availability.value], False),
        ("source", lambda o: o.source.lower(), False),
        ("on_demand_price", lambda o: o.price_usd_per_hour, False),
        ("on_demand_price_per_gpu", lambda o: o.price_usd_per_gpu_hour, False),
    ],
)
@pytest.mark.parametrize("descending", [False, True])
def test_view_sorts_match_python_with_unknown_last_and_stable_ties(
    store: Store,
    sort: str,
    key,
    best_high: bool,
    descending: bool,  # type: ignore[no-untyped-def]
) -> None:
    corpus = _view_corpus()
    store.write_snapshot("s", corpus)
    known = [(k, o) for k, o in enumerate(corpus) if key(o) is not None]
    unknown = [(k, o) for k, o in enumerate(corpus) if key(o) is None]
    # ties: cheapest per GPU first, then the stored order
    known.sort(key=lambda ko: (ko[1].price_usd_per_gpu_hour, ko[0]))
    known.sort(key=lambda ko: key(ko[1]), reverse=best_high != descending)
    unknown.sort(key=lambda ko: (ko[1].price_usd_per_gpu_hour, ko[0]))
    expected = [o.instance_type for _, o in known + unknown]
    assert _names(store.current_offers(OfferQuery(sort=sort, descending=descending))) == expected
    # pages of two rows put together give the same order
    paged = [
        n
        for off in (0, 2, 4)
        for n in _names(
            store.current_offers(OfferQuery(sort=sort, descending=descending, limit=2, offset=off))
        )
    ]
    assert paged == expected


def test_on_demand_sorts_ignore_the_spot_filter(store: Store) -> None:
    store.write_snapshot("s", _view_corpus())
    by_spot = ["delta-5", "alpha-2", "Zeta-1"]
    assert _names(store.current_offers(OfferQuery(spot=True, sort="price"))) == by_spot
    assert _names(store.current_offers(OfferQuery(spot=True, sort="on_demand_price"))) == [
        "alpha-2",
        "delta-5",
        "Zeta-1",
    ]


def test_spot_sort_uses_spot_price(store: Store) -> None:
    store.write_snapshot("s", _corpus())
    assert _names(store.current_offers(OfferQuery(spot=True, sort="price_per_gpu"))) == ["4090", "h100x8"]


def test_limit_offset_and_bad_sort(store: Store) -> None:
    store.write_snapshot("s", _corpus())
    all_names = _names(store.current_offers(OfferQuery(sort="price")))
    assert _names(store.current_offers(OfferQuery(sort="price", limit=2, offset=1))) == all_names[1:3]
    with pytest.raises(InvalidInputError, match="sort"):
        store.current_offers(OfferQuery(sort="cheapest"))


def test_bundled_rows_are_hidden_where_a_live_source_covers_the_provider(store: Store) -> None:
    store.write_snapshot(
        "snapshot",
        [make_offer(provider="p1", observed_at=None), make_offer(provider="p2", observed_at=None)],
        fallback=True,
    )
    assert store.count_offers() == 2
    store.write_snapshot("live-p1", [make_offer(provider="p1", instance_type="live")])
    assert sorted((o.provider, o.instance_type) for o in store.current_offers()) == [
        ("p1", "live"),
        ("p2", "1xH100"),
    ]
    assert store.count_offers() == 2
    assert store.count_offers(include_superseded=True) == 3


def test_a_direct_api_supersedes_gpuhunt_for_the_same_provider_but_not_a_users_file(store: Store) -> None:
    store.write_snapshot(
        "gpuhunt:azure",
        [
            make_offer(provider="azure", instance_type="via-gpuhunt"),
            make_offer(provider="oci", instance_type="oci-via-gpuhunt"),
        ],
    )
    store.write_snapshot("azure", [make_offer(provider="azure", instance_type="via-api")])
    store.write_snapshot("file:/tmp/mine.csv", [make_offer(provider="azure", instance_type="my-contract")])
    assert sorted(o.instance_type for o in store.current_offers()) == [
        "my-contract",
        "oci-via-gpuhunt",
        "via-api",
    ]
    assert store.count_offers() == 3
    assert store.count_offers(include_superseded=True) == 4


def test_sources_status_reports_credentials(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.catalog.helpers import FakeSource

    store.write_snapshot("a", many_offers(2))
    sources = {"a": FakeSource("a", needs=("A_KEY",)), "never": FakeSource("never")}
    monkeypatch.setenv("A_KEY", "x")
    by_name = {s.source: s for s in store.sources_status(sources)}
    assert by_name["a"].credentials_present is True and by_name["a"].needs_credentials == ("A_KEY",)
    assert by_name["a"].age_s is not None and by_name["a"].age_s > 0
    assert by_name["never"].last_status is None and by_name["never"].current_snapshot_id is None
    monkeypatch.delenv("A_KEY")
    assert {s.source: s for s in store.sources_status(sources)}["a"].credentials_present is False


def test_prune_keeps_current_snapshot(store: Store) -> None:
    old = datetime.now(UTC) - timedelta(days=40)
    store.write_snapshot("a", many_offers(2), started_at=old)
    store.write_snapshot("b", many_offers(2, provider="pb"), started_at=old)
    store.write_snapshot("a", many_offers(3))
    assert store.prune(30) == 1  # a's old snapshot; b's old one is still current
    assert store.count_offers() == 5
    assert len(store.snapshots()) == 2
    with pytest.raises(InvalidInputError):
        store.prune(-1)


def test_price_history_min_and_median(store: Store) -> None:
    t1 = datetime(2026, 10, 1, tzinfo=UTC)
    t2 = datetime(2026, 11, 1, tzinfo=UTC)
    prices1 = [2.0, 3.0, 10.0]
    prices2 = [1.5, 2.5]
    store.write_snapshot(
        "a",
        [
            make_offer(instance_type=f"x{i}", price_usd_per_hour=p, observed_at=t1)
            for i, p in enumerate(prices1)
        ],
    )
    store.write_snapshot(
        "a",
        [
            make_offer(instance_type=f"y{i}", price_usd_per_hour=2 * p, gpu_count=2, observed_at=t2)
            for i, p in enumerate(prices2)
        ],
    )
    points = store.price_history("H100-SXM")
    assert [p.at for p in points] == [t1, t2]
    assert points[0].min_usd_per_gpu_hour == 2.0 and points[0].median_usd_per_gpu_hour == 3.0
    assert points[1].min_usd_per_gpu_hour == 1.5
    assert points[1].median_usd_per_gpu_hour == pytest.approx(statistics.median(prices2))
    assert store.price_history("H100-SXM", provider="nobody") == []
    assert store.price_history("A100-SXM4-40GB") == []


def test_format_age() -> None:
    assert format_age(None) == "unknown"
    assert format_age(30) == "30s"
    assert format_age(3 * 3600) == "3h"
    assert format_age(5 * 86400) == "5d"


def test_bad_url() -> None:
    with pytest.raises(InvalidInputError, match="db"):
        Store("mysql://nope/db")


def _offer_indexes(path: Path) -> list[tuple[str, str]]:
    import sqlite3

    with sqlite3.connect(path) as db:
        found = db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'offers' ORDER BY name"
        ).fetchall()
    return [(str(n), str(s)) for n, s in found]


def test_a_bulk_write_into_an_empty_store_builds_its_indexes_again(tmp_path: Path) -> None:
    """Into a table no larger than the new rows, SQLite's offers indexes are dropped and built after
    the insert (faster); the store ends with the same indexes and answers as before."""
    path = tmp_path / "bulk.sqlite3"
    with Store(f"sqlite:///{path}") as store:
        before = _offer_indexes(path)
        offers = many_offers(12_000)
        store.write_snapshot("bulk", offers)
        assert _offer_indexes(path) == before
        assert {name for name, _ in before} == {ix.name for ix in schema.offers.indexes}  # every one
        cheapest = store.current_offers(OfferQuery(sort="price", limit=5))
        expected = sorted(offers, key=lambda o: (o.price_usd_per_hour, o.price_usd_per_gpu_hour))[:5]
        assert [o.price_usd_per_hour for o in cheapest] == [o.price_usd_per_hour for o in expected]
        store.write_snapshot("bulk", offers[:6000])  # smaller than the table: indexes kept and updated
        assert _offer_indexes(path) == before
        assert store.count_offers() == 6000


def test_a_bulk_write_that_fails_half_way_keeps_the_indexes_and_the_last_good_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bulk.sqlite3"
    with Store(f"sqlite:///{path}") as store:
        store.write_snapshot("small", [make_offer()])
        before = _offer_indexes(path)
        offers = many_offers(12_000)
        broken = list(offers)
        broken[9_000] = make_offer(gpu_count=0)  # ZeroDivisionError while its row is built
        with pytest.raises(ZeroDivisionError):
            store.write_snapshot("bulk", broken)
        assert _offer_indexes(path) == before
        assert store.count_offers() == 1 and not store.has_source("bulk")
        store.write_snapshot("bulk", offers)  # the next good write stores it
        assert store.count_offers() == 12_001 and _offer_indexes(path) == before


def test_a_bulk_write_stores_the_rows_unlike_the_others_as_given(store: Store) -> None:
    """Columns holding one empty or text value in the sampled rows are written into the insert on
    SQLite; the rows that differ there (sampled or not) are stored as they are, like every other."""
    when = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    offers = many_offers(7_000, observed_at=when, notes="it's the same", extra={"line": "1"})
    odd = {
        1: {"zone": "us-east-1a"},
        2: {"notes": "a 'different' note"},
        3: {"observed_at": datetime(2026, 11, 29, tzinfo=UTC)},
        4: {"observed_at": None},
        5: {"interconnect": Interconnect.NVLINK, "regions": ("a", "b")},
        6: {"notes": "it's the same".upper().lower()},  # equal text, another object
        6_999: {"secure": True, "original_currency": "EUR"},
    }
    for k, changes in odd.items():
        offers[k] = make_offer(**{**_fields(offers[k]), **changes})
    store.write_snapshot("bulk", offers)
    back = {o.instance_type: o for o in store.current_offers(OfferQuery(limit=None))}
    assert len(back) == len(offers)
    for o in offers:
        stored = back[o.instance_type]
        assert stored == o and stored.extra == o.extra and stored.observed_at == o.observed_at


def _fields(offer: object) -> dict[str, object]:
    import dataclasses

    return {f.name: getattr(offer, f.name) for f in dataclasses.fields(offer)}  # type: ignore[arg-type]


def test_text_that_means_something_to_copy_or_sql_round_trips(store: Store) -> None:
    """Tabs, line ends, backslashes and ``\\N`` (COPY's NULL) stay text on both databases."""
    offer = make_offer(
        region="\\N",
        notes="a\tb\nc\\N\\ 'q' \"d\" é \u2028",
        zone="\\",
        internode="x\r\ny",
        extra={"k": "\\N\t", "\\": "\n"},
        regions=("x\ty", "\\N", ""),
        also_listed_by=("\\",),
    )
    many = [offer, *many_offers(30)]
    store.write_snapshot("odd", many)
    back = {o.instance_type: o for o in store.current_offers(OfferQuery(limit=None))}
    stored = back[offer.instance_type]
    assert stored == offer and stored.extra == offer.extra and stored.zone == "\\"
