"""Why an offer is stale, by the half of the catalog's rule that holds for it, and what billing rounds up
in an endpoint's month (renter review, session 49).

- ``--show-rejected`` said of every stale offer "flagged by its feed, or fetched over 2 days before the
  catalog's newest prices": a row of the bundled snapshot kept from an older catalog file is said so,
  a live row fetched over ``STALE_AFTER`` before the newest prices is said so with its fetch time.
- An endpoint up 8 h a day on a per-hour provider is billed 9 h a day: ``compute`` holds the rounding,
  and a reason says the hours billed against those active and the instance-hours that ``compute`` and
  ``warmup`` cost together, so the breakdown multiplies out from what is shown.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

import pytest

from gpuscout.advise.rank import rank
from gpuscout.advise.reasons import (
    BILLING_ROUNDING,
    STALE_AGED,
    STALE_FLAGGED,
    STALE_SNAPSHOT,
    stale_reason,
)
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.query import STALE_AFTER
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()


def test_each_half_of_the_rule_has_its_own_words_in_step_with_the_catalogs_two_days() -> None:
    assert f"over {STALE_AFTER.days} days" in STALE_AGED and STALE_AFTER.total_seconds() % 86400 == 0
    bundled = replace(offer("market", stale=True), source="snapshot:https://x/catalogs/v6/azure/vms.csv")
    assert stale_reason(bundled) == STALE_SNAPSHOT
    assert "older catalog file" in STALE_SNAPSHOT and "fetched" not in STALE_SNAPSHOT
    fetched = NOW - timedelta(days=3)
    live = replace(offer("market", stale=True), source="vastai:api", observed_at=fetched)
    assert stale_reason(live) == STALE_AGED.format(fetched=f"{fetched:%Y-%m-%d %H:%M} UTC")
    assert "older catalog file" not in stale_reason(live)
    mine = replace(offer("market", stale=True), source="file:/home/me/offers.csv", observed_at=fetched)
    assert stale_reason(mine) == STALE_FLAGGED


def test_a_left_out_and_a_shown_stale_offer_say_the_reason_that_holds() -> None:
    w = ServeWorkload(model="small", concurrency=4)
    old = NOW - timedelta(days=3)
    offers = [
        offer("persec", price=2.0),
        replace(offer("market", stale=True), source="snapshot:https://x/catalogs/v6/x.csv"),
        replace(offer("cloud", stale=True), source="cloud:api", observed_at=old),
    ]
    rejected = {
        r.offer.provider: r.rejected for r in rank(w, offers, backends=BE, now=NOW, include_rejected=True)
    }
    assert rejected["market"] == f"{STALE_SNAPSHOT} (--include-stale shows it)"
    assert rejected["cloud"] == f"{stale_reason(offers[2])} (--include-stale shows it)"
    assert "fetched " + f"{old:%Y-%m-%d}" in (rejected["cloud"] or "")
    shown = {r.offer.provider: r for r in rank(w, offers, backends=BE, now=NOW, include_stale=True)}
    assert STALE_SNAPSHOT in shown["market"].warnings
    assert stale_reason(offers[2]) in shown["cloud"].warnings


def _rounding(reasons: tuple[str, ...]) -> str:
    return next((r for r in reasons if r.startswith(BILLING_ROUNDING)), "")


def test_the_hours_billed_a_day_are_said_and_multiply_out_to_compute_and_warmup() -> None:
    w = ServeWorkload(model="small", concurrency=4, hours_per_day=8)
    (row,) = rank(w, [offer("perhour", price=0.1381)], backends=BE, now=NOW)
    said = _rounding(row.reasons)
    assert said, row.reasons
    m = re.search(
        r"(\d+\.\d) h billed a day for 8\.0 h active \+ .* warm-up \(per-hour billing\); "
        r"compute \+ warm-up = ([\d,.]+) instance-h x \$([\d.]+)/h",
        said,
    )
    assert m is not None, said
    assert m.group(1) == "9.0"  # 8 h and the warm-up, rounded up to the hour
    hours, price = float(m.group(2).replace(",", "")), float(m.group(3))
    assert price == 0.1381  # the offer's price as stated, not to the cent
    assert row.cost is not None
    assert hours * price == pytest.approx(row.cost.compute + row.cost.warmup, abs=0.01)
    assert hours == pytest.approx(9.0 * 30, abs=0.05)


def test_nothing_is_said_where_billing_adds_nothing_worth_a_line() -> None:
    w = ServeWorkload(model="small", concurrency=4, hours_per_day=8)
    (per_second,) = rank(w, [offer("persec", price=0.1381)], backends=BE, now=NOW)
    assert _rounding(per_second.reasons) == ""
    always_on = ServeWorkload(model="small", concurrency=4)  # one start a month
    (hourly,) = rank(always_on, [offer("perhour", price=0.1381)], backends=BE, now=NOW)
    assert _rounding(hourly.reasons) == ""


def test_an_unknown_billing_increment_is_said_once_by_the_warning_not_by_the_rounding_too() -> None:
    w = ServeWorkload(model="small", concurrency=4, hours_per_day=8)
    (row,) = rank(w, [offer("unknownterms", price=0.1381)], backends=BE, now=NOW)  # no increment known
    said = _rounding(row.reasons)
    assert said.startswith(f"{BILLING_ROUNDING}9.0 h billed a day"), row.reasons  # billed per hour
    told = [t for t in (*row.reasons, *row.warnings) if "increment" in t or "assumed" in t]
    assert told == ["billing increment unknown: assumed per-hour"], told
    assert "warm-up; compute + warm-up" in said  # no empty "()" where the terms went
