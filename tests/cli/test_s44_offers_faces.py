"""``gpuscout offers`` shows what its rows are sorted by, sorts regions by name, and says when a region
matches nothing; ``gpuscout history`` reads ``--days`` by the catalog's one rule, points a ``--gpu`` to
its first argument, and names the closest providers for an unknown ``--provider``.

- The column the rows are sorted by is never the one a narrow terminal drops (at 80 columns ``--sort
  price_per_gpu`` showed only ``$/h``: 1.000, 8.000, 1.290...), and its header is marked; a sort with
  no column of its own (``price_per_gb_vram``...) gets one.
- ``--sort region`` sorted the label: "14 regions" < "2 regions" < "CANADA-1" < "country:US". Rows of
  one region now come A-Z ignoring case, in code-point order on SQLite and PostgreSQL alike, and rows
  standing for several regions after them.
- ``--region Mars`` printed an empty table: it is an error naming the closest regions with offers.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeAlias

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.catalog.query import SORT_KEYS, OfferQuery
from gpuscout.catalog.reader import SqliteReader, open_reader
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.cli import app, consoles, lean, offers_view
from gpuscout.cli.markup import plain
from gpuscout.cli.table_fit import PIPE_WIDTH, Column, fitted_table
from tests.catalog.helpers import STORE_KINDS, make_offer, temp_store
from tests.cli.offers_shared import accounted_for, said_for_all_rows

runner = CliRunner()
Terminal: TypeAlias = Callable[..., list[str]]
MARKS = ("▲", "▼")  # offers_view.LOW_FIRST_MARK, HIGH_FIRST_MARK
HIGH_FIRST = {"gpu_memory", "total_vram", "bandwidth_per_dollar", "tflops_per_dollar"}


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """``terminal(width, *args)``: the lines ``gpuscout ARGS`` prints to a colourless terminal."""

    def run(width: int, *args: str) -> list[str]:
        for name, value in {"TTY_COMPATIBLE": "1", "COLUMNS": str(width), "NO_COLOR": "1"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(consoles, "console", Console(emoji=False))
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        lines = re.sub(r"\x1b\[[0-9;]*m", "", result.output).splitlines()
        assert all(len(line) <= width for line in lines)
        return lines

    return run


def _table(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """The headers (one on two lines joined by a space) and the rows of the table in ``lines``."""
    parts = [[cell.strip() for cell in line.split("┃")[1:-1]] for line in lines if line.startswith("┃")]
    headers = [" ".join(filter(None, column)) for column in zip(*parts, strict=True)]
    rows: list[list[str]] = []
    for line in lines:
        if not line.startswith("│"):
            continue
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    return headers, rows


def _number(cell: str) -> float:
    return float(cell.removesuffix(" auction").replace(",", "").replace("-", "inf"))


# ---- the sorted column ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sort", "header"),
    [
        ("price_per_gpu", "$/gpu-h ▲"),
        ("price_per_gb_vram", "$/GiB-h ▲"),
        ("price", "$/h ▲"),
        ("on_demand_price_per_gpu", "$/gpu-h ▲"),
        ("gpu_memory", "GiB/gpu ▼"),
    ],
)
def test_at_80_columns_the_sorted_column_is_shown_and_marked(
    terminal: Terminal, sort: str, header: str
) -> None:
    lines = terminal(80, "offers", "--gpu", "H100", "--sort", sort, "--limit", "8")
    headers, rows = _table(lines)
    assert header in headers, headers
    # still on every row: as columns, or said once for all rows where every row reads the same (s53);
    # ages that differ give way to the prices and the region where all do not fit, and are named
    assert accounted_for(lines, headers, "age", "price age unknown"), lines
    assert said_for_all_rows(lines, headers, "source", "source snapshot"), lines
    values = [_number(row[headers.index(header)]) for row in rows]
    assert len(values) == 8
    assert values == sorted(values, reverse=header.endswith("▼"))


def test_the_per_gpu_sort_shows_the_per_gpu_price_and_its_auction_mark(terminal: Terminal) -> None:
    headers, rows = _table(terminal(80, "offers", "--gpu", "H100", "--sort", "price_per_gpu", "--limit", "8"))
    column = headers.index("$/gpu-h ▲")
    assert rows[0][column] == "1.000 auction" and rows[1][column] == "1.000 auction"  # mithril 1x and 8x
    assert "$/h" in headers and "spot $/h" in headers  # s53: no price gives way to the sort's own


def test_the_region_sort_keeps_the_region_at_80_columns(terminal: Terminal) -> None:
    headers, rows = _table(terminal(80, "offers", "--sort", "region", "--limit", "5"))
    column = headers.index("region ▲")
    assert [row[column] for row in rows] == sorted((row[column] for row in rows), key=str.lower)


@pytest.mark.parametrize("sort", SORT_KEYS)
@pytest.mark.parametrize("spot", [False, True])
def test_every_sort_shows_its_column_at_80_columns_and_marks_it_in_a_pipe(
    terminal: Terminal, sort: str, spot: bool
) -> None:
    """In a pipe every column is there, the sorted one marked; at 80 columns the sorted one stays (its
    mark too, unless the mark alone would cost a column: the title names the sort), and the prices of
    the rows' side (--spot: spot), the provider and the region too (s53: what tells offers apart never
    gives way; s61: nor the provider, without which no price can be rented); a price of the other side
    may give way, named under the table; the source, the same on every row here, is said once for all
    rows."""
    args = ["offers", "--sort", sort, "--limit", "6", *(["--spot"] if spot else [])]
    layout = offers_view.sort_layout(sort, spot=spot or sort == "spot_price")
    header = layout.header
    piped = _table(runner.invoke(app, args).output.splitlines())[0]  # before the terminal's environment
    assert [h for h in piped if h.endswith(MARKS)] == [f"{header} {'▼' if sort in HIGH_FIRST else '▲'}"]
    lines = terminal(80, *args)
    headers = [h.removesuffix(" ▲").removesuffix(" ▼") for h in _table(lines)[0]]
    assert header in headers, (sort, headers)
    assert "region" in headers, (sort, headers)
    assert said_for_all_rows(lines, headers, "provider", "provider "), (sort, lines)
    side = spot or sort == "spot_price"
    for price, label, on_spot in (
        ("$/h", "on-demand price", False),
        ("$/gpu-h", "price per GPU", False),
        ("spot $/h", "spot price", True),
    ):
        # a price no row has ("-" on every row) is said once: "all rows: no spot price"
        kept = said_for_all_rows if on_spot == side else accounted_for
        assert kept(lines, headers, price, f"no {label}"), (sort, lines)
    assert said_for_all_rows(lines, headers, "source", "source snapshot"), (sort, lines)


@pytest.mark.parametrize(
    ("sort", "header", "reverse"),
    [
        ("price_per_gb_vram", "$/GiB-h ▲", False),
        ("bandwidth_per_dollar", "GB/s per $ ▼", True),
        ("tflops_per_dollar", "TFLOPS per $ ▼", True),
        ("total_vram", "GiB total ▼", True),
    ],
)
def test_a_sort_without_a_column_gets_one_in_order(sort: str, header: str, reverse: bool) -> None:
    result = runner.invoke(app, ["offers", "--sort", sort, "--limit", "20"])
    assert result.exit_code == 0, result.output
    headers, rows = _table(result.output.splitlines())
    values = [_number(row[headers.index(header)]) for row in rows]
    assert values == sorted(values, reverse=reverse)


def _rich_text(title: str, columns: tuple[Column, ...], rows: list[tuple[str, ...]]) -> str:
    out = io.StringIO()
    console = Console(file=out, width=PIPE_WIDTH, no_color=True, emoji=False)
    table, left_out = fitted_table(title, columns, [tuple(plain(c) for c in row) for row in rows], None)
    assert left_out == []
    console.print(table)
    return out.getvalue()


@pytest.mark.parametrize("sort", SORT_KEYS)
def test_the_pipe_table_with_a_marked_header_is_the_text_rich_prints(sort: str) -> None:
    offers, *_ = offers_view.find_offers(offers_view.OffersOptions(sort=sort, limit=12))
    layout = offers_view.sort_layout(sort, spot=False)
    columns = offers_view.wide_columns(layout)
    rows = [offers_view._cells(o, markup=False, layout=layout) for o in offers]
    text = offers_view.pipe_table("t", columns, rows)
    assert text is not None  # the mark keeps the fast path
    assert text == _rich_text("t", columns, rows)


def test_the_lean_path_prints_the_marked_table_as_typer_does(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["offers", "--gpu", "H100", "--sort", "price_per_gb_vram", "--limit", "5"]
    typer_out = runner.invoke(app, args).output
    assert lean.run(args) == 0
    assert capsys.readouterr().out == typer_out
    assert "$/GiB-h ▲" in typer_out


# ---- the region sort --------------------------------------------------------------------------------

NAMED = ["us-east-1", "CANADA-1", "country:US", "texas-1", "Texas, US", "eu-west-1"]


def _region_offers() -> list[object]:
    named = [
        make_offer(instance_type=f"n{k}", region=r, price_usd_per_hour=9.0 - k) for k, r in enumerate(NAMED)
    ]
    several = [
        make_offer(
            instance_type=f"m{n}",
            region=f"{n} regions",
            regions=tuple(f"zone-{i}" for i in range(n)),
            price_usd_per_hour=1.0 + n / 100,
        )
        for n in (14, 2, 3)
    ]
    return [*named, *several]


def _expected(descending: bool) -> list[str]:
    # one region: A-Z ignoring case, in code-point order ("Texas, US" before "texas-1": "," < "-");
    # several regions: after them either way, cheapest first (the ties of every sort)
    named = sorted(NAMED, key=lambda r: r.lower(), reverse=descending)
    return [*named, "2 regions", "3 regions", "14 regions"]


@pytest.mark.parametrize("kind", STORE_KINDS)
@pytest.mark.parametrize("descending", [False, True])
def test_regions_sort_by_name_with_several_regions_last_on_every_store(
    kind: str, descending: bool, tmp_path: Path
) -> None:
    with temp_store(kind, tmp_path) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot("test", _region_offers())  # type: ignore[arg-type]
        offers = store.current_offers(OfferQuery(sort="region", descending=descending))
        assert [o.region for o in offers] == _expected(descending)
        if kind == "sqlite":  # the CLI's reader (the standard library's sqlite3) reads the same order
            reader = open_reader(f"sqlite:///{tmp_path / 'catalog.sqlite3'}")
            assert isinstance(reader, SqliteReader)
            try:
                page, _ = reader.offer_page(OfferQuery(sort="region", descending=descending))
            finally:
                reader.close()
            assert [o.region for o in page] == _expected(descending)


@pytest.fixture
def region_db(tmp_path: Path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'regions.db'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot("test", _region_offers())  # type: ignore[arg-type]
    yield url


def test_offers_sorted_by_region_list_named_regions_first(region_db: str) -> None:
    result = runner.invoke(app, ["offers", "--sort", "region", "--csv", "--db", region_db])
    assert result.exit_code == 0, result.output
    assert [r["region"] for r in csv.DictReader(io.StringIO(result.output))] == _expected(False)


def test_the_bundled_catalog_sorted_by_region_puts_summaries_last() -> None:
    result = runner.invoke(app, ["offers", "--sort", "region", "--limit", "0", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    several = [len(r["regions"]) > 1 for r in rows]
    assert several.index(True) > 0 and all(several[several.index(True) :])  # after every named region
    named = [r["region"].lower() for r in rows if len(r["regions"]) <= 1]
    assert named == sorted(named)


# ---- a region no offer is in ------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [(), ("--json",), ("--csv",)])
def test_a_region_no_offer_is_in_is_an_error_naming_the_closest(extra: tuple[str, ...]) -> None:
    result = runner.invoke(app, ["offers", "--region", "eu-wst-1", *extra])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert (
        "--region: no current offer is in a region matching 'eu-wst-1'; closest with offers: eu-west-1"
        in text
    )
    assert "0 of 0" not in text


def test_a_list_of_regions_none_of_which_matches_names_the_first_unknown() -> None:
    result = runner.invoke(app, ["offers", "--region", "Mars,Venus", "--gpu", "H100"])
    assert result.exit_code == 2, result.output
    assert "no current offer is in a region matching 'Mars'" in " ".join(result.output.split())


def test_a_known_region_without_matching_offers_is_an_empty_table() -> None:
    """Other filters left nothing: the region is not at fault (and a list whose other regions match
    lists their offers, as the web page does: ``tests/web/test_s42_api_region.py``)."""
    result = runner.invoke(app, ["offers", "--region", "us-east-1", "--max-price", "0.0001", "--json"])
    assert result.exit_code == 0 and json.loads(result.output) == []
    result = runner.invoke(app, ["offers", "--region", "Mars,us-east-1", "--json", "--limit", "2"])
    assert result.exit_code == 0 and len(json.loads(result.output)) == 2


def test_known_regions_still_list_their_offers(capsys: pytest.CaptureFixture[str]) -> None:
    result = runner.invoke(app, ["offers", "--region", "us-east", "--json", "--limit", "3"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)) == 3
    assert lean.run(["offers", "--region", "Mars"]) is None  # the error is Typer's to print
    assert capsys.readouterr().out == ""


# ---- history ----------------------------------------------------------------------------------------


#: The one rule of ``history --days`` and ``/api/v1/history?days=`` (``catalog.status.check_history_days``).
DAYS_ACCEPTED = "accepted: a number of days above 0, up to 36,500"


@pytest.mark.parametrize("days", ["-3", "0", "-0.5", "36501", "1e308", "nan", "inf"])
def test_history_days_out_of_range_is_said_by_the_one_rule(days: str) -> None:
    result = runner.invoke(app, ["history", "H100", "--days", days])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert f"--days: {float(days):g} is out of range ({DAYS_ACCEPTED})" in text


def test_history_days_that_are_not_a_number_are_refused() -> None:
    result = runner.invoke(app, ["history", "H100", "--days", "abc"])
    assert result.exit_code == 2, result.output
    assert "'abc' is not a number" in result.output


def test_history_takes_part_of_a_day_and_many_days() -> None:
    for days in ("0.5", "36500"):
        result = runner.invoke(app, ["history", "H100", "--days", days, "--json"])
        assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--gpu", "H100"], "gpuscout history H100"),
        (["--days", "3", "--gpu=A100", "--json"], "gpuscout history A100 --days 3 --json"),
        (["--gpu", "RTX 4090"], "gpuscout history 'RTX 4090'"),
    ],
)
def test_history_gpu_option_points_to_the_first_argument(args: list[str], said: str) -> None:
    result = runner.invoke(app, ["history", *args])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.replace("│", " ").split())
    assert f"--gpu: the GPU is the first argument: {said}" in text
    assert "No such option" not in text and "--db" not in text


@pytest.mark.parametrize(("name", "first"), [("lamda", "lambda"), ("vastia", "vastai")])
def test_history_unknown_provider_names_the_closest(name: str, first: str) -> None:
    result = runner.invoke(app, ["history", "H100", "--provider", name])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert f"--provider: unknown name {name!r}; closest known: {first}" in text


def test_history_reads_provider_aliases_and_known_providers_without_prices() -> None:
    result = runner.invoke(app, ["history", "H100", "--provider", "Vast.ai", "--json"])
    assert result.exit_code == 0, result.output
    points = json.loads(result.output)
    assert points and {p["provider"] for p in points} == {"vastai"}
    known = runner.invoke(app, ["history", "H100", "--provider", "paperspace"])  # a provider, no H100 price
    assert known.exit_code == 0, known.output
    assert "no stored on-demand prices for H100 at paperspace" in " ".join(known.output.split())
