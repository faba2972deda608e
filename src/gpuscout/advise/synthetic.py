"""A stand-in architecture for "pre-train an N-billion-parameter model" when no architecture is named.

Llama-3 proportions (head_dim 128, 8 KV heads, gated MLP 3.5x wide, 128k vocabulary, untied
embeddings); the hidden size follows the published Llama ladder and the layer count is solved so the
parameter total lands near ``params_b``. It is an assumption, stated on every row that uses it.
"""

from __future__ import annotations

import math

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.model_types import ModelSpec

VOCAB = 128_256
HEAD_DIM = 128
KV_HEADS = 8
MLP_RATIO = 3.5
#: (largest size in billions, hidden size) from Llama 3.2 1B/3B, 3.1 8B, ~Llama 2 13B/30B, 3.1 70B, 405B
HIDDEN_LADDER: tuple[tuple[float, int], ...] = (
    (2.0, 2048),
    (5.0, 3072),
    (11.0, 4096),
    (22.0, 5120),
    (45.0, 6656),
    (150.0, 8192),
    (math.inf, 16384),
)


def dense_model(params_b: float, name: str) -> ModelSpec:
    """A dense Llama-shaped ``ModelSpec`` of about ``params_b`` billion parameters."""
    if not params_b > 0 or params_b > 5000:
        raise InvalidInputError(
            "params_b", f"must be in (0, 5000] billion, got {params_b}", "0 < params_b <= 5000"
        )
    hidden = next(h for limit, h in HIDDEN_LADDER if params_b <= limit)
    inter = int(round(hidden * MLP_RATIO / 256) * 256)
    heads = hidden // HEAD_DIM
    attention = 2 * hidden * hidden + 2 * hidden * KV_HEADS * HEAD_DIM
    per_layer = attention + 3 * hidden * inter + 2 * hidden
    embeddings = 2 * VOCAB * hidden
    layers = max(1, round((params_b * 1e9 - embeddings) / per_layer))
    return ModelSpec(
        name=name,
        hf_id="",
        family="synthetic",
        kind="llm",
        num_hidden_layers=layers,
        hidden_size=hidden,
        intermediate_size=inter,
        num_attention_heads=heads,
        num_key_value_heads=KV_HEADS,
        head_dim=HEAD_DIM,
        vocab_size=VOCAB,
        max_position_embeddings=131_072,
        tie_word_embeddings=False,
        source="gpuscout synthetic dense model (Llama-3 proportions)",
        notes=f"stand-in for a {params_b:g}B-parameter dense transformer: {layers} layers x {hidden} hidden",
    )
