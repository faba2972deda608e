"""``gpuscout offers`` says where an opaque region code is: "af-casablanca-1 (MA)", "eu-west1 (FR)"
(``knowledge.regions.place_label``), and leaves a name that says its place as it is ("country:DE",
"frankfurt-germany-6", "us-east-1"). The raw ``region`` of ``--json`` and ``--csv`` is unchanged. Where
a narrow table cuts the column, the code is cut before its country, never the country off its end."""

from __future__ import annotations

import csv
import io
import json
import re
from io import StringIO

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.catalog.offer_fields import RECORD_COLUMNS
from gpuscout.cli import app, offers_view
from tests.catalog.helpers import make_offer

runner = CliRunner()

LABELLED = {
    "af-casablanca-1": "af-casablanca-1 (MA)",  # OCI
    "eu-west1": "eu-west1 (FR)",  # Nebius
    "ap-northeast-2": "ap-northeast-2 (KR)",  # AWS: the longest code of the snapshot whole
    "FIN-01": "FIN-01 (FI)",
    "NY2": "NY2 (US)",
}
AS_IT_IS = ("us-east-1", "country:DE", "frankfurt-germany-6", "NORWAY-1", "unstated")


@pytest.mark.parametrize(("region", "shown"), LABELLED.items())
def test_an_opaque_code_shows_the_country_it_is_in(region: str, shown: str) -> None:
    assert offers_view.region_text(make_offer(region=region)) == shown


@pytest.mark.parametrize("region", AS_IT_IS)
def test_a_name_that_says_its_place_is_shown_as_it_is(region: str) -> None:
    assert offers_view.region_text(make_offer(region=region)) == region


def test_an_offer_standing_for_several_regions_shows_its_summary() -> None:
    offer = make_offer(region="2 regions", regions=("eu-west-1", "eu-west-2"))
    assert offers_view.region_text(offer) == "2 regions"


def _rows(output: str) -> list[list[str]]:
    return [
        [c.strip() for c in line.split("│")[1:-1]] for line in output.splitlines() if line.startswith("│")
    ]


def test_the_piped_table_shows_the_place_and_json_csv_keep_the_raw_region() -> None:
    table = runner.invoke(app, ["offers", "--region", "eu-west-1", "--limit", "0"])
    assert table.exit_code == 0, table.output
    regions = {row[8] for row in _rows(table.output) if row[0]}
    assert "eu-west-1 (IE)" in regions and not {r for r in regions if r == "eu-west-1"}
    out = runner.invoke(app, ["offers", "--region", "eu-west-1", "--limit", "0", "--json"])
    records = json.loads(out.output)
    assert records and all("(" not in r["region"] for r in records)
    assert {r["region"] for r in records} >= {"eu-west-1"}
    assert "(IE)" not in out.output  # the place is the table's: no key of the records changed
    out = runner.invoke(app, ["offers", "--region", "eu-west-1", "--limit", "0", "--csv"])
    reader = csv.DictReader(io.StringIO(out.output))
    rows = list(reader)
    assert reader.fieldnames == [*RECORD_COLUMNS, "age"]
    assert rows and {r["region"] for r in rows} >= {"eu-west-1"} and all("(" not in r["region"] for r in rows)


LONG = ("af-johannesburg-1", "af-casablanca-1", "ap-northeast-2", "europe-central-1", "eu-west1")


def _offers() -> list[object]:
    return [
        make_offer(instance_type=f"gpu-instance-{k}", region=r, price_usd_per_hour=1.0 + k)
        for k, r in enumerate(LONG)
    ]


def _printed(width: int) -> tuple[list[str], list[str]]:
    offers = _offers()
    table, left_out, *_ = offers_view._fitted("t", offers, width, spot=False)  # type: ignore[arg-type]
    out = StringIO()
    Console(file=out, width=width, force_terminal=False, color_system=None).print(table)
    return out.getvalue().splitlines(), left_out


@pytest.mark.parametrize("width", [80, 100, 120])
def test_the_table_fits_a_narrow_terminal(width: int) -> None:
    lines, _ = _printed(width)
    assert lines and all(len(line) <= width for line in lines), lines


def test_a_cut_region_keeps_its_country() -> None:
    # wide enough for the region column, too narrow for the instance names whole: names are cut
    width = next(w for w in range(80, 260) if "region" not in _printed(w)[1])
    lines, left_out = _printed(width)
    assert "region" not in left_out
    header = next(line for line in lines if line.startswith("┃"))
    at = [c.strip() for c in header.split("┃")[1:-1]].index("region")
    cells = [row[at] for row in _rows("\n".join(lines))]
    assert "af-johannesbu… (ZA)" in cells  # 22 characters whole: its code cut, its country kept
    assert "ap-northeast-2 (KR)" in cells and "af-casablanca… (MA)" in cells  # 19 fit whole, 20 do not
    assert all(re.search(r"\([A-Z]{2}\)$", c) for c in cells if c != "europe-central-1"), cells
