"""``--show-rejected`` with ``--gpu``: the table listed every offer of another GPU ("748 rows left out", each
"GPU not in the asked list"), burying the few rows that say something about the GPUs asked (a renter pass,
stop 58). Those are counted under the table now; ``--json`` still lists every row."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()
ARGS = [
    "recommend",
    "serve",
    "llama-3.1-70b",
    "--gpu",
    "H100-SXM",
    "-c",
    "64",
    "--top",
    "2",
    "--show-rejected",
]


def test_rows_of_other_gpus_are_counted_not_listed() -> None:
    out = runner.invoke(app, ARGS).output
    assert "GPU not in the asked list" not in out.split("left out", 1)[1].split("and ", 1)[0]
    counted = re.search(r"and ([\d,]+) rows of GPUs, providers or regions other than those asked", out)
    assert counted is not None
    data = json.loads(runner.invoke(app, [*ARGS, "--json"]).output)
    other = [r for r in data["rejected"] if r["rejected"] == "GPU not in the asked list"]
    assert other and int(counted.group(1).replace(",", "")) == len(other)
    listed = re.search(r"(\d+) rows? left out", out)
    assert listed is not None and int(listed.group(1)) == len(data["rejected"]) - len(other)
