"""Billing arithmetic: how many seconds a provider charges for a stretch of use.

Providers bill in increments (1 s, 60 s, 3600 s) with a minimum charge per start. A burst of 6 minutes
costs 6 minutes at a per-second provider and a full hour at a per-hour one: this module is where that
difference is computed, and nowhere else.
"""

from __future__ import annotations

import math

from gpuscout.errors import InvalidInputError

#: Increment assumed when a provider's billing increment is unknown (conservative: per hour).
UNKNOWN_INCREMENT_S = 3600


def billed_seconds(duration_s: float, increment_s: int | None, minimum_s: int | None = None) -> float:
    """Seconds charged for one continuous use of ``duration_s`` seconds.

    The duration is rounded *up* to a whole number of ``increment_s`` and then raised to
    ``minimum_s``. A zero duration costs nothing (the instance was never started).
    ``increment_s=None`` means unknown and is treated as per-hour (see ``UNKNOWN_INCREMENT_S``).
    """
    if duration_s < 0 or math.isnan(duration_s):
        raise InvalidInputError("duration_s", f"must be >= 0, got {duration_s}", "seconds >= 0")
    if increment_s is not None and increment_s <= 0:
        raise InvalidInputError("increment_s", f"must be > 0, got {increment_s}", "seconds > 0, or None")
    if minimum_s is not None and minimum_s < 0:
        raise InvalidInputError("minimum_s", f"must be >= 0, got {minimum_s}", "seconds >= 0, or None")
    if duration_s == 0:
        return 0.0
    step = increment_s if increment_s is not None else UNKNOWN_INCREMENT_S
    # Guard against float noise: 3600.0000000001 s must not become two hours.
    steps = math.ceil(duration_s / step - 1e-9)
    billed = float(steps * step)
    if minimum_s is not None:
        billed = max(billed, float(minimum_s))
    return billed


def describe_increment(increment_s: int | None) -> str:
    """'per-second', 'per-minute', 'per-hour', 'per-15 s' or 'unknown (assumed per-hour)'."""
    if increment_s is None:
        return "unknown billing increment (assumed per-hour)"
    names = {1: "per-second", 60: "per-minute", 3600: "per-hour"}
    return names.get(increment_s, f"per-{increment_s} s")
