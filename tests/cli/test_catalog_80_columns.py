"""``gpuscout offers`` and ``gpuscout sources`` in a terminal 80 columns wide keep what their help
promises: every offer row its source and the age of its price, every source that needs credentials
the environment variables to set. Wider terminals show more; a pipe, --json and --csv show it all."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Any, TypeAlias

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.cli import app, consoles
from gpuscout.cli.offers_view import short_source, source_feed
from tests.cli.offers_shared import said_for_all_rows
from tests.cli.terminal_lines import joined_table

runner = CliRunner()
Terminal: TypeAlias = Callable[..., list[str]]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """``terminal(width, *args)``: the lines ``gpuscout ARGS`` prints to a colourless terminal
    ``width`` columns wide. The shared console is made anew in that terminal's environment, as a
    process started there makes it (Rich fixes a console's width from ``$COLUMNS`` when made)."""

    def run(width: int, *args: str) -> list[str]:
        for name, value in {"TTY_COMPATIBLE": "1", "COLUMNS": str(width), "NO_COLOR": "1"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(consoles, "console", Console(emoji=False))
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        lines = re.sub(r"\x1b\[[0-9;]*m", "", result.output).splitlines()  # the styles (bold...) shown
        assert all(len(line) <= width for line in lines)
        return lines

    return run


_table = joined_table


def _json(*args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, list)
    return data


def _left_out(lines: list[str]) -> str:
    return " ".join(lines[next(i for i, line in enumerate(lines) if line.startswith("not shown")) :])


def test_offers_at_80_columns_keep_the_prices_and_say_each_rows_source(terminal: Terminal) -> None:
    """The prices and the region never give way (s53: they are what tells offers apart); the source,
    "snapshot" on every row, is said once for all rows. The age ("unknown" or "unknown stale") and the
    count give way to them: provider, GPU, three prices and the region fill 80 columns."""
    # stale feeds listed (hidden by default since stop 60), by the instance's price (stale rows among
    # the first 30: by the default price per GPU, none is)
    offers = _json("offers", "--include-stale", "--sort", "price")
    lines = terminal(80, "offers", "--include-stale", "--sort", "price")
    headers, rows = _table(lines)
    assert headers == ["provider", "gpu", "$/h ▲", "$/gpu-h", "spot $/h", "region"]
    assert len(rows) == len(offers) == 30
    for row, offer in zip(rows, offers, strict=True):
        assert offer["provider"].startswith(row[0].rstrip("…"))  # the row is the offer
        assert row[2] == f"{offer['price_usd_per_hour']:.3f}"
        assert source_feed(offer["source"]) == "snapshot"  # the bundled snapshot's rows
    assert said_for_all_rows(lines, headers, "source", "source snapshot")
    assert any(offer["stale"] for offer in offers)  # "unknown stale" is what did not fit
    assert "instance, #, GiB/gpu, age, full source" in _left_out(lines)


@pytest.mark.parametrize("args", [["--spot", "--sort", "price"], ["--sort", "spot_price"]])
def test_offers_sorted_by_the_spot_price_keep_it_at_80_columns(terminal: Terminal, args: list[str]) -> None:
    lines = terminal(80, "offers", "--gpu", "H100", *args)
    headers, rows = _table(lines)
    assert "spot $/h ▲" in headers  # the sorted column, marked
    assert "provider" in headers  # s61: no price can be rented without it
    assert "$/h" in headers and "$/gpu-h" in headers  # room here for the on-demand prices beside it
    assert said_for_all_rows(lines, headers, "age", "price age unknown")
    assert said_for_all_rows(lines, headers, "source", "source snapshot")
    prices = [float(row[headers.index("spot $/h ▲")].replace("-", "inf").replace(",", "")) for row in rows]
    assert prices == sorted(prices) and prices[0] < float("inf")  # what the rows are sorted by
    marked = any("auction" in row[headers.index("$/h")] for row in rows)
    assert marked == ("auction =" in " ".join(lines))  # a mark shown is explained


def test_offers_at_160_columns_show_every_column_and_the_sources_feed(terminal: Terminal) -> None:
    offers = _json("offers", "--gpu", "H100", "--limit", "5")
    lines = terminal(160, "offers", "--gpu", "H100", "--limit", "5")
    headers, rows = _table(lines)
    expected = ["provider", "instance", "gpu", "#", "GiB/gpu", "$/h", "$/gpu-h ▲", "spot $/h", "region"]
    assert headers == [*expected, "avail", "age", "source"]
    assert [row[-1] for row in rows] == [source_feed(o["source"]) for o in offers]
    assert [row[-2] for row in rows] == [o["age"] for o in offers]  # room enough for "unknown"
    assert _left_out(lines).startswith("not shown at this width: full source (")


def test_offers_in_a_terminal_wide_enough_keep_the_full_source(terminal: Terminal) -> None:
    offers = _json("offers", "--gpu", "H100", "--limit", "5")
    lines = terminal(240, "offers", "--gpu", "H100", "--limit", "5")
    _, rows = _table(lines)
    assert [row[-1] for row in rows] == [short_source(o["source"]) for o in offers]
    assert not any(line.startswith("not shown") for line in lines)


def test_sources_at_80_columns_name_the_credentials_to_set(
    terminal: Terminal, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VERDA_CLIENT_ID", "set")  # one of verda's two: the other is the one to set
    monkeypatch.delenv("VERDA_CLIENT_SECRET", raising=False)
    needing = [s for s in _json("sources") if s["state"] == "needs credentials"]
    assert len(needing) >= 5
    result = runner.invoke(app, ["sources"])  # a pipe: the credentials column, the state as --json says it
    _, rows = _table(result.output.splitlines())
    runpod = next(row for row in rows if row[0] == "runpod")
    assert runpod[1] == "needs credentials" and runpod[-1] == "missing: RUNPOD_API_KEY"
    lines = terminal(80, "sources")
    headers, rows = _table(lines)
    # the key figures kept (the compact table: stale beside the age, status and error in the attempt)
    assert headers[:2] == ["source", "state"] and "credentials" not in headers
    assert "age of data" in headers and "last attempt" in headers
    states = {row[0]: row[1] for row in rows}
    for source in needing:
        missing = [name for name in source["needs_credentials"] if not os.environ.get(name)]
        assert states[source["source"]] == "needs " + ", ".join(missing)
    assert states["verda"] == "needs VERDA_CLIENT_SECRET" and states["runpod"] == "needs RUNPOD_API_KEY"
    assert "credentials" not in _left_out(lines)


def test_an_auction_mark_goes_under_its_price_when_that_keeps_a_column(terminal: Terminal) -> None:
    """At 80 columns the mark beside the price costs nothing (the instance does not fit either way);
    at 86 the mark under the price leaves room for the instance (s53: with the three prices and the
    region, which never give way). Sorted by the price per GPU, that is the price marked."""
    args = ("offers", "--gpu", "H100", "--sort", "price_per_gpu", "--limit", "4")
    headers, rows = _table(terminal(80, *args))
    assert "instance" not in headers and rows[0][headers.index("$/gpu-h ▲")] == "1.000 auction"
    lines = terminal(86, *args)
    headers, rows = _table(lines)
    assert "instance" in headers and "spot $/h" in headers and "region" in headers
    assert said_for_all_rows(lines, headers, "source", "source snapshot")
    assert rows[0][headers.index("$/gpu-h ▲")] == "1.000 auction"  # on two lines: joined by _table
    mark = next(line for line in lines if line.startswith("│") and "auction" in line)
    assert mark.split("│")[1].strip() == ""  # under the price, in the row's second line
