"""`gpuscout refresh` when sources fail, at 80 columns (review s45 item 3): each source's outcome is one
line with a short reason ("network unreachable", "timed out after 1s", "HTTP 503"), the whole error
stays in `gpuscout sources`; a log or a pipe gets each source's final state once, even when Rich is told
the pipe is a terminal (FORCE_COLOR), where a spinner's every redraw used to land in the log."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.catalog.results import RefreshResult
from gpuscout.catalog.store import Store
from gpuscout.cli import app, consoles
from gpuscout.cli.catalog_cmds import _is_tty, _refresh_with_progress, _summary_table, short_reason
from tests.catalog.helpers import FakeSource, fake_failure, many_offers

# what the failures of an offline refresh read like (gpuhunt's urllib, httpx through HttpFetcher)
URL_ERROR = (
    "GPUHuntError: Failed to load catalogs of all providers (cause: URLError: <urlopen error [Errno -2] "
    "Name or service not known>)"
)
CONNECT_ERROR = (
    "gave up after 4 attempts: ConnectError: [Errno -2] Name or service not known "
    "(POST https://console.vast.ai/api/v0/bundles/)"
)
HTTP_503 = "gave up after 4 attempts: HTTP 503: Service Unavailable (GET https://lium.io/api/public/v1/nodes)"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (f"gpuhunt:aws: {URL_ERROR}", "network unreachable"),
        (f"vastai: {CONNECT_ERROR}", "network unreachable (4 tries)"),
        (f"lium: {HTTP_503}", "HTTP 503 (4 tries)"),
        ("lambda: HTTP 401: no: refused, check the credentials (GET u)", "HTTP 401 (check the credentials)"),
        ("timed out after 20s", "timed out after 20s"),
        ("timed out after 5s (cut to the refresh's overall deadline)", "timed out after 5s"),
        ("gpuhunt:aws: the shared gpuhunt catalog download did not finish within 4s",
         "timed out (did not finish within 4s)"),
        ("x: gave up after 2 attempts: ConnectError: [Errno 111] Connection refused (GET http://a)",
         "connection refused (2 tries)"),
        ("x: gave up after 4 attempts: ReadTimeout (timeout 30s) (GET http://a)", "timed out (4 tries)"),
        ("runpod: credentials missing: set RUNPOD_API_KEY", "needs RUNPOD_API_KEY"),
        ("bad.csv:2: price_usd_per_hour: must be > 0 (a finite number)",
         "bad.csv:2: price_usd_per_hour: must be > 0 (a finite number)"),
        ("vastai: HTTP 503 (GET u) (not recorded: OperationalError: database is locked)", "HTTP 503"),
        (None, ""),
    ],
)  # fmt: skip
def test_a_failure_comes_down_to_a_short_reason(error: str | None, reason: str) -> None:
    source = error.split(": ")[0] if error and ": " in error and not error.startswith("bad.csv") else ""
    assert short_reason(error, source) == reason


def test_an_error_no_rule_shortens_keeps_its_start() -> None:
    long = "validation: " + "x" * 200
    assert short_reason(long).startswith("validation: xxx") and len(short_reason(long)) == 60


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> list[FakeSource]:
    """An offline refresh: two sources unreachable, one refused, one without credentials, one hung
    past its deadline, one that works."""
    monkeypatch.delenv("S45_TOKEN", raising=False)
    sources = [
        fake_failure("gpuhunt:aws", URL_ERROR),
        fake_failure("vastai", CONNECT_ERROR),
        fake_failure("lium", HTTP_503),
        FakeSource("keyed", needs=("S45_TOKEN",)),
        FakeSource("slowpoke", delay_s=10),
        FakeSource("alpha", many_offers(2, provider="alpha")),
    ]
    monkeypatch.setattr("gpuscout.catalog.refresh.default_sources", lambda: sources)
    return sources


def _lines_of(out: str, sources: list[FakeSource]) -> dict[str, list[str]]:
    return {s.name: [line for line in out.splitlines() if line.startswith(f"{s.name}: ")] for s in sources}


def _check_plain_log(out: str, sources: list[FakeSource]) -> None:
    assert not ANSI.search(out), out  # no spinner, no cursor moves
    assert "┃" not in out and "│" not in out  # no table saying every state a second time
    lines = _lines_of(out, sources)
    assert all(len(found) == 1 for found in lines.values()), lines  # each final state once
    assert all(len(found[0]) <= 80 for found in lines.values()), lines
    assert lines["gpuhunt:aws"][0].endswith("failed 0 rows in " + lines["gpuhunt:aws"][0].split(" in ")[1])
    assert lines["gpuhunt:aws"][0].endswith(" - network unreachable")
    assert lines["vastai"][0].endswith(" - network unreachable (4 tries)")
    assert lines["lium"][0].endswith(" - HTTP 503 (4 tries)")
    assert lines["keyed"][0].startswith("keyed: skipped") and lines["keyed"][0].endswith(" - needs S45_TOKEN")
    assert lines["slowpoke"][0].endswith(" - timed out after 1s")
    assert lines["alpha"][0].startswith("alpha: ok 2 rows")
    assert "gpuscout sources" in out
    assert "1 refreshed, 4 failed, 1 skipped (credentials missing); bundled snapshot" in out


def test_a_log_gets_each_sources_final_state_once_on_one_line(
    failing: list[FakeSource], tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'log.sqlite3'}"
    res = CliRunner().invoke(app, ["refresh", "--timeout", "1", "--db", db])
    assert res.exit_code == 0, res.output
    _check_plain_log(res.stdout, failing)
    [vast] = [s for s in json.loads(CliRunner().invoke(app, ["sources", "--db", db, "--json"]).stdout)
              if s["source"] == "vastai"]  # fmt: skip
    assert vast["last_error"] == f"vastai: {CONNECT_ERROR}"  # the whole error, where the note says


def test_a_pipe_rich_takes_for_a_terminal_gets_no_spinner(
    failing: list[FakeSource], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(consoles.console, "_force_terminal", True)  # what FORCE_COLOR=1 does
    res = CliRunner().invoke(
        app, ["refresh", "--timeout", "1", "--db", f"sqlite:///{tmp_path / 'p.sqlite3'}"]
    )
    assert res.exit_code == 0, res.output
    _check_plain_log(res.stdout, failing)


def test_only_a_real_terminal_counts_as_one() -> None:
    assert not _is_tty(Console(file=io.StringIO(), force_terminal=True))


def _shown(console: Console) -> list[str]:
    assert isinstance(console.file, io.StringIO)
    return [line for line in ANSI.sub("", console.file.getvalue()).splitlines() if line.strip()]


def test_the_summary_table_at_80_columns_is_one_line_per_source() -> None:
    results = [
        RefreshResult("gpuhunt:cloudrift", "failed", 0, 3.1, f"gpuhunt:cloudrift: {URL_ERROR}"),
        RefreshResult("vastai", "failed", 0, 7.6, f"vastai: {CONNECT_ERROR}"),
        RefreshResult(
            "gpuhunt:crusoe", "skipped", 0, 0.0,
            "gpuhunt:crusoe: credentials missing: set CRUSOE_ACCESS_KEY, CRUSOE_SECRET_KEY, CRUSOE_ID",
        ),
        RefreshResult("alpha", "ok", 51234, 12.3, None, dropped=3),
    ]  # fmt: skip
    for width in (80, 60):
        console = Console(file=io.StringIO(), force_terminal=True, width=width, color_system=None)
        console.print(_summary_table(results, width))
        shown = _shown(console)
        assert all(len(line) <= width for line in shown), shown
        body = [line for line in shown if line.startswith("│")]
        assert len(body) == len(results), shown  # no row wraps onto a second line
        assert "network unreach" in body[0] and "needs CRUSOE_ACC" in body[2]
        assert width < 80 or "network unreachable (4 tries)" in body[1]


def test_a_terminals_progress_lines_end_in_the_short_reason(tmp_path: Path) -> None:
    terminal = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    sources = [fake_failure("gpuhunt:aws", URL_ERROR), fake_failure("vastai", CONNECT_ERROR)]
    with Store(f"sqlite:///{tmp_path / 't.sqlite3'}") as store:
        results = _refresh_with_progress(terminal, store, sources, 5, None)
    assert [r.status for r in results] == ["failed", "failed"]
    text = ANSI.sub("", terminal.file.getvalue())  # type: ignore[attr-defined]
    assert "gpuhunt:aws: failed 0 rows" in text and "vastai: failed 0 rows" in text
    assert "network unreachable (4 tries)" in text and "URLError" not in text
