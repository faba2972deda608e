"""Tables fit the terminal: the least useful columns give way, numbers never wrap, and what was left
out is said (the offers table at 80 columns used to wrap "1.000" into "1.00" / "0")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from gpuscout.cli.table_fit import Column, fitted_table, left_out_note

COLUMNS = (
    Column("provider", max_width=12),
    Column("instance", drop=3, max_width=16),
    Column("$/h", right=True),
    Column("spot $/h", right=True),
    Column("region", drop=2, max_width=14),
    Column("source", drop=1, max_width=40),
)
ROWS = [
    ("primeintellect", "datacrunch__1xH100_80GB__30__120", "1.970", "-", "montreal-canada-2", "s" * 60),
    ("mithril", "h100-80gb.sxm.1x", "1.000", "1.000", "us-central2-a", "snapshot skypilot"),
]


def render(width: int) -> tuple[list[str], list[str]]:
    table, left_out = fitted_table("offers", COLUMNS, ROWS, width)
    console = Console(width=width, record=True, no_color=True)
    console.print(table)
    return console.export_text().splitlines(), left_out


def test_everything_is_shown_uncut_when_it_fits() -> None:
    lines, left_out = render(200)
    assert left_out == []
    text = "\n".join(lines)
    assert "datacrunch__1xH100_80GB__30__120" in text and "s" * 60 in text


def test_a_narrow_terminal_drops_columns_in_their_order_and_never_wraps_a_number() -> None:
    lines, left_out = render(60)
    assert left_out == ["region", "source"]
    assert all(len(line) <= 60 for line in lines)
    body = [line for line in lines if line.startswith("│")]
    assert len(body) == len(ROWS)  # one line per row: nothing wrapped
    assert "1.970" in body[0] and "1.000" in body[1]
    assert "datacrunch__1xH…" in body[0]  # an identifier too long for the width is cut, visibly


def test_columns_that_are_always_kept_stay_even_when_nothing_fits() -> None:
    _, left_out = render(20)
    assert left_out == ["instance", "region", "source"]  # in the order of the columns


def test_the_note_names_what_was_left_out() -> None:
    assert left_out_note([]) is None
    note = left_out_note(["region", "source"])
    assert note is not None and "region, source" in note and "--csv" in note


def test_output_that_is_not_a_terminal_keeps_every_column() -> None:
    table, left_out = fitted_table("offers", COLUMNS, ROWS, None)
    assert left_out == [] and len(table.columns) == len(COLUMNS)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=30)
    | st.sampled_from(["a:b", ":smile:", "x [b]y[/b]"])
)
def test_a_cell_is_measured_as_rich_measures_its_text(cell: str) -> None:
    """The read-at-once width of plain one-line text is the width Rich gives the cell's Text."""
    from rich.errors import MarkupError
    from rich.text import Text

    from gpuscout.cli.table_fit import _cell_width

    try:
        text = Text.from_markup(cell)
    except MarkupError:
        return
    assert _cell_width(cell) == max((line.cell_len for line in text.split("\n")), default=0)


def test_a_wrapping_column_breaks_between_words_and_takes_only_the_room_left() -> None:
    """A ``wrap`` column counts as wide as its longest word: a long cell costs no other column (the
    sources table's "needs PRIME_INTELLECT_API_KEY"), and no other column is narrowed for it."""
    columns = (
        Column("source", max_width=22),
        Column("state", wrap=True),
        Column("last attempt", drop=2),
        Column("last error"),
        Column("rows", right=True),
        Column("detail", drop=1),
    )
    error = "timed out after 120 s, retried"
    rows = [
        ("primeintellect", "needs PRIME_INTELLECT_API_KEY", "2026-12-03 16:03 UTC", error, "0", "x" * 30),
        ("gpuhunt:crusoe", "needs CRUSOE_ACCESS_KEY, CRUSOE_SECRET_KEY", "never", "", "12", "-"),
    ]
    table, left_out = fitted_table("sources", columns, rows, 110)
    console = Console(width=110, record=True, no_color=True)
    console.print(table)
    lines = console.export_text().splitlines()
    assert left_out == ["detail"] and all(len(line) <= 110 for line in lines)
    body = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    assert [cells[1] for cells in body] == [
        "needs",
        "PRIME_INTELLECT_API_KEY",
        "needs CRUSOE_ACCESS_KEY,",
        "CRUSOE_SECRET_KEY",
    ]
    assert body[0][2:4] == ["2026-12-03 16:03 UTC", error]  # whole: the room left went to the state
    wide, left_out = fitted_table("sources", columns, rows, 200)
    assert left_out == [] and [c.max_width for c in wide.columns] == [None] * 6  # it fits: nothing wraps
