"""Kimi-K2-Thinking (stop 68): Kimi K2's architecture shipped with int4 routed experts and bf16 everything
else (``int4-moe``), a 262,144-token window; Kimi-K2-Instruct-0905's own window.

Hand check of the weights as shipped: the routed experts are 60 MoE layers x 384 experts x 3 x 7168 x 2048 =
1,014,686,023,680 weights at 4.5 bits (int4 plus one bf16 scale per 32: 4 + 16/32), 570.76 GB; the other
1,026,408,209,408 - 1,014,686,023,680 = 11,722,185,728 weights in bf16, 23.44 GB; 594.21 GB in all (the
repository holds about 594 GB, recalled), where the FP8 Kimi K2 needs 1,029 GB.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpuscout import estimate
from gpuscout.estimate.precision import resolve_precision
from gpuscout.knowledge.hf_config import native_precision, parse_hf_config
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params

EXPERTS = 60 * 384 * 3 * 7168 * 2048


def _llama_8b(quantization_config: dict[str, Any]) -> dict[str, Any]:
    """A Llama-3.1-8B-shaped config.json (no experts) carrying ``quantization_config``."""
    return {
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 32,
        "vocab_size": 128256,
        "max_position_embeddings": 8192,
        "quantization_config": quantization_config,
    }


def test_the_thinking_checkpoint_is_sized_as_shipped() -> None:
    spec = resolve_model("moonshotai/Kimi-K2-Thinking")
    assert spec.name == "kimi-k2-thinking" and spec.native_precision == "int4-moe"
    assert spec.max_position_embeddings == 262_144
    c = count_params(spec)
    assert c.routed_experts == EXPERTS and c.total == count_params(resolve_model("kimi-k2")).total
    est = estimate(spec, "H200", gpus=8, engine="vllm")
    assert est.precision == "int4-moe"
    expected = (EXPERTS * 4.5 + (c.total - EXPERTS) * 16) / 8 / 1e9
    assert est.memory.model_weights_gb == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx(594.21, abs=0.01)
    fp8 = estimate("kimi-k2", "H200", gpus=8, engine="vllm")
    assert est.memory.model_weights_gb < 0.6 * fp8.memory.model_weights_gb


def test_asking_int4_gives_the_published_checkpoint() -> None:
    asked = estimate("kimi-k2-thinking", "H200", gpus=8, engine="vllm", precision="int4")
    assert asked.precision == "int4-moe"
    # an AWQ checkpoint is another file: every linear layer int4
    awq = estimate("kimi-k2-thinking", "H200", gpus=8, engine="vllm", precision="awq")
    assert awq.precision == "int4" and awq.memory.model_weights_gb < asked.memory.model_weights_gb


def test_eight_h200_hold_it_and_eight_h100_do_not() -> None:
    assert estimate("kimi-k2-thinking", "H200", gpus=8, engine="vllm").fits
    # 594 GB of weights leave no room on 8 x 80 GiB at vLLM's 0.9 memory share
    assert not estimate("kimi-k2-thinking", "H100-SXM", gpus=8, engine="vllm").fits


def test_the_experts_run_w4a16_in_marlin_kernels_not_wgmma() -> None:
    est = estimate("kimi-k2-thinking", "H200", gpus=8, engine="vllm")
    assert est.supported and est.decode_tokens_per_s > 0
    fmt = resolve_precision("int4-moe")
    assert fmt.expert_activations == "bf16" and fmt.dense_bits == 16.0 and fmt.native is None
    assert "routed experts: INT4 weights" in est.assumptions["expert_rate"]


def test_instruct_0905_has_its_own_window() -> None:
    spec = resolve_model("moonshotai/Kimi-K2-Instruct-0905")
    assert spec.max_position_embeddings == 262_144 and spec.native_precision == "fp8-block"
    assert resolve_model("kimi-k2").max_position_embeddings == 131_072


def _ct(ignore: list[str]) -> dict[str, Any]:
    return {
        "quant_method": "compressed-tensors",
        "format": "pack-quantized",
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": {
                    "num_bits": 4,
                    "type": "int",
                    "symmetric": True,
                    "strategy": "group",
                    "group_size": 32,
                },
                "input_activations": None,
            }
        },
        "ignore": ignore,
    }


def test_an_import_reads_int4_experts_only_where_the_attention_is_left_out() -> None:
    experts_only = _ct(["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*"])
    assert native_precision(experts_only) == "int4-moe"
    assert native_precision(_ct(["lm_head"])) == "int4"
    dense = _llama_8b(experts_only)
    assert parse_hf_config(dense).spec.native_precision == "int4"  # no experts: the whole model int4


def test_the_model_page_sizes_the_published_int4_once() -> None:
    from gpuscout.web.model_view import precisions_for

    # "int4" is the int4-experts checkpoint here: one row, not the same figures twice
    assert precisions_for(resolve_model("kimi-k2-thinking")) == ("int4-moe", "bf16", "fp8", "int8")
    # gpt-oss's int4 is another format than its MXFP4 experts: both stay
    assert precisions_for(resolve_model("gpt-oss-120b")) == ("mxfp4-moe", "bf16", "fp8", "int8", "int4")


def test_an_mxfp4_config_of_a_dense_model_leaving_attention_out_is_dense_mxfp4() -> None:
    # native_precision reads MXFP4 that skips self_attn as gpt-oss's experts-only format; a model without
    # experts in it has every other weight MXFP4, and the estimate then refused its own default precision
    config = _llama_8b({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]})
    assert native_precision(config["quantization_config"]) == "mxfp4-moe"
    spec = parse_hf_config(config).spec
    assert spec.native_precision == "mxfp4"
    assert estimate(spec, "B200").precision == "mxfp4"
