"""The fit reason's KV cache for an imported sliding-window model counts its window, as ``estimate`` does.

A Gemma-3-shaped ``config.json`` imported as "mygemma" (``gpuscout models import``) got, in ``recommend
serve mygemma --prompt 32000 --output 500``, "KV 15 GiB": every one of its 62 layers at the whole context,
where ``gpuscout estimate mygemma`` holds 3.1 GB (52 of the 62 layers keep their last 1,024 tokens). The
row's context carried no model, so ``reasons.kv_needed_gb`` looked the name up in the curated table,
found nothing and fell back to the full-context bytes per token. The ranker now resolves the model once,
through the registry the estimates use, and the reason counts the window.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.backends import default_backends
from gpuscout.advise.rank import Ranker
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, ServeWorkload
from gpuscout.estimate.api import estimate
from gpuscout.estimate.kv_cache import kv_bytes_per_token
from gpuscout.estimate.memory import gib
from gpuscout.estimate.precision import resolve_kv_dtype
from gpuscout.knowledge.hf_config import spec_from_hf_config
from gpuscout.knowledge.model_registry import ModelRegistry
from tests.advise.helpers import NOW, offer

#: google/gemma-3-27b-it's text model, as a user's config.json would give it (5 sliding layers to 1 full)
GEMMA3: dict[str, Any] = {
    "architectures": ["Gemma3ForCausalLM"],
    "model_type": "gemma3_text",
    "hidden_size": 5376,
    "intermediate_size": 21504,
    "num_hidden_layers": 62,
    "num_attention_heads": 32,
    "num_key_value_heads": 16,
    "head_dim": 128,
    "vocab_size": 262208,
    "max_position_embeddings": 131072,
    "sliding_window": 1024,
    "sliding_window_pattern": 6,
    "torch_dtype": "bfloat16",
    "tie_word_embeddings": True,
}
PROMPT, OUTPUT = 32000, 500


@pytest.fixture(scope="module")
def registry() -> ModelRegistry:
    return ModelRegistry.of([spec_from_hf_config(GEMMA3, name="mygemma")])


def _kv_in(reason: str) -> str:
    found = re.search(r"KV ([\d.]+) GiB", reason)
    assert found is not None, reason
    return found.group(1)


def _shown(x_gb: float) -> str:
    x = gib(x_gb)
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


@pytest.mark.parametrize("gpus", [1, 4])
def test_an_imported_sliding_window_models_reason_counts_the_window(
    registry: ModelRegistry, gpus: int
) -> None:
    w = ServeWorkload(
        model="mygemma", concurrency=1, prompt_tokens=PROMPT, output_tokens=OUTPUT, latency_targets="none"
    )
    backends = default_backends(registry)
    rows = advise(w, [offer("cloud", "H100-SXM", gpus, 2.0 * gpus)], top=1, now=NOW, backends=backends).rows
    (row,) = rows
    reason = next(r for r in row.reasons if r.startswith("fits "))
    spec = registry.resolve("mygemma")
    est = estimate(spec, "H100-SXM", gpus=row.config.tp, context_in=PROMPT, context_out=OUTPUT, batch=1)
    # what estimate holds (the window counted), not every layer at the whole context
    assert _kv_in(reason) == _shown(est.memory.kv_cache_gb * row.config.tp)
    every_layer = kv_bytes_per_token(spec, resolve_kv_dtype("bf16")) * (PROMPT + OUTPUT) / 1e9
    assert _kv_in(reason) != _shown(every_layer)
    assert gib(est.memory.kv_cache_gb * row.config.tp) < 0.3 * gib(every_layer)


def test_the_ranker_resolves_the_model_once_through_its_registry(registry: ModelRegistry) -> None:
    backends = default_backends(registry)
    serve = Ranker(ServeWorkload(model="mygemma"), backends=backends, now=NOW)
    assert serve.model_spec is not None and serve.model_spec.name == "mygemma"
    assert serve.model_spec is serve.model_spec  # cached: one look-up per ranking
    batch = Ranker(BatchWorkload(model="mygemma", output_tokens_total=1e6), backends=backends, now=NOW)
    assert batch.model_spec is not None
    # no KV cache to count: a training run, an unknown name (the reason falls back to the estimate's bytes)
    assert (
        Ranker(
            FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e6), backends=backends, now=NOW
        ).model_spec
        is None
    )
    assert Ranker(ServeWorkload(model="nosuchmodel"), backends=backends, now=NOW).model_spec is None
