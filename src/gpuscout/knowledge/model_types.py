"""The one ``ModelSpec`` type: an architecture, enough to count parameters and size the KV cache."""

from __future__ import annotations

from dataclasses import dataclass, field, fields


class _HashOnce:
    """A slot for a hash computed once (not a dataclass field: not compared, shown or serialised)."""

    __slots__ = ("_hash",)
    _hash: int


#: Published formats that quantize only an MoE model's routed experts (the rest 16-bit) -> the weight type of
#: those experts: gpt-oss's MXFP4 experts, Kimi-K2-Thinking's int4 ones. A model without experts in such a
#: format has every weight in that type's dense format (an imported config), or is refused (an ask).
EXPERTS_ONLY_BASE: dict[str, str] = {"mxfp4-moe": "mxfp4", "int4-moe": "int4"}


def local_then_full(layers: int, period: int) -> tuple[str, ...]:
    """Per-layer attention kinds where every ``period``-th layer is global ("full") and the others local
    ("sliding"): Gemma 3 (period 6), Llama 4 (period 4: its chunked layers)."""
    return tuple("full" if (i + 1) % period == 0 else "sliding" for i in range(layers))


@dataclass(frozen=True, slots=True)
class ModelSpec(_HashOnce):
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
    # per-layer attention kinds, "full", "sliding" or "linear" (Gated DeltaNet); empty = all full
    layer_types: tuple[str, ...] = ()
    # the "sliding" layers attend within fixed chunks of ``sliding_window`` tokens (Llama 4's chunked
    # attention: a token sees the tokens of its own chunk) rather than a window that moves with each token;
    # the cache a layer keeps is bounded the same way, so both are sized as a window
    chunked_attention: bool = False
    # MoE
    num_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    shared_experts: int = 0
    first_dense_layers: int = 0  # leading dense layers in MoE models (DeepSeek-V3: 3)
    # after the leading dense layers, every ``moe_layer_step``-th layer is MoE and the others dense (Llama 4
    # Maverick: 2, dense and MoE layers alternating; transformers' ``interleave_moe_layer_step``, Qwen-MoE's
    # ``decoder_sparse_step``); 1: every one
    moe_layer_step: int = 1
    # MLA (DeepSeek-V2/V3)
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    # DeepSeek Sparse Attention (DeepSeek-V3.2): a "lightning indexer" (``index_n_heads`` x
    # ``index_head_dim``, FP8, its own key cache of one ``index_head_dim`` vector per token and layer)
    # scores every cached token, and the attention then reads only the ``index_topk`` best per query.
    # 0: dense attention.
    index_topk: int = 0
    index_n_heads: int = 0
    index_head_dim: int = 0
    # Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5): the layers ``layer_types`` names "linear" keep
    # no KV cache but a fixed-size state per sequence, a recurrent matrix of ``linear_num_value_heads x
    # linear_key_head_dim x linear_value_head_dim`` and the last ``linear_conv_kernel_dim - 1`` inputs of a
    # short convolution over q, k and v (transformers' ``Qwen3NextGatedDeltaNet``). 0: no such layers.
    linear_num_key_heads: int = 0
    linear_num_value_heads: int = 0
    linear_key_head_dim: int = 0
    linear_value_head_dim: int = 0
    linear_conv_kernel_dim: int = 0
    # the dtype the checkpoint's config asks for the recurrent state (``mamba_ssm_dtype``: "fp32"); "": the
    # cache dtype
    linear_state_dtype: str = ""
    # the attention layers' q_proj also yields a per-head output gate (twice the query width: Qwen3-Next's
    # gated attention)
    attention_output_gate: bool = False
    # official totals (billions) where known, for checking the computed count
    official_total_params_b: float | None = None
    official_active_params_b: float | None = None
    torch_dtype: str = "bfloat16"
    source: str = ""
    notes: str = ""
    aliases: tuple[str, ...] = field(default_factory=tuple)
    # --- details that change the parameter count (defaults = Llama-style decoder) ---
    mlp_type: str = "gated"  # "gated": gate+up+down (SwiGLU/GeGLU); "plain": up+down (GELU MLP)
    norm_type: str = "rmsnorm"  # "rmsnorm" (weight only) or "layernorm" (weight + bias)
    norms_per_layer: int = 2  # Gemma 2/3: 4 (pre/post attention and MLP)
    attention_bias: str = "none"  # "none"; "qkv" (Qwen2/2.5); "all" = q, k, v and o (gpt-oss)
    qk_norm: bool = False  # per-head RMSNorm on q and k (Qwen3, Gemma 3)
    mlp_bias: bool = False  # biases on MLP / expert projections (gpt-oss)
    router_bias: bool = False  # MoE router has a bias (gpt-oss)
    attention_sinks: bool = False  # one learned sink logit per head and layer (gpt-oss)
    # how HF transformers holds the routed experts and what PEFT's "all-linear" LoRA then adapts
    # (knowledge.fused_experts, read in transformers 4.57.6 / 5.25.0 and PEFT 0.21.2): "" an nn.Linear per
    # expert; "skipped" fused 3-D parameters all-linear leaves alone (gpt-oss, Qwen2-MoE); "converted"
    # fused ones PEFT reaches through target_parameters (Mixtral, Qwen3-MoE, DeepSeek-V3)
    fused_experts: str = ""
    mtp_layers: int = 0  # DeepSeek-V3 multi-token-prediction modules; not part of the model's total
    # size of non-decoder rows (diffusion, audio), taken from the source, not computed
    total_params_b: float | None = None
    # other networks loaded with a diffusion model (text encoders, VAE), billions
    auxiliary_params_b: float | None = None
    params_source: str = ""  # where official_total/active_params_b come from
    imported: bool = False  # True for a spec read from a config.json (file or Hub), not curated
    # Format the published weights ship in, when it is not 16-bit: "fp8" (DeepSeek-V3/R1: e4m3 with
    # 128x128 block scales), "mxfp4-moe" (gpt-oss: MoE experts in MXFP4, the rest bf16). From the
    # config.json ``quantization_config``; "" = 16-bit (``torch_dtype``). The estimator sizes and times
    # a model in this format unless another precision is asked for.
    native_precision: str = ""
    # The window a checkpoint's config.json states without RoPE scaling where ``max_position_embeddings``
    # holds the longer one its model card documents with static YaRN (Qwen2.5-7B-Instruct: 32,768 in its
    # config.json, 131,072 with YaRN factor 4): a context past it runs only with rope scaling configured,
    # and the estimate says so. 0: the config's window is ``max_position_embeddings`` itself.
    native_context: int = 0

    def __hash__(self) -> int:
        """The dataclass hash (every field), computed once: a spec keys the estimator's caches and is
        hashed dozens of times per estimate."""
        try:
            return self._hash
        except AttributeError:
            h = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash", h)
            return h

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    def is_moe_layer(self, index: int) -> bool:
        """True when decoder layer ``index`` (0-based) has the MoE block rather than a dense MLP: after the
        ``first_dense_layers``, each ``moe_layer_step``-th (transformers: layer i is MoE when ``(i + 1) %
        step == 0``)."""
        if not self.is_moe or index < self.first_dense_layers:
            return False
        return (index - self.first_dense_layers + 1) % max(1, self.moe_layer_step) == 0

    @property
    def moe_layer_count(self) -> int:
        """Decoder layers with the MoE block (0 for a dense model)."""
        if not self.is_moe:
            return 0
        after = max(0, self.num_hidden_layers - self.first_dense_layers)
        return after // max(1, self.moe_layer_step)

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def is_transformer_llm(self) -> bool:
        """True when the decoder fields describe the whole network (parameters are computed from them)."""
        return self.kind == "llm"

    def layer_kind(self, index: int) -> str:
        """Attention kind of layer ``index``: "full", "sliding" or "linear"."""
        if not self.layer_types:
            return "full"
        return self.layer_types[index]

    @property
    def sliding_layers(self) -> int:
        """Number of layers with sliding-window attention (0 when none)."""
        return sum(1 for kind in self.layer_types if kind == "sliding")

    @property
    def linear_layers(self) -> int:
        """Number of linear-attention (Gated DeltaNet) layers (0 when none)."""
        return sum(1 for kind in self.layer_types if kind == "linear")

    @property
    def attention_layers(self) -> int:
        """Decoder layers with softmax attention (all but the linear-attention ones)."""
        return self.num_hidden_layers - self.linear_layers
