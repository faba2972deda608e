"""``gpuscout vram``'s "Fits on" table applies the support rules its direct answer reads (s53).

`vram llama-3.1-70b --task qlora --gpu A100-80GB` listed QLoRA on TPU v4/v5p/v6e, Trainium, Gaudi and
Inferentia2 with no qualification, while `--gpu TPU-v5p` warned that QLoRA's NF4 kernels target NVIDIA
CUDA. The table now leaves out what the direct answer says cannot run, or cannot vouch for
(``estimate.training.framework_support``; for inference the engine's ``supported``), and says how many
it left out and why, in the text and in ``--json`` (``fits_on_left_out``).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.accelerators import resolve_gpu

runner = CliRunner()
QLORA = ["vram", "llama-3.1-70b", "--task", "qlora", "--gpu", "A100-80GB"]
NF4 = "QLoRA's NF4 kernels (bitsandbytes) target NVIDIA CUDA"  # why they are left out
# (Gaudi has a sourced NF4 backend in bitsandbytes: listed, with its caveat, as for inference)
NOT_CUDA = ("TPU-v4", "TPU-v5p", "TPU-v6e", "Trainium1", "Trainium2")


def _json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, dict)
    return data


def _left_out(data: dict[str, Any]) -> dict[str, str]:
    """Each accelerator left out of ``fits_on``, and why."""
    return {gpu: entry["reason"] for entry in data["fits_on_left_out"] for gpu in entry["gpus"]}


def test_qlora_fits_on_leaves_out_the_hardware_its_direct_answer_warns_of() -> None:
    data = _json(*QLORA)
    listed = {row["gpu"] for row in data["fits_on"]}
    assert not listed & set(NOT_CUDA), listed & set(NOT_CUDA)
    assert {"A100-SXM4-80GB", "H100-SXM", "MI300X", "RTX4090"} <= listed  # CUDA, and ROCm's sourced NF4
    left_out = _left_out(data)
    assert all(left_out.get(name, "").startswith(NF4) for name in NOT_CUDA), left_out
    # the same rule as the direct answer: each left out is warned of when named, none listed is
    for name in NOT_CUDA:
        direct = _json("vram", "llama-3.1-70b", "--task", "qlora", "--gpu", name)
        assert any("QLoRA's NF4 kernels (bitsandbytes) target NVIDIA CUDA" in w for w in direct["warnings"])
    for name in listed:
        warnings = estimate_training("llama-3.1-70b", name, method="qlora", seq_len=4096).warnings
        # none listed carries the unvouched warning (a sourced caveat, ROCm's or Gaudi's bitsandbytes, may)
        assert not any(NF4 in w for w in warnings), name
    # Inferentia2 does not train at all (AWS trains on Trainium): left out for that, and refused when named
    assert left_out["Inferentia2"].startswith("PyTorch training: AWS positions Inferentia"), left_out
    refused = runner.invoke(app, ["vram", "llama-3.1-70b", "--task", "qlora", "--gpu", "Inferentia2"])
    assert refused.exit_code != 0 and "Trainium" in " ".join(refused.output.split())


def test_the_table_says_how_many_it_left_out_and_why() -> None:
    result = runner.invoke(app, QLORA, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    table = result.output.split("Fits on")[1]
    rows = {line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│")}
    assert "A100-SXM4-80GB" in rows and not rows & set(NOT_CUDA)
    below = " ".join(table.split("└")[1].split())  # the lines under the table, as one text
    said = re.search(
        r"(\d+) accelerators left out: QLoRA's NF4 kernels [^;]*\(([^)]*)\); --gpu NAME says why", below
    )
    assert said is not None, below
    named = _left_out(_json(*QLORA))
    assert int(said.group(1)) == len([g for g, why in named.items() if why.startswith(NF4)])
    assert set(NOT_CUDA) <= set(said.group(2).split(", "))


@pytest.mark.parametrize(
    ("gpu", "vouched", "warned"),
    [
        ("TPU-v5p", False, True),  # no sourced NF4 rule: the partial-support warning, left out
        ("Gaudi2", True, True),  # bitsandbytes' Gaudi backend (v1.21+): sourced, and said
        ("MI300X", True, True),  # bitsandbytes' ROCm build: sourced, and said
        ("A100-SXM4-80GB", True, False),
        ("V100-SXM2-32GB", True, True),  # runs, on the legacy wheels only: a caveat, listed
        ("K80", False, True),  # no current PyTorch binary (sourced)
    ],
)
def test_framework_support_is_the_rule_the_estimate_warns_by(gpu: str, vouched: bool, warned: bool) -> None:
    from gpuscout.estimate.training import framework_support

    support = framework_support("qlora", "bf16", resolve_gpu(gpu))
    assert support.vouched is vouched and (support.warning is not None) is warned
    assert (support.cause == "") is vouched
    if gpu != "K80":  # a K80 does not hold the job: the estimate is not reached there
        warnings = estimate_training("llama-3.1-8b", gpu, method="qlora", seq_len=2048).warnings
        assert (
            (support.warning in warnings)
            if warned
            else not any("PyTorch" in w or "NF4" in w for w in warnings)
        )


def test_serving_fp8_leaves_out_what_the_engine_refuses_and_says_so() -> None:
    data = _json("vram", "llama-3.1-8b", "--precision", "fp8")
    left_out = _left_out(data)
    assert {"V100-SXM2-32GB", "P40", "TPU-v5p", "Inferentia2", "MI210"} <= set(left_out)
    assert set(left_out.values()) == {"vllm cannot run fp8 on them"}
    listed = {row["gpu"] for row in data["fits_on"]}
    assert not listed & set(left_out)
    for name in ("V100-SXM2-32GB", "MI210", "Inferentia2"):  # the direct answer refuses each
        assert not memory_needed("llama-3.1-8b", name, precision="fp8", engine="vllm").supported
    assert memory_needed("llama-3.1-8b", "T4", precision="fp8", engine="vllm").supported  # weight-only
    assert "T4" in listed


def test_fp8_training_leaves_out_gpus_without_fp8_tensor_cores() -> None:
    data = _json("vram", "llama-3.1-8b", "--task", "full", "--precision", "fp8", "--gpu", "H100-SXM")
    left_out = _left_out(data)
    assert left_out["A100-SXM4-80GB"] == "full fine-tuning in fp8 cannot run on them"
    assert "A100-SXM4-80GB" not in {row["gpu"] for row in data["fits_on"]}
    direct = runner.invoke(
        app, ["vram", "llama-3.1-8b", "--task", "full", "--precision", "fp8", "--gpu", "A100"]
    )
    assert direct.exit_code != 0 and "FP8 training needs FP8 tensor cores" in " ".join(direct.output.split())


def test_a_gpu_that_runs_but_does_not_fit_is_not_called_unsupported() -> None:
    data = _json("vram", "llama-3.1-70b")  # 70B bf16: too big for one small card, but vLLM runs there
    assert "RTX4090" not in _left_out(data) and "L4" not in _left_out(data)
