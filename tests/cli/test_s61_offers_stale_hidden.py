"""``gpuscout offers`` says how many offers from stale feeds it hides (stop 61): they are hidden by
default since stop 60, as on the web table, but where the page says "93 prices flagged stale are hidden
(show)" the CLI table said nothing: ``offers --spot --gpu A100`` hid the bundled snapshot's stale Azure
spot rows without a word. A line under the table counts them for the filters given and names
--include-stale; ``--json`` stays the bare list of rows it is (no place for the count without changing
its shape)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app, lean
from gpuscout.cli.offers_view import hidden_stale_note
from tests.cli.terminal_lines import terminal_lines

runner = CliRunner()
ARGS = ("offers", "--spot", "--gpu", "A100")


def _count(*args: str) -> int:
    result = runner.invoke(app, [*args, "--json", "--limit", "0"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert isinstance(rows, list)  # the JSON's shape, unchanged
    return len(rows)


def _said(text: str) -> str:
    return " ".join(text.split())


def test_the_table_counts_the_stale_offers_it_hides(monkeypatch: pytest.MonkeyPatch) -> None:
    hidden = _count(*ARGS, "--include-stale") - _count(*ARGS)
    assert hidden > 0  # the bundled snapshot's stale spot rows (Azure's)
    note = f"{hidden} offers from stale feeds are hidden: --include-stale lists them."
    piped = runner.invoke(app, list(ARGS))  # a pipe: the table written directly
    assert piped.exit_code == 0, piped.output
    assert note in piped.output.splitlines()
    for width in (80, 120):  # a terminal: Rich's table
        assert note in _said(" ".join(terminal_lines(monkeypatch, width, *ARGS)))


def test_the_lean_path_says_it_too(capsys: pytest.CaptureFixture[str]) -> None:
    hidden = _count(*ARGS, "--include-stale") - _count(*ARGS)
    assert lean.run(list(ARGS)) == 0
    assert f"{hidden} offers from stale feeds are hidden" in capsys.readouterr().out


def test_no_line_where_nothing_is_hidden() -> None:
    listed = runner.invoke(app, [*ARGS, "--include-stale"])
    assert listed.exit_code == 0 and "are hidden" not in listed.output
    fresh = ("offers", "--provider", "verda")
    assert _count(*fresh, "--include-stale") == _count(*fresh)  # no stale row of verda
    result = runner.invoke(app, list(fresh))
    assert result.exit_code == 0 and "from stale feeds" not in result.output


def test_the_note_agrees_with_its_count() -> None:
    assert hidden_stale_note(0) is None
    assert hidden_stale_note(1) == "1 offer from stale feeds is hidden: --include-stale lists it."
    assert hidden_stale_note(1234) == "1,234 offers from stale feeds are hidden: --include-stale lists them."
