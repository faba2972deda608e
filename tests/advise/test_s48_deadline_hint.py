"""The deadline a "the deadline binds" answer proposes is the tightest the option takes, and shows a row.

``gpuscout recommend batch llama-3.1-8b --output-total 1e9 --deadline 1m`` said the fastest "finishes in
5 min ... --deadline 1h would show it" (whole hours, rounded up) where ``--deadline 6m`` already shows a
row. One helper (``deadline_option``) rounds up to whole minutes below 2 h and whole hours from there,
for the batch and the training answers, and the value proposed is checked by ranking with it.
"""

from __future__ import annotations

import math
import re

import pytest

from gpuscout.advise.answer import deadline_option
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.rank import Ranker, advise
from gpuscout.advise.workload import MAX_DEADLINE_HOURS, BatchWorkload, FinetuneWorkload, parse_hours
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()


@pytest.mark.parametrize(
    ("seconds", "flag"),
    [
        (1.0, "1min"),
        (60.0, "1min"),
        (61.0, "2min"),
        (299.0, "5min"),
        (300.0, "5min"),
        (301.0, "6min"),
        (7199.0, "120min"),
        (7200.0, "2h"),
        (7201.0, "3h"),
        (50 * 3600.0 + 1, "51h"),
        (MAX_DEADLINE_HOURS * 3600.0, f"{MAX_DEADLINE_HOURS:.0f}h"),
    ],
)
def test_a_deadline_is_rounded_up_to_the_next_minute_or_hour(seconds: float, flag: str) -> None:
    option = deadline_option(seconds)
    assert option is not None
    said, hours = option
    assert said == flag
    assert hours == parse_hours(flag)  # what --deadline reads it as
    assert hours * 3600.0 >= seconds  # the time the ranker compares meets it


def test_the_deadline_proposed_is_the_tightest_of_its_unit() -> None:
    for seconds in [k * 7.3 for k in range(1, 2000)] + [k * 601.7 for k in range(1, 400)]:
        option = deadline_option(seconds)
        assert option is not None
        flag, hours = option
        n, unit = re.fullmatch(r"(\d+)(min|h)", flag).groups()  # type: ignore[union-attr]
        assert (unit == "min") == (seconds < 7200.0)
        assert hours * 3600.0 >= seconds
        if int(n) > 1:  # one unit less is too short
            assert parse_hours(f"{int(n) - 1}{unit}") * 3600.0 < seconds, seconds


def test_no_deadline_the_option_takes_is_none() -> None:
    assert deadline_option(math.inf) is None
    assert deadline_option(MAX_DEADLINE_HOURS * 3600.0 + 3601.0) is None


def _binding_deadline(found_binding: str) -> str:
    said = re.search(r"--deadline (\d+(?:min|h)) would show it", found_binding)
    assert said is not None, found_binding
    return said.group(1)


def test_a_batch_deadline_hint_is_in_minutes_and_shows_a_row() -> None:
    # 4 instances at most, a job of about half an hour on them: "--deadline 1h" was proposed
    w = BatchWorkload(model="small", images_total=13_700, deadline_hours=1 / 60)
    capped = Assumptions(max_instances=4)
    plain = offer("cloud", "H100-SXM", 1, 2.0)  # on demand only
    found = advise(w, [plain], backends=BE, assumptions=capped, now=NOW)
    assert not found.rows and found.binding is not None
    assert found.binding.startswith("the deadline binds")
    flag = _binding_deadline(found.binding)
    # the time the ranker compares: the row's time to result on the most instances
    most = Ranker(w.model_copy(update={"deadline_hours": None}), backends=BE, assumptions=capped, now=NOW)
    t = most.time_on_most_instances(plain, False)
    assert 60.0 < t < 7200.0
    assert flag == f"{math.ceil(t / 60.0)}min"
    shown = advise(
        w.model_copy(update={"deadline_hours": parse_hours(flag)}),
        [plain],
        backends=BE,
        assumptions=capped,
        now=NOW,
    )
    assert shown.rows
    # and a minute less shows none: the hint is the tightest
    tighter = parse_hours(f"{math.ceil(t / 60.0) - 1}min")
    assert not advise(
        w.model_copy(update={"deadline_hours": tighter}), [plain], backends=BE, assumptions=capped, now=NOW
    ).rows


def test_a_deadline_that_alone_shows_no_row_is_not_promised() -> None:
    # a budget the job meets on one instance (without a deadline) but not on the four a tight deadline
    # needs (each boots and loads: more warm-up billed): the deadline proposed is checked, and not said
    # to show a row
    plain = offer("cloud", "H100-SXM", 1, 2.0)
    capped = Assumptions(max_instances=4)
    base = BatchWorkload(model="small", images_total=13_700)
    # one instance's cost (capped at one: billing would spread the job within the cost tolerance,
    # ``rank.billing_sized``)
    (one,) = advise(base, [plain], backends=BE, assumptions=Assumptions(max_instances=1), now=NOW).rows
    assert one.config.instances == 1 and one.cost is not None
    w = base.model_copy(update={"deadline_hours": 1 / 60, "budget_usd": one.cost.total * 1.0001})
    found = advise(w, [plain], backends=BE, assumptions=capped, now=NOW)
    assert not found.rows and found.binding is not None
    assert found.binding.startswith("the deadline binds"), found.binding
    assert "would show it" not in found.binding
    said = re.search(r"--deadline (\d+min) alone shows no row \(another constraint binds too", found.binding)
    assert said is not None, found.binding
    proposed = w.model_copy(update={"deadline_hours": parse_hours(said.group(1))})
    assert not advise(proposed, [plain], backends=BE, assumptions=capped, now=NOW).rows
    # without the budget it would
    assert advise(
        proposed.model_copy(update={"budget_usd": None}), [plain], backends=BE, assumptions=capped, now=NOW
    ).rows


@pytest.mark.parametrize("tokens", [1e8, 1e9])
def test_a_training_deadline_hint_shows_a_row_and_a_unit_less_does_not(tokens: float) -> None:
    offers = [offer("cloud", "H100-SXM", 8, 16.0), offer("c2", "H200-SXM", 8, 20.0)]
    w = FinetuneWorkload(model="small", dataset_tokens=tokens, deadline_hours=0.01)
    found = advise(w, offers, backends=BE, now=NOW)
    assert not found.rows and found.binding is not None
    flag = _binding_deadline(found.binding)
    n, unit = re.fullmatch(r"(\d+)(min|h)", flag).groups()  # type: ignore[union-attr]
    assert advise(
        w.model_copy(update={"deadline_hours": parse_hours(flag)}), offers, backends=BE, now=NOW
    ).rows
    less = parse_hours(f"{int(n) - 1}{unit}")
    assert not advise(w.model_copy(update={"deadline_hours": less}), offers, backends=BE, now=NOW).rows
