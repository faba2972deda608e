"""Filter, sort and scope building: plain functions of a query and the table, checked without a database."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import sqlite

from gpuscout.catalog import schema as t
from gpuscout.catalog.query import (
    SORT_KEYS,
    OfferQuery,
    conditions,
    current_scope,
    order_by,
    superseded_providers,
)
from gpuscout.errors import InvalidInputError


def sql(clause: sa.ClauseElement) -> str:
    return str(clause.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))


def test_no_filter_no_condition() -> None:
    assert conditions(OfferQuery(), t.offers) == []


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
    terms = [sql(c) for c in conditions(query, t.offers)]
    assert len(terms) == 11
    assert "offers.provider IN ('AWS', 'aws')" in terms  # the given spelling and the canonical one
    assert "offers.spot_price_usd_per_hour <= 30" in terms  # max price on the spot price with spot=True
    assert "offers.interconnect = 'nvlink'" in terms
    region = next(x for x in terms if "region" in x)
    assert "lower(offers.region)" in region and "CAST(offers.regions AS TEXT)" in region


def test_unknown_interconnect_and_sort_name_the_field() -> None:
    with pytest.raises(InvalidInputError, match="interconnect"):
        conditions(OfferQuery(interconnect="infiniband"), t.offers)
    with pytest.raises(InvalidInputError, match=r"sort.*price_per_gpu"):
        order_by(OfferQuery(sort="cheap"), t.offers)


@pytest.mark.parametrize("sort", SORT_KEYS)
def test_every_sort_puts_unknown_last_and_breaks_ties_stably(sort: str) -> None:
    for descending in (False, True):
        terms = [sql(x) for x in order_by(OfferQuery(sort=sort, descending=descending), t.offers)]
        assert terms[0].endswith("NULLS LAST")
        assert terms[1:] == ["offers.price_usd_per_gpu_hour ASC NULLS LAST", "offers.id ASC"]


@pytest.mark.parametrize(
    ("sort", "spot", "first"),
    [
        ("price", False, "offers.price_usd_per_hour ASC"),
        ("price", True, "offers.spot_price_usd_per_hour ASC"),
        ("on_demand_price", True, "offers.price_usd_per_hour ASC"),
        ("bandwidth_per_dollar", False, "offers.bandwidth_per_usd DESC"),
        ("tflops_per_dollar", True, "offers.spot_tflops_per_usd DESC"),
        ("gpu_memory", False, "offers.gpu_memory_gb DESC"),
        ("age", False, "offers.observed_at DESC"),
        ("instance_type", False, "lower(offers.instance_type) ASC"),
    ],
)
def test_sort_keys_read_the_right_column_best_first(sort: str, spot: bool, first: str) -> None:
    assert sql(order_by(OfferQuery(sort=sort, spot=spot), t.offers)[0]).startswith(first)
    flipped = sql(order_by(OfferQuery(sort=sort, spot=spot, descending=True), t.offers)[0])
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
        _snap(9, "snapshot", "", True),
    ]
    scope = sql(current_scope(current, t.offers))
    assert "offers.snapshot_id IN (1)" in scope
    assert "offers.snapshot_id = 2 AND (offers.provider NOT IN ('azure'))" in scope
    assert "offers.snapshot_id IN (9) AND (offers.provider NOT IN ('azure', 'oci'))" in scope
    everything = sql(current_scope(current, t.offers, include_superseded=True))
    # defunct providers' offers are never current (knowledge providers.yaml: Cudo)
    assert everything == (
        "(offers.snapshot_id IN (1, 2) OR offers.snapshot_id IN (9)) AND (offers.provider NOT IN ('cudo'))"
    )
    assert sql(current_scope([], t.offers)) in ("0", "0 = 1", "false")  # nothing is current


@pytest.mark.parametrize("field", ["providers", "regions", "gpus", "interconnect", "sort"])
def test_a_nul_character_in_a_text_filter_names_the_field(field: str) -> None:
    value: object = "a\x00b" if field in ("interconnect", "sort") else ("ok", "a\x00b")
    with pytest.raises(InvalidInputError, match=f"^{field}: contains a NUL"):
        OfferQuery(**{field: value})  # type: ignore[arg-type]
