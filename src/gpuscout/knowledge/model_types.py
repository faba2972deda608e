"""The one ``ModelSpec`` type: an architecture, enough to count parameters and size the KV cache."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A model architecture. Transformer LLM fields follow Hugging Face ``config.json`` names.

    ``kind`` is "llm", "diffusion" or "audio". For diffusion/audio rows the transformer fields
    may be zero and ``total_params_b`` carries the size.
    """

    name: str  # canonical short name, e.g. "llama-3.1-8b"
    hf_id: str
    family: str
    kind: str
    num_hidden_layers: int
    hidden_size: int
    intermediate_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int  # explicit head_dim or hidden_size // num_attention_heads
    vocab_size: int
    max_position_embeddings: int
    tie_word_embeddings: bool
    # sliding window / mixed local-global attention
    sliding_window: int | None = None
    # per-layer attention kinds, "full" or "sliding"; empty = all full
    layer_types: tuple[str, ...] = ()
    # MoE
    num_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    shared_experts: int = 0
    first_dense_layers: int = 0  # leading dense layers in MoE models (DeepSeek-V3: 3)
    # MLA (DeepSeek-V2/V3)
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    # official totals (billions) where known, for checking the computed count
    official_total_params_b: float | None = None
    official_active_params_b: float | None = None
    torch_dtype: str = "bfloat16"
    source: str = ""
    notes: str = ""
    aliases: tuple[str, ...] = field(default_factory=tuple)

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0
