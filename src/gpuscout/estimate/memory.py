"""Per-GPU inference memory: weights, KV cache, activation/workspace peak, runtime overhead, fit verdict.

Units: bytes internally, GB (1e9 bytes) in :class:`MemoryBreakdown`. A GPU sold as "24 GB" has
24 GiB (= 25.8e9 bytes); ``capacity_gb`` states the real byte count, less the ~0.4 % the driver
keeps back (an "80 GB" H100 shows 81,559 MiB of 81,920 MiB in nvidia-smi).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.engines import EngineProfile
from gpuscout.estimate.kv_cache import (
    engine_state_pages,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    kv_shape,
    layer_cached_tokens,
    sequence_cache_bytes,
)
from gpuscout.estimate.precision import KvDtype, WeightFormat, weight_bytes
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.layout import norm_size
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.params import count_params

GIB = float(1 << 30)


def gib(gb: float) -> float:
    """GB (1e9 bytes, the estimator's unit) as GiB (2**30 bytes, the unit GPU memory is sold in: an
    "80 GB" H100 holds 80 GiB)."""
    return gb * 1e9 / GIB


DRIVER_RESERVED_FRACTION = 0.0044
# vLLM's fused MoE (VLLM_FUSED_MOE_CHUNK_SIZE, 64 Ki tokens by default; SGLang's copy of the kernel
# likewise) runs a longer pass in slices of this many tokens, so its scratch stops growing there
FUSED_MOE_CHUNK_TOKENS = 65536


@dataclass(frozen=True, slots=True)
class ModelConsts:
    """Parameter split the physics needs (counts, not bytes)."""

    embedding: float  # token embedding table
    lm_head: float  # untied output projection (0 when tied)
    dense_body: float  # always-active non-embedding weights: attention, norms, dense MLPs, shared experts
    expert_params: float  # one routed expert of one MoE layer
    moe_layers: int
    num_experts: int
    experts_per_token: int
    attn_per_layer: float
    layers: int = 0
    # the parts of ``dense_body`` that are not in every layer alike (a layer split sizes each GPU's layers)
    dense_mlp: float = 0.0  # the MLPs of the dense layers (every layer of a dense model; DeepSeek's first 3)
    moe_fixed: float = 0.0  # the MoE layers' shared experts and routers, all of them
    final_norm: float = 0.0  # the norm after the last layer (held with the output head)
    # which layers, in order, have the MoE block (``ModelSpec.is_moe_layer``; all False for a dense model)
    moe_pattern: tuple[bool, ...] = ()
    weight_gemms: int = 0  # weight GEMM kernels of one forward pass (:func:`count_weight_gemms`)

    @property
    def dense_layers(self) -> int:
        """Layers with a dense MLP: the leading ones of an MoE model (and those between its MoE layers where
        MoE is on every n-th layer only), every layer of a dense one."""
        return self.layers - self.moe_layers

    @property
    def body(self) -> float:
        """All non-embedding, non-lm_head weights."""
        return self.dense_body + self.expert_params * self.num_experts * self.moe_layers

    @property
    def total(self) -> float:
        return self.body + self.embedding + self.lm_head

    @property
    def active_body(self) -> float:
        """Weights one token multiplies through (routed experts: ``experts_per_token`` of them)."""
        return self.dense_body + self.expert_params * self.experts_per_token * self.moe_layers

    def expected_experts_read(self, tokens: float) -> float:
        """Expected distinct experts per MoE layer touched by ``tokens`` tokens (uniform routing)."""
        if self.num_experts == 0:
            return 0.0
        n, k = self.num_experts, self.experts_per_token
        miss: float = (1.0 - k / n) ** max(tokens, 1.0)
        return n * (1.0 - miss)

    def expert_gemm_rows(self, tokens: float, tile_rows: float = 1.0) -> float:
        """Rows the routed-expert GEMMs of one MoE layer multiply for ``tokens`` tokens: ``tokens * k``
        token-expert pairs, but each touched expert's GEMM computes whole tiles of ``tile_rows`` rows, so
        at least ``touched * tile_rows`` (decode: a few tokens per expert padded to a tile; prefill:
        hundreds per expert, no padding to speak of)."""
        if self.num_experts == 0:
            return 0.0
        pairs = max(tokens, 0.0) * self.experts_per_token
        return max(pairs, self.expected_experts_read(tokens) * tile_rows) if pairs else 0.0

    def body_read(self, tokens: float) -> float:
        """Body weights a step over ``tokens`` tokens (one per sequence in decode) has to read."""
        return self.dense_body + self.expert_params * self.expected_experts_read(tokens) * self.moe_layers


def count_weight_gemms(spec: ModelSpec, moe_layers: int) -> int:
    """Weight GEMM kernels one forward pass of a serving engine runs, as vLLM, SGLang and TensorRT-LLM
    fuse them: per softmax-attention layer the fused QKV and the output projection (MLA: the fused
    q_a / kv_a down-projection, q_b, the two absorbed kv_b batched matmuls and the output: 5); per
    linear-attention layer (Gated DeltaNet) its two input projections and the output; per dense MLP the
    fused gate/up and the down projection; per MoE layer the router and the shared experts' two (the
    routed experts are the fused-MoE kernel, timed by ``moe_layer_overhead_us``); and the output head."""
    attention = 5 if spec.is_mla else 2
    gemms = spec.attention_layers * attention + spec.linear_layers * 3
    gemms += (spec.num_hidden_layers - moe_layers) * 2 + moe_layers * (1 + (2 if spec.shared_experts else 0))
    return gemms + 1


@cache
def model_consts(spec: ModelSpec) -> ModelConsts:
    """Split ``spec``'s parameters (from ``knowledge.params.count_params``) for the physics."""
    pc = count_params(spec)
    moe_layers = spec.moe_layer_count
    expert = pc.routed_experts / (spec.num_experts * moe_layers) if moe_layers and spec.num_experts else 0.0
    dense_body = float(pc.total - pc.embedding - pc.lm_head - pc.routed_experts)
    return ModelConsts(
        embedding=float(pc.embedding),
        lm_head=float(pc.lm_head),
        dense_body=dense_body,
        expert_params=expert,
        moe_layers=moe_layers,
        num_experts=spec.num_experts if moe_layers else 0,
        experts_per_token=spec.experts_per_token if moe_layers else 0,
        attn_per_layer=pc.attention / max(1, spec.num_hidden_layers),
        layers=spec.num_hidden_layers,
        dense_mlp=float(pc.dense_mlp),
        moe_fixed=float(pc.shared_experts + pc.router),
        final_norm=float(norm_size(spec, spec.hidden_size)) if pc.computed else 0.0,
        moe_pattern=tuple(spec.is_moe_layer(i) for i in range(spec.num_hidden_layers)),
        weight_gemms=count_weight_gemms(spec, moe_layers),
    )


def dense_body_bytes(fmt: WeightFormat, c: ModelConsts) -> float:
    """Bytes of the always-active body (attention, norms, dense and shared MLPs) in ``fmt``.

    Formats that leave the attention projections (``attn_bits``) or whole first/last layers
    (``wide_layers``) unconverted store those weights at their own width."""
    bits = fmt.body_bits(False)
    total = c.dense_body * bits
    attention = c.attn_per_layer * c.layers
    if fmt.attn_bits is not None:
        total += attention * (fmt.attn_bits - bits)
    if fmt.wide_layers and c.layers:
        rest_per_layer = max(0.0, c.dense_body - attention) / c.layers
        wide_bits = fmt.attn_bits if fmt.attn_bits is not None else 16.0
        total += min(fmt.wide_layers, c.layers) * rest_per_layer * (wide_bits - bits)
    return total / 8.0


def attention_bytes(fmt: WeightFormat, c: ModelConsts) -> float:
    """Bytes of the attention projections of all layers in ``fmt`` (at their own width where the format
    leaves them unconverted): what data-parallel attention keeps whole on every GPU."""
    bits = fmt.attn_bits if fmt.attn_bits is not None else fmt.body_bits(False)
    return c.attn_per_layer * c.layers * bits / 8.0


def body_bytes(fmt: WeightFormat, c: ModelConsts, experts_per_layer: float | None = None) -> float:
    """Bytes of the body weights in ``fmt``: the always-active part plus the routed experts (all of them,
    or ``experts_per_layer`` per MoE layer: what a step that touches that many experts reads).

    Experts-only formats (``mxfp4-moe``) keep the always-active part at ``dense_bits``."""
    n = c.num_experts if experts_per_layer is None else experts_per_layer
    experts = c.expert_params * n * c.moe_layers
    return dense_body_bytes(fmt, c) + experts * fmt.body_bits(True) / 8.0


def layer_bytes(fmt: WeightFormat, c: ModelConsts) -> tuple[float, ...]:
    """Bytes of each decoder layer in ``fmt``, in order: its attention, norms and sinks, then a dense MLP
    (where ``moe_pattern`` says so) or the MoE block (every routed expert, shared experts, router).

    With ``c.final_norm`` at the body rate they add up to :func:`body_bytes` (a ``wide_layers`` format's
    first and last layers carry the extra width :func:`dense_body_bytes` gives them)."""
    if c.layers <= 0:
        return ()
    bits = fmt.body_bits(False)
    attn_bits = fmt.attn_bits if fmt.attn_bits is not None else bits
    common_params = (c.dense_body - c.dense_mlp - c.moe_fixed - c.final_norm) / c.layers
    common = c.attn_per_layer * attn_bits + (common_params - c.attn_per_layer) * bits
    dense = common + c.dense_mlp / max(1, c.dense_layers) * bits
    moe = common + c.moe_fixed / max(1, c.moe_layers) * bits
    moe += c.expert_params * c.num_experts * fmt.body_bits(True)
    sizes = [moe if is_moe else dense for is_moe in c.moe_pattern]
    if fmt.wide_layers:
        # the first and last layers left wide, each by the average non-attention share, as dense_body_bytes
        wide_bits = fmt.attn_bits if fmt.attn_bits is not None else 16.0
        extra = max(0.0, c.dense_body - c.attn_per_layer * c.layers) / c.layers * (wide_bits - bits)
        first = (fmt.wide_layers + 1) // 2
        for i in {*range(min(first, c.layers)), *range(max(0, c.layers - fmt.wide_layers // 2), c.layers)}:
            sizes[i] += extra
    return tuple(size / 8.0 for size in sizes)


def split_layers(layers: int, gpus: int, engine: EngineProfile, model: str = "the model") -> tuple[int, ...]:
    """How many consecutive decoder layers each of ``gpus`` equal GPUs holds under a whole-layer split,
    first GPU first; the last also holds the output head. More GPUs than ``layers`` (``model``'s) is
    refused (:func:`refuse_wide_layer_split`): some would hold no layer.

    By the engine's ``layer_split_rule``. llama.cpp's (``llama_model::load_tensors``): the split points are
    the GPUs' shares of free memory (even on equal GPUs), and layer ``il`` of ``n_layer`` goes to the GPU
    whose share holds ``il / (n_layer + 1)``, the output layer counting as layer ``n_layer``: DeepSeek-R1's
    61 layers + output on 4 GPUs are 16 / 15 / 16 / 14 + output. The pipeline rule (vLLM's and SGLang's
    pipeline parallel, ``get_pp_indices``): ``layers // gpus`` each, the rest one more each on the GPUs
    before the last, from the second last back (61 on 4: 15 / 15 / 16 / 15). accelerate's
    ``device_map="auto"`` balances by bytes, filling each GPU up to the average and a layer's margin:
    costed as the pipeline split."""
    gpus = max(1, gpus)
    if gpus > 1:
        refuse_wide_layer_split(model, layers, gpus)
    if engine.layer_split_rule == "llama.cpp":
        counts = [0] * gpus
        for il in range(layers):
            counts[il * gpus // (layers + 1)] += 1
        return tuple(counts)
    base, rest = divmod(layers, gpus)
    counts = [base] * gpus
    for i in range(2, rest + 2):
        counts[-i] += 1
    return tuple(counts)


def refuse_wide_layer_split(model: str, layers: int, gpus: int) -> None:
    """Refuse a whole-layer split of ``model``'s ``layers`` decoder layers over more ``gpus`` than it has
    layers: each GPU holds whole layers, so some would hold none (the pipeline rule gives 3 layers on 8
    GPUs as 0 / 0 / 0 / 0 / 1 / 1 / 1 / 0, llama.cpp's as 1 / 0 / 1 / 0 / 1 / 0 / 0 / 0 + the output),
    GPUs that add hand-offs and hold nothing but the embedding or the head, which a plan must not take
    for the fullest."""
    if gpus > max(1, layers):
        raise ConfigurationRejected(
            "gpus",
            f"a layer split gives each GPU whole decoder layers: {model} has {layers}, so {gpus} GPUs "
            f"would leave {gpus - layers} of them with none",
            f"at most {layers} GPUs for a layer split of {model}; tensor parallel or replicas for more",
        )


def layer_split_weight_bytes(
    spec: ModelSpec, fmt: WeightFormat, engine: EngineProfile, gpus: int
) -> tuple[float, ...]:
    """Weight bytes each GPU of a whole-layer split over ``gpus`` holds (:func:`split_layers`), first GPU
    first: its layers' :func:`layer_bytes`, the token embedding on the first (none where the engine keeps
    it in host memory: llama.cpp), the output head and final norm on the last (a tied head is the
    embedding table: llama.cpp duplicates it there, vLLM's last pipeline rank builds its own copy)."""
    c = model_consts(spec)
    sizes = layer_bytes(fmt, c)
    embedding = 0.0 if engine.embeddings_on_host else weight_bytes(fmt, 0.0, c.embedding, 0.0)
    head = weight_bytes(fmt, 0.0, 0.0, c.lm_head) if c.lm_head else weight_bytes(fmt, 0.0, c.embedding, 0.0)
    head += c.final_norm * fmt.body_bits(False) / 8.0
    out: list[float] = []
    start = 0
    for count in split_layers(c.layers, gpus, engine, spec.name):
        out.append(sum(sizes[start : start + count]))
        start += count
    out[0] += embedding
    out[-1] += head
    return tuple(out)


def layer_split_kv_shares(
    spec: ModelSpec, tokens: int, gpus: int, engine: EngineProfile, block: int
) -> tuple[float, ...]:
    """Each GPU's share of one sequence's cache under a whole-layer split (:func:`split_layers`): its layers'
    cached tokens over all layers' (:func:`kv_cache.layer_cached_tokens`: a sliding-window layer keeps at
    most the window, each layer rounded up to whole ``block``-token blocks, as
    :func:`kv_cache.kv_bytes_per_sequence` sizes them)."""
    held = layer_cached_tokens(spec, max(tokens, 1), block, layer_windows=engine.keeps_layer_windows())
    whole = float(sum(held)) or 1.0
    out: list[float] = []
    start = 0
    for count in split_layers(len(held), gpus, engine, spec.name):
        out.append(sum(held[start : start + count]) / whole)
        start += count
    return tuple(out)


def weights_bytes_total(spec: ModelSpec, fmt: WeightFormat) -> float:
    """Bytes of all weights in ``fmt`` (whole model, one copy)."""
    c = model_consts(spec)
    return body_bytes(fmt, c) + weight_bytes(fmt, 0.0, c.embedding, c.lm_head)


def capacity_bytes(acc: Accelerator) -> float:
    """Usable device memory in bytes: what the device reports where the table records it (GDDR
    datacenter cards with ECC on: an L4 shows 23,034 MiB), else nominal GiB less what the driver
    reserves."""
    if acc.usable_memory_gib is not None:
        return acc.usable_memory_gib * GIB
    return acc.memory_gb * GIB * (1.0 - DRIVER_RESERVED_FRACTION)


def card_memory_label(acc: Accelerator) -> str:
    """The card's memory as a memory budget states it, once and in GiB (the vendor's "24 GB" holds 24 GiB:
    see the module note): the card's figure ("the card's 141 GiB" for an H200; :func:`capacity_bytes`
    keeps back the driver's 0.4 % of it), after what the device reports where the table records it
    ("22.5 GiB usable of the card's 24 GiB, with ECC" for an L4)."""
    usable = acc.usable_memory_gib
    if usable is None:
        return f"the card's {acc.memory_gb:g} GiB"
    ecc = ", with ECC" if "ECC" in acc.usable_memory_source else ""
    return f"{usable:.1f} GiB usable of the card's {acc.memory_gb:g} GiB{ecc}"


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    """Per-GPU placement of an inference workload (bytes)."""

    weights: float
    kv_cache: float
    activations: float
    overhead: float
    usable: float
    capacity: float
    kv_per_sequence: float
    kv_bytes_per_token: float
    per_sequence_extra: float = 0.0  # other memory each added sequence costs (its fp32 logits row)
    model_weights: float = 0.0  # the whole model's weights, one copy (whatever each GPU holds)
    # the engine keeps a mixed model's sliding layers at their window (EngineProfile.keeps_layer_windows)
    kv_layer_windows: bool = True
    # a static batch prefills its prompts together, so its activations grow with the batch: the plan of
    # ``n`` sequences, for :func:`max_batch` (None: the activations do not depend on the batch)
    at_batch: Callable[[int], MemoryPlan] | None = field(default=None, compare=False, repr=False)
    # a whole-layer split: the plans of the other GPUs, each with its own layers' weights and cache (this
    # plan is the fullest one's at this batch; another may run out first at a larger batch: max_batch)
    other_gpus: tuple[MemoryPlan, ...] = field(default=(), compare=False, repr=False)

    @property
    def total(self) -> float:
        return self.weights + self.kv_cache + self.activations + self.overhead

    @property
    def fits(self) -> bool:
        return self.total <= self.usable

    @property
    def gpus_weights(self) -> float:
        """A whole-layer split: the weights all its GPUs hold together (0 otherwise: ``weights`` on each)."""
        return sum(p.weights for p in (self, *self.other_gpus)) if self.other_gpus else 0.0

    @property
    def gpus_kv_cache(self) -> float:
        """A whole-layer split: the cache all its GPUs hold together (0 otherwise: ``kv_cache`` on each)."""
        return sum(p.kv_cache for p in (self, *self.other_gpus)) if self.other_gpus else 0.0

    @property
    def gpus_short(self) -> float:
        """A whole-layer split: what its GPUs lack together, each GPU's need past its usable memory summed
        (the fullest's alone where only it overflows; 0 otherwise: ``total - usable`` on each, or none)."""
        return sum(max(0.0, p.total - p.usable) for p in (self, *self.other_gpus)) if self.other_gpus else 0.0

    def binding_constraint(self) -> str:
        """ "fits", or the component that tips it over: "weights" if they alone do not fit, else the rest."""
        if self.fits:
            return "fits"
        if self.weights + self.overhead > self.usable:
            return "weights"
        if self.weights + self.overhead + self.activations > self.usable:
            return "activations"
        return "kv_cache"

    def breakdown(self) -> MemoryBreakdown:
        return MemoryBreakdown(
            weights_gb=self.weights / 1e9,
            kv_cache_gb=self.kv_cache / 1e9,
            activations_gb=self.activations / 1e9,
            overhead_gb=self.overhead / 1e9,
            usable_gb=self.usable / 1e9,
            capacity_gb=self.capacity / 1e9,
            kv_bytes_per_token=self.kv_bytes_per_token,
            model_weights_gb=self.model_weights / 1e9,
            gpus_weights_gb=self.gpus_weights / 1e9,
            gpus_kv_cache_gb=self.gpus_kv_cache / 1e9,
            gpus_short_gb=self.gpus_short / 1e9,
            kv_layer_windows=self.kv_layer_windows,
        )


def activation_bytes(
    spec: ModelSpec,
    fmt: WeightFormat,
    engine: EngineProfile,
    chunk_tokens: int,
    context: int,
    *,
    tp: int = 1,
    sequences: int = 1,
    output: bool = True,
) -> float:
    """Peak activation/workspace bytes for one prefill chunk of ``chunk_tokens`` tokens (``output``
    False: on a GPU of a layer split that does not hold the output head, so no logits buffer).

    Counted: the residual stream and attention/MLP intermediates of one layer in 16-bit
    (hidden*4 + q/kv projections + 2*intermediate, sharded by TP), for MoE layers the fused-MoE kernel's
    per-token expert outputs before their weighted sum (vLLM / SGLang ``fused_moe``: a tokens x top-k x
    hidden 16-bit buffer, not sharded by TP, filled in slices of at most ``FUSED_MOE_CHUNK_TOKENS``
    tokens: 7.5 GB per GPU for DeepSeek-V3 at 65,536 tokens), the fp32 logits buffer (vocab x
    rows: the last token of each running sequence for serving engines, the whole micro-batch for
    llama.cpp, which reserves its worst-case graph at start-up), and for
    engines that materialise attention scores (llama.cpp without flash attention, HF transformers' eager
    attention) heads x chunk x context, ``EngineProfile.attn_score_held_bytes`` each (llama.cpp: fp32;
    HF eager: 6). Dequantisation scratch for GGUF/weight-only formats: one widest matrix in fp16.
    """
    h = spec.hidden_size
    inter = max(spec.intermediate_size, spec.moe_intermediate_size * max(1, spec.experts_per_token))
    per_token = (4 * h + 2 * inter / tp + 3 * spec.num_attention_heads * max(spec.head_dim, 1) / tp) * 2.0
    layer = per_token * chunk_tokens
    logit_rows = (
        chunk_tokens if engine.kv_allocates_full_context else max(1, min(sequences, engine.max_num_seqs))
    )
    logits = spec.vocab_size * 4.0 * logit_rows if output else 0.0
    moe_partials = 0.0
    if spec.is_moe:
        moe_partials = min(chunk_tokens, FUSED_MOE_CHUNK_TOKENS) * spec.experts_per_token * h * 2.0
    scores = 0.0
    if engine.attn_score_bytes:
        scores = (spec.num_attention_heads / tp) * chunk_tokens * context * engine.attn_score_held_bytes
    dequant = 0.0
    if fmt.compute_class in ("gguf-quant", "weight-only"):
        dequant = h * inter / tp * 2.0
    return layer + moe_partials + logits + scores + dequant


def plan_memory(
    spec: ModelSpec,
    acc: Accelerator,
    fmt: WeightFormat,
    kv: KvDtype,
    engine: EngineProfile,
    *,
    batch: int,
    context: int,
    gpus: int = 1,
    parallel: str = "tensor",
    prompt: int | None = None,
) -> MemoryPlan:
    """Memory of the fullest GPU for ``batch`` sequences of ``context`` tokens (prompt + output);
    ``prompt``: the tokens of each prompt, which a static batch prefills together (None: ``context``,
    the whole sequence counted as prompt).

    Tensor parallel: every GPU holds the same shard. A whole-layer split (``parallel="layer"``): each GPU
    holds the weights and cache of its own layers (:func:`split_layers`: some GPUs hold one layer more,
    an MoE layer outweighs a dense one, the last holds the output head), and the plan is that of the GPU
    with the least room left at ``batch``; the others ride along (``other_gpus``) for :func:`max_batch`."""
    tp = gpus if parallel == "tensor" else 1
    layered = parallel != "tensor" and gpus > 1
    if layered:  # before any sizing: a GPU without a layer is refused, never planned
        refuse_wide_layer_split(spec.name, spec.num_hidden_layers, gpus)
    dp = tp if engine.dp_attention else 1
    layer_windows = engine.keeps_layer_windows()
    # a hybrid model's pages (vLLM: larger attention blocks, padded states) and its linear-attention states
    block, state = engine_state_pages(
        spec, kv, engine.name, engine.kv_block_tokens, tp=tp // dp, cc=acc.nvidia_cc
    )
    whole_kv = sequence_cache_bytes(  # with the linear-attention layers' state, as the engine pools them
        engine.name,
        kv_bytes_per_sequence(
            spec, kv, context, tp=tp // dp, block_tokens=block, layer_windows=layer_windows
        ),
        state,
    )
    if layered:
        # (weights, cache bytes per sequence) of each GPU
        gpu_shares = tuple(
            (weights, whole_kv * share)
            for weights, share in zip(
                layer_split_weight_bytes(spec, fmt, engine, gpus),
                layer_split_kv_shares(spec, context, gpus, engine, block),
                strict=True,
            )
        )
    else:
        # data-parallel attention: a sequence's whole cache lives on one of the ``dp`` GPUs; per GPU that
        # is 1/dp of it on average (an MLA latent cache is otherwise kept whole on every TP rank)
        gpu_shares = ((gpu_weight_bytes(spec, fmt, engine, gpus=gpus, parallel=parallel), whole_kv / dp),)
    overhead = (engine.cuda_context_gb + engine.engine_reserve_gb) * 1e9
    cap = capacity_bytes(acc)
    model_weights = weights_bytes_total(spec, fmt)
    per_token_kv = kv_bytes_per_token(spec, kv)
    extra = 0.0 if engine.kv_allocates_full_context else spec.vocab_size * 4.0

    def at(n: int) -> MemoryPlan:
        # a continuous-batching engine plans for its largest step, whatever the request: vLLM's profile
        # run and TGI's warm-up prefill max_num_batched_tokens / max_batch_prefill_tokens tokens before
        # sizing the KV cache, TensorRT-LLM sizes its workspace for max_num_tokens, llama.cpp reserves its
        # compute graph for n_ubatch; a static batch (HF generate, gpt-fast) prefills its own prompts
        # together, all ``n`` of them in one forward pass (see :func:`prefill_pass`)
        seqs, chunk = prefill_pass(engine, n, context if prompt is None else min(prompt, context))
        act = activation_bytes(spec, fmt, engine, chunk, context, tp=tp, sequences=seqs)
        # a layer split computes the logits on the GPU holding the output head (the last) only
        inner = (
            activation_bytes(spec, fmt, engine, chunk, context, sequences=seqs, output=False)
            if layered
            else act
        )
        last = len(gpu_shares) - 1
        plans = [
            gpu_plan(weights, kv_seq, act if i == last else inner, n, extra if i == last else 0.0)
            for i, (weights, kv_seq) in enumerate(gpu_shares)
        ]
        # the fullest GPU: the least room left (the most weights among equals: the first of them)
        fullest = min(range(len(plans)), key=lambda i: (plans[i].usable - plans[i].total, -plans[i].weights))
        others = tuple(p for i, p in enumerate(plans) if i != fullest)
        return replace(plans[fullest], other_gpus=others, at_batch=None if engine.continuous_batching else at)

    def gpu_plan(weights: float, kv_seq: float, act: float, n: int, extra: float) -> MemoryPlan:
        if engine.memory_fraction_of_free:
            # TensorRT-LLM: kv_cache_free_gpu_mem_fraction of what is left after weights and runtime
            usable = cap - (1.0 - engine.memory_utilization) * max(0.0, cap - weights - overhead - act)
        elif engine.pool_excludes_activations:
            # SGLang: the share holds weights and KV pool; activations (and the engine's reserve) sit
            # beside it
            usable = min(cap, cap * engine.memory_utilization + act + engine.engine_reserve_gb * 1e9)
        else:
            usable = cap * engine.memory_utilization
        return MemoryPlan(
            weights=weights,
            kv_cache=kv_seq * n,
            activations=act,
            overhead=overhead,
            usable=usable,
            capacity=cap,
            kv_per_sequence=kv_seq,
            kv_bytes_per_token=per_token_kv,
            per_sequence_extra=extra,
            model_weights=model_weights,
            kv_layer_windows=layer_windows,
        )

    return at(batch)


def prefill_pass(engine: EngineProfile, batch: int, prompt: int) -> tuple[int, int]:
    """(sequences, tokens) of the largest prefill forward pass that ``engine`` sizes its activations for,
    running ``batch`` sequences whose prompts are ``prompt`` tokens long.

    A continuous-batching engine: its step budget (``prefill_chunk_tokens``: vLLM max_num_batched_tokens,
    SGLang chunked_prefill_size, TensorRT-LLM max_num_tokens, TGI max_batch_prefill_tokens, llama.cpp
    n_ubatch), whatever the load, and one logits row per running sequence. A static batch (no
    continuous batching: HF ``generate``, gpt-fast, TensorRT-LLM's 0.5-era session benchmark) pads its
    prompts into one ``batch x prompt`` tensor and prefills them in one forward: 48 prompts of 3,000
    tokens are 144,000 tokens in one pass, as many as one prompt of 144,000 tokens. Whole prompts, as
    many as the step budget takes and at least one (as ``serving.first_token_share`` times a static
    batch's prefill); HF and gpt-fast have no budget (``prefill_chunk_tokens`` 2**20), so all ``batch``.
    """
    batch = max(1, batch)
    if engine.continuous_batching:
        return batch, max(1, engine.prefill_chunk_tokens)
    prompt = max(1, prompt)
    seqs = min(batch, max(1, engine.prefill_chunk_tokens // prompt))
    return seqs, seqs * prompt


def gpu_weight_bytes(
    spec: ModelSpec,
    fmt: WeightFormat,
    engine: EngineProfile,
    *,
    gpus: int = 1,
    parallel: str = "tensor",
) -> float:
    """Weight bytes on the fullest GPU.

    Tensor parallel: everything sharded (vLLM / TRT-LLM shard embeddings and lm_head over the
    vocabulary). Layer split: whole layers per GPU (:func:`layer_split_weight_bytes`: the first GPU also
    holds the token embedding, the last the output head), the GPU that holds the most. llama.cpp keeps the
    token embedding table in host memory (only a row lookup runs there), so it costs no VRAM.
    """
    c = model_consts(spec)
    if parallel == "tensor" or gpus == 1:
        tp = gpus if parallel == "tensor" else 1
        embedding = 0.0 if engine.embeddings_on_host else c.embedding
        ends = weight_bytes(fmt, 0.0, embedding, c.lm_head)
        if engine.dp_attention and tp > 1:
            # data-parallel attention: attention, embedding and lm_head whole on every GPU
            attention = attention_bytes(fmt, c)
            return (body_bytes(fmt, c) - attention) / tp + attention + ends
        return (body_bytes(fmt, c) + ends) / tp
    return max(layer_split_weight_bytes(spec, fmt, engine, gpus))


MAX_BATCH_SEARCH = 1 << 20


def max_batch(plan: MemoryPlan) -> int:
    """Largest number of sequences whose KV cache fits next to weights, activations and overhead.

    A static batch's activations grow with it (:func:`prefill_pass`): the largest batch whose own plan
    fits, searched (a plan's need grows with its batch, so the fitting batches are 0..n). A whole-layer
    split: the least of its GPUs' (``other_gpus``), each with its own layers' weights and cache."""
    if plan.at_batch is not None:
        return _largest_fitting(plan.at_batch)
    return min(_max_batch_one(p) for p in (plan, *plan.other_gpus))


def _max_batch_one(plan: MemoryPlan) -> int:
    free = plan.usable - plan.weights - plan.activations - plan.overhead
    per_seq = plan.kv_per_sequence + plan.per_sequence_extra
    if free <= 0 or per_seq <= 0:
        return 0 if free <= 0 else MAX_BATCH_SEARCH
    return int(free // per_seq)


def _largest_fitting(at_batch: Callable[[int], MemoryPlan]) -> int:
    """Largest ``n`` in 0..MAX_BATCH_SEARCH with ``at_batch(n).fits`` (0 when one does not fit)."""
    if not at_batch(1).fits:
        return 0
    lo, hi = 1, 2  # at_batch(lo) fits; double hi until it does not
    while at_batch(hi).fits:
        if hi >= MAX_BATCH_SEARCH:
            return MAX_BATCH_SEARCH
        lo, hi = hi, hi * 2
    while hi - lo > 1:  # lo fits, hi does not
        mid = (lo + hi) // 2
        if at_batch(mid).fits:
            lo = mid
        else:
            hi = mid
    return lo


__all__ = [
    "GIB",
    "MemoryPlan",
    "ModelConsts",
    "activation_bytes",
    "attention_bytes",
    "body_bytes",
    "capacity_bytes",
    "dense_body_bytes",
    "gpu_weight_bytes",
    "kv_shape",
    "layer_bytes",
    "layer_split_kv_shares",
    "layer_split_weight_bytes",
    "max_batch",
    "model_consts",
    "plan_memory",
    "prefill_pass",
    "refuse_wide_layer_split",
    "split_layers",
    "weights_bytes_total",
]
