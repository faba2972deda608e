"""A Hub id of Meta's own FP8 checkpoint ("meta-llama/Llama-3.1-405B-Instruct-FP8", quant_method
fbgemm_fp8) resolves to fp8-ffn, the format its config maps to; other publishers' FP8 checkpoints of the same
models (neuralmagic / RedHatAI, llm-compressor: every linear layer in FP8) stay fp8.
"""

from __future__ import annotations

import pytest

from gpuscout.knowledge.hf_config import native_precision
from gpuscout.knowledge.models import fp8_checkpoint_format, resolve_model, resolve_model_detail


@pytest.mark.parametrize(
    "name",
    [
        "meta-llama/Llama-3.1-405B-Instruct-FP8",
        "meta-llama/Meta-Llama-3.1-405B-Instruct-FP8",
        "meta-llama/Llama-3.1-405B-FP8",
        "Meta-Llama/llama-3.1-405b-instruct-fp8",
    ],
)
def test_a_meta_llama_fp8_id_is_fbgemm_fp8_ffn(name: str) -> None:
    res = resolve_model_detail(name)
    assert res.model.name == "llama-3.1-405b"
    assert res.precision == "fp8-ffn"
    assert "fbgemm_fp8" in res.note and "https://arxiv.org/abs/2407.21783" in res.note


@pytest.mark.parametrize(
    "name",
    [
        "neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8",
        "RedHatAI/Meta-Llama-3.1-405B-Instruct-FP8",
        "RedHatAI/Llama-3.1-8B-Instruct-FP8",
        "Llama-3.1-405B-Instruct-FP8",  # no publisher named: the common all-linear form, as before
        "meta-llama/Llama-3.1-8B-Instruct-FP8-dynamic",  # llm-compressor's per-channel scheme by its name
    ],
)
def test_other_fp8_checkpoints_of_llama_stay_all_linear(name: str) -> None:
    res = resolve_model_detail(name)
    assert res.precision == "fp8"
    assert "fbgemm" not in res.note


META = "meta-llama/Llama-3.1-405B-Instruct-FP8"


def test_the_name_and_the_config_agree() -> None:
    """The name-based format is the one ``native_precision`` reads from such a checkpoint's
    quantization_config (fbgemm_fp8 leaving self_attn unconverted)."""
    config = {
        "quant_method": "fbgemm_fp8",
        "activation_scale_ub": 1200.0,
        "modules_to_not_convert": [
            "model.layers.0.self_attn.q_proj",
            "model.layers.0.mlp.down_proj",
            "lm_head",
        ],
    }
    assert native_precision(config) == resolve_model_detail(META).precision


def test_block_fp8_families_are_not_affected_by_the_publisher() -> None:
    qwen = resolve_model("qwen3-8b")
    assert fp8_checkpoint_format(qwen) == fp8_checkpoint_format(qwen, "Qwen") == "fp8-block"
    llama = resolve_model("llama-3.1-8b")
    assert fp8_checkpoint_format(llama) == "fp8"  # precision="fp8" asked by a user: unchanged
    assert fp8_checkpoint_format(llama, "meta-llama") == "fp8-ffn"
    # no Meta FP8 checkpoint of Llama 2
    assert fp8_checkpoint_format(resolve_model("llama-2-7b"), "meta-llama") == "fp8"
