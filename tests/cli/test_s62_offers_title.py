"""``gpuscout offers`` names its sort in the title as the table heads the sorted column (stop 62): the title
said the option's raw value ("3 of 655 offers, sorted by price_per_gpu"; with ``--spot``, "sorted by
price" over rows ordered by their spot price). It now says the marked header of the column the rows are
sorted by ("sorted by $/gpu-h ▲", "sorted by spot $/h ▲"): one label per sort key, the table's own
(:func:`gpuscout.cli.offers_view.sort_layout`)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from gpuscout.catalog.query import SORT_ALIASES, SORT_KEYS
from gpuscout.cli import app

runner = CliRunner()
TITLE = re.compile(r"^\s*\d+ of [\d,]+ offers?, sorted by (?P<label>.+?)\s*$")


def _title_and_marked(args: list[str]) -> tuple[str, list[str]]:
    """The sort's label in the title of ``gpuscout offers ARGS`` in a pipe, and the marked headers."""
    result = runner.invoke(app, ["offers", "--limit", "3", *args])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    found = TITLE.match(lines[0])
    assert found is not None, lines[0]
    headers = [cell.strip() for line in lines if line.startswith("┃") for cell in line.split("┃")[1:-1]]
    return found.group("label"), [h for h in headers if h.endswith(("▲", "▼"))]


@pytest.mark.parametrize(
    ("args", "label"),
    [
        (["--sort", "price_per_gpu"], "$/gpu-h ▲"),
        ([], "$/gpu-h ▲"),  # the default sort
        (["--sort", "price_per_gpu", "--spot"], "spot $/gpu-h ▲"),
        (["--sort", "price", "--spot"], "spot $/h ▲"),
        (["--sort", "price_per_gb_vram"], "$/GiB-h ▲"),
        (["--sort", "bandwidth_per_dollar"], "GB/s per $ ▼"),
        (["--sort", "gpu_memory"], "GiB/gpu ▼"),
        (["--sort", "vram"], "GiB/gpu ▼"),  # the web table's name for it
        (["--sort", "interconnect"], "link ▲"),
    ],
)
def test_the_title_names_the_sort_by_its_columns_header(args: list[str], label: str) -> None:
    assert _title_and_marked(args) == (label, [label])


@pytest.mark.parametrize("sort", [*SORT_KEYS, *SORT_ALIASES])
@pytest.mark.parametrize("spot", [False, True])
def test_every_sort_is_named_as_the_column_it_marks(sort: str, spot: bool) -> None:
    label, marked = _title_and_marked(["--sort", sort, *(["--spot"] if spot else [])])
    assert marked == [label]
    assert "_" not in label
