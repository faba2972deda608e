"""Hand-checkable serving physics of the second load round: finite runs whose output lengths vary
(ShareGPT). Every expected number is worked out in the comment next to it."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.estimate.serving import _harmonic, _levels, _varied_excess, drain_seconds
from gpuscout.estimate.throughput import Setup, decode_step
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model

# ------------------------------------------------------------------------ varied output lengths (ShareGPT)


def _vllm_setup() -> Setup:
    return Setup(
        resolve_model("llama-3.1-8b"),
        resolve_gpu("A100 SXM 80GB"),
        resolve_precision("bf16"),
        resolve_kv_dtype("bf16"),
        resolve_engine("vllm"),
        1,
        "tensor",
    )


def test_draining_exponential_outputs_pays_the_fixed_step_for_the_longest_request() -> None:
    # four running sequences with exponential outputs of mean 200 tokens: with k running the next one
    # ends after 200 / k steps, so the drain takes 200 x (s4/4 + s3/3 + s2/2 + s1/1) seconds
    st = _vllm_setup()
    s = {k: decode_step(st, k, 220 + 200).total for k in (1, 2, 3, 4)}
    total, tpot = drain_seconds(st, 4, 220, 200)
    assert total == pytest.approx(200 * (s[4] / 4 + s[3] / 3 + s[2] / 2 + s[1]))
    # the request leaving at level 4 saw only level 4; the one leaving at level 1 saw all four levels,
    # 200/4, 200/3, 200/2 and 200/1 steps of each: TPOTs weighted by 1/j, averaged over the four
    w = {k: 1.0 / k for k in s}

    def seen(k: int) -> float:
        levels = range(k, 5)
        return sum(w[j] * s[j] for j in levels) / sum(w[j] for j in levels)

    assert tpot == pytest.approx(sum(seen(k) for k in (1, 2, 3, 4)) / 4)
    # longer than the mean-length model's 200 steps at batch 4: the fixed part of the step is paid
    # for 200 x H_4 = 417 steps
    assert total > 200 * s[4]


def test_level_bins_cover_every_level_once() -> None:
    # the bins stand for levels 1..1000: counts add up to 1000, weights to H_1000 = 7.4855
    bins = _levels(1000)
    assert sum(n for _, _, n in bins) == pytest.approx(1000)
    assert sum(w for _, w, _ in bins) == pytest.approx(7.4855, abs=1e-3)
    assert _harmonic(4) == pytest.approx(1 + 1 / 2 + 1 / 3 + 1 / 4)


def test_a_finite_sharegpt_burst_ends_with_its_longest_requests() -> None:
    # 1000 ShareGPT prompts at once on Llama-3.1-405B BF16, 8x MI300X, vLLM 0.6 (all admitted: 1024
    # slots): with mean lengths the run is 200 decode steps at ~1000 sequences; with exponential
    # lengths the last requests decode on at small batch for ~200 x H_1000 steps of mostly fixed cost,
    # so requests/s falls (the vLLM AMD blog measured 5.76 requests/s here)
    kwargs = dict(
        gpus=8,
        precision="bf16",
        engine="vLLM 0.6.2",
        request_rate=math.inf,
        num_requests=1000,
        context_in=220,
        context_out=200,
    )
    same = estimate("llama-3.1-405b", "MI300X", **kwargs)  # type: ignore[arg-type]
    varied = estimate("llama-3.1-405b", "MI300X", varied_output=True, **kwargs)  # type: ignore[arg-type]
    assert varied.requests_per_s < 0.8 * same.requests_per_s
    # the prompts are the same: the first tokens come out at the same time
    assert varied.ttft_ms == pytest.approx(same.ttft_ms)


def test_a_static_batch_waits_for_its_longest_output() -> None:
    # HF generate keeps every row of a batch until its longest output ends: with exponential lengths of
    # mean 200, E[max of 4] = 200 x H_4 = 200 x 2.0833 = 416.7 steps at batch 4, i.e. 216.7 steps more
    # than the mean-length wave (the step taken at the wave's mean context, 220 + 100 tokens)
    st = dataclasses.replace(_vllm_setup(), engine=resolve_engine("hf-transformers"))
    step = decode_step(st, 4, 220 + 100).total
    extra, tpot = _varied_excess(st, 4, 220, 200)
    assert extra == pytest.approx(200 * (1 / 2 + 1 / 3 + 1 / 4) * step)
    assert extra == pytest.approx(216.67 * step, rel=1e-3)
    assert tpot == pytest.approx(step)
