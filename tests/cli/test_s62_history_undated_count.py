"""``history --days`` counts what it says it left out (stop 62).

``history H100-SXM --days 7`` said "15 prices without an observation date ... left out" while it counted
the table's provider rows: the bundled snapshot's 15 rows price 60 offers. It now says both, as the table
counts them (identical loads of the bundled snapshot folded into one row).
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.cli import app
from tests.cli.test_s46_clifix_cli import loaded_thrice  # noqa: F401  (the fixture)

runner = CliRunner()


def test_the_undated_rows_left_out_are_counted_as_rows_and_offers(loaded_thrice: str) -> None:  # noqa: F811
    # the undated rows as the table shows them without --days (identical loads folded: one a provider)
    rows = json.loads(runner.invoke(app, ["history", "H100-SXM", "--db", loaded_thrice, "--json"]).output)
    undated = [p for p in rows if p["at"] is None]
    offers = sum(p["offers"] for p in undated)
    assert len(undated) > 1 and offers > len(undated), "premise: undated rows of several offers each"
    res = runner.invoke(app, ["history", "H100-SXM", "--days", "7", "--db", loaded_thrice])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert (
        f"{len(undated)} provider rows ({offers:,} offers) without an observation date (the bundled "
        "snapshot's) left out by --days"
    ) in said
    assert f"{len(undated)} prices without" not in said
