"""Parameter counts computed from the architecture.

Counted: token embedding, attention (GQA/MQA with explicit ``head_dim``; MLA with its low-rank q/kv
projections and their norms), dense MLP (gated: gate/up/down; plain: up/down), MoE (router, routed
experts, shared experts, leading dense layers), norms (RMSNorm = weight; LayerNorm = weight + bias),
biases where the family has them, attention sinks, and the lm_head when it is not tied.

Conventions:

* ``active`` is what one token uses: everything except the routed experts that are not selected. It
  includes the embedding table and the lm_head, as Mistral (Mixtral 12.9B), DeepSeek (V3 37B) and Qwen
  (Qwen3-30B-A3B 3.3B) count. OpenAI's gpt-oss "active" figure leaves the embedding table out; that is
  ``active_excl_embedding`` (which is also what a decode step reads from memory: the embedding is a
  one-row lookup, unless tied to the lm_head).
* DeepSeek-V3's multi-token-prediction module is not part of the 671B: it is reported in ``mtp`` and
  left out of ``total`` (the HF checkpoint's 685B adds it together with its own copies of the embedding
  and head).
* Diffusion and audio rows are not decoder-only transformers: their size is the declared
  ``total_params_b`` from the source, and ``computed`` is False.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.model_types import ModelSpec


@dataclass(frozen=True, slots=True)
class ParamCount:
    """Parameter counts of one model (absolute numbers, not billions)."""

    total: int
    active: int  # per token (MoE: selected experts only); equals total for dense models
    embedding: int
    lm_head: int  # 0 when tied to the embedding
    attention: int
    dense_mlp: int  # MLPs of dense layers (all layers of a dense model; DeepSeek's first 3)
    routed_experts: int
    shared_experts: int
    router: int
    norms: int
    other: int  # attention sinks
    mtp: int = 0  # DeepSeek-V3 multi-token-prediction module, excluded from ``total``
    computed: bool = True  # False when taken from a declared size (diffusion/audio)

    @property
    def total_b(self) -> float:
        return self.total / 1e9

    @property
    def active_b(self) -> float:
        return self.active / 1e9

    @property
    def non_embedding(self) -> int:
        """Everything but the embedding table and the lm_head."""
        return self.total - self.embedding - self.lm_head

    @property
    def active_excl_embedding(self) -> int:
        """Active parameters without the embedding table (a lookup reads one row per token)."""
        return self.active - self.embedding if self.lm_head else self.active


def _norm_size(spec: ModelSpec, width: int) -> int:
    return 2 * width if spec.norm_type == "layernorm" else width


def _mlp(spec: ModelSpec, width: int) -> int:
    """One MLP (or one expert) of inner width ``width``."""
    h = spec.hidden_size
    if spec.mlp_type == "gated":
        weights = 3 * h * width
        bias = 2 * width + h if spec.mlp_bias else 0
    elif spec.mlp_type == "plain":
        weights = 2 * h * width
        bias = width + h if spec.mlp_bias else 0
    else:
        raise InvalidInputError("mlp_type", f"unknown MLP type {spec.mlp_type!r}", "gated, plain")
    return weights + bias


def _attention(spec: ModelSpec) -> int:
    """Attention parameters of one layer (without the layer's pre/post norms)."""
    h, heads = spec.hidden_size, spec.num_attention_heads
    if spec.is_mla:
        qk_head = spec.qk_nope_head_dim + spec.qk_rope_head_dim
        if spec.q_lora_rank:
            q = h * spec.q_lora_rank + spec.q_lora_rank + spec.q_lora_rank * heads * qk_head
        else:
            q = h * heads * qk_head
        kv_down = h * (spec.kv_lora_rank + spec.qk_rope_head_dim) + spec.kv_lora_rank
        kv_up = spec.kv_lora_rank * heads * (spec.qk_nope_head_dim + spec.v_head_dim)
        out = heads * spec.v_head_dim * h
        return q + kv_down + kv_up + out
    d, kv = spec.head_dim, spec.num_key_value_heads
    q_width, kv_width = heads * d, kv * d
    weights = h * q_width + 2 * h * kv_width + q_width * h
    if spec.attention_bias == "none":
        bias = 0
    elif spec.attention_bias == "qkv":
        bias = q_width + 2 * kv_width
    elif spec.attention_bias == "all":
        bias = q_width + 2 * kv_width + h
    else:
        raise InvalidInputError("attention_bias", f"unknown value {spec.attention_bias!r}", "none, qkv, all")
    qk_norm = 2 * d if spec.qk_norm else 0
    return weights + bias + qk_norm


def _check(spec: ModelSpec) -> None:
    required = {
        "num_hidden_layers": spec.num_hidden_layers,
        "hidden_size": spec.hidden_size,
        "num_attention_heads": spec.num_attention_heads,
        "vocab_size": spec.vocab_size,
    }
    for name, value in required.items():
        if value <= 0:
            raise InvalidInputError(
                name, f"must be positive to count parameters of {spec.name!r}, got {value}"
            )
    if not spec.is_mla and (spec.head_dim <= 0 or spec.num_key_value_heads <= 0):
        raise InvalidInputError(
            "head_dim", f"head_dim and num_key_value_heads must be positive ({spec.name})"
        )
    if spec.is_moe and (spec.experts_per_token <= 0 or spec.moe_intermediate_size <= 0):
        raise InvalidInputError(
            "num_experts_per_tok",
            f"MoE model {spec.name!r} needs experts_per_token and moe_intermediate_size",
        )


@functools.lru_cache(maxsize=512)
def count_params(spec: ModelSpec) -> ParamCount:
    """Count the parameters of ``spec`` from its architecture (see the module docstring)."""
    if not spec.is_transformer_llm:
        if spec.total_params_b is None:
            raise InvalidInputError("total_params_b", f"{spec.kind} model {spec.name!r} has no declared size")
        total = round(spec.total_params_b * 1e9)
        return ParamCount(
            total=total,
            active=total,
            embedding=0,
            lm_head=0,
            attention=0,
            dense_mlp=0,
            routed_experts=0,
            shared_experts=0,
            router=0,
            norms=0,
            other=0,
            computed=False,
        )
    _check(spec)
    h, layers = spec.hidden_size, spec.num_hidden_layers
    embedding = spec.vocab_size * h
    lm_head = 0 if spec.tie_word_embeddings else spec.vocab_size * h
    attention_layer = _attention(spec)
    norms_layer = spec.norms_per_layer * _norm_size(spec, h)
    sinks_layer = spec.num_attention_heads if spec.attention_sinks else 0

    moe_layers = layers - spec.first_dense_layers if spec.is_moe else 0
    dense_layers = layers - moe_layers
    expert = _mlp(spec, spec.moe_intermediate_size) if spec.is_moe else 0
    router_layer = (
        (h * spec.num_experts + (spec.num_experts if spec.router_bias else 0)) if spec.is_moe else 0
    )

    attention = layers * attention_layer
    dense_mlp = dense_layers * _mlp(spec, spec.intermediate_size)
    routed = moe_layers * spec.num_experts * expert
    shared = moe_layers * spec.shared_experts * expert
    router = moe_layers * router_layer
    norms = layers * norms_layer + _norm_size(spec, h)
    other = layers * sinks_layer
    total = embedding + lm_head + attention + dense_mlp + routed + shared + router + norms + other
    inactive = moe_layers * (spec.num_experts - spec.experts_per_token) * expert
    mtp = 0
    if spec.mtp_layers:
        # per module: enorm + hnorm, eh_proj (2h -> h), one MoE decoder layer, final norm
        moe_layer = (
            attention_layer + norms_layer + router_layer + (spec.num_experts + spec.shared_experts) * expert
        )
        mtp = spec.mtp_layers * (3 * _norm_size(spec, h) + 2 * h * h + moe_layer)
    return ParamCount(
        total=total,
        active=total - inactive,
        embedding=embedding,
        lm_head=lm_head,
        attention=attention,
        dense_mlp=dense_mlp,
        routed_experts=routed,
        shared_experts=shared,
        router=router,
        norms=norms,
        other=other,
        mtp=mtp,
    )
