"""Batch-1 decode kernels: the tile the weight-only (Marlin / AWQ GEMM / exllama v2) and the Triton
fused-MoE kernels compute at least, and the share of the tensor rate their Ampere-style ``mma.sync`` code
keeps on Hopper. Every figure is worked out by hand in the test."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.throughput import gemm_tile_rows, legacy_mma_share
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model
from tests.estimate.setups import make_setup as _setup


def test_mma_sync_kernels_keep_half_the_tensor_rate_on_hopper_only() -> None:
    # wgmma (Hopper, compute capability 9.0) is the full rate; mma.sync code keeps about half there
    # (FlashAttention-2: 50-73 % of an A100's peak, 35 % of an H100's); before Hopper mma.sync is the
    # full rate, and AMD has no such split
    gpus = ("H100", "H20", "B200", "A100", "L4", "RTX 5090", "MI300X")
    assert [legacy_mma_share(resolve_gpu(g)) for g in gpus] == [0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0]


def test_geforce_blackwell_has_no_warpgroup_mma() -> None:
    # sm_120 (RTX 5090, compute capability 12.0) has neither wgmma (sm_90a) nor tcgen05 (sm_100a): its
    # tensor cores run mma.sync with 16-row tiles at the full rate, like Ada; the B200 (10.0) pads to 64
    rtx5090, b200 = resolve_gpu("RTX 5090"), resolve_gpu("B200")
    assert rtx5090.nvidia_cc == (12, 0) and b200.nvidia_cc == (10, 0)
    assert (gemm_tile_rows(rtx5090), gemm_tile_rows(b200)) == (16, 64)
    assert _setup("llama-3.1-8b", "RTX 5090").gemm_tile == 16.0


def test_weight_only_kernels_compute_16_row_tiles_at_half_rate_on_hopper() -> None:
    # Marlin (SGLang's awq / gptq path, vLLM's off sm_90) multiplies with mma.sync m16n8k16: a batch-1
    # step computes M = 16 rows, on an H100 as on an A100 (a wgmma kernel would pad to 64)
    h100 = _setup("llama-3.1-8b", "H100", "awq", "sglang")
    a100 = _setup("llama-3.1-8b", "A100", "awq", "sglang")
    assert h100.eff_class == "weight-only" and h100.gemm_tile == 16.0 and a100.gemm_tile == 16.0
    # the rate: engine efficiency x peak, halved on Hopper only
    eng = h100.engine
    h100_rate = eng.achieved_tflops("weight-only", h100.peak_tflops) * 1e12
    assert h100.achieved_flops == pytest.approx(h100_rate * 0.5)
    assert a100.achieved_flops == pytest.approx(eng.achieved_tflops("weight-only", a100.peak_tflops) * 1e12)
    # vLLM runs dense AWQ / GPTQ through Machete on sm_90: wgmma with the weights as the A operand, so
    # the tokens still ride in 16-row tiles, at the full rate; its MoE experts (fused Marlin MoE) and
    # every other GPU (the B200 is sm_100: Marlin) keep mma.sync's half on Hopper-class parts
    machete = _setup("llama-3.1-8b", "H100", "awq", "vllm")
    vllm_rate = machete.engine.achieved_tflops("weight-only", machete.peak_tflops) * 1e12
    assert machete.wgmma_weight_only and machete.gemm_tile == 16.0
    assert machete.achieved_flops == pytest.approx(vllm_rate)
    moe = _setup("mixtral-8x7b", "H100", "awq", "vllm")
    assert not moe.wgmma_weight_only and moe.achieved_flops == pytest.approx(vllm_rate * 0.5)
    b200 = _setup("llama-3.1-8b", "B200", "awq", "vllm")
    b200_rate = b200.engine.achieved_tflops("weight-only", b200.peak_tflops) * 1e12
    assert not b200.wgmma_weight_only and b200.achieved_flops == pytest.approx(b200_rate * 0.5)
    # 8-bit GPTQ too: Machete takes uint8b128 (``query_machete_supported_quant_types`` in the vLLM 0.34
    # sdist), so vLLM's int8 weight-only GEMMs on sm_90 keep the full rate; SGLang's GPTQ-Marlin halves
    int8 = _setup("llama-3.1-8b", "H100", "gptq-int8", "vllm")
    assert int8.fmt.name == "int8" and int8.wgmma_weight_only
    assert int8.achieved_flops == pytest.approx(vllm_rate)
    sg8 = _setup("llama-3.1-8b", "H100", "int8", "sglang")
    assert not sg8.wgmma_weight_only and sg8.mma_sync_share == 0.5
    # the estimate says which kernel it timed, and that no row measures it
    said = estimate("llama-3.1-8b", "H100", precision="awq", engine="vllm").assumptions["gemm_kernel"]
    assert "Machete" in said and "no calibration row" in said
    marlin = estimate("llama-3.1-8b", "H100", precision="awq", engine="sglang").assumptions["gemm_kernel"]
    assert "Machete" not in marlin and "Marlin" in marlin and "0.5 of the weight-only" in marlin
    # prefill, compute-bound: twice SGLang's Marlin rate on an H100 (same weight-only efficiency prior)
    v = estimate("llama-3.1-70b", "H100", precision="awq", engine="vllm", context_in=4096, context_out=1)
    g = estimate("llama-3.1-70b", "H100", precision="awq", engine="sglang", context_in=4096, context_out=1)
    assert 1.6 < v.prefill_tokens_per_s / g.prefill_tokens_per_s < 2.2
    # GEMV kernels compute the rows they are given: AutoAWQ's GEMV kernel, exllama v1 (TGI 1.x)
    assert _setup("llama-3.1-8b", "A100", "awq", "AutoAWQ gemv").gemm_tile == 1.0
    assert _setup("llama-3.1-8b", "A100", "gptq", "tgi 1.0").gemm_tile == 1.0
    # GGUF mat-vec kernels: no tile at all
    assert _setup("llama-3.1-8b", "H100", "q4_k_m", "llama.cpp").gemm_tile == 1.0


def test_awq_batch1_decode_is_compute_bound_on_an_h20_and_memory_bound_on_an_h100() -> None:
    # Qwen3-8B, ~6.95e9 weights outside the embedding, int4 (~0.5 B each + scales: ~4.4 GB a step).
    # 16 padded rows: 2 x 6.95e9 x 16 = 0.222 TFLOP a token. H20: 148 TFLOPS x 0.45 (SGLang weight-only
    # efficiency) x 0.5 (mma.sync on Hopper) = 33.3 TFLOPS -> 6.7 ms, against ~1.6 ms for the weight
    # read at 4 TB/s: compute-bound, ~140 tok/s (the SGLang 0.4.6 AWQ rows on an H20: 144 tok/s, about
    # its FP8 speed, not twice it). H100: 989 x 0.45 x 0.5 = 223 TFLOPS -> 1.0 ms, against ~2 ms of
    # weight read at 3.35 TB/s: memory-bound. SGLang's Marlin (vLLM's Machete keeps the full rate there)
    h20 = estimate("qwen3-8b", "H20", precision="awq", engine="sglang", context_in=1, context_out=256)
    h100 = estimate("qwen3-8b", "H100", precision="awq", engine="sglang", context_in=1, context_out=256)
    assert h20.bound == "compute" and h100.bound == "memory"
    assert 110 < h20.decode_tokens_per_s < 170


def test_fused_moe_pads_each_touched_expert_to_16_rows_at_small_batch() -> None:
    # vLLM's Triton fused-MoE kernel: BLOCK_SIZE_M 16 while the tokens are no more than the experts
    # (get_default_config: M <= E), a 16-row Triton dot that runs as mma.sync on Hopper (half rate): 32
    # rows' worth of the dense wgmma rate, not the 64 a wgmma tile pads to
    h100 = _setup("mixtral-8x7b", "H100")
    assert h100.moe_tile(1) == 32.0 and h100.moe_tile(8) == 32.0
    assert h100.moe_tile(16) == 64.0  # 16 tokens > 8 experts: the larger configs, the dense tile
    assert _setup("mixtral-8x7b", "A100").moe_tile(1) == 16.0  # mma.sync is Ampere's full rate
    # Mixtral at batch 1 on an H100: top-2 of 8 experts, 2 x 32 = 64 rows (128 with the dense tile)
    c = model_consts(resolve_model("mixtral-8x7b"))
    assert c.expert_gemm_rows(1, h100.moe_tile(1)) == pytest.approx(64.0)
    # engines without the Triton kernel (TensorRT-LLM's CUTLASS grouped GEMM) keep the dense tile
    assert _setup("mixtral-8x7b", "H100", engine="tensorrt-llm").moe_tile(1) == 64.0


def test_todays_vllm_pays_the_fused_moe_layer_cost_sglang_does_and_v0_its_own() -> None:
    """vLLM V1 and SGLang run the same Triton fused-MoE kernel (SGLang vendors vLLM's) under CUDA graphs:
    their fixed time per MoE layer is the small kernels around it, measured in the engines' kernel tables
    (tests/estimate/test_s72_vllm_moe_kernels.py): ~25 us in vLLM 0.24, ~15 us in SGLang 0.5.14. vLLM's
    V0 era keeps the ~270 us its early rows fit (Qwen2-57B under 0.4.2, DeepSeek-R1 under 0.7). Qwen3-30B-A3B
    has 48 MoE layers: 48 x 25 us = 1.2 ms of a V1 step against 48 x ~270 us ~= 13 ms under V0, so at
    batch 1 on an H100 (~3.3 B active parameters, ~6.6 GB of bf16 weights read per token: ~3 ms at 0.66
    of 3.35 TB/s) today's vLLM is bandwidth-bound and near SGLang, V0 is not."""
    from gpuscout.estimate.memory import model_consts as consts

    spec = resolve_model("qwen3-30b-a3b")
    assert consts(spec).moe_layers == 48
    v1, v0, sgl = resolve_engine("vllm"), resolve_engine("vLLM 0.7"), resolve_engine("sglang")
    assert 10.0 < sgl.moe_layer_overhead_us < v1.moe_layer_overhead_us < 50.0
    assert v0.moe_layer_overhead_us > 4 * v1.moe_layer_overhead_us
    today = estimate("qwen3-30b-a3b", "H100", engine="vllm", context_in=1000, context_out=1000)
    sglang = estimate("qwen3-30b-a3b", "H100", engine="sglang", context_in=1000, context_out=1000)
    early = estimate("qwen3-30b-a3b", "H100", engine="vLLM 0.7", context_in=1000, context_out=1000)
    assert today.binding_limit == "bandwidth"
    assert 0.8 < today.decode_tokens_per_s / sglang.decode_tokens_per_s < 1.25
    assert early.decode_tokens_per_s < 0.5 * today.decode_tokens_per_s


def test_todays_tensorrt_llm_moe_is_not_the_first_pytorch_backends() -> None:
    """TensorRT-LLM's only MoE rows are DeepSeek-R1 under trtllm-serve 0.17 (the PyTorch backend's first
    releases, eager): their MoE constants (expert weights streamed at ~0.24 of the dense efficiency,
    ~70 us per MoE layer: ~100 before stop 73 timed each weight GEMM's measured fixed part apart) belong to
    that era. Today's engine has no MoE row; its CUTLASS MoE kernel is
    measured in 1.3.0rc20's kernel tables (experts at the dense streaming rate, ~26 us per layer:
    tests/estimate/test_s72_vllm_moe_kernels.py). Qwen3-30B-A3B at batch 1 on an H100 reads ~6 GB of bf16
    per token: ~2.4 GB dense (attention 0.9 B parameters, lm_head 0.3 B: ~1.0 ms at 0.73 of 3.35 TB/s)
    and ~3.6 GB of experts (8 of 128 in 48 layers: ~1.5 ms at 0.73, ~6.0 ms at 0.24 x 0.73), plus
    48 x 26 us = 1.2 ms of MoE layer kernels: today's engine is in line with vLLM's bandwidth-bound
    step; the 0.17 era, eager besides (~0.47 ms of launches per layer), is far slower."""
    today, early = resolve_engine("tensorrt-llm"), resolve_engine("TensorRT-LLM 0.17")
    assert today.moe_efficiency == pytest.approx(1.0)
    assert 20.0 < today.moe_layer_overhead_us < 30.0
    assert early.moe_efficiency < 0.5 * today.moe_efficiency
    assert early.moe_layer_overhead_us > 2 * today.moe_layer_overhead_us
    kw = {"context_in": 1000, "context_out": 1000}
    trt = estimate("qwen3-30b-a3b", "H100", engine="tensorrt-llm", **kw)
    vllm = estimate("qwen3-30b-a3b", "H100", engine="vllm", **kw)
    assert trt.binding_limit == "bandwidth"
    assert 0.8 < trt.decode_tokens_per_s / vllm.decode_tokens_per_s < 1.4


def test_engines_without_moe_rows_pay_the_same_moe_layer_prior() -> None:
    # TGI 3 has no MoE calibration row and no kernel table: it starts from the 50 us per MoE layer every
    # CUDA-graph engine's prior is (vLLM V1, SGLang and TensorRT-LLM take 25, 15 and 26 us from their
    # kernel tables). TGI had none at all, and ran DeepSeek-V3 at batch 1 on 8x H200 ~35 % faster than
    # vLLM for that alone.
    for name in ("tgi",):
        assert resolve_engine(name).moe_layer_overhead_us == pytest.approx(50.0), name
    kw = {"gpus": 8, "context_in": 1000, "context_out": 200}
    tgi = estimate("deepseek-v3", "H200", engine="tgi", **kw)
    vllm = estimate("deepseek-v3", "H200", engine="vllm", **kw)
    assert tgi.decode_tokens_per_s < 1.2 * vllm.decode_tokens_per_s


def test_the_estimate_names_the_constants_no_measurement_calibrates() -> None:
    # today's TensorRT-LLM on an MoE model: its MoE rows are the 0.17 era's, but its kernel tables give
    # the streaming share, the per-layer cost and (stop 76) the grouped-GEMM compute share: no prior left
    trt = estimate("qwen3-30b-a3b", "H100", engine="tensorrt-llm").assumptions
    assert "uncalibrated" not in trt and "expert GEMMs and per-layer cost measured" in trt["moe"]
    assert "uncalibrated" not in estimate("qwen3-30b-a3b", "H100", engine="TensorRT-LLM 0.17").assumptions
    assert "uncalibrated" not in estimate("qwen3-30b-a3b", "H100", engine="sglang").assumptions
    # MoE priors matter for MoE models only; TGI 3's kernels and step cost are priors for every model
    assert "uncalibrated" not in estimate("llama-3.1-8b", "H100", engine="vllm").assumptions
    tgi = estimate("llama-3.1-8b", "H100", engine="tgi").assumptions["uncalibrated"]
    assert "bandwidth_efficiency" in tgi and "moe_efficiency" not in tgi
    assert "uncalibrated" not in estimate("llama-3.1-8b", "H100", engine="TGI 1.0").assumptions
    # formats no row of the engine covers: vLLM's FP8 efficiencies are not fitted, SGLang's FP8 rows are
    # all block-scaled (its per-tensor FP8 takes the 16-bit figures), TensorRT-LLM has no weight-only row
    assert "fp8 bandwidth" in estimate("llama-3.1-8b", "H100", precision="fp8").assumptions["uncalibrated"]
    sgl = {
        p: estimate("qwen3-8b", "H100", engine="sglang", precision=p).assumptions
        for p in ("fp8-per-tensor", "fp8-block")
    }
    assert "fp8 bandwidth" in sgl["fp8-per-tensor"]["uncalibrated"] and "uncalibrated" not in sgl["fp8-block"]
    trt = estimate("llama-3.1-8b", "H100", engine="tensorrt-llm", precision="int4").assumptions
    assert "weight-only bandwidth" in trt["uncalibrated"]
