"""When no offer meets the latency targets, the answer names the tightest target any offer reaches (at one
user per replica on its widest split), not the figure of the cheapest layouts, and the change it proposes
really shows rows (checked by ranking with it)."""

from __future__ import annotations

import re
from functools import cache

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.offer import Offer
from tests.advise.helpers import NOW


@cache
def _offers() -> tuple[Offer, ...]:
    from gpuscout.catalog.api import current_offers

    return tuple(current_offers())


def _ttft_fix(binding: str) -> float:
    found = re.search(r"--ttft-ms (\d+)", binding)
    assert found, binding
    return float(found.group(1))


def test_the_ttft_proposed_is_what_the_widest_split_reaches_and_it_shows_rows() -> None:
    w = ServeWorkload(
        model="llama-3.1-70b", concurrency=4, prompt_tokens=32000, output_tokens=100, ttft_ms_max=700
    )
    answer = advise(w, _offers(), top=10, now=NOW)
    assert not answer.rows and answer.binding is not None
    proposed = _ttft_fix(answer.binding)
    assert "at one user per replica on the widest split" in answer.binding
    # the proposal is met: ranking with it shows rows, each within it
    again = advise(w.model_copy(update={"ttft_ms_max": proposed}), _offers(), top=10, now=NOW)
    assert again.rows
    assert all(r.estimate is not None and (r.estimate.ttft_ms or 0) <= proposed for r in again.rows)
    # and it is the tightest in steps of 100 ms: 100 ms less shows nothing
    tighter = advise(w.model_copy(update={"ttft_ms_max": proposed - 100}), _offers(), top=10, now=NOW)
    assert not tighter.rows
    assert f"--ttft-ms {proposed:.0f} shows" in answer.binding
