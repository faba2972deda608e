"""`gpuscout refresh` is not silent while a provider hangs (review r2 item 12): each source says on
stderr when it starts and each time it waits to try again, and --json keeps stdout to the JSON."""

from __future__ import annotations

import io
import json
from functools import partial
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.catalog.refresh import _retry_number, refresh
from gpuscout.catalog.sources import vastai
from gpuscout.catalog.sources.http import RetryPolicy, backoff_delay
from gpuscout.catalog.sources.vastai import VastAISource
from gpuscout.catalog.store import Store
from gpuscout.cli import app
from tests.catalog.sources.loopback import loopback


@pytest.fixture
def hanging_vast(monkeypatch: pytest.MonkeyPatch) -> object:
    """Vast.ai's endpoint is a server that accepts and never answers; each try gives up after 0.3 s
    (the default policy then waits ~1 s and ~2 s between its tries)."""
    with loopback("hang") as server:
        monkeypatch.setattr(vastai, "BUNDLES_URL", f"{server.url}/api/v0/bundles/")
        monkeypatch.setattr(VastAISource, "timeout_s", 0.3)
        yield server


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.sqlite3'}"


def test_a_hanging_source_says_when_it_starts_and_each_retry_on_stderr(
    hanging_vast: object, tmp_path: Path
) -> None:
    res = CliRunner().invoke(app, ["refresh", "-s", "vastai", "--timeout", "6", "--db", _db(tmp_path)])
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    assert lines[0] == "vastai: fetching, gives up after 6s"
    assert (
        lines[1].startswith("vastai: no good answer after ") and "(try 1 of 4); retry 2 of 4 in" in lines[1]
    )
    assert (
        lines[2].startswith("vastai: no good answer after ") and "(try 2 of 4); retry 3 of 4 in" in lines[2]
    )
    assert "no good answer" not in res.stdout  # stdout keeps the results and the summary
    assert "vastai: failed" in res.stdout and "0 refreshed, 1 failed" in res.stdout


def test_json_output_stays_json_while_progress_goes_to_stderr(hanging_vast: object, tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app, ["refresh", "-s", "vastai", "--timeout", "3", "--json", "--db", _db(tmp_path)]
    )
    assert res.exit_code == 1
    [result] = json.loads(res.stdout)
    assert result["source"] == "vastai" and result["status"] == "failed"
    assert res.stderr.startswith("vastai: fetching, gives up after 3s\n")
    assert "retry 2 of 4 in" in res.stderr


def test_a_terminal_progress_line_shows_the_wait(hanging_vast: object, tmp_path: Path) -> None:
    from gpuscout.cli.catalog_cmds import _refresh_with_progress

    buffer = io.StringIO()
    terminal = Console(file=buffer, force_terminal=True, width=200, color_system=None)
    source = VastAISource(retry=RetryPolicy(attempts=2, base_delay_s=1.0, jitter=0.0))
    with Store(_db(tmp_path)) as store:
        [result] = _refresh_with_progress(terminal, store, [source], 5, None)
    assert result.status == "failed"
    assert "vastai: no good answer after " in buffer.getvalue()
    assert "(try 1 of 2); retry 2 of 2 in 1s" in buffer.getvalue()


def test_the_refresh_reports_progress_and_puts_the_sources_sleep_back(
    hanging_vast: object, tmp_path: Path
) -> None:
    heard: list[tuple[str, str]] = []
    source = VastAISource(retry=RetryPolicy(attempts=3, base_delay_s=0.2, jitter=0.0))
    with Store(_db(tmp_path)) as store:
        [result] = refresh(store, [source], timeout_s=5, on_progress=lambda s, t: heard.append((s, t)))
    assert result.status == "failed" and "after 3 attempts" in (result.error or "")
    assert [s for s, _ in heard] == ["vastai"] * 3
    assert heard[0][1] == "fetching, gives up after 5s"
    assert heard[1][1].endswith("(try 1 of 3); retry 2 of 3 in 0.2s")
    assert heard[2][1].endswith("(try 2 of 3); retry 3 of 3 in 0.4s")
    assert source.sleep is None  # the wrapper is gone: the source is as it was given


def test_without_a_listener_nothing_is_wrapped(hanging_vast: object, tmp_path: Path) -> None:
    source = VastAISource(retry=RetryPolicy(attempts=2, base_delay_s=0.1))
    with Store(_db(tmp_path)) as store:
        [result] = refresh(store, [source], timeout_s=5)
    assert result.status == "failed" and source.sleep is None


def test_the_retry_number_is_read_off_the_policys_own_delays() -> None:
    policy = RetryPolicy()  # 4 tries: waits of 1, 2 and 4 s, each +-25 %
    for attempt in (1, 2, 3):
        for rand in (0.0, 0.5, 1.0):  # the jitter's whole range
            assert _retry_number(backoff_delay(attempt, policy, partial(float, rand)), policy) == attempt + 1
    assert _retry_number(7.0, policy) is None  # a server's Retry-After: no number, "trying again"
    assert _retry_number(0.0, RetryPolicy(base_delay_s=0.0)) is None  # no back-off: ambiguous
