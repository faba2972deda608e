"""Hand-checkable physics of batched and tensor-parallel decode (issue 8, items 3-5): old int4 kernels
at batch, the all-reduce cost model, per-worker costs. Every expected number is worked out beside it."""

from __future__ import annotations

import dataclasses
import functools

import pytest

from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_precision
from gpuscout.estimate.throughput import (
    cuda_core_int_tops,
    decode_step,
    int4_kernel_seconds,
    int4_recons,
)
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model
from tests.estimate.setups import make_setup

_setup = functools.partial(make_setup, kv="fp16")  # fp16 checkpoints: an fp16 cache


# Llama-2-7B body (all linear layers and norms, no embedding or lm_head):
# 32 x (4 x 4096^2 + 3 x 4096 x 11008) + 65 x 4096 = 6,476,271,616 weights
LLAMA2_7B_BODY = 32 * (4 * 4096**2 + 3 * 4096 * 11008) + 65 * 4096


def test_integer_rate_of_the_cuda_cores_from_the_fp32_rate() -> None:
    # GA100 (cc 8.0) has as many INT32 as FP32 lanes: 19.5 TOPS on an A100
    assert cuda_core_int_tops(resolve_gpu("A100 SXM 40GB")) == pytest.approx(19.5)
    # GA10x (cc 8.6) doubled the FP32 lanes only: 31.52 / 2 = 15.76 TOPS on an A10G
    assert cuda_core_int_tops(resolve_gpu("A10G")) == pytest.approx(15.76)
    # Hopper: 16 INT32 + 32 FP32 lanes per partition: 67 / 2 = 33.5
    assert cuda_core_int_tops(resolve_gpu("H100")) == pytest.approx(33.5)


def test_exllama_v1_dequantises_again_for_every_row_below_eight_rows() -> None:
    st = _setup("llama-2-7b", "A10G", "gptq-int4", "TGI 1.0.3")
    assert st.engine.int4_row_dequant_ops == 8.0 and st.engine.int4_recons_rows == 8
    # 5 rows: 4 extra rows x 6.476e9 weights x 8 ops / 15.76e12 ops/s = 13.15 ms of CUDA-core time
    extra_bytes, extra_s = int4_kernel_seconds(st, 5, 5)
    assert extra_bytes == 0.0
    assert extra_s == pytest.approx(4 * LLAMA2_7B_BODY * 8 / 15.76e12)
    assert extra_s == pytest.approx(13.15e-3, rel=1e-3)
    # one row: the plain kernel, nothing extra
    assert int4_kernel_seconds(st, 1, 1) == (0.0, 0.0)
    # and the decode step grows by exactly that time from the one-row kernel's figure
    base = decode_step(_setup("llama-2-7b", "A10G", "gptq-int4", "TGI 2.0"), 5, 36).total
    assert decode_step(st, 5, 36).total > base


def test_exllama_v1_rebuilds_fp16_weights_for_cublas_from_eight_rows() -> None:
    st = _setup("llama-2-7b", "A10G", "gptq-int4", "TGI 1.0.3", gpus=4)
    assert not int4_recons(st, 7) and int4_recons(st, 8)
    # 20 rows on TP4: each GPU writes and reads back an fp16 copy of its quarter of the body:
    # 4 B x 6.476e9 / 4 = 6.476 GB per step, no per-row CUDA-core time
    extra_bytes, extra_s = int4_kernel_seconds(st, 20, 20)
    assert extra_bytes == pytest.approx(4.0 * LLAMA2_7B_BODY / 4)
    assert extra_s == 0.0


def test_only_exllama_v1_engines_and_int4_formats_pay_it() -> None:
    # today's TGI (exllama v2 / Marlin: one dequantisation per weight tile), AWQ-style kernels of vLLM
    for engine in ("tgi", "vllm", "TGI 2.3"):
        st = _setup("llama-2-7b", "A10G", "gptq-int4", engine)
        assert int4_kernel_seconds(st, 5, 5) == (0.0, 0.0)
    # a 16-bit model in the same engine era
    st = _setup("llama-2-7b", "A10G", "fp16", "TGI 1.0.3")
    assert int4_kernel_seconds(st, 5, 5) == (0.0, 0.0)
    # AutoGPTQ 0.4's exllama kernel under transformers, named in the engine text
    hf = resolve_engine("HF transformers 4.32 generate() + AutoGPTQ 0.4.2 exllama kernel")
    assert hf.int4_recons_rows == 8
    assert resolve_engine("transformers + exllamav2").int4_row_dequant_ops == 0.0


def test_tgi_1_bookkeeping_waits_for_the_step_and_adds_to_it() -> None:
    import dataclasses

    base = _setup("llama-2-7b", "A10G", "fp16", "TGI 1.0.3", gpus=4)
    eng = base.engine
    assert eng.cpu_overlap and eng.serial_bookkeeping and not eng.cuda_graphs
    quiet = dataclasses.replace(eng, seq_overhead_us=0.0)
    busy = dataclasses.replace(eng, seq_overhead_us=1000.0)
    t0 = decode_step(dataclasses.replace(base, engine=quiet), 20, 40).total
    t1 = decode_step(dataclasses.replace(base, engine=busy), 20, 40).total
    # 20 sequences x 1 ms of Python each, after the tokens reached the host: +20 ms, none of it hidden
    # behind the GPU (the eager launches of the next step only start once the router sent it)
    assert t1 - t0 == pytest.approx(20e-3, rel=1e-9)
    # an engine whose scheduler overlaps the GPU (SGLang 0.4) hides part of the same cost
    sg = _setup("llama-2-7b", "A10G", "fp16", "sglang", gpus=4)
    s0 = decode_step(
        dataclasses.replace(sg, engine=dataclasses.replace(sg.engine, seq_overhead_us=0.0)), 20, 40
    )
    s1 = decode_step(
        dataclasses.replace(sg, engine=dataclasses.replace(sg.engine, seq_overhead_us=1000.0)), 20, 40
    )
    assert s1.total - s0.total < 20e-3


def test_meta_fp8_checkpoints_keep_attention_and_edge_layers_in_bf16() -> None:
    from gpuscout.estimate.memory import weights_bytes_total
    from gpuscout.knowledge.hf_config import native_precision

    spec = resolve_model("llama-3.1-405b")
    # Llama 3.1 405B: 126 layers, hidden 16384, 128 query / 8 KV heads of 128, MLP 53248, vocab 128256
    attention = 126 * (2 * 16384 * 16384 + 2 * 16384 * 1024)  # 71.87B, bf16 in Meta's FP8 checkpoint
    mlp_layer = 3 * 16384 * 53248 + 2 * 16384  # 2.617B per layer (with its two norms)
    embed_head = 2 * 128256 * 16384  # 4.20B, bf16 in every FP8 checkpoint
    body = attention + 126 * mlp_layer + 16384  # + the final norm
    fp8_all = body * 1.0 + embed_head * 2.0  # ModelOpt / compressed-tensors: every linear FP8 = 410.06 GB
    assert weights_bytes_total(spec, resolve_precision("fp8")) == pytest.approx(fp8_all, rel=1e-6)
    # fbgemm_fp8: + 1 B per attention weight + 1 B per MLP weight of the first and last layers
    fp8_ffn = fp8_all + attention + 2 * mlp_layer  # 487.16 GB: 9.6 GB more per GPU at TP8
    assert weights_bytes_total(spec, resolve_precision("fbgemm_fp8")) == pytest.approx(fp8_ffn, rel=1e-4)
    assert fp8_ffn / 1e9 == pytest.approx(487.16, abs=0.05)
    # the format follows the checkpoint's quantization_config
    meta = {"quant_method": "fbgemm_fp8", "modules_to_not_convert": ["model.layers.0.self_attn.q_proj"]}
    assert native_precision(meta) == "fp8-ffn"
    assert native_precision({"quant_method": "fbgemm_fp8"}) == "fp8"


def test_tgi_admits_waiting_requests_every_twenty_steps() -> None:
    from gpuscout.estimate.serving import Load, serve

    st = _setup("llama-2-7b", "A10G", "fp16", "TGI 1.0.3", gpus=4)
    assert st.engine.max_waiting_steps == 20  # router max_waiting_tokens default
    # 20 clients, 50 tokens each: a finished client's next request waits 20 / 2 = 10 steps on average,
    # so 20 x 50 / (50 + 10) = 16.7 -> 17 requests decode at a time, and each waits 10 steps (of the
    # 16.7-sequence batch on average: a little shorter than the 17-sequence step the point reports)
    point = serve(st, Load("concurrency", 20.0), 12, 50, 1024, "scheduler")
    assert point.running == 17
    assert 9.5 * point.step.total < point.queue_s <= 10 * point.step.total * (1 + 1e-9)
    # one client: nothing runs when its request arrives, so the router admits it at once
    one = serve(st, Load("concurrency", 1.0), 12, 50, 1024, "scheduler")
    assert one.running == 1 and one.queue_s == 0.0
    # engines without the rule run every client's request
    vllm = serve(
        _setup("llama-2-7b", "A10G", "fp16", "vllm", gpus=4), Load("concurrency", 20.0), 12, 50, 1024, ""
    )
    assert vllm.running == 20


def test_an_eager_moe_layer_launches_half_a_dense_layer_more() -> None:
    import dataclasses

    from gpuscout.estimate.memory import model_consts
    from gpuscout.estimate.throughput import _fixed_costs

    st = _setup("deepseek-r1", "H200", "fp8", "TensorRT-LLM 0.17 trtllm-serve", gpus=8)
    eng = dataclasses.replace(st.engine, layer_overhead_us=400.0, moe_layer_overhead_us=0.0)
    assert not eng.cuda_graphs
    c = model_consts(st.spec)
    assert c.moe_layers == 58  # 61 layers, the first 3 dense
    _, cpu, _ = _fixed_costs(dataclasses.replace(st, engine=eng), c, 4)
    _, cpu_dense, _ = _fixed_costs(
        dataclasses.replace(st, engine=dataclasses.replace(eng, layer_overhead_us=0.0)), c, 4
    )
    # 61 layers x 400 us + 58 MoE layers x 0.5 x 400 us = 24.4 + 11.6 ms of host launches
    assert cpu - cpu_dense == pytest.approx((61 * 400 + 58 * 200) * 1e-6)
    # with CUDA graphs the launches are replayed: only the per-layer GPU gaps remain, no MoE extra
    # (and each weight GEMM's measured fixed part, on the GPU: 486 GEMMs x 3.53 us)
    graphs = dataclasses.replace(eng, cuda_graphs=True)
    gpu_fixed, launches, _ = _fixed_costs(dataclasses.replace(st, engine=graphs), c, 4)
    assert launches == 0.0
    assert gpu_fixed == pytest.approx(61 * 400e-6 + 486 * graphs.gemm_kernel_us * 1e-6)


def test_tp_worker_cost_grows_with_the_depth_of_the_fan_out_not_the_worker_count() -> None:
    from gpuscout.estimate.throughput import tp_workers_factor

    # log2(TP): no cost on one GPU, one unit at TP=2, three (not seven) at TP=8
    assert [tp_workers_factor(t) for t in (1, 2, 4, 8)] == [0.0, 1.0, 2.0, 3.0]
    # a V0-style engine (CPU not overlapped) with 1000 us per unit and nothing else per step:
    # Llama-3-70B decode at batch 4, TP 2 / 4 / 8 on H100 -> the fixed part differs by exactly
    # 1000 us between TP2 and TP4 and 2000 us between TP2 and TP8 (the per-layer gaps do not depend on TP)
    eng = dataclasses.replace(
        resolve_engine("vLLM 0.6.3"), tp_step_overhead_us=1000.0, step_overhead_us=0.0, seq_overhead_us=0.0
    )
    fixed = {}
    for tp in (2, 4, 8):
        st = dataclasses.replace(_setup("llama-3-70b", "H100", "bf16", "vLLM 0.6.3", gpus=tp), engine=eng)
        fixed[tp] = decode_step(st, 4, 1000).fixed
    assert fixed[4] - fixed[2] == pytest.approx(1.0e-3)
    assert fixed[8] - fixed[2] == pytest.approx(2.0e-3)
