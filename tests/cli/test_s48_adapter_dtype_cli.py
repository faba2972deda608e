"""``gpuscout recommend finetune --adapter-dtype`` and a workload file's ``adapter_dtype``: the LoRA /
QLoRA adapters' dtype reaches the estimate (fp32 adapters, PEFT's default without torch autocast, train the
same offer slower and dearer), ``--explain`` says the dtype assumed, and a bad value or one given with
full fine-tuning is an error naming the option, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.advise.workload import FinetuneWorkload
from gpuscout.cli import app
from tests.cli.stores import h100_offer, store_with

runner = CliRunner()
BASE = ["recommend", "finetune", "llama-3.1-8b", "--dataset-tokens", "100M", "--top", "1"]


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return store_with(tmp_path, [h100_offer("runpod", "h100x1", 2.5)])


def _row(db: str, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*BASE, "--db", db, "--json", *args])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["recommendations"]
    assert len(rows) == 1
    row: dict[str, Any] = rows[0]
    return row


def _time(row: dict[str, Any]) -> float:
    return float(row["time_to_result_s"])


def test_fp32_adapters_train_the_same_offer_slower_and_dearer(db: str) -> None:
    default, half, full32 = (
        _row(db),
        _row(db, "--adapter-dtype", "16bit"),
        _row(db, "--adapter-dtype", "fp32"),
    )
    assert _time(default) == _time(half)  # 16bit is the default
    assert _time(full32) > _time(half)
    assert full32["cost"]["total"] > half["cost"]["total"]
    assert full32["estimate"]["throughput"] < half["estimate"]["throughput"]
    assert full32["assumptions"]["LoRA adapters"].startswith("fp32: PEFT's default")
    assert half["assumptions"]["LoRA adapters"].startswith("16-bit, in the compute dtype")


def test_a_workload_file_gives_it_and_the_option_overrides_the_file(db: str, tmp_path: Path) -> None:
    path = tmp_path / "ft.yaml"
    path.write_text("kind: finetune\nmodel: llama-3.1-8b\ndataset_tokens: 100M\nadapter_dtype: fp32\n")
    from_file = _row(db, "--workload", str(path))
    assert _time(from_file) == _time(_row(db, "--adapter-dtype", "fp32"))
    assert _time(_row(db, "--workload", str(path), "--adapter-dtype", "16bit")) == _time(_row(db))


def test_explain_says_the_adapter_dtype_assumed(db: str) -> None:
    result = runner.invoke(
        app, [*BASE, "--db", db, "--adapter-dtype", "fp32", "--explain", "1"], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 0, result.output
    assumptions = " ".join(result.output.split("\nassumptions\n", 1)[1].split())  # lines wrapped or not
    assert "LoRA adapters: fp32: PEFT's default" in assumptions
    assert "slower and more memory than 16-bit adapters (--adapter-dtype 16bit)" in assumptions


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--adapter-dtype", "fp64"], "--adapter-dtype: Input should be '16bit' or 'fp32' (got 'fp64')"),
        (["--adapter-dtype", "bf16"], "--adapter-dtype: 'bf16' is written 16bit"),
        (
            ["--adapter-dtype", "fp32", "--method", "full"],
            "--adapter-dtype: applies to LoRA and QLoRA adapters; full fine-tuning (--method full) trains no "
            "adapters",
        ),
    ],
)
def test_a_bad_value_is_an_error_naming_the_option_and_the_accepted_values(
    db: str, args: list[str], said: str
) -> None:
    result = runner.invoke(app, [*BASE, "--db", db, *args], env={"COLUMNS": "400"})
    assert result.exit_code in (1, 2), result.output
    assert said in result.output and "Traceback" not in result.output
    assert "accepted:" in result.output


def test_a_files_adapter_dtype_with_full_fine_tuning_names_the_files_field(db: str, tmp_path: Path) -> None:
    path = tmp_path / "ft.yaml"
    path.write_text("kind: finetune\nmodel: llama-3.1-8b\ndataset_tokens: 100M\nadapter_dtype: fp32\n")
    result = runner.invoke(
        app, [*BASE, "--db", db, "--workload", str(path), "--method", "full"], env={"COLUMNS": "400"}
    )
    assert result.exit_code in (1, 2) and "adapter_dtype: applies to LoRA and QLoRA" in result.output


def test_the_help_states_the_option_and_the_workloads_default() -> None:
    from gpuscout.cli.advise_cmds import ADAPTER_DTYPE

    assert FinetuneWorkload.model_fields["adapter_dtype"].default == ADAPTER_DTYPE
    text = runner.invoke(app, ["recommend", "finetune", "--help"], env={"COLUMNS": "240"}).output
    assert "--adapter-dtype" in text and f"default: ({ADAPTER_DTYPE})]" in text
    assert "PEFT's default" in " ".join(text.split())
