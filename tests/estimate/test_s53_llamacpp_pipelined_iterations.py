"""llama.cpp's layer split pipelines the micro-batches of an iteration through its GPUs (u micro-batches over
G GPUs take (u + G - 1) / (G u) of running each through every GPU in turn), under load as for a prompt
alone: a lone 4,000-token prompt's TTFT is its own prefill time, and more GPUs shorten it. It was timed
as 2,048-token iterations visiting the GPUs in turn: 3.5 s on 2, 4 or 8 H100s alike (prefill alone: 1.5 s
on 4)."""

from __future__ import annotations

import pytest

from gpuscout import estimate

KW = {"engine": "llama.cpp", "context_in": 4000, "context_out": 200}


def test_a_lone_prompt_takes_its_prefill_time() -> None:
    est = estimate("llama-3.1-70b", "H100", gpus=4, concurrency=1, **KW)
    assert est.ttft_ms / 1000 == pytest.approx(4000 / est.prefill_tokens_per_s, rel=0.05)


def test_more_gpus_shorten_it_and_decode_steps_are_unchanged() -> None:
    runs = [estimate("llama-3.1-70b", "H100", gpus=g, concurrency=1, **KW) for g in (2, 4, 8)]
    assert runs[0].ttft_ms > runs[1].ttft_ms > runs[2].ttft_ms
    # a decode step is one micro-batch: it visits the GPUs in turn, nothing to pipeline
    assert runs[1].tpot_ms == pytest.approx(runs[0].tpot_ms, rel=0.02)


def test_littles_law_under_load() -> None:
    for c in (2, 16, 64):
        est = estimate("llama-3.1-70b", "H100", gpus=4, concurrency=c, **KW)
        assert est.requests_per_s * (est.ttft_ms + 199 * est.tpot_ms) / 1000 == pytest.approx(c, rel=0.03)
