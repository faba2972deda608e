"""PEFT's fp32 adapters on a bf16 base (``adapter_dtype="fp32"``): memory, speed, validation, notes.

PEFT's ``get_peft_model(..., autocast_adapter_dtype=True)`` (its default) keeps the LoRA weights in fp32
on a bf16 model; LoRA's ``Linear.forward`` casts its input to fp32, runs ``lora_A`` / ``lora_B`` in fp32
and casts the sum back. Hand checks against the H200 rows benchmarks/gpu_measure.py measured (2 x 2048
tokens per step, LoRA r=16 on all linear layers)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.training import TrainingEstimate, estimate_training
from gpuscout.estimate.training_memory import TrainingSetup, validate_setup
from tests.conftest import CALIBRATION, load_benchmark

GB = 1e9
H200_GBPS = 4800.0  # H200 SXM bandwidth, GB/s (accelerators.csv)
H200_FP32 = 67.0  # H200 SXM FP32 (non-tensor) TFLOPS
H200_BF16 = 989.5
GEMM_EFFICIENCY = 0.59  # training_speed.CALIBRATION "16bit"
ADAPTER_TRAFFIC = 1.9  # training_speed.CALIBRATION.adapter_traffic


def _lora(model: str, dtype: str, **kw: object) -> TrainingEstimate:
    args: dict[str, object] = {"method": "lora", "micro_batch": 2, "seq_len": 2048, "checkpointing": "none"}
    args.update(kw)
    return estimate_training(model, "H200-SXM", adapter_dtype=dtype, **args)  # type: ignore[arg-type]


# sum(in_features) of the adapted matrices of one layer: q, k, v, gate, up read the hidden size (each
# casts its own fp32 copy), o reads q_dim, down the MLP width
@pytest.mark.parametrize(
    ("model", "sum_in", "layers"),
    [
        ("Llama-3.2-3B", 6 * 3072 + 8192, 28),  # 26,624 -> 12.2 GB (measured excess 11.5 GB)
        ("Llama-3.1-8B", 6 * 4096 + 14336, 32),  # 38,912 -> 20.4 GB (measured 17.8)
        ("Qwen3-8B", 6 * 4096 + 12288, 36),  # 36,864 -> 21.7 GB (measured 22.5)
    ],
)
def test_fp32_adapters_keep_a_4_byte_copy_of_every_adapted_input(
    model: str, sum_in: int, layers: int
) -> None:
    tokens = 2 * 2048
    hand = 4.0 * sum_in * layers * tokens / GB
    fp32, bf16 = _lora(model, "fp32"), _lora(model, "16bit")
    excess = fp32.memory.activations_gb - bf16.memory.activations_gb
    assert excess == pytest.approx(hand, rel=0.02)
    # the adapters themselves: fp32 weight and gradient, 4 B per parameter more than bf16 ones
    assert fp32.memory.adapters_gb - bf16.memory.adapters_gb == pytest.approx(
        4.0 * fp32.trainable_params / GB, rel=1e-6
    )


def test_full_checkpointing_keeps_the_fp32_copies_of_the_recomputed_layer_only() -> None:
    one_layer = 4.0 * (6 * 3072 + 8192) * 4 * 2048 / GB  # 0.87 GB at 4 x 2048 tokens
    fp32 = _lora("Llama-3.2-3B", "fp32", micro_batch=4, checkpointing="full")
    bf16 = _lora("Llama-3.2-3B", "16bit", micro_batch=4, checkpointing="full")
    excess = fp32.memory.activations_gb - bf16.memory.activations_gb
    assert excess == pytest.approx(one_layer, rel=0.05)
    # 28 layers without checkpointing would keep 28 times that
    no_ckpt = _lora("Llama-3.2-3B", "fp32", micro_batch=4).memory.activations_gb
    assert no_ckpt - _lora("Llama-3.2-3B", "16bit", micro_batch=4).memory.activations_gb > 25 * excess


def test_fp32_adapter_traffic_and_flops_by_hand() -> None:
    # micro-batch 4 x 2048: compute bound either way (no launch stretching), so the parts add up
    tokens = 4 * 2048
    ins = (6 * 3072 + 8192) * 28  # sum(in) over the adapted matrices of all layers
    outs = (3072 + 1024 + 1024 + 3072 + 8192 + 8192 + 3072) * 28  # sum(out)
    fp32, bf16 = _lora("Llama-3.2-3B", "fp32", micro_batch=4), _lora("Llama-3.2-3B", "16bit", micro_batch=4)
    assert fp32.binding_resource == bf16.binding_resource == "compute"
    # 30 B per in- and 56 B per out-element over forward + backward, against 2 x (4 in + 3 out)
    moved = ADAPTER_TRAFFIC * tokens * (30 * ins + 56 * outs - 2 * (4 * ins + 3 * outs))
    assert fp32.step_breakdown_s["memory_bound"] - bf16.step_breakdown_s["memory_bound"] == pytest.approx(
        moved / (H200_GBPS * GB), rel=0.01
    )
    # the adapter FLOPs (6 per parameter and token) at the FP32 rate instead of the bf16 tensor rate
    flops = 6.0 * 16 * (ins + outs) * tokens
    slower = flops / (GEMM_EFFICIENCY * 1e12) * (1 / H200_FP32 - 1 / H200_BF16)
    assert fp32.step_breakdown_s["gemm"] - bf16.step_breakdown_s["gemm"] == pytest.approx(slower, rel=0.01)


def test_fp32_adapters_are_slower_and_peft_lora_slower_than_full_fine_tuning() -> None:
    # measured on the H200 at 2 x 2048: LoRA 64.7 us per token, full fine-tuning 57.7 (15.5k vs 17.3k
    # tokens/s); 16-bit adapters predict 44.7 us
    fp32, bf16 = _lora("Llama-3.2-3B", "fp32"), _lora("Llama-3.2-3B", "16bit")
    full = estimate_training(
        "Llama-3.2-3B", "H200-SXM", method="full", micro_batch=2, checkpointing="none", optimizer="bf16"
    )
    assert fp32.tokens_per_s < bf16.tokens_per_s
    assert 1e6 / fp32.tokens_per_s - 1e6 / bf16.tokens_per_s > 12.0  # ~+20 us per token measured
    assert fp32.tokens_per_s < full.tokens_per_s


def test_16bit_is_the_default_and_unchanged() -> None:
    default = estimate_training("Llama-3.2-3B", "H200-SXM", method="lora", checkpointing="none")
    explicit = _lora("Llama-3.2-3B", "16bit", micro_batch=1)
    assert explicit.tokens_per_s == default.tokens_per_s
    assert explicit.memory == default.memory
    assert "adapter_dtype" not in explicit.assumptions
    assert validate_setup(TrainingSetup()).adapter_dtype == "16bit"


@pytest.mark.parametrize("kw", [{"method": "full"}, {"method": "lora", "precision": "fp32"}])
def test_fp32_adapters_change_nothing_where_nothing_is_16_bit_adapters(kw: dict[str, object]) -> None:
    # full fine-tuning has no adapters; under precision fp32 the adapters are fp32 already
    fp32, bf16 = _lora("Llama-3.2-3B", "fp32", **kw), _lora("Llama-3.2-3B", "16bit", **kw)
    assert fp32.tokens_per_s == bf16.tokens_per_s
    assert fp32.memory == bf16.memory


def test_qlora_takes_fp32_adapters_too() -> None:
    fp32, nf4 = _lora("Llama-3.1-8B", "fp32", method="qlora"), _lora("Llama-3.1-8B", "16bit", method="qlora")
    assert fp32.memory.activations_gb - nf4.memory.activations_gb == pytest.approx(
        4.0 * 38912 * 32 * 4096 / GB, rel=0.02
    )
    assert fp32.tokens_per_s < nf4.tokens_per_s


def test_the_estimate_says_fp32_adapters_are_assumed() -> None:
    est = _lora("Llama-3.2-3B", "fp32")
    assert "fp32 adapters" in est.assumptions["adapter_dtype"]
    assert "16 B/param" in est.assumptions["adapters"]
    assert "67 TFLOPS FP32" in est.assumptions["speed_adapters"]


@pytest.mark.parametrize("bad", ["fp64", "float32 ", 32])
def test_an_unknown_adapter_dtype_names_the_field_and_the_choices(bad: object) -> None:
    with pytest.raises(InvalidInputError) as err:
        _lora("Llama-3.2-3B", bad)  # type: ignore[arg-type]
    assert err.value.field == "adapter_dtype"
    assert err.value.accepted == "16bit, fp32"


def test_the_case_insensitive_spelling_is_taken() -> None:
    assert _lora("Llama-3.2-3B", " FP32").tokens_per_s == _lora("Llama-3.2-3B", "fp32").tokens_per_s


def test_the_gpu_measure_lora_rows_are_timed_with_fp32_adapters() -> None:
    bench: ModuleType = load_benchmark("accuracy_training")
    cases = [c for c in bench.build_cases(bench.load(Path(CALIBRATION))) if not c.skip]
    measured = [c for c in cases if c.source == bench.GPU_MEASURE_SOURCE]
    assert {c.method for c in measured} >= {"lora", "full"}
    for case in measured:
        expected = "fp32" if case.method == "lora" else None
        assert case.kwargs.get("adapter_dtype") == expected, case.label
    # no other source runs PEFT without autocast as its stated setup
    assert not [c for c in cases if c.source != bench.GPU_MEASURE_SOURCE and "adapter_dtype" in c.kwargs]
