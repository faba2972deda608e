"""The validation gate: row rules, duplicates, and snapshot-level rejection."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.catalog.validate import (
    MAX_INVALID_FRACTION,
    collapse_duplicates,
    price_band,
    row_problem,
    validate_offers,
)
from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu
from tests.catalog.helpers import make_offer, many_offers

ACCS = {a.name: a for a in all_accelerators()}


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"provider": ""}, "missing provider"),
        ({"instance_type": " "}, "missing instance_type"),
        ({"region": ""}, "missing region"),
        ({"source": ""}, "missing source"),
        ({"gpu_count": 0}, "gpu_count"),
        ({"accelerator": "H100"}, "unknown accelerator"),
        ({"gpu_memory_gb": 0.0}, "gpu_memory_gb"),
        ({"gpu_memory_gb": 40.0}, "inconsistent"),  # an 80 GB part listed with 40 GB
        ({"gpu_memory_gb": 94.0}, "inconsistent"),  # H100 NVL memory on an H100 SXM
        ({"gpu_memory_gb": 0.078}, "inconsistent"),  # 80 "MiB" read as GB
        ({"price_usd_per_hour": None}, "no price"),
        ({"price_usd_per_hour": 0.0}, "not a positive number"),
        ({"price_usd_per_hour": -2.0}, "not a positive number"),
        ({"price_usd_per_hour": math.nan}, "not a positive number"),
        ({"price_usd_per_hour": 250.0}, "outside the plausible band"),  # cents read as dollars
        ({"price_usd_per_hour": 1800.0}, "outside the plausible band"),  # per month read as per hour
        ({"price_usd_per_hour": 0.01}, "outside the plausible band"),
        ({"spot_price_usd_per_hour": 0.0001}, "spot_price_usd_per_hour"),
    ],
)
def test_row_rules(changes: dict[str, object], reason: str) -> None:
    problem = row_problem(make_offer(**changes), ACCS)
    assert problem is not None and reason in problem


def test_valid_rows_pass() -> None:
    assert row_problem(make_offer(), ACCS) is None
    assert row_problem(make_offer(price_usd_per_hour=None, spot_price_usd_per_hour=1.0), ACCS) is None
    # a fractional slice may have less memory than the card, and is priced on its memory
    half = make_offer(gpu_memory_gb=40.0, fractional=True, price_usd_per_hour=1.0)
    assert row_problem(half, ACCS) is None
    assert row_problem(make_offer(gpu_memory_gb=100.0, fractional=True), ACCS) is not None


def test_price_band_scales_with_memory() -> None:
    t4_low, t4_high = price_band(resolve_gpu("T4"))
    b200_low, b200_high = price_band(resolve_gpu("B200"))
    assert t4_low < 0.11 < t4_high < b200_high  # a Vast V100/T4-class deal at 0.11 is plausible
    assert b200_low < 4.4 < b200_high


def test_bundled_prices_all_fall_in_band() -> None:
    from gpuscout.catalog.sources.snapshot import SnapshotSource

    offers = SnapshotSource().offers()
    bad = [(o.provider, o.instance_type, row_problem(o, ACCS)) for o in offers if row_problem(o, ACCS)]
    assert bad == []


def test_empty_answer_is_rejected() -> None:
    report = validate_offers("s", [], accelerators=ACCS)
    assert report.status == "rejected" and "empty" in (report.reason or "")


def test_all_invalid_is_rejected() -> None:
    report = validate_offers("s", [make_offer(price_usd_per_hour=99999.0)] * 3, accelerators=ACCS)
    assert report.status == "rejected" and "all 3 rows invalid" in (report.reason or "")
    assert report.offers == []


def test_partial_bad_rows_are_dropped_up_to_the_limit() -> None:
    good = many_offers(9)
    bad = [make_offer(instance_type="bad", price_usd_per_hour=-1.0)]
    report = validate_offers("s", good + bad, accelerators=ACCS)
    assert report.ok and len(report.offers) == 9 and report.invalid == 1
    assert "dropped 1 invalid row:" in (report.reason or "")
    n_bad = int(10 * MAX_INVALID_FRACTION) + 1
    report = validate_offers("s", many_offers(10 - n_bad) + bad * n_bad, accelerators=ACCS)
    assert report.status == "rejected" and "rows invalid" in (report.reason or "")


def test_count_drop_below_half_of_last_good_is_rejected() -> None:
    assert validate_offers("s", many_offers(50), last_good_count=100, accelerators=ACCS).ok
    report = validate_offers("s", many_offers(49), last_good_count=100, accelerators=ACCS)
    assert report.status == "rejected" and "dropped to 49 from 100" in (report.reason or "")


def test_duplicates_keep_cheapest_then_most_recent() -> None:
    early, late = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    offers = [
        make_offer(price_usd_per_hour=3.0, observed_at=late),
        make_offer(price_usd_per_hour=2.0, observed_at=early),
        make_offer(instance_type="other", price_usd_per_hour=4.0, observed_at=early),
        make_offer(instance_type="other", price_usd_per_hour=4.0, observed_at=late, notes="newer"),
        make_offer(instance_type="nop", price_usd_per_hour=None, spot_price_usd_per_hour=1.0),
        make_offer(instance_type="nop", price_usd_per_hour=5.0),
    ]
    kept, removed = collapse_duplicates(offers)
    assert removed == 3
    by_type = {o.instance_type: o for o in kept}
    assert by_type["1xH100"].price_usd_per_hour == 2.0
    assert by_type["other"].notes == "newer"
    assert by_type["nop"].price_usd_per_hour == 5.0
    report = validate_offers("s", offers, accelerators=ACCS)
    assert report.duplicates == 3 and len(report.offers) == 3


# ---- rows the adapter dropped itself count at the gate (the audit's defect 11) ----------------


def test_four_of_ten_rows_dropped_by_the_adapter_reject_the_snapshot() -> None:
    report = validate_offers(
        "s", many_offers(6), accelerators=ACCS, adapter_drops={"no positive price": 4}, rows_seen=10
    )
    assert report.status == "rejected" and report.offers == []
    assert report.reason == "4 invalid (40% of 10 feed rows, more than 20%): 4x no positive price"
    assert report.dropped == 4 and report.drop_reasons == {"no positive price": 4}


def test_a_few_adapter_drops_are_stored_with_their_reasons() -> None:
    drops = {"no positive price": 1, "unknown GPU": 1}
    report = validate_offers("s", many_offers(18), accelerators=ACCS, adapter_drops=drops, rows_seen=20)
    assert report.ok and len(report.offers) == 18 and report.dropped == 2
    assert report.reason == "dropped 2 invalid rows: 1x no positive price; 1x unknown GPU"


def test_adapter_and_gate_drops_add_up() -> None:
    # 1 of 10 feed rows dropped by the adapter (10%), then 2 of the 9 offers by the gate (22%):
    # 1 - 0.9 * 0.78 = 30% of the feed is lost
    bad = [make_offer(instance_type=f"bad{i}", price_usd_per_hour=-1.0) for i in range(2)]
    report = validate_offers(
        "s", many_offers(7) + bad, accelerators=ACCS, adapter_drops={"unknown GPU": 1}, rows_seen=10
    )
    assert report.status == "rejected" and report.dropped == 3
    assert report.drop_reasons == {"unknown GPU": 1, "price_usd_per_hour not a positive number": 2}


def test_the_share_is_of_feed_rows_when_a_row_gives_several_offers() -> None:
    # 2 of 10 feed rows dropped (20%, not more than the limit); the 8 good rows gave 3 offers each
    offers = [make_offer(instance_type=f"t{i}", region=f"r{j}") for i in range(8) for j in range(3)]
    report = validate_offers("s", offers, accelerators=ACCS, adapter_drops={"x": 2}, rows_seen=10)
    assert report.ok
    report = validate_offers("s", offers, accelerators=ACCS, adapter_drops={"x": 3}, rows_seen=11)
    assert report.status == "rejected"  # 3 of 11 = 27%


def test_every_row_dropped_by_the_adapter_is_not_called_an_empty_answer() -> None:
    report = validate_offers("s", [], accelerators=ACCS, adapter_drops={"unknown GPU": 3}, rows_seen=3)
    assert report.status == "rejected" and report.reason == "all 3 rows invalid: 3x unknown GPU"


_FIELDS = {
    "provider": st.sampled_from(["aws", "", " ", None]),
    "instance_type": st.sampled_from(["p5", "\t", ""]),
    "region": st.sampled_from(["us-east-1", " "]),
    "source": st.sampled_from(["file:x.csv", ""]),
    "accelerator": st.sampled_from(["H100-SXM", "T4", "A100-PCIe-40GB", "no-such-gpu"]),
    "gpu_count": st.sampled_from([1, 8, 0, -1, True, 2.0]),
    "gpu_memory_gb": st.sampled_from(
        [80.0, 16, 40.0, 73.0, 87.0, 100.0, 0.0, -1.0, math.nan, math.inf, True]
    ),
    "fractional": st.booleans(),
    "price_usd_per_hour": st.sampled_from([None, 2.5, 20, 0.0, -1.0, 0.05, 500.0, math.nan, math.inf, True]),
    "spot_price_usd_per_hour": st.sampled_from([None, 1.0, 0.001, 0.0, 300.0, math.nan]),
}


@settings(max_examples=500, deadline=None)
@given(st.fixed_dictionaries({}, optional=_FIELDS))
def test_the_plain_row_checks_agree_with_the_named_rules(changes: dict[str, object]) -> None:
    """The checks written out for plain valid rows answer what the rule-by-rule checks answer."""
    from gpuscout.catalog.validate import _row_problem_named

    offer = make_offer(**changes)
    assert row_problem(offer, ACCS) == _row_problem_named(offer, ACCS)
