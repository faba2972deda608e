"""A row's number is its place in the whole answer, whatever ``top`` is: the selection keeps the picks
when it cuts rows, and the picks keep the numbers they have in the full answer (``--explain N`` names
the row N the reader saw in any earlier run with the same inputs)."""

from __future__ import annotations

import pytest

from gpuscout.advise.selection import Candidate, Selection, select

# A serving front like llama-3.1-8b for 20 users on the bundled snapshot: a cheap slow card, a knee
# (the balanced pick, 5th by cost) and a dear fastest row (11th), then two dominated rows.
FRONT = [
    (203.0, 10.8),
    (268.0, 6.7),
    (628.0, 5.7),
    (671.0, 5.3),
    (932.0, 2.9),
    (1499.0, 2.7),
    (1652.0, 2.5),
    (1876.0, 2.3),
    (3527.0, 1.3),
    (6777.0, 1.1),
    (13553.0, 1.0),
]
DOMINATED = [(300.0, 11.0), (1000.0, 3.0)]


def _candidates() -> list[Candidate]:
    points = FRONT + DOMINATED
    return [Candidate(c, t, (n,), f"offer-{n}", f"offer-{n}") for n, (c, t) in enumerate(points)]


def _select(top: int | None, objective: str = "cost") -> Selection:
    cands = _candidates()
    return select(cands, cands, objective=objective, top=top)


def _numbered(s: Selection) -> dict[int, str]:
    return {row.number: row.candidate.group for row in s.rows}


@pytest.mark.parametrize("objective", ["cost", "time", "latency", "balanced"])
def test_a_row_has_the_same_number_whatever_top_is(objective: str) -> None:
    full = _numbered(_select(None, objective))
    assert sorted(full) == list(range(1, len(FRONT) + len(DOMINATED) + 1))
    for top in range(1, 16):
        shown = _select(top, objective)
        assert len(shown.rows) == min(top, len(full))
        for number, group in _numbered(shown).items():
            assert full[number] == group, (top, number)
        numbers = [row.number for row in shown.rows]
        assert numbers == sorted(numbers)


def test_the_picks_keep_their_numbers_when_top_cuts_the_front() -> None:
    full = _select(None)
    assert full.picks == {"cheapest": 1, "balanced": 5, "fastest": 11}
    cut = _select(3)
    # the three picks are the rows shown, under the numbers of the full answer (not 1, 2, 3)
    assert cut.picks == full.picks
    assert [(row.number, row.picks) for row in cut.rows] == [
        (1, ("cheapest",)),
        (5, ("balanced",)),
        (11, ("fastest",)),
    ]
    assert cut.by_number(5).candidate.group == full.by_number(5).candidate.group
    with pytest.raises(KeyError):
        cut.by_number(2)
    # a --top between: the best rows by the objective fill the room the picks leave
    assert [row.number for row in _select(5).rows] == [1, 2, 3, 5, 11]


def test_dominated_rows_are_numbered_after_the_whole_front_and_name_their_beater_by_number() -> None:
    full = _select(None)
    dominated = [row for row in full.rows if not row.pareto]
    assert [row.number for row in dominated] == [len(FRONT) + 1, len(FRONT) + 2]
    for row in dominated:
        assert row.dominated_by is not None
        beater = full.by_number(row.dominated_by)
        assert beater.pareto
        assert beater.candidate.cost <= row.candidate.cost and beater.candidate.time <= row.candidate.time
