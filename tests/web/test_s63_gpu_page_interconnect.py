"""A GPU page's offers table says each offer's interconnect, as the comparison table does (stop 62 note:
/gpus/<name> listed 8-GPU boxes with no word of NVLink or PCIe, which is what tensor parallel runs over).
Both tables render the cell from one macro, so the words agree."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def _table(page: str, table_id: str) -> str:
    found = re.search(rf'<table class="offers[^"]*" id="{table_id}">.*?</table>', page, re.S)
    assert found, table_id
    return found.group(0)


def _cells(table: str) -> list[str]:
    return re.findall(r'<td class="interconnect[^"]*" data-label="Interconnect">[^<]*</td>', table)


def test_gpu_page_offers_say_their_interconnect(client: TestClient) -> None:
    table = _table(client.get("/gpus/H100-SXM").text, "gpu-offers")
    assert '<th scope="col">Interconnect</th>' in table
    cells = _cells(table)
    rows = table.count("<tr>") - 1  # less the header row
    assert rows > 0 and len(cells) == rows
    assert all(re.search(r">(NVLink|PCIe|unknown|—)( \+ [^<]+)?</td>", c) for c in cells)


def test_one_gpu_offers_link_nothing_and_hide_the_cell_on_phone_cards(client: TestClient) -> None:
    page = client.get("/gpus/H100-SXM").text
    table = _table(page, "gpu-offers")
    cell = r'</td>(<td class="interconnect[^"]*"[^>]*>[^<]*)'
    ones = re.findall(r'data-label="GPUs">1× [^<]*' + cell, table)
    many = re.findall(r'data-label="GPUs">(?:[2-9]|\d\d+)× [^<]*' + cell, table)
    assert ones or many
    # one GPU links nothing: "—", hidden on a phone card; several GPUs say their link
    assert all("single" in c and c.endswith(">—") for c in ones)
    assert all("single" not in c and re.search(r">(NVLink|PCIe|unknown)", c) for c in many)
