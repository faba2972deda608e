"""``gpuscout offers`` says in one line why its table is empty: ``--gpu TPU`` on a catalog without TPUs
printed a bare "0 of 0 offers" table (while ``recommend`` explained); now it says the catalog has no offer
of those GPUs, or which filters, dropped alone, give offers back. ``--json`` stays an empty list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.catalog.no_offers import why_no_offers
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.cli import app, lean
from tests.catalog.helpers import make_offer

runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[str]:
    """Three H100 offers and one stale A100 one (the bundled snapshot marked loaded, with no rows)."""
    url = f"sqlite:///{tmp_path / 'offers.db'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        offers = [
            make_offer(instance_type=f"h{k}", price_usd_per_hour=2.0 + k, gpu_count=1 + k) for k in range(3)
        ]
        store.write_snapshot("test", offers)
        stale = make_offer(
            provider="oldcloud", instance_type="a", accelerator="A100-SXM4-80GB", stale=True, source="old:x"
        )
        store.write_snapshot("old", [stale])
    yield url


def _line(db: str, *args: str) -> str:
    result = runner.invoke(app, ["offers", *args, "--db", db], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--gpu", "TPU"],
            "no offer of TPU-v6e, TPU-v5p, TPU-v5e or TPU-v4 is in the catalog (its 4 offers have none",
        ),
        (["--gpu", "Gaudi", "--max-price", "1"], "no offer of Gaudi3 or Gaudi2 is in the catalog"),
        # stale feeds are hidden by default since stop 60 (a filter of its own: --include-stale drops it)
        (["--max-price", "1"], "no offer passes these filters together; without --max-price: 3 offers"),
        (
            ["--gpu", "H100", "--gpus", "2", "--max-price", "2.5"],
            "no offer passes these filters together; without --gpus: 1 offer, without --max-price: 1 offer",
        ),
        (
            ["--provider", "oldcloud", "--no-stale"],
            "no offer passes these filters together; without --provider: 3 offers, "
            "with --include-stale: 1 offer",
        ),
        (["--gpu", "A100", "--gpus", "2", "--max-price", "1"], "dropping any one of them still leaves none"),
    ],
)
def test_an_empty_table_says_why(db: str, args: list[str], said: str) -> None:
    text = _line(db, *args)
    assert "0 of 0 offers" in text
    assert said in text


def test_a_table_with_rows_says_nothing_of_the_kind(db: str) -> None:
    text = _line(db, "--gpu", "H100")
    assert "3 of 3 offers" in text and "no offer" not in text and "passes" not in text


@pytest.mark.parametrize("kind", ["--json", "--csv"])
def test_json_and_csv_stay_empty(db: str, kind: str) -> None:
    result = runner.invoke(app, ["offers", "--gpu", "TPU", kind, "--db", db])
    assert result.exit_code == 0, result.output
    assert "no offer" not in result.output
    if kind == "--json":
        assert json.loads(result.output) == []


def test_the_lean_path_says_it_as_typer_does(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["offers", "--gpu", "TPU", "--db", db]
    typer_out = runner.invoke(app, args).output
    assert lean.run(args) == 0
    assert capsys.readouterr().out == typer_out
    assert "no offer of TPU-v6e" in typer_out


def test_an_empty_catalog_says_so() -> None:
    text = why_no_offers(OfferQuery(gpus=("H100-SXM",)), lambda q: 0, {}, "refresh")
    assert text == "the catalog has no offer at all (refresh)"
