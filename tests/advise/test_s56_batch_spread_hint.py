"""A long batch run on one instance says what more instances of the same offer would finish it in (stop 56:
a 10B-token 405B job's fastest pick ran 62.7 days on one 8x B300 where eight finish in 7.9 days for 0.4 %
more, and no word said so); a short run, or one under a deadline, says nothing of it."""

from __future__ import annotations

import re

from gpuscout.advise.api import advise
from gpuscout.advise.rank import SPREAD_HINT_MIN_S
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers

OFFERS = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5.48xlarge"][:1]


def _row(extra: dict[str, object]):  # type: ignore[no-untyped-def]
    w = Workload.from_dict(
        {"kind": "batch", "model": "llama-3.1-405b", "precision": "fp8", "spot_allowed": False} | extra
    )
    return advise(w, OFFERS, top=1).rows[0]


def test_a_long_run_is_spread_itself_rather_than_hinted() -> None:
    # stop 62: the hint's case (eight instances finish it for a few per cent more) is now the row itself:
    # per-second billing spreads a batch over the most instances within the front's cost tolerance
    # (rank.billing_sized), so the long run is on more than one instance and says no hint
    row = _row({"output_tokens_total": 2e9})
    assert row.config.instances > 1 and row.time_s is not None
    assert row.time_s * row.config.instances >= SPREAD_HINT_MIN_S  # long on one instance
    assert not any("instances of this offer" in r for r in row.reasons)
    why = rf"{row.config.instances} instances (at no extra cost|for [\d.]+ % more)"
    assert any(re.match(why, r) for r in row.reasons), row.reasons


def test_a_short_run_or_a_deadline_says_nothing_of_it() -> None:
    short = _row({"output_tokens_total": 1e7})
    assert not any("instances of this offer" in r for r in short.reasons)
    under = _row({"output_tokens_total": 2e9, "deadline_hours": 24 * 30})
    assert not any("instances of this offer" in r for r in under.reasons)
