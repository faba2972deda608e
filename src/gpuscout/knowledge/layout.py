"""The architecture walk: every weight tensor of a decoder-only transformer, with its shape and count.

This is the one place that turns a :class:`ModelSpec` into tensors. Parameter counts
(:func:`gpuscout.knowledge.params.count_params`) are sums over it; training memory and training FLOPs
(:mod:`gpuscout.estimate.training_memory`, :mod:`gpuscout.estimate.training`) read the matrix shapes
from it (LoRA adapters see the real GQA shapes of ``k_proj``/``v_proj`` and every expert of a MoE).

Walked: token embedding; attention (GQA/MQA with explicit ``head_dim``: q, k, v, o; MLA: the low-rank
q/kv projections and their norms); dense MLP (gated: gate/up/down; plain: up/down); MoE (router,
routed experts, shared experts as one fused MLP of ``shared_experts x moe_intermediate_size``, leading
dense layers); norms (RMSNorm = weight; LayerNorm = weight + bias); biases where the family has them;
q/k norms; attention sinks; the final norm; the lm_head when it is not tied. DeepSeek-V3's
multi-token-prediction module is walked separately (:attr:`ModelLayout.mtp`): it is not part of the
model's published total.

Each :class:`TensorGroup` is all tensors of one kind in the model (the 32 ``k_proj`` of Llama-3-8B);
``active_count`` is how many of them one token passes through (MoE: the selected experts only).
``part`` is the bucket :class:`~gpuscout.knowledge.params.ParamCount` reports it in.

Not represented: learned absolute position embeddings (GPT-2/GPT-3/MPT-style ``max_seq_len x hidden``
lookup tables: a lookup, no FLOPs, 0.1-2 % of the parameters), ALiBi (no parameters), and
Mamba/SSM blocks. Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5) is walked for the layers
``layer_types`` names "linear"; the MoE block's scalar shared-expert gate (Qwen2-MoE, Qwen3-Next: one
``hidden x 1`` matrix a layer, 0.1M in Qwen3-Next) is not.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.model_types import ModelSpec

#: The buckets of a parameter count, in :class:`~gpuscout.knowledge.params.ParamCount` order.
PARTS = (
    "embedding",
    "lm_head",
    "attention",
    "dense_mlp",
    "routed_experts",
    "shared_experts",
    "router",
    "norms",
    "other",
)


@dataclass(frozen=True, slots=True)
class TensorGroup:
    """All tensors of one kind in the model: ``count`` tensors of ``in_features x out_features``.

    Vectors (biases, norm weights, attention sinks) have ``in_features == 1``. ``matrix`` is True for
    the weights a matmul multiplies activations with (what LoRA adapts and what costs FLOPs).
    """

    name: str  # "q_proj", "expert.down_proj", "router", "q_proj.bias", "layer_norms"...
    part: str  # one of PARTS
    in_features: int
    out_features: int
    count: int  # how many in the whole model
    active_count: int  # how many a token passes through (MoE: routed experts selected)
    matrix: bool
    # the weight of an nn.Linear module in HF transformers (what PEFT's "all-linear" finds and adapts); False
    # for a bare parameter the forward multiplies through a functional (fused experts: transformers 5's
    # MixtralExperts, Qwen3MoeExperts, DeepseekV3Experts, GptOssExperts; see knowledge.fused_experts)
    module: bool = True

    @property
    def size(self) -> int:
        """Parameters of one tensor."""
        return self.in_features * self.out_features

    @property
    def params(self) -> int:
        return self.size * self.count

    @property
    def active_params(self) -> int:
        return self.size * self.active_count

    @property
    def role(self) -> str:
        """What training code adapts: "attn", "mlp" (dense MLPs and experts) or "router"."""
        if self.part == "attention":
            return "attn"
        if self.part in ("dense_mlp", "routed_experts", "shared_experts"):
            return "mlp"
        return self.part


@dataclass(frozen=True, slots=True)
class ModelLayout:
    """Every tensor of a model, and the figures derived from them."""

    groups: tuple[TensorGroup, ...]
    mtp: tuple[TensorGroup, ...] = ()  # DeepSeek-V3 multi-token prediction, outside the total
    # how transformers holds the routed experts and what PEFT's "all-linear" adapts of them
    # (:mod:`gpuscout.knowledge.fused_experts`: "", "skipped" or "converted")
    fused_experts: str = ""
    # derived once (a layout is read dozens of times per training estimate: LoRA targets, FLOPs, memory)
    # the matmul weights of the body (attention, MLPs, experts, router; not embedding/lm_head)
    linear: tuple[TensorGroup, ...] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        body = tuple(g for g in self.groups if g.matrix and g.part not in ("embedding", "lm_head"))
        object.__setattr__(self, "linear", body)
        object.__setattr__(self, "_hash", hash((self.groups, self.mtp, self.fused_experts)))

    def __hash__(self) -> int:
        """The dataclass hash (every compared field), computed once: a layout keys the estimator's
        per-model caches (:func:`gpuscout.estimate.training_memory.lora_groups`)."""
        return self._hash

    def part_params(self, part: str) -> int:
        return sum(g.params for g in self.groups if g.part == part)

    @property
    def linear_params(self) -> int:
        return sum(g.params for g in self.linear)

    @property
    def linear_active_params(self) -> int:
        return sum(g.active_params for g in self.linear)

    @property
    def embedding(self) -> int:
        return self.part_params("embedding")

    @property
    def lm_head(self) -> int:
        """Untied output head (0 when tied to the embedding)."""
        return self.part_params("lm_head")

    @property
    def norms(self) -> int:
        return self.part_params("norms")

    @property
    def other(self) -> int:
        """Biases, q/k norms, MLA norms, attention sinks: small vectors, kept wide, never adapted."""
        return sum(g.params for g in self.groups if not g.matrix and g.part != "norms")

    @property
    def other_active(self) -> int:
        """The part of :attr:`other` one token uses (MoE: the biases of the selected experts)."""
        return sum(g.active_params for g in self.groups if not g.matrix and g.part != "norms")

    @property
    def total(self) -> int:
        return sum(g.params for g in self.groups)

    @property
    def active(self) -> int:
        return sum(g.active_params for g in self.groups)

    @property
    def largest_matrix(self) -> int:
        return max((g.size for g in self.linear), default=0)

    @property
    def mtp_params(self) -> int:
        return sum(g.params for g in self.mtp)


def norm_size(spec: ModelSpec, width: int) -> int:
    """Parameters of one norm over ``width`` features (LayerNorm has a bias, RMSNorm does not)."""
    return 2 * width if spec.norm_type == "layernorm" else width


class _Walk:
    """Collects tensor groups; empty groups (a zero dimension or count) are dropped."""

    def __init__(self) -> None:
        self.groups: list[TensorGroup] = []

    def matrix(
        self,
        name: str,
        part: str,
        fan_in: int,
        fan_out: int,
        count: int,
        active: int | None = None,
        *,
        module: bool = True,
    ) -> None:
        act = count if active is None else active
        self._add(TensorGroup(name, part, fan_in, fan_out, count, act, True, module))

    def vector(self, name: str, part: str, length: int, count: int, active: int | None = None) -> None:
        self._add(TensorGroup(name, part, 1, length, count, count if active is None else active, False))

    def _add(self, group: TensorGroup) -> None:
        if group.count > 0 and group.in_features > 0 and group.out_features > 0:
            self.groups.append(group)


def _sparse_indexer(walk: _Walk, spec: ModelSpec, layers: int) -> None:
    """DeepSeek Sparse Attention's lightning indexer on every layer (DeepSeek-V3.2, GLM-5): ``wq_b`` from the
    query latent to ``index_n_heads x index_head_dim``, ``wk`` from the hidden state to one key of
    ``index_head_dim``, a LayerNorm on that key (weight and bias) and ``weights_proj`` to a weight per head
    (read in transformers 5.25.0: ``DeepseekV32Indexer``, ``GlmMoeDsaIndexer``). 13.96M a layer in V3.2,
    9.37M in GLM-5."""
    if not (spec.index_topk and spec.index_head_dim and spec.index_n_heads):
        return
    h, d, n = spec.hidden_size, spec.index_head_dim, spec.index_n_heads
    part = "attention"
    walk.matrix("indexer.wq_b", part, spec.q_lora_rank or h, n * d, layers)
    walk.matrix("indexer.wk", part, h, d, layers)
    walk.vector("indexer.k_norm", part, 2 * d, layers)
    walk.matrix("indexer.weights_proj", part, h, n, layers)


def _attention(walk: _Walk, spec: ModelSpec, layers: int) -> None:
    """One attention block per layer (without the layer's pre/post norms)."""
    h, heads = spec.hidden_size, spec.num_attention_heads
    part = "attention"
    if spec.is_mla:
        qk_head = spec.qk_nope_head_dim + spec.qk_rope_head_dim
        if spec.q_lora_rank:
            walk.matrix("q_a_proj", part, h, spec.q_lora_rank, layers)
            walk.vector("q_a_layernorm", part, spec.q_lora_rank, layers)
            walk.matrix("q_b_proj", part, spec.q_lora_rank, heads * qk_head, layers)
        else:
            walk.matrix("q_proj", part, h, heads * qk_head, layers)
        walk.matrix("kv_a_proj", part, h, spec.kv_lora_rank + spec.qk_rope_head_dim, layers)
        walk.vector("kv_a_layernorm", part, spec.kv_lora_rank, layers)
        walk.matrix(
            "kv_b_proj", part, spec.kv_lora_rank, heads * (spec.qk_nope_head_dim + spec.v_head_dim), layers
        )
        walk.matrix("o_proj", part, heads * spec.v_head_dim, h, layers)
        _sparse_indexer(walk, spec, layers)
        return
    d, kv = spec.head_dim, spec.num_key_value_heads
    q_width, kv_width = heads * d, kv * d
    # a gated attention's q_proj yields the query and a per-head output gate (Qwen3-Next: twice the width)
    walk.matrix("q_proj", part, h, q_width * (2 if spec.attention_output_gate else 1), layers)
    walk.matrix("k_proj", part, h, kv_width, layers)
    walk.matrix("v_proj", part, h, kv_width, layers)
    walk.matrix("o_proj", part, q_width, h, layers)
    if spec.attention_bias not in ("none", "qkv", "all"):
        raise InvalidInputError("attention_bias", f"unknown value {spec.attention_bias!r}", "none, qkv, all")
    if spec.attention_bias in ("qkv", "all"):
        walk.vector("q_proj.bias", part, q_width, layers)
        walk.vector("k_proj.bias", part, kv_width, layers)
        walk.vector("v_proj.bias", part, kv_width, layers)
    if spec.attention_bias == "all":
        walk.vector("o_proj.bias", part, h, layers)
    if spec.qk_norm:
        walk.vector("q_norm", part, d, layers)
        walk.vector("k_norm", part, d, layers)


def _linear_attention(walk: _Walk, spec: ModelSpec, layers: int) -> None:
    """One Gated DeltaNet block per linear-attention layer (read in transformers 5.25.0's
    ``Qwen3NextGatedDeltaNet`` and ``Qwen3_5MoeGatedDeltaNet``): projections of the hidden state to q and k
    (``linear_num_key_heads x linear_key_head_dim`` each), v and the output gate z (``linear_num_value_heads
    x linear_value_head_dim`` each) and two scalars per value head (beta and the decay step; Qwen3-Next
    fuses them as ``in_proj_qkvz`` / ``in_proj_ba``, Qwen3.5 keeps four matrices: the same sizes); a
    depthwise causal convolution over q, k and v (``linear_conv_kernel_dim`` taps, no bias); ``dt_bias``
    and ``A_log`` per value head; a gated RMSNorm over one value head; ``out_proj`` back to the hidden
    size. Qwen3-Next-80B-A3B: 34.1M a layer."""
    if layers <= 0:
        return
    h = spec.hidden_size
    key_dim = spec.linear_num_key_heads * spec.linear_key_head_dim
    value_dim = spec.linear_num_value_heads * spec.linear_value_head_dim
    part = "attention"
    walk.matrix("linear_attn.in_proj_qkvz", part, h, 2 * key_dim + 2 * value_dim, layers)
    walk.matrix("linear_attn.in_proj_ba", part, h, 2 * spec.linear_num_value_heads, layers)
    conv_dim = 2 * key_dim + value_dim  # the convolution runs over q, k and v
    walk.vector("linear_attn.conv1d", "other", conv_dim * spec.linear_conv_kernel_dim, layers)
    walk.vector("linear_attn.dt_bias_a_log", "other", 2 * spec.linear_num_value_heads, layers)
    walk.vector("linear_attn.norm", part, spec.linear_value_head_dim, layers)
    walk.matrix("linear_attn.out_proj", part, value_dim, h, layers)


def _mlp(
    walk: _Walk,
    spec: ModelSpec,
    prefix: str,
    part: str,
    width: int,
    count: int,
    active: int | None = None,
    *,
    module: bool = True,
) -> None:
    """``count`` MLPs (or experts) of inner width ``width``; gated = gate + up + down (``module``: see
    :attr:`TensorGroup.module`)."""
    h = spec.hidden_size
    if spec.mlp_type not in ("gated", "plain"):
        raise InvalidInputError("mlp_type", f"unknown MLP type {spec.mlp_type!r}", "gated, plain")
    if spec.mlp_type == "gated":
        walk.matrix(f"{prefix}gate_proj", part, h, width, count, active, module=module)
    walk.matrix(f"{prefix}up_proj", part, h, width, count, active, module=module)
    walk.matrix(f"{prefix}down_proj", part, width, h, count, active, module=module)
    if spec.mlp_bias:
        if spec.mlp_type == "gated":
            walk.vector(f"{prefix}gate_proj.bias", part, width, count, active)
        walk.vector(f"{prefix}up_proj.bias", part, width, count, active)
        walk.vector(f"{prefix}down_proj.bias", part, h, count, active)


def _decoder_layers(walk: _Walk, spec: ModelSpec, layers: int, dense_layers: int, linear: int = 0) -> None:
    """``layers`` decoder layers, ``dense_layers`` of which have a dense MLP (MoE models: the leading ones
    and, where MoE is on every n-th layer only, those between; only the counts matter here) and ``linear``
    of which mix tokens with linear attention rather than softmax attention."""
    h = spec.hidden_size
    _attention(walk, spec, layers - linear)
    _linear_attention(walk, spec, linear)
    walk.vector("layer_norms", "norms", norm_size(spec, h), layers * spec.norms_per_layer)
    if spec.attention_sinks:
        walk.vector("sinks", "other", spec.num_attention_heads, layers)
    if not spec.is_moe:
        _mlp(walk, spec, "", "dense_mlp", spec.intermediate_size, layers)
        return
    moe_layers = layers - dense_layers
    _mlp(walk, spec, "", "dense_mlp", spec.intermediate_size, dense_layers)
    width, n_exp = spec.moe_intermediate_size, spec.num_experts
    _mlp(
        walk,
        spec,
        "expert.",
        "routed_experts",
        width,
        moe_layers * n_exp,
        moe_layers * spec.experts_per_token,
        module=not spec.fused_experts,
    )
    if spec.shared_experts:
        _mlp(walk, spec, "shared.", "shared_experts", width * spec.shared_experts, moe_layers)
    walk.matrix("router", "router", h, n_exp, moe_layers, module=not spec.fused_experts)
    if spec.router_bias:
        walk.vector("router.bias", "router", n_exp, moe_layers)


def _check(spec: ModelSpec) -> None:
    if not spec.is_transformer_llm:
        raise InvalidInputError(
            "model",
            f"{spec.name} is a {spec.kind} model without a decoder-LLM shape",
            accepted="an LLM (kind 'llm')",
        )
    required = {
        "num_hidden_layers": spec.num_hidden_layers,
        "hidden_size": spec.hidden_size,
        "num_attention_heads": spec.num_attention_heads,
        "vocab_size": spec.vocab_size,
    }
    for name, value in required.items():
        if value <= 0:
            raise InvalidInputError(
                name, f"must be positive to walk the architecture of {spec.name!r}, got {value}"
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
def model_layout(spec: ModelSpec) -> ModelLayout:
    """Every tensor of the decoder-only transformer ``spec`` (see the module docstring).

    Raises :class:`InvalidInputError` naming the field for a spec that is not a decoder LLM or lacks a
    dimension the walk needs.
    """
    _check(spec)
    h, layers = spec.hidden_size, spec.num_hidden_layers
    walk = _Walk()
    walk.matrix("embedding", "embedding", spec.vocab_size, h, 1)
    dense_layers = layers - spec.moe_layer_count if spec.is_moe else layers
    _decoder_layers(walk, spec, layers, dense_layers, spec.linear_layers)
    walk.vector("final_norm", "norms", norm_size(spec, h), 1)
    if not spec.tie_word_embeddings:
        walk.matrix("lm_head", "lm_head", h, spec.vocab_size, 1)
    mtp = _Walk()
    if spec.mtp_layers:
        # per module: enorm + hnorm + final norm, eh_proj (2h -> h), one MoE decoder layer
        mtp.vector("mtp.norms", "norms", norm_size(spec, h), 3 * spec.mtp_layers)
        mtp.matrix("mtp.eh_proj", "other", 2 * h, h, spec.mtp_layers)
        _decoder_layers(mtp, spec, spec.mtp_layers, 0)
    return ModelLayout(tuple(walk.groups), tuple(mtp.groups), spec.fused_experts if spec.is_moe else "")
