"""The /gpus BF16 and FP8 cells read as ``gpuscout gpus`` prints them (stop 62 web review).

The CLI read "yes*" for a part that computes in bf16 without a published rate (RTX 2000 Ada, RTX 3080)
and for FP8 on an RTX 4070 Ti Super; the web printed "—" in both, and "—" again for a T4's or a V100's
missing bf16 while its FP8 column spelled "no FP8". Both faces now take the cells from
``gpuscout.estimate.rate_cells``: a rate, "yes*" (footnoted), or "no BF16" / "no FP8".
"""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.rate_cells import RATE_FOOTNOTE


def _web_rows(page: str) -> dict[str, list[str]]:
    """Each /gpus row's cells (text), by GPU name."""
    rows: dict[str, list[str]] = {}
    for body in re.findall(r"<tr>(.*?)</tr>", page, re.S):
        found = re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)
        cells = [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in found]
        if cells:
            rows[cells[0]] = cells
    return rows


def _cli_rows() -> dict[str, list[str]]:
    """Each ``gpuscout gpus`` row's cells on a pipe (every column shown), by GPU name."""
    result = CliRunner().invoke(app, ["gpus"])
    assert result.exit_code == 0, result.output
    rows: dict[str, list[str]] = {}
    for line in result.output.splitlines():
        if line.startswith("│ "):
            cells = [cell.strip() for cell in line.strip("│").split("│")]
            rows[cells[0]] = cells
    return rows


def test_web_bf16_and_fp8_cells_are_the_clis(client: TestClient) -> None:
    page = client.get("/gpus")
    assert page.status_code == 200
    web, cli = _web_rows(page.text), _cli_rows()
    assert len(web) == len(cli) > 40
    for name, cells in web.items():
        # web: GPU, Vendor, Class, Memory, Bandwidth, BF16, FP8 ...; CLI: Name, Memory, Bandwidth, BF16, FP8
        assert (cells[5], cells[6]) == (cli[name][3], cli[name][4]), name


def test_cells_say_supported_without_a_rate_and_unsupported_in_words(client: TestClient) -> None:
    web = _web_rows(client.get("/gpus").text)
    assert web["RTX2000-Ada"][5:7] == ["yes*", "96"]  # bf16 without a rate beside a published FP8
    assert web["RTX3080"][5:7] == ["yes*", "no FP8"]
    assert web["RTX4070Ti-Super"][5:7] == ["yes*", "yes*"]
    assert web["T4"][5:7] == ["no BF16", "no FP8"]
    assert web["V100-SXM2-16GB"][5] == "no BF16"
    assert web["H100-SXM"][5] == "989.5"
    assert RATE_FOOTNOTE in unescape(client.get("/gpus").text)
