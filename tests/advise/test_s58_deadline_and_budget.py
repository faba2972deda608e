"""A deadline and a budget that bind only together (stop 58, a renter pass): 1B output tokens of Llama 3.1
405B in 2 h for $500. Each lifted alone still left no row, so the answer fell through to the memory advice
("a narrower precision (fp8, int4) ... would need less memory"), though 405B fits on one 8x H200 box. It
now says both bind, with what each would need once the other is lifted."""

from __future__ import annotations

import re

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers


def _binding(**limits: float) -> str:
    w = Workload.from_dict(
        {"kind": "batch", "model": "llama-3.1-405b", "output_tokens_total": 1_000_000_000, **limits}
    )
    answer = advise(w, current_offers(), top=3)
    assert not answer.rows and answer.binding is not None
    return answer.binding


@pytest.fixture(scope="module")
def both() -> str:
    return _binding(deadline_hours=2.0, budget_usd=500.0)


def test_both_limits_are_named_and_memory_is_not_blamed(both: str) -> None:
    assert both.startswith("the deadline and the budget bind together")
    assert "no offer finishes within 2.0 h for $500" in both
    assert "narrower precision" not in both and "less memory" not in both


def test_each_limit_says_what_it_would_need_with_the_other_lifted(both: str) -> None:
    deadline_alone = _binding(deadline_hours=2.0)
    budget_alone = _binding(budget_usd=500.0)
    assert deadline_alone.startswith("the deadline binds") and budget_alone.startswith("the budget binds")
    # the same figures as each limit alone gives at the precision the rows stand at (each alone leads
    # with a narrower precision's move where one shows a row: stops 61 and 62)
    deadline_words, budget_words = (
        re.split(
            r"; at the (?:precision asked \([^)]*\)|checkpoint's own [^,]+), ",
            alone.split("): ", 1)[1],
            maxsplit=1,
        )[-1]
        for alone in (deadline_alone, budget_alone)
    )
    assert "with the budget lifted, " + deadline_words in both
    assert "with the deadline lifted, " + budget_words in both
