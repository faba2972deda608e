"""Filter, sort and scope building: plain functions of a query giving SQL text, checked without a database."""

from __future__ import annotations

import re
import sqlite3
from types import SimpleNamespace

import pytest

from gpuscout.catalog.query import (
    SORT_KEYS,
    OfferQuery,
    Params,
    conditions,
    current_scope,
    offers_sql,
    order_by,
    superseded_providers,
)
from gpuscout.errors import InvalidInputError


def literal(text: str, params: Params) -> str:
    """``text`` with its placeholders replaced by the values (for reading the SQL in assertions)."""

    def value(hit: re.Match[str]) -> str:
        v = params.values[hit.group(1)]
        return repr(v) if isinstance(v, str) else str(v)

    return re.sub(r":(p\d+)", value, text)


def where(query: OfferQuery) -> list[str]:
    params = Params()
    return [literal(term, params) for term in conditions(query, params)]


def scope(current: list[SimpleNamespace], *, include_superseded: bool = False) -> str:
    params = Params()
    return literal(current_scope(current, params, include_superseded=include_superseded), params)


def test_no_filter_no_condition() -> None:
    assert where(OfferQuery()) == []


def test_each_filter_is_one_condition() -> None:
    query = OfferQuery(
        gpus=("H100-SXM",),
        min_vram_gb=40,
        min_total_vram_gb=160,
        gpu_count=8,
        providers=("AWS",),
        regions=("us-",),
        spot=True,
        available_only=True,
        interconnect="NVLink",
        max_price_usd_per_hour=30,
        exclude_stale=True,
    )
    terms = where(query)
    assert len(terms) == 11
    assert "provider IN ('AWS', 'aws')" in terms  # the given spelling and the canonical one
    assert "spot_price_usd_per_hour <= 30" in terms  # max price on the spot price with spot=True
    assert "interconnect = 'nvlink'" in terms
    region = next(x for x in terms if "region" in x)
    # whole words, countries and areas (knowledge.regions), matched against the snapshot's region names
    assert "region IN (SELECT name FROM region_names_0)" in region


def test_unknown_interconnect_and_sort_name_the_field() -> None:
    with pytest.raises(InvalidInputError, match="interconnect"):
        conditions(OfferQuery(interconnect="infiniband"), Params())
    with pytest.raises(InvalidInputError, match=r"sort.*price_per_gpu"):
        order_by(OfferQuery(sort="cheap"))


@pytest.mark.parametrize("sort", SORT_KEYS)
def test_every_sort_puts_unknown_last_and_breaks_ties_stably(sort: str) -> None:
    for descending in (False, True):
        terms = order_by(OfferQuery(sort=sort, descending=descending))
        assert terms[0].endswith("NULLS LAST")
        assert terms[1:] == ["price_usd_per_gpu_hour ASC NULLS LAST", "id ASC"]


@pytest.mark.parametrize(
    ("sort", "spot", "first"),
    [
        ("price", False, "price_usd_per_hour ASC"),
        ("price", True, "spot_price_usd_per_hour ASC"),
        ("on_demand_price", True, "price_usd_per_hour ASC"),
        ("bandwidth_per_dollar", False, "bandwidth_per_usd DESC"),
        ("tflops_per_dollar", True, "spot_tflops_per_usd DESC"),
        ("gpu_memory", False, "gpu_memory_gb DESC"),
        ("age", False, "observed_at DESC"),
        ("instance_type", False, "lower(instance_type) ASC"),
    ],
)
def test_sort_keys_read_the_right_column_best_first(sort: str, spot: bool, first: str) -> None:
    assert order_by(OfferQuery(sort=sort, spot=spot))[0].startswith(first)
    flipped = order_by(OfferQuery(sort=sort, spot=spot, descending=True))[0]
    assert flipped.startswith(first.replace("ASC", "?").replace("DESC", "ASC").replace("?", "DESC"))


def _snap(id_: int, source: str, providers: str, fallback: bool = False) -> SimpleNamespace:
    return SimpleNamespace(id=id_, source=source, providers=providers, fallback=fallback)


def test_a_direct_api_supersedes_gpuhunt_but_a_file_neither_hides_nor_is_hidden() -> None:
    live = [
        _snap(1, "azure", "azure"),
        _snap(2, "gpuhunt:azure", "azure,oci"),
        _snap(3, "file:x.csv", "azure"),
    ]
    assert superseded_providers(live) == {2: ["azure"]}


def test_scope_of_current_snapshots() -> None:
    current = [
        _snap(1, "azure", "azure"),
        _snap(2, "gpuhunt:azure", "azure,oci"),
        _snap(9, "snapshot", "aws,azure,cudo,oci", True),
    ]
    # every current snapshot in one list (an index led by snapshot_id is searched for it), then the
    # rows left out: gpuhunt's Azure (Azure's API is current) and the bundled rows of live providers;
    # defunct providers' offers are never current (knowledge providers.yaml: Cudo)
    assert scope(current) == (
        "snapshot_id IN (1, 2, 9) AND NOT ((snapshot_id = 2 AND provider IN ('azure')) OR "
        "(snapshot_id IN (9) AND provider IN ('azure', 'oci'))) AND provider NOT IN ('cudo')"
    )
    everything = scope(current, include_superseded=True)
    assert everything == "snapshot_id IN (1, 2, 9) AND provider NOT IN ('cudo')"
    assert scope([]) == "1 = 0"  # nothing is current
    # a provider condition that cannot remove a row (no snapshot has those providers) is not written
    assert (
        scope([_snap(1, "azure", "azure"), _snap(9, "snapshot", "lambda", True)]) == "snapshot_id IN (1, 9)"
    )
    # no index is searched for the scope of a page (SQLite): a page reads the sort's index
    params = Params()
    unsearched = literal(current_scope(current, params, include_superseded=True, seek=False), params)
    assert unsearched == "+snapshot_id IN (1, 2, 9) AND provider NOT IN ('cudo')"


def test_region_text_is_matched_literally() -> None:
    """LIKE wildcards a user types are plain characters (``_`` and ``%`` match only themselves)."""
    db = sqlite3.connect(":memory:")
    rows = [("us_east%1", "[]"), ("usXeastY1", "[]"), ("US_EAST%-2", "[]"), ("x", '["eu-1", "us_EAST%-9"]')]
    db.execute("CREATE TABLE offers (snapshot_id INT, region TEXT, regions JSON)")
    db.executemany("INSERT INTO offers VALUES (1, ?, ?)", rows)
    params = Params()
    term = conditions(OfferQuery(regions=("us_east%",)), params, dialect="sqlite")[0]
    sql = f"{params.with_clause()}SELECT region FROM offers WHERE {term}"
    found = [r[0] for r in db.execute(sql, params.values)]
    assert found == ["us_east%1", "US_EAST%-2", "x"]


def test_offset_without_limit_reads_every_following_row_on_sqlite() -> None:
    text, values = offers_sql(OfferQuery(offset=5), [_snap(1, "a", "a")], ["id"], dialect="sqlite")
    assert " LIMIT -1 OFFSET :" in text and 5 in values.values()
    text, _ = offers_sql(OfferQuery(offset=5), [_snap(1, "a", "a")], ["id"], dialect="postgresql")
    assert "LIMIT" not in text


@pytest.mark.parametrize("field", ["providers", "regions", "gpus", "interconnect", "sort"])
def test_a_nul_character_in_a_text_filter_names_the_field(field: str) -> None:
    value: object = "a\x00b" if field in ("interconnect", "sort") else ("ok", "a\x00b")
    with pytest.raises(InvalidInputError, match=f"^{field}: contains a NUL"):
        OfferQuery(**{field: value})  # type: ignore[arg-type]
