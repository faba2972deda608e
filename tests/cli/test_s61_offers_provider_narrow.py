"""A narrow terminal's offers table keeps the provider (stop 61): at 80 columns ``gpuscout offers --spot
--gpu A100`` dropped it to keep every price, and a price cannot be rented without its provider. The
prices of the side the rows are not read by (the on-demand ones with --spot, the spot one without)
give way instead, after every other column whose rows differ, and are named under the table."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeAlias

import pytest

from gpuscout.cli import offers_view
from tests.cli.terminal_lines import terminal_lines

Terminal: TypeAlias = Callable[..., list[str]]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    return functools.partial(terminal_lines, monkeypatch)


def _headers(lines: list[str]) -> list[str]:
    parts = [[cell.strip() for cell in line.split("┃")[1:-1]] for line in lines if line.startswith("┃")]
    return [" ".join(filter(None, column)).removesuffix(" ▲") for column in zip(*parts, strict=True)]


def _not_shown(lines: list[str]) -> list[str]:
    at = next(i for i, line in enumerate(lines) if line.startswith("not shown at this width: "))
    note = " ".join(" ".join(lines[at:]).split())
    return note.removeprefix("not shown at this width: ").split(" (a wider terminal")[0].split(", ")


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("spot", [True, False])
def test_the_provider_stays_beside_the_prices(terminal: Terminal, width: int, spot: bool) -> None:
    args = ["offers", "--gpu", "A100", *(["--spot"] if spot else [])]
    lines = terminal(width, *args)
    headers = _headers(lines)
    assert headers[0] == "provider", headers  # the rows come from several providers: a column
    own = ("spot $/h", "spot $/gpu-h") if spot else ("$/h", "$/gpu-h")
    assert all(price in headers for price in own), headers  # the side the rows are read by
    for price in {"$/h", "$/gpu-h", "spot $/h"} - set(headers):  # another side's price: said so
        assert price not in own and price in _not_shown(lines), (price, lines)


def test_at_80_columns_the_spot_table_gives_up_the_on_demand_prices_for_the_provider(
    terminal: Terminal,
) -> None:
    lines = terminal(80, "offers", "--spot", "--gpu", "A100")
    headers = _headers(lines)
    assert headers == ["provider", "gpu", "spot $/h", "spot $/gpu-h", "region"]
    assert {"$/h", "$/gpu-h"} <= set(_not_shown(lines))


def test_the_rule_in_the_column_list() -> None:
    """The provider has no order of giving way among columns whose rows differ; only the other side's
    prices and the columns of old do."""
    for spot in (True, False):
        columns = {c.header: c for c in offers_view.narrow_columns(spot=spot, header="plain")}
        assert columns["provider"].drop is None and columns["provider"].same is not None
        other = ("$/h", "$/gpu-h") if spot else ("spot $/h",)
        assert all(columns[h].drop is not None for h in other)
        assert max(c.drop or 0 for h, c in columns.items() if h not in other) < min(
            columns[h].drop or 0 for h in other
        )
