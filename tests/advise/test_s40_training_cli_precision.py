"""``gpuscout recommend finetune|pretrain --precision``: the workload field every other face has.

Regression: the finetune and pretrain commands had no ``--precision`` while the workload (JSON API, web
form, Python, ``--workload`` file) has ``precision``; the CLI reached it only through a YAML file. The
help states the default the workload applies (tests/cli/test_advise_cli.py::
test_help_states_the_defaults_the_workloads_apply checks it through ``HELP_DEFAULTS``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload
from gpuscout.cli import app
from gpuscout.cli.advise_cmds import HELP_DEFAULTS

runner = CliRunner()
FINETUNE = ["recommend", "finetune", "llama-3.1-8b", "--dataset-tokens", "1e7", "--gpu", "H100"]
PRETRAIN = ["recommend", "pretrain", "llama-3.2-1b", "--tokens", "1e9", "--gpu", "H100"]


def _json(args: list[str]) -> dict[str, object]:
    result = runner.invoke(app, [*args, "--json", "--top", "1"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("base", [FINETUNE, PRETRAIN])
def test_precision_reaches_the_workload(base: list[str]) -> None:
    workload = _json([*base, "--precision", "fp8"])["workload"]
    assert isinstance(workload, dict) and workload["precision"] == "fp8"


@pytest.mark.parametrize(("kind", "cls"), [("finetune", FinetuneWorkload), ("pretrain", PretrainWorkload)])
def test_the_help_states_the_workloads_default(kind: str, cls: type) -> None:
    assert HELP_DEFAULTS[kind]["--precision"] == cls.model_fields["precision"].default == "bf16"
    help_text = runner.invoke(app, ["recommend", kind, "--help"], env={"COLUMNS": "240"}).output
    assert "--precision" in help_text and "default: (bf16)]" in help_text


def test_a_bad_precision_names_the_flag() -> None:
    result = runner.invoke(app, [*PRETRAIN, "--precision", "int8"])
    assert result.exit_code == 2
    assert (
        "--precision" in result.output
        and "int8 weights cannot be trained: full fine-tuning and pre-training update every" in result.output
    )


def test_the_flag_overrides_a_workload_file(tmp_path: Path) -> None:
    path = tmp_path / "ft.yaml"
    path.write_text("kind: finetune\nmodel: llama-3.1-8b\ndataset_tokens: 1e7\nprecision: bf16\n")
    workload = _json(
        ["recommend", "finetune", "--workload", str(path), "--gpu", "H100", "--precision", "fp8"]
    )["workload"]
    assert isinstance(workload, dict) and workload["precision"] == "fp8"
