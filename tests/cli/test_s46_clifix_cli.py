"""A renter review of ``faq``, ``history``, ``sources``, ``prune`` and ``models remove``:

- ``faq`` errors named ``context:``, ``gpu:``, ``precision:`` where every command names its options
  (``--users:`` already was);
- ``faq --help`` put ``-c`` alone on the row under ``--users``;
- ``history H100`` made a time series of one bundled snapshot loaded six times (a block per load, a
  trend over re-loads, ``--days`` by load time) and mixed SXM, PCIe and NVL prices in one row;
- ``sources`` at 80 columns hid the age of the data, the stale rows, the last attempt and its error,
  and its note offered a ``--csv`` it does not have;
- ``prune --db`` with a mistyped path created the folder and an empty store and "removed 0 snapshots";
- ``models remove llama-3.1-8b`` said "unknown name" for a curated model.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.catalog import api
from gpuscout.cli import app
from tests.catalog.helpers import make_offer
from tests.cli.terminal_lines import table_cells, terminal_lines

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def _json(*args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, list)
    return data


# ---- faq ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--context", "10000001"], "error: --context: must be 64..10,000,000 tokens"),
        (["--gpu", "H1O0X"], "error: --gpu: unknown name 'H1O0X'"),
        (["--precision", "fp7"], "error: --precision: unknown precision 'fp7'"),
        (["--users", "0"], "error: --users: must be 1..10,000"),
        (["-c", "0"], "error: -c: must be 1..10,000"),
    ],
)
def test_faq_errors_name_the_option_as_typed(args: list[str], said: str) -> None:
    code, out = _run("faq", "llama-3.1-8b", *args)
    assert code == 2 and out.startswith(said), out


def test_faq_too_long_a_context_names_the_option() -> None:
    code, out = _run("faq", "llama-2-7b", "--context", "8k")
    assert code == 2 and out.startswith("error: --context: 8,000 tokens exceed llama-2-7b's context"), out


def test_a_short_name_sits_beside_its_option_in_help(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = terminal_lines(monkeypatch, 80, "faq", "--help")
    names = [line.split("│")[1].split()[0:2] for line in lines if line.startswith("│ -")]
    assert ["--users,", "-c"] in names
    assert not any(n and n[0] == "-c" for n in names)  # never alone on a row of its own


# ---- history ------------------------------------------------------------------------------------------


@pytest.fixture
def loaded_thrice(tmp_path: Path) -> str:
    """A store holding the bundled snapshot loaded three times (identical), as repeated package loads
    or ``refresh --source snapshot`` leave it, plus a live source observed yesterday and 40 days ago."""
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    store = api.open_store(url)
    api.load_bundled_snapshot(store)
    api.load_bundled_snapshot(store)
    now = datetime.now(UTC)
    for days, price in ((40, 3.0), (1, 2.5)):
        store.write_snapshot(
            "live",
            [
                make_offer(
                    provider="alpha",
                    instance_type="a1",
                    price_usd_per_hour=price,
                    observed_at=now - timedelta(days=days),
                )
            ],
        )
    store.close()
    return url


def test_identical_loads_are_one_row_with_their_load_date(loaded_thrice: str) -> None:
    code, out = _run("history", "H100-SXM", "--provider", "lambda", "--db", loaded_thrice)
    assert code == 0, out
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert out.count(f"loaded {today}") == 1  # one row, not one a load
    assert "no observation date" in out and "identical loads are shown once" in out
    assert "no trend yet" in out  # three loads of one snapshot are no trend
    [point] = _json("history", "H100-SXM", "--provider", "lambda", "--db", loaded_thrice)
    assert point["at"] is None and point["loads"] == 3


def test_a_family_lists_each_variant_on_its_own_rows(
    loaded_thrice: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["history", "H100", "--provider", "hyperstack", "--db", loaded_thrice]
    rows = table_cells(terminal_lines(monkeypatch, 80, *args))
    assert {row[2] for row in rows} == {"H100-SXM", "H100-PCIe"}  # the gpu column
    data = _json(*args)
    by_variant = {p["accelerator"]: p["min_usd_per_gpu_hour"] for p in data}
    assert set(by_variant) == {"H100-SXM", "H100-PCIe"}  # never one min over both
    assert by_variant["H100-PCIe"] < by_variant["H100-SXM"]


def test_days_count_back_from_when_prices_were_observed(loaded_thrice: str) -> None:
    code, out = _run("history", "H100-SXM", "--days", "7", "--db", loaded_thrice)
    assert code == 0, out
    assert "alpha" in out and "2.500" in out and "3.000" not in out  # yesterday's, not 40 days ago
    assert "loaded" not in out.split("on-demand prices only")[0]  # the undated rows are left out...
    assert "without an observation date (the bundled snapshot's) left out by --days" in out  # ...and said
    data = _json("history", "H100-SXM", "--days", "7", "--db", loaded_thrice)
    assert [p["provider"] for p in data] == ["alpha"]
    code, out = _run("history", "H100-SXM", "--days", "60", "--provider", "alpha", "--db", loaded_thrice)
    assert code == 0 and "3.000" in out and "2.500" in out and "3.000 -> 2.500" in out  # a real trend


# ---- sources ------------------------------------------------------------------------------------------


def test_sources_at_80_columns_keep_the_key_figures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("provider,gpu,price_usd_per_hour\nx,H100 SXM,-1\n")
    assert runner.invoke(app, ["refresh", "--source", f"file:{bad}"]).exit_code == 1
    lines = terminal_lines(monkeypatch, 80, "sources")
    text = " ".join(" ".join(lines).split())
    for header in ("age", "data", "last", "attempt"):
        assert header in lines[1] + lines[2] + lines[3]
    rows = {row[0]: row for row in table_cells(lines) if row[0]}
    assert rows["snapshot"][3].startswith("unknown")  # the age of the bundled data
    assert "stale" in " ".join(line for line in lines if "│ snapshot" in line or "stale" in line)
    assert "failed" in text and "never" in text  # the last attempts
    assert "--csv" not in text  # sources has no --csv
    assert "a wider terminal or --json shows them" in text


# ---- stores that do not exist -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["prune", "--older-than-days", "30"], ["sources"], ["history", "H100"]],
    ids=lambda c: c[0],
)
def test_a_store_that_does_not_exist_is_refused_not_created(command: list[str], tmp_path: Path) -> None:
    path = tmp_path / "nope" / "x.sqlite3"
    code, out = _run(*command, "--db", f"sqlite:///{path}")
    assert code == 2, out
    assert out.startswith(f"error: --db: no store at {path}") and "gpuscout refresh --db URL" in out
    assert not path.parent.exists()  # neither the folder nor an empty store was made


def test_prune_on_an_existing_store_still_prunes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite3'}"
    api.open_store(url).close()
    code, out = _run("prune", "--older-than-days", "30", "--db", url)
    assert code == 0 and out.endswith("removed 0 snapshots")


# ---- models remove ------------------------------------------------------------------------------------


def test_a_curated_model_cannot_be_removed_and_says_so(tmp_path: Path) -> None:
    code, out = _run("models", "remove", "llama-3.1-8b")
    assert code == 2
    assert "llama-3.1-8b is curated: curated models cannot be removed (only imported ones)" in out
    assert "unknown name" not in out and "none is imported" in out
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "hidden_size": 512,
                "intermediate_size": 1024,
                "num_hidden_layers": 2,
                "num_attention_heads": 8,
                "num_key_value_heads": 8,
                "vocab_size": 1000,
                "max_position_embeddings": 2048,
            }
        )
    )
    assert runner.invoke(app, ["models", "import", str(config), "--name", "tiny-x"]).exit_code == 0
    code, out = _run("models", "remove", "Llama 3.1 8B")  # an alias of the curated model
    assert (
        code == 2 and "curated models cannot be removed" in out and "an imported model's name: tiny-x" in out
    )
    code, out = _run("models", "remove", "nosuch")  # neither: the imported ones are named
    assert code == 2 and "unknown name 'nosuch'" in out
    assert runner.invoke(app, ["models", "remove", "tiny-x"]).exit_code == 0
