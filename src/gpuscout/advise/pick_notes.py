"""What the advisor says about its picks beyond their numbers, for every face (the CLI's picks line, the
web page's pick cards): the capacity a pick rents when it is not on-demand ("spot", with its chance of
missing the deadline), the picks timed on a board their source does not state, and what the fastest
pick costs against the cheapest."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from gpuscout.wording import BOARD_ASSUMED

#: The row's own words for its chance of missing the deadline (``reasons.late_chance``, said inside the
#: row's time reason when the chance is worth saying): read back, not recomputed.
_LATE = re.compile(r"~[\d.]+% chance of missing the .+? deadline with spot reclaims")


def capacity(rec: Any) -> str:
    """What a row rents when it is not on-demand: "spot", or "auction" (an interruptible listed price,
    costed as spot); "" for on-demand. Its price (and so its cost) is that price, not the on-demand one."""
    if not rec.config.spot:
        return ""
    return "auction" if getattr(rec.offer, "price_is_interruptible", False) else "spot"


def late_chance_said(rec: Any) -> str:
    """The row's chance of missing the deadline, where its reasons say one ("~12% chance of missing the
    24 h deadline with spot reclaims"); ""."""
    return next((m.group(0) for r in rec.reasons if (m := _LATE.search(r))), "")


def capacity_terms(rec: Any) -> str:
    """:func:`capacity` with :func:`late_chance_said` as a pick says them in a line ("spot", "spot, ~12%
    chance of missing the 24 h deadline with spot reclaims"); "" for on-demand."""
    what = capacity(rec)
    late = late_chance_said(rec) if what else ""
    return f"{what}, {late}" if late else what


def assumed_board_picks(recs: Sequence[Any], picks: dict[str, int]) -> list[tuple[int, str]]:
    """The picks whose row is timed on a board its source does not state (the row's "board assumed
    SXM5 (...): ..." reason, ``advise.reasons``), as (number, "SXM5 (the source says only 'H100')"),
    in the rows' order. Only rows in ``recs`` (shown) are read."""
    numbers = set(picks.values())
    found: list[tuple[int, str]] = []
    for rec in recs:
        if rec.rank not in numbers:
            continue
        reason = next((r for r in rec.reasons if r.startswith(BOARD_ASSUMED)), None)
        if reason is None:
            continue
        head = reason.removeprefix(BOARD_ASSUMED).partition("): ")[0]  # "SXM5 (the source says only 'H100'"
        board, _, source = head.partition(" (")
        found.append((rec.rank, f"{board} ({source})" if source else board))
    return found


def fastest_premium(recs: Sequence[Any], picks: dict[str, int]) -> str:
    """What the fastest pick costs against the cheapest, and what it buys in time, so that a pick at 61x
    the money for a third of the time is read as that trade, not as a recommendation beside the other
    two: "#5 is 3.0x as fast as #1 at 61.0x the cost" (time to result: a request's latency when
    serving). "" when the fastest is the cheapest or either lacks a figure."""
    cheap = next((r for r in recs if r.rank == picks.get("cheapest")), None)
    fast = next((r for r in recs if r.rank == picks.get("fastest")), None)
    if cheap is None or fast is None or cheap is fast:
        return ""
    if not (cheap.total_usd and fast.total_usd and cheap.time_to_result_s and fast.time_to_result_s):
        return ""
    cost = fast.total_usd / cheap.total_usd
    time = cheap.time_to_result_s / fast.time_to_result_s
    return f"#{fast.rank} is {time:.1f}x as fast as #{cheap.rank} at {cost:,.1f}x the cost"
