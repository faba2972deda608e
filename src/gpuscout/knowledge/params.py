"""Parameter counts computed from the architecture: sums over :func:`gpuscout.knowledge.layout.model_layout`.

The tensors themselves (token embedding, attention incl. GQA/MLA, dense and MoE MLPs, norms, biases,
sinks, lm_head) are walked in :mod:`gpuscout.knowledge.layout`; this module buckets and sums them.

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
from gpuscout.knowledge.layout import model_layout
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
    layout = model_layout(spec)
    part = layout.part_params
    return ParamCount(
        total=layout.total,
        active=layout.active,
        embedding=part("embedding"),
        lm_head=part("lm_head"),
        attention=part("attention"),
        dense_mlp=part("dense_mlp"),
        routed_experts=part("routed_experts"),
        shared_experts=part("shared_experts"),
        router=part("router"),
        norms=part("norms"),
        other=part("other"),
        mtp=layout.mtp_params,
    )
