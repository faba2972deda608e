"""The fit reason's KV cache counts what sliding-window layers keep, as the estimator does.

``gpuscout recommend serve gemma-3-27b -c 8 --prompt 3584 --output 512`` said "KV 16 GiB over 8 GPUs"
where the estimator holds ~5.6 GiB: the reason multiplied every layer's bytes per token by the whole
context, though Gemma 3's sliding layers keep only their last 1,024 tokens (gpt-oss's 128).
"""

from __future__ import annotations

import re

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.estimate.api import estimate
from gpuscout.estimate.kv_cache import kv_bytes_per_sequence, kv_bytes_per_token, kv_bytes_per_token_at
from gpuscout.estimate.memory import gib
from gpuscout.estimate.precision import resolve_kv_dtype
from gpuscout.knowledge.models import resolve_model
from tests.advise.helpers import NOW, offer

PROMPT, OUTPUT, USERS = 3584, 512, 8


def _shown(x_gb: float) -> str:
    """GB as the reason writes it in GiB."""
    x = gib(x_gb)
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def _fit_reason(model: str, accelerator: str, gpus: int, memory: float) -> str:
    # no latency targets: a 3,584-token prompt over 8 PCIe A4000s takes ~3 s (the all-reduces of a ring
    # of 8), past the chat default; the reason's KV figure is what is tested
    w = ServeWorkload(
        model=model,
        concurrency=USERS,
        prompt_tokens=PROMPT,
        output_tokens=OUTPUT,
        latency_targets="none",
    )
    (row, *_) = advise(w, [offer("cloud", accelerator, gpus, 2.0, memory=memory)], top=1, now=NOW).rows
    assert row.estimate is not None and row.estimate.batch_per_replica == USERS
    return next(r for r in row.reasons if r.startswith("fits "))


def _kv_in(reason: str) -> str:
    found = re.search(r"KV ([\d.]+) GiB", reason)
    assert found is not None, reason
    return found.group(1)


@pytest.mark.parametrize("model", ["gemma-3-27b", "gpt-oss-120b", "llama-3.1-8b"])
def test_one_gpu_reason_is_the_estimators_cache(model: str) -> None:
    reason = _fit_reason(model, "H100-SXM", 1, 80.0)
    est = estimate(model, "H100-SXM", context_in=PROMPT, context_out=OUTPUT, batch=USERS)
    assert _kv_in(reason) == _shown(est.memory.kv_cache_gb)


def test_split_reason_is_the_whole_models_cache() -> None:
    # the row: 8x A4000, tensor parallel 8 (Gemma 3 27B has 16 KV heads: each GPU holds 2)
    reason = _fit_reason("gemma-3-27b", "A4000", 8, 16.0)
    assert "over 8 GPUs" in reason
    est = estimate("gemma-3-27b", "A4000", gpus=8, context_in=PROMPT, context_out=OUTPUT, batch=USERS)
    # by hand: 62 layers x 16 KV heads x 128 x 2 (K, V) x 2 B = 8,192 B per token a layer; 10 global
    # layers keep what a request holds, vLLM's cache growing as it generates: 8 staggered requests hold
    # 3,584 + 512 x 9 / 16 = 3,872 tokens each (steady_context); 52 sliding layers their last 1,024:
    # (10 x 3,872 + 52 x 1,024) x 8,192 B x 8 users = 6.03 GB = 5.6 GiB (5.8 at the full 4,096 tokens)
    assert _kv_in(reason) == _shown(est.memory.kv_cache_gb * 8) == "5.6"


def test_bytes_per_token_at_a_context() -> None:
    bf16 = resolve_kv_dtype("bf16")
    tokens = PROMPT + OUTPUT
    gemma, llama = resolve_model("gemma-3-27b"), resolve_model("llama-3.1-8b")
    # past the window: what the sequence holds, per token; every layer keeps every token for Llama
    at = kv_bytes_per_token_at(gemma, bf16, tokens)
    assert at * tokens == pytest.approx(kv_bytes_per_sequence(gemma, bf16, tokens))
    assert at < 0.5 * kv_bytes_per_token(gemma, bf16)
    assert kv_bytes_per_token_at(gemma, bf16, 512) == pytest.approx(kv_bytes_per_token(gemma, bf16))
    assert kv_bytes_per_token_at(llama, bf16, tokens) == pytest.approx(kv_bytes_per_token(llama, bf16))
