"""`recommend finetune|pretrain --max-nodes`: the bound on the node counts the advisor tries reaches
the workload (it had no option: only a workload file could set it), and errors that list plain-word
fields (gpus, nodes, width...) name them as this command's options."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.advise.workload import Workload
from gpuscout.cli import app

runner = CliRunner()
FULL_70B = ["recommend", "finetune", "llama-3.1-70b", "--method", "full", "--dataset-tokens", "1e8"]


def _nodes(args: list[str]) -> set[int]:
    result = runner.invoke(app, [*args, "--json", "--top", "30"])
    assert result.exit_code == 0, result.output
    return {r["config"]["nodes"] for r in json.loads(result.output)["recommendations"]}


def test_max_nodes_bounds_the_node_counts_of_a_finetune() -> None:
    assert max(_nodes(FULL_70B)) > 1  # without the bound, several nodes are cheaper for this run
    assert _nodes([*FULL_70B, "--max-nodes", "1"]) == {1}


def test_max_nodes_with_a_fixed_size_is_an_error_naming_the_options() -> None:
    args = ["recommend", "pretrain", "llama-3.2-1b", "--tokens", "1e10", "--gpus", "8", "--max-nodes", "4"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    said = "error: --max-nodes: bounds the node count the advisor searches; with --gpus given"
    assert result.stderr.startswith(said)
    accepted = "(accepted: --gpus or --nodes (a fixed size) or --max-nodes (a bound on the search)"
    assert accepted in result.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["pretrain", "llama-3.2-1b", "--tokens", "1e10", "--gpus", "8", "--nodes", "2"],
            "error: --gpus: give either --gpus or --nodes, not both (accepted: one of --gpus, --nodes)",
        ),
        (
            ["serve", "llama-3.1-8b", "--bursts", "3"],
            "error: --bursts: --bursts and --burst-minutes go together (accepted: both or neither)",
        ),
        (
            ["serve", "llama-3.1-8b", "--bursts", "3", "--burst-minutes", "600"],
            "error: --burst-minutes: --bursts x --burst-minutes exceeds 24 h",
        ),
        (
            ["serve", "llama-3.1-8b", "--concurrency", "4", "--rps", "2"],
            "error: --concurrency: give either --concurrency or --rps, not both (accepted: one of "
            "--concurrency, --rps)",
        ),
    ],
)
def test_errors_write_the_plain_word_fields_they_list_as_options(args: list[str], expected: str) -> None:
    result = runner.invoke(app, ["recommend", *args])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(expected)


def test_the_workload_error_lists_the_fields_its_text_names() -> None:
    with pytest.raises(Exception) as err:
        Workload.from_dict({"kind": "batch", "model": "sdxl", "images_total": 10, "prompt_tokens": 512})
    assert err.value.names == (  # type: ignore[attr-defined]
        "prompt_tokens",
        "width",
        "height",
        "steps",
        "images_total",
    )
