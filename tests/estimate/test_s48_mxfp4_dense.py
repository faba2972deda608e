"""A dense model in MXFP4 (every linear layer MXFP4) is timed at the rate its engine runs MXFP4 at.

A renter review: ``gpuscout estimate llama-3.1-70b --gpu B200 --precision mxfp4 --prompt 4096 --output 64``
said "0.40 of 9000 TFLOPS fp4" and a 210 ms TTFT, while the vLLM rule it cited for CC 10.x says "MXFP4 weights
x bf16 activations (W4A16, 16-bit tensor rate)": about 0.63 PFLOP of prompt math at the 16-bit rate is ~0.6 s,
near the tool's own bf16 figure (587 ms). The engines' MXFP4 kernels on Blackwell (vLLM, SGLang, TensorRT-LLM)
are MoE ones, W4A16 by default, and the source list names no W4A4 MXFP4 linear kernel of theirs: a dense MXFP4
checkpoint is judged by the ``mxfp4:dense`` rows (weight-only: 4.25-bit weights, 16-bit math). gpt-oss
(mxfp4-moe: MXFP4 experts alone) keeps the rows and figures it had; llama.cpp's Blackwell MXFP4 MMA (W4A4, PR
#17906) keeps the FP4 rate.

vLLM 0.34.0 (read in its sdist) does have one: compressed-tensors' W4A4 MXFP4 scheme runs FlashInfer's CuTe
DSL MXFP4 x MXFP4 GEMM on the SM100 family, so vLLM's dense row is native there (tests/knowledge/
test_s49_vllm034_support.py); the W4A16 timings below are SGLang's and TensorRT-LLM's.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import pytest

from gpuscout.estimate import support
from gpuscout.estimate.api import estimate
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.precision import resolve_precision
from gpuscout.estimate.support import can_run, support_checkpoint
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.engine_support import check_support, support_rules
from gpuscout.knowledge.models import resolve_model

B200 = resolve_gpu("B200")
REVIEW = {"context_in": 4096, "context_out": 64}
VLLM_CT_MXFP4 = "compressed_tensors/schemes/compressed_tensors_w4a4_mxfp4.py"
REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "reference"


def _linear_params(model: str) -> float:
    """The weights every prompt token multiplies (body and lm_head; the embedding is a lookup)."""
    c = model_consts(resolve_model(model))
    return c.dense_body + c.lm_head


def _bf16_peak() -> float:
    assert B200.bf16_tflops
    return B200.bf16_tflops * 1e12


def test_dense_mxfp4_on_b200_prefills_at_the_16bit_rate_not_the_fp4_one() -> None:
    est = estimate("llama-3.1-70b", "B200", precision="mxfp4", engine="sglang", **REVIEW)
    bf16 = estimate("llama-3.1-70b", "B200", precision="bf16", engine="sglang", **REVIEW)
    assert est.supported and est.support == "weight-only"
    # the review's figure (23,097 prompt tokens/s) needed 3.3 PFLOP/s of linear math, above B200's whole
    # 16-bit peak: W4A16 kernels reach well under half of it
    assert 2.0 * _linear_params("llama-3.1-70b") * est.prefill_tokens_per_s < 0.5 * _bf16_peak()
    # the same 16-bit math as the bf16 model's, by kernels no faster than its cuBLAS GEMMs (was 210 ms
    # against bf16's 587 ms); Marlin-style kernels keep at least half of that rate
    assert 0.95 * bf16.ttft_ms <= est.ttft_ms <= 3.0 * bf16.ttft_ms
    # the memory is still MXFP4's: 4.25 bits a weight, about a quarter of bf16's
    assert est.assumptions["precision"].startswith("MXFP4: 4.25 bits/weight")
    assert est.memory.weights_gb < 0.3 * bf16.memory.weights_gb


def test_the_assumptions_name_the_16bit_rate_and_the_rule() -> None:
    est = estimate("llama-3.1-70b", "B200", precision="mxfp4", engine="sglang", **REVIEW)
    said = est.assumptions
    assert said["compute_class"] == "weight-only"
    assert f"of {B200.bf16_tflops:g} TFLOPS bf16" in said["compute_efficiency"]
    assert "fp4" not in said["compute_efficiency"]
    line = said["support"]
    assert line.startswith("sglang: mxfp4 (dense) on B200 runs weight-only (16-bit math)")
    assert "W4A16" in line and "16-bit tensor rate" in line and "not the FP4 one" in line
    assert "sglang/srt/layers/quantization/mxfp4.py)" in line  # the rule's source
    assert any("(memory saved, math at the 16-bit rate)" in w for w in est.warnings)
    assert any(w.startswith("support rule partial: sglang: mxfp4 (dense)") for w in est.warnings)
    # vLLM 0.34's W4A4 kernel: the FP4 rate, said with its source
    vllm = estimate("llama-3.1-70b", "B200", precision="mxfp4", engine="vllm", **REVIEW).assumptions
    assert vllm["compute_class"] == "fp4" and "TFLOPS fp4" in vllm["compute_efficiency"]
    assert vllm["support"].startswith("vllm: mxfp4 (dense) on B200 runs natively")
    assert "W4A4" in vllm["support"] and VLLM_CT_MXFP4 in vllm["support"]


@pytest.mark.parametrize("engine", ["sglang", "tensorrt-llm"])
@pytest.mark.parametrize("gpu", ["B200", "B300"])
def test_no_blackwell_serving_engine_times_dense_mxfp4_at_the_fp4_rate(engine: str, gpu: str) -> None:
    """Their MXFP4 on the SM100 family is W4A16 (SGLang: inferred); TensorRT-LLM's MXFP4 modes in the sources
    are W4A16 and W4A8, none W4A4. (vLLM 0.34 has a W4A4 one: test_s49_vllm034_support.py.)"""
    est = estimate("llama-3.1-8b", gpu, precision="mxfp4", engine=engine, **REVIEW)
    assert est.supported and est.support == "weight-only"
    assert est.assumptions["compute_class"] == "weight-only"
    assert "TFLOPS bf16" in est.assumptions["compute_efficiency"]
    acc = resolve_gpu(gpu)
    assert acc.bf16_tflops
    assert 2.0 * _linear_params("llama-3.1-8b") * est.prefill_tokens_per_s < 0.6 * acc.bf16_tflops * 1e12


def test_on_cc12_only_a_real_w4a4_mxfp4_path_keeps_the_fp4_rate() -> None:
    """On an RTX 5090 SGLang's native FP4 is an unverified guess and TensorRT-LLM's MXFP4 modes are W4A16 /
    W4A8: weight-only. llama.cpp's native Blackwell MXFP4 MMA quantises the activations to MXFP4 (PR #17906,
    sourced): its GEMMs keep the FP4 rate."""
    v = can_run("sglang", "mxfp4", "RTX 5090").verdict
    assert v.mode == "weight-only" and v.tag == "unverified" and "12.x" in v.reason
    for engine in ("sglang", "tensorrt-llm"):
        est = estimate("llama-3.1-8b", "RTX 5090", precision="mxfp4", engine=engine, **REVIEW)
        assert est.support == "weight-only" and est.assumptions["compute_class"] == "weight-only"
    est = estimate("llama-3.1-8b", "RTX 5090", precision="mxfp4", engine="llama.cpp", **REVIEW)
    assert est.support == "native"
    assert est.assumptions["compute_class"] == "fp4"
    assert "TFLOPS fp4" in est.assumptions["compute_efficiency"]


def test_dense_and_gpt_oss_mxfp4_are_judged_by_their_own_rows() -> None:
    dense, moe = resolve_precision("mxfp4"), resolve_precision("mxfp4-moe")
    assert support_checkpoint(dense) == "dense" and support_checkpoint(moe) == ""
    assert can_run("vllm", "mxfp4-moe", "B200").verdict == check_support("vllm", "mxfp4", B200)
    assert check_support("vllm", "mxfp4", B200).mode == "native"  # gpt-oss's rule, as it was
    run = can_run("vllm", "mxfp4", "B200")
    assert run.mode == "native" and run.verdict.tag == "sourced"  # vLLM 0.34's W4A4 kernel
    assert run.verdict.precision_rule is not None and run.verdict.precision_rule.precision == "mxfp4:dense"
    assert any(s.endswith(VLLM_CT_MXFP4) for s in run.verdict.sources)
    assert "DENSE" not in run.verdict.message()
    sglang = can_run("sglang", "mxfp4", "B200")
    assert sglang.mode == "weight-only" and sglang.verdict.precision_rule is not None
    assert sglang.verdict.precision_rule.precision == "mxfp4:dense"
    assert sglang.alternatives  # not native: what else would run is said


def test_every_dense_mxfp4_rule_cites_only_sources_of_the_reference_list() -> None:
    with (REFERENCE / "engine_support.csv").open(encoding="utf-8") as f:
        listed = " ".join(" ".join(row.values()) for row in csv.DictReader(f))
    listed += (REFERENCE / "engine_support.md").read_text(encoding="utf-8")
    rows = [r for r in support_rules() if r.precision == "mxfp4:dense"]
    assert {r.engine for r in rows} == {"vllm", "sglang", "tensorrt-llm"}
    # vLLM's were re-read in its 0.34.0 source, which they cite
    read_034 = [r for r in rows if r.version == "vllm 0.34.0"]
    assert read_034 and all(
        all(url.startswith("https://github.com/vllm-project/vllm/blob/v0.34.0/") for url in r.sources)
        for r in read_034
    )
    for r in (r for r in rows if r.version != "vllm 0.34.0"):
        assert r.mode == "weight-only" and r.tag != "sourced", r
        assert "16-bit tensor rate" in r.rule, r
        for url in r.sources:
            assert url in listed or url.rsplit("/", 1)[-1] in listed, (r.engine, url)


@pytest.mark.parametrize(
    ("gpu", "engine"),
    [
        ("B200", "vllm"),
        ("B200", "sglang"),
        ("B200", "tensorrt-llm"),
        ("MI355X", "vllm"),
        ("RTX 5090", "sglang"),
    ],
)
@pytest.mark.parametrize("model", ["gpt-oss-120b", "gpt-oss-20b"])
def test_gpt_oss_figures_are_those_without_the_dense_rows(
    model: str, gpu: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gpt-oss's MXFP4 (its experts alone) is judged as before: dropping the dense judgement changes none of
    its figures, where it changes the dense model's."""
    new = estimate(model, gpu, engine=engine, precision="mxfp4", **REVIEW)
    dense_new = estimate("llama-3.1-8b", "B200", engine=engine, precision="mxfp4", **REVIEW)
    monkeypatch.setattr(
        support,
        "_CHECKPOINT_OF_FORMAT",
        {k: v for k, v in support._CHECKPOINT_OF_FORMAT.items() if k != "mxfp4"},
    )
    old = estimate(model, gpu, engine=engine, precision="mxfp4", **REVIEW)
    dense_old = estimate("llama-3.1-8b", "B200", engine=engine, precision="mxfp4", **REVIEW)
    assert new.precision == "mxfp4-moe"
    assert dataclasses.asdict(new) == dataclasses.asdict(old)
    if check_support(engine, "mxfp4", B200, "dense").mode == "native":  # vLLM 0.34: W4A4, the FP4 rate too
        assert dense_new.ttft_ms == pytest.approx(dense_old.ttft_ms)
    else:
        assert dense_new.ttft_ms > 1.5 * dense_old.ttft_ms  # the old FP4 timing, for contrast


def test_the_advisor_row_for_dense_mxfp4_on_one_b200() -> None:
    """`recommend serve llama-3.1-70b --precision mxfp4` timed its 1x B200 row at 80 ms TTFT (1,024-token
    prompts, one user): the FP4 rate. Its estimate now sits at or above the bf16 model's."""
    kw = {"engine": "sglang", "context_in": 1024, "context_out": 256, "concurrency": 1}
    est = estimate("llama-3.1-70b", "B200", precision="mxfp4", **kw)
    bf16 = estimate("llama-3.1-70b", "B200", precision="bf16", **kw)
    assert est.support == "weight-only"
    assert est.ttft_ms >= 0.95 * bf16.ttft_ms
    assert 2.0 * _linear_params("llama-3.1-70b") * est.prefill_tokens_per_s < 0.5 * _bf16_peak()
