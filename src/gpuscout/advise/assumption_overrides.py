"""The advisor's assumptions a user may override from every face (CLI, JSON API, web form).

``gpuscout recommend --spot-reclaims-per-hour X --min-headroom Y --checkpoint-write-gbps Z
--unlisted-host-ram R --max-deadline-miss M``, the API's ``spot_reclaims_per_hour``, ``min_headroom``,
``checkpoint_write_gbps``, ``unlisted_host_ram`` and ``max_deadline_miss`` and the advisor form's advanced
inputs all become the same :class:`~gpuscout.advise.assumptions.Assumptions` here, checked against the
same ranges.
"""

from __future__ import annotations

import math
from dataclasses import replace

from gpuscout.advise.assumptions import Assumptions
from gpuscout.errors import InvalidInputError

#: Spot reclaims per instance-hour a user may assume (inclusive): 0 (never reclaimed) to one a second.
SPOT_RECLAIMS_RANGE: tuple[float, float] = (0.0, 3600.0)
#: Share of each GPU's memory a training layout must leave free (inclusive): none to half.
MIN_HEADROOM_RANGE: tuple[float, float] = (0.0, 0.5)
#: GB/s per node a training checkpoint is written at (inclusive): 10 MB/s (a slow network share) to
#: 1,000 GB/s (an asynchronous save whose write is all but hidden behind training).
CHECKPOINT_WRITE_RANGE: tuple[float, float] = (0.01, 1000.0)
#: Host RAM assumed for an offer that lists none, as a multiple of its GPU memory (inclusive): a quarter
#: (a thin marketplace box) to 100x (far past any host: a 1x L4 with 2.4 TB).
UNLISTED_HOST_RAM_RANGE: tuple[float, float] = (0.25, 100.0)
#: The chance a spot job under a deadline may have of missing it with its reclaims (exclusive: above 0,
#: which no spot row meets while reclaims can happen, and below 1, which admits a row sure to be late).
MAX_DEADLINE_MISS_RANGE: tuple[float, float] = (0.0, 1.0)


def _checked(field: str, value: float, limits: tuple[float, float]) -> float:
    low, high = limits
    accepted = f"a number from {low:g} to {high:g}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(field, f"expected a number, got {type(value).__name__}", accepted)
    if not math.isfinite(value) or not low <= value <= high:
        raise InvalidInputError(field, f"{value:g} is out of range", accepted)
    return float(value)


def _checked_open(field: str, value: float, limits: tuple[float, float]) -> float:
    """``value`` strictly between ``limits``, else an ``InvalidInputError`` naming ``field``."""
    low, high = limits
    accepted = f"a number above {low:g} and below {high:g}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(field, f"expected a number, got {type(value).__name__}", accepted)
    if not math.isfinite(value) or not low < value < high:
        raise InvalidInputError(field, f"{value:g} is out of range", accepted)
    return float(value)


def assumption_overrides(
    *,
    spot_reclaims_per_hour: float | None = None,
    min_headroom: float | None = None,
    checkpoint_write_gbps: float | None = None,
    unlisted_host_ram: float | None = None,
    max_deadline_miss: float | None = None,
) -> Assumptions | None:
    """The default assumptions with what the user overrode, or ``None`` when nothing is.

    ``spot_reclaims_per_hour`` replaces the reclaim rate of every provider kind (and of an unknown one);
    ``min_headroom`` the share of each GPU's memory a training layout must leave free
    (``Assumptions.min_training_headroom``); ``checkpoint_write_gbps`` the GB/s per node training
    checkpoints are written (and read back after a spot reclaim) at (``Assumptions.checkpoint_write_gbps``);
    ``unlisted_host_ram`` the host RAM of an offer that lists none, as a multiple of its GPU memory
    (``Assumptions.unlisted_host_ram_per_gpu_memory``: what a training offload layout may keep there);
    ``max_deadline_miss`` the chance a spot job under a deadline may have of missing it with its reclaims
    (``Assumptions.max_deadline_miss``). A value out of its range (``SPOT_RECLAIMS_RANGE``,
    ``MIN_HEADROOM_RANGE``, ``CHECKPOINT_WRITE_RANGE``, ``UNLISTED_HOST_RAM_RANGE``; strictly within
    ``MAX_DEADLINE_MISS_RANGE``) is an ``InvalidInputError`` naming the argument."""
    given: tuple[float | None, ...] = (spot_reclaims_per_hour, min_headroom, checkpoint_write_gbps)
    given += (unlisted_host_ram, max_deadline_miss)
    if all(v is None for v in given):
        return None
    assumptions = Assumptions()
    if spot_reclaims_per_hour is not None:
        rate = _checked("spot_reclaims_per_hour", spot_reclaims_per_hour, SPOT_RECLAIMS_RANGE)
        assumptions = replace(
            assumptions,
            interruptions_per_hour=dict.fromkeys(assumptions.interruptions_per_hour, rate),
            unknown_kind_interruptions_per_hour=rate,
        )
    if min_headroom is not None:
        headroom = _checked("min_headroom", min_headroom, MIN_HEADROOM_RANGE)
        assumptions = replace(assumptions, min_training_headroom=headroom)
    if checkpoint_write_gbps is not None:
        write = _checked("checkpoint_write_gbps", checkpoint_write_gbps, CHECKPOINT_WRITE_RANGE)
        assumptions = replace(assumptions, checkpoint_write_gbps=write)
    if unlisted_host_ram is not None:
        ram = _checked("unlisted_host_ram", unlisted_host_ram, UNLISTED_HOST_RAM_RANGE)
        assumptions = replace(assumptions, unlisted_host_ram_per_gpu_memory=ram)
    if max_deadline_miss is not None:
        miss = _checked_open("max_deadline_miss", max_deadline_miss, MAX_DEADLINE_MISS_RANGE)
        assumptions = replace(assumptions, max_deadline_miss=miss)
    return assumptions
