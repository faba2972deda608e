"""Hand-checkable serving physics under load: when first tokens come out, how waves and arrivals batch
prompts, and what TTFT / TPOT a benchmark client reports. Every expected number is worked out in the
comment next to it."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.estimate.serving import (
    _arrival_batch_seconds,
    _burst,
    _closed_loop,
    _closed_loop_wait,
    _finite_run_wait,
    _residual_step,
    _state,
    _wave,
    first_token_share,
)
from gpuscout.estimate.throughput import decode_step, mean_decode_step, prefill_seconds
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model
from tests.estimate.setups import make_setup as _setup

# ------------------------------------------------------------------------------ first tokens of a wave


def test_a_chunked_engine_hands_out_first_tokens_at_the_end_of_the_step_that_ends_each_prompt() -> None:
    # four 3200-token prompts, 8192-token steps (vLLM V1 / SGLang): prompts 1 and 2 end in step 1
    # (tokens 3200 and 6400 <= 8192), prompts 3 and 4 in step 2 (9600 and 12800), the last step
    # ending at token 12800: (8192 + 8192 + 12800 + 12800) / (4 x 12800) = 41984 / 51200 = 0.82
    eng = dataclasses.replace(resolve_engine("vllm"), prefill_chunk_tokens=8192)
    assert first_token_share(eng, 4, 3200) == pytest.approx(41984 / 51200)


def test_an_engine_without_chunking_packs_whole_prompts_per_step() -> None:
    # vLLM V0 with an 8192-token budget takes floor(8192 / 3200) = 2 prompts per step: prompts 1-2 come
    # out after 6400 tokens, 3-4 after 12800: (2 x 6400 + 2 x 12800) / 51200 = 0.75
    v0 = resolve_engine("vLLM 0.6.3")
    assert not v0.chunked_prefill
    assert first_token_share(dataclasses.replace(v0, prefill_chunk_tokens=8192), 4, 3200) == 0.75
    # a budget of 163,840 tokens (vLLM 0.7 with MLA: max_model_len) takes all four in one step:
    # every first token at the end of the whole prefill
    assert first_token_share(dataclasses.replace(v0, prefill_chunk_tokens=163840), 4, 3200) == 1.0
    # one prompt: its first token ends its own prefill
    assert first_token_share(v0, 1, 3200) == 1.0


def test_a_wave_reports_ttft_and_tpot_as_the_benchmark_clients_do() -> None:
    # wave = prefill of the four prompts + (800 - 1) decode steps: the prefill samples the first token
    st = _setup("llama-3.1-8b", "H100", engine="vllm")
    wave, ttft, tpot, step = _wave(st, 4, 3200, 800)
    pre = prefill_seconds(st, 3200, 4)
    assert step.total == mean_decode_step(st, 4, 3200, 800).total
    assert wave == pytest.approx(pre + 799 * step.total)
    # vLLM V1, 8192-token steps: 0.82 of the wave's prefill has passed at the mean first token
    assert ttft == pytest.approx(pre * 41984 / 51200)
    # bench_serving's TPOT: (latency - TTFT) / (output - 1) per request; everyone ends with the wave
    assert tpot == pytest.approx((wave - ttft) / 799)
    assert tpot > step.total


# ------------------------------------------------------------------------------ arrivals batch prompts


def test_an_engine_without_chunking_prefills_only_the_prompts_that_arrived_together() -> None:
    # vLLM V0 (no chunking): 4 requests/s of 220-token prompts, 12.5 ms decode steps. Besides the tagged
    # prompt, 4 x 0.0125 = 0.05 prompts arrive in the same scheduling window on average: the TTFT's
    # prefill step holds 1.05 prompts, interpolated between one and two prompts' prefill
    st = _setup("llama-3.1-8b", "A100 SXM 80GB", engine="vLLM 0.6.0")
    one, two = prefill_seconds(st, 220, 1), prefill_seconds(st, 220, 2)
    got = _arrival_batch_seconds(st, 220, 18, 4.0, 0.0125)
    assert got == pytest.approx(one + 0.05 * (two - one))
    # the 18 prompts a 4096-token budget could take would cost ~10x that
    assert prefill_seconds(st, 220, 18) > 8 * got
    # with --num-scheduler-steps 10 the scheduler runs once per 10 steps: 1 + 4 x 0.125 = 1.5 prompts
    multi = dataclasses.replace(st, engine=dataclasses.replace(st.engine, multi_step=10))
    assert _arrival_batch_seconds(multi, 220, 18, 4.0, 0.0125) == pytest.approx(one + 0.5 * (two - one))
    # never more than the budget takes
    assert _arrival_batch_seconds(st, 220, 2, 1000.0, 0.0125) == pytest.approx(two)


# ------------------------------------------------------------------------------ eager vLLM


def test_vllm_enforce_eager_launches_every_layer_from_python() -> None:
    # --enforce-eager: no CUDA graph replays the layers, so each step launches every layer's kernels
    # from Python: the eager-layer host time shared with HF transformers, TGI 1.x and trtllm-serve
    # 0.17. Qwen3-14B-AWQ (40 layers) on an A100 at a 16k context: 40 x 0.503 ms = 20.1 ms per token
    # (vLLM issue #20469 measured 20.6 ms at a 16k prompt), where its weight reads take ~7 ms

    eager = resolve_engine("vllm 0.9.1 --enforce-eager")
    assert eager.layer_overhead_us == resolve_engine("hf-transformers").layer_overhead_us
    assert not eager.cuda_graphs
    kw = {"precision": "awq", "context_in": 1000, "context_out": 200}
    slow = estimate("qwen3-14b", "A100 80GB", engine=eager, **kw)
    fast = estimate("qwen3-14b", "A100 80GB", engine="vllm", **kw)
    assert slow.tpot_ms >= 40 * eager.layer_overhead_us * 1e-3 > 2 * fast.tpot_ms


def test_a_lone_request_does_not_decode_through_its_own_prompt_chunks() -> None:
    # vLLM V1, one request of 16,000 prompt tokens in 8,192-token chunks, 200 out: its two chunk
    # steps are its TTFT; alone, every token after the first takes the plain decode step at the mean
    # context 16,000 + 200 / 2 = 16,100
    st = _setup("llama-3.1-8b", "H100", engine="vllm")
    alone = _state(st, 1, 16000, 200)
    assert alone.tpot_s == pytest.approx(decode_step(st, 1, 16100).total)
    # with 32 running it decodes through the others' chunk steps: slower than the plain step
    busy = _state(st, 32, 16000, 200)
    assert busy.tpot_s > 1.5 * decode_step(st, 32, 16100).total


# ------------------------------------------------------------------------------ vLLM 0.7 and MLA


def test_vllm_0_7_prefills_mla_models_without_chunking_up_to_the_whole_context() -> None:
    # vLLM 0.7 logs "MLA is enabled; forcing chunked prefill and prefix caching to be disabled" and
    # sets max_num_batched_tokens = max(max_model_len, 2048): DeepSeek-R1's 163,840 tokens, i.e.
    # floor(163840 / 3200) = 51 prompts of 3200 tokens per prefill step
    from gpuscout.estimate.api import _for_model

    v0 = resolve_engine("vLLM 0.7.3")
    ds = _for_model(v0, resolve_model("deepseek-r1"))
    assert not ds.chunked_prefill and ds.prefill_chunk_tokens == 163840
    assert first_token_share(ds, 64, 3200) == pytest.approx((51 * 51 + 13 * 64) / (64 * 64))
    # a stated --max-model-len sets the MLA budget (the dstack runs: 32768, ten prompts per step)
    stated = _for_model(dataclasses.replace(v0, max_model_len=32768), resolve_model("deepseek-r1"))
    assert not stated.chunked_prefill and stated.prefill_chunk_tokens == 32768
    # today's vLLM (V1) chunks MLA prefills too
    assert _for_model(resolve_engine("vllm"), resolve_model("deepseek-r1")).chunked_prefill


def test_vllm_v0_sizes_its_step_budget_from_the_context_and_chunks_long_contexts_by_itself() -> None:
    # vLLM 0.5-0.7 (V0) SchedulerConfig: without chunked prefill max_num_batched_tokens defaults to
    # max(max_model_len, 2048); EngineArgs switches chunked prefill on for max_model_len > 32768
    # ("to avoid OOM errors in the initial memory profiling phase"), with 512 tokens per step
    from gpuscout.estimate.api import _for_model

    v0 = resolve_engine("vLLM 0.6.3")
    llama2 = _for_model(v0, resolve_model("llama-2-7b"))  # 4096-token context
    assert not llama2.chunked_prefill and llama2.prefill_chunk_tokens == 4096
    llama3 = _for_model(v0, resolve_model("llama-3-8b"))  # 8192
    assert not llama3.chunked_prefill and llama3.prefill_chunk_tokens == 8192
    llama31 = _for_model(v0, resolve_model("llama-3.1-8b"))  # 131072 > 32768: chunked by default
    assert llama31.chunked_prefill and llama31.prefill_chunk_tokens == 512
    # --max-model-len 32768 is not above the threshold: unchunked, 32768 per step
    short = _for_model(dataclasses.replace(v0, max_model_len=32768), resolve_model("llama-3.1-8b"))
    assert not short.chunked_prefill and short.prefill_chunk_tokens == 32768
    # --enable-chunked-prefill=False wins: the whole 131072-token context per step
    off = _for_model(dataclasses.replace(v0, enable_chunked_prefill=False), resolve_model("llama-3.1-8b"))
    assert not off.chunked_prefill and off.prefill_chunk_tokens == 131072
    # --max-num-batched-tokens 1024 with the automatic chunking: 1024 per step
    fixed = dataclasses.replace(v0, max_num_batched_tokens=1024)
    assert _for_model(fixed, resolve_model("llama-3.1-8b")).prefill_chunk_tokens == 1024
    # multi-step scheduling with chunked prefill: max(max_model_len, 2048)
    multi = _for_model(dataclasses.replace(v0, multi_step=8), resolve_model("llama-3.1-8b"))
    assert multi.chunked_prefill and multi.prefill_chunk_tokens == 131072
    # today's engine (V1) keeps its own budget whatever the context
    v1 = resolve_engine("vllm")
    assert _for_model(v1, resolve_model("llama-3.1-8b")) is v1


def test_an_engine_reserves_activations_for_its_largest_step_before_sizing_the_kv_cache() -> None:
    # vLLM profiles a forward pass of max_num_batched_tokens tokens (163,840 for DeepSeek-R1 in 0.7,
    # chunked prefill off) and sizes the KV cache from what is left. Per GPU at TP8, per token:
    # (4 x 7168 hidden + 2 x 18432 / 8 MLP + 3 x 128 x 192 / 8 attention) x 2 B = 84,992 B, x 163,840
    # = 13.925 GB; the fused MoE's top-8 expert outputs, 65,536 tokens at a time: 65,536 x 8 x 7168
    # x 2 B = 7.516 GB; one sequence's fp32 logits 129,280 x 4 B: 21.441 GB in all
    from gpuscout.estimate.api import _for_model
    from gpuscout.estimate.memory import activation_bytes, plan_memory

    spec = resolve_model("deepseek-r1")
    eng = _for_model(resolve_engine("vLLM 0.7.3"), spec)
    fp8, kv = resolve_precision("fp8"), resolve_kv_dtype("bf16")
    act = activation_bytes(spec, fp8, eng, 163840, 4000, tp=8)
    assert act == pytest.approx(13_925_089_280 + 7_516_192_768 + 517_120)
    # the plan holds that reserve whatever the request: a 4000-token request does not shrink it
    plan = plan_memory(spec, resolve_gpu("H200"), fp8, kv, eng, batch=1, context=4000, gpus=8)
    assert plan.activations == pytest.approx(act)
    # a static batch (HF generate) holds only its own prompt
    hf = resolve_engine("hf-transformers")
    small = plan_memory(spec, resolve_gpu("H200"), fp8, kv, hf, batch=1, context=4000, gpus=8)
    assert small.activations < act / 10


# ------------------------------------------------------------------------------ finite runs


def test_a_finite_run_above_capacity_starts_its_first_requests_at_once() -> None:
    # 100 requests at 10 /s, 23 slots served at 0.39 requests/s: a = 1/0.39 - 1/10 = 2.4641 s;
    # request j waits a j - 23 / 0.39 once positive, from j0 = 23 / 0.39 / a = 23.93 on:
    # [a (100^2 - j0^2) / 2 - 58.974 (100 - j0)] / 100 = (11614.9 - 4486.0) / 100 = 71.3 s
    assert _finite_run_wait(100, 23, 0.39, 10.0) == pytest.approx(71.29, abs=0.05)
    # without the head start: 100 / 2 x a = 123.2 s
    assert _finite_run_wait(100, 0, 0.39, 10.0) == pytest.approx(50 * (1 / 0.39 - 0.1))
    # all fit in the slots before the queue forms: no wait
    assert _finite_run_wait(20, 23, 0.39, 10.0) == 0.0


def test_a_closed_loop_client_sends_its_first_requests_at_once() -> None:
    # vllm bench serve --max-concurrency 48 at an infinite rate, 300 prompts of 256 tokens: the first
    # 48 are prefilled together (12,288 tokens in 8192-token steps: share (32 x 8192 + 16 x 12288) /
    # (48 x 12288) = 0.778 of their prefill has passed at the mean first token), the other 252 arrive
    # one by one as requests finish. Mean TTFT = steady + 48 / 300 x (wave - steady)
    st = _setup("mistral-7b-v0.3", "RTX 4090", engine="vllm")
    steady = _closed_loop(st, 48, 256, 128, 200, "kv_cache")
    run = _closed_loop(st, 48, 256, 128, 200, "kv_cache", num_requests=300)
    share = (32 * 8192 + 16 * 12288) / (48 * 12288)
    assert first_token_share(st.engine, 48, 256) == pytest.approx(share)
    wave = prefill_seconds(st, 256, 48) * share
    assert run.ttft_s == pytest.approx(steady.ttft_s + 48 / 300 * (wave - steady.ttft_s))
    assert run.ttft_s > 2 * steady.ttft_s
    # throughput and TPOT are the steady state's
    assert run.requests_per_s == steady.requests_per_s and run.tpot_s == steady.tpot_s


def test_a_finite_closed_loop_run_queues_its_first_overflow_for_the_first_completions() -> None:
    # 1000 clients, 256 slots, 11 requests/s: in the steady state each new request joins a queue of 744
    # and waits 744 / 11 = 67.6 s. A run of 4000 starts with 1000 at once: the 744 that do not fit wait
    # for 1..744 completions, 745 / 2 / 11 = 33.9 s on average; the other 3000 arrive into the full
    # queue: (744 x 33.86 + 3000 x 67.64) / 4000 = 57.0 s
    assert _closed_loop_wait(1000, 256, 11.0, None) == pytest.approx(744 / 11)
    head = 744 * 745 / 2 / 11
    assert _closed_loop_wait(1000, 256, 11.0, 4000) == pytest.approx((head + 3000 * 744 / 11) / 4000)
    assert _closed_loop_wait(1000, 256, 11.0, 4000) == pytest.approx(57.0, abs=0.1)
    # everyone fits: nobody waits for a slot
    assert _closed_loop_wait(200, 256, 11.0, 4000) == 0.0


def test_a_client_allowed_more_in_flight_than_it_has_requests_sends_a_burst() -> None:
    # --max-concurrency 1000 --num-prompts 1000 at an infinite rate sends all 1000 at once: the same
    # run as request_rate=inf with 1000 prompts (waves of the 295 sequences the H100's KV cache holds,
    # below vLLM's 1024 there), not a steady closed loop of 1000 clients whose queue never drains
    # (twice the wait)
    kw = {"context_in": 1000, "context_out": 500, "engine": "vllm"}
    burst = estimate("llama-3.1-8b", "H100", request_rate=math.inf, num_requests=1000, **kw)
    same = estimate("llama-3.1-8b", "H100", concurrency=1000, num_requests=1000, **kw)
    steady = estimate("llama-3.1-8b", "H100", concurrency=1000, **kw)
    assert same.ttft_ms == burst.ttft_ms and same.tpot_ms == burst.tpot_ms
    assert same.requests_per_s == burst.requests_per_s
    assert steady.ttft_ms > 1.5 * same.ttft_ms
    # and it is _burst's answer for the engine's cap
    st = _setup("llama-3.1-8b", "H100", engine="vllm")
    assert same.batch == 295 and "(cap 295, KV cache)" in same.assumptions["load"]
    point = _burst(st, 1000, 1000, 500, 295, "kv_cache")
    assert same.ttft_ms == pytest.approx(point.ttft_s * 1000 + st.engine.request_overhead_us / 1000)


def test_an_arrival_waits_for_the_step_in_progress_longer_steps_more_often() -> None:
    # renewal theory: the mean time from an arrival to the end of the step in progress is
    # E[S^2] / (2 E[S]). Plain 20 ms decode steps: 10 ms. One 400 ms prefill step per nine of them:
    # (0.16 + 9 x 0.0004) / (2 x (0.4 + 9 x 0.02)) = 0.1636 / 1.16 = 141 ms, not half the mean (29 ms)
    assert _residual_step([(1.0, 0.02)]) == pytest.approx(0.01)
    assert _residual_step([(9.0, 0.02), (1.0, 0.4)]) == pytest.approx(0.1636 / 1.16)
    # a request alone finds the engine idle: its TTFT is its own prefill (no step to wait for)
    st = _setup("llama-3.1-8b", "H100", engine="vllm")
    alone = _state(st, 1, 2000, 200)
    assert alone.ttft_s == pytest.approx(
        decode_step(st, 0, 2100, prefill_tokens=2000, prefill_context=1000).total
    )
