"""KV-cache size from the real attention shape.

Per layer and token a standard attention layer caches K and V: ``2 * kv_heads * head_dim`` elements
(GQA/MQA through ``num_key_value_heads``, explicit ``head_dim``). An MLA layer (DeepSeek-V2/V3)
caches one latent of ``kv_lora_rank + qk_rope_head_dim`` elements. Sliding-window layers keep at most
``sliding_window`` tokens; mixed models (Gemma 2/3, gpt-oss) alternate sliding and full layers.

DeepSeek Sparse Attention (DeepSeek-V3.2) keeps every token's latent but a decode step reads only the
``index_topk`` (2048) the lightning indexer picks per layer; the indexer keeps its own key per token
and layer, ``index_head_dim`` FP8 values and one FP32 scale per 128 (132 bytes for 128: vLLM's indexer
cache), and reads all of them every step. At a 128k context V3.2 reads 61 x (2048 x 1152 + 128k x
132) B = 1.2 GB per sequence and step in bf16, where dense MLA would read 9.2 GB.

Linear-attention layers (Gated DeltaNet: Qwen3-Next, Qwen3.5) cache no tokens: each sequence keeps a
fixed-size state per such layer (:func:`linear_state_bytes`), which each decode step reads and writes whole
(:func:`linear_state_step_bytes`); the layers with softmax attention cache K and V as above.

Engines allocate differently: vLLM/SGLang/TensorRT-LLM page the cache in blocks (vLLM 16 tokens),
llama.cpp allocates the whole ``n_ctx`` up front, HF transformers grows it as it goes. Not every engine
keeps a mixed model's sliding layers at their window (``EngineProfile.keeps_layer_windows``: vLLM before
0.9.1, SGLang before 0.4.9.post3, TGI, llama.cpp before its SWA cache size every layer at the whole
context). The bytes a decode step reads (:func:`kv_read_bytes_per_step`) stay the window's: vLLM's and
TGI's attention kernels are given each layer's window; llama.cpp's 2023-2024 builds masked the cells
outside it and read them all, which is not modelled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from gpuscout.estimate.precision import KvDtype
from gpuscout.knowledge.model_types import ModelSpec


@dataclass(frozen=True, slots=True)
class KvShape:
    """Per-token cache elements, split by layer kind (all layers, before any sharding)."""

    full_layers: int
    sliding_layers: int
    window: int  # tokens kept by sliding layers (0 when there are none)
    elements_per_layer: int  # per token, K+V (or the MLA latent)
    kv_heads: int  # 0 for MLA (latent is not split by heads)
    head_dim: int
    mla: bool
    topk: int = 0  # sparse attention: cached tokens a query reads at most (0: all)
    index_bytes_per_layer: float = 0.0  # sparse attention's indexer keys, per token and layer
    linear_layers: int = 0  # linear-attention layers: no KV cache (a state per sequence instead)

    @property
    def layers(self) -> int:
        """The layers that cache tokens (softmax attention: full and sliding)."""
        return self.full_layers + self.sliding_layers


@cache
def kv_shape(spec: ModelSpec) -> KvShape:
    """The cache shape of ``spec``."""
    layers = spec.num_hidden_layers
    if spec.is_mla:
        per_layer = spec.kv_lora_rank + spec.qk_rope_head_dim
        index = indexer_bytes_per_token_layer(spec)
        return KvShape(layers, 0, 0, per_layer, 0, 0, True, spec.index_topk if index else 0, index)
    kv_heads = spec.num_key_value_heads or spec.num_attention_heads
    head_dim = spec.head_dim or (spec.hidden_size // max(1, spec.num_attention_heads))
    per_layer = 2 * kv_heads * head_dim
    window = spec.sliding_window or 0
    sliding = sum(windowed_layers(spec))
    linear = spec.linear_layers
    return KvShape(
        layers - sliding - linear,
        sliding,
        window if sliding else 0,
        per_layer,
        kv_heads,
        head_dim,
        False,
        linear_layers=linear,
    )


@cache
def windowed_layers(spec: ModelSpec) -> tuple[bool, ...]:
    """Whether each decoder layer of ``spec``, in order, keeps only the last ``sliding_window`` tokens: the
    layers ``layer_types`` names sliding or local (Gemma 2/3, gpt-oss; layers past its end are full), every
    layer where a window is given without them (Mistral 7B v0.1), none without a window or for MLA."""
    layers = spec.num_hidden_layers
    if spec.is_mla or not spec.sliding_window:
        return (False,) * layers
    if not spec.layer_types:
        return (True,) * layers
    types = spec.layer_types[:layers]
    return (*("sliding" in t or "local" in t for t in types), *(False,) * (layers - len(types)))


def mixes_windows(spec: ModelSpec) -> bool:
    """Whether ``spec`` mixes sliding-window and full layers (Gemma 2/3, gpt-oss): the models whose window
    saving depends on the engine keeping a cache per layer kind (``EngineProfile.keeps_layer_windows``)."""
    windowed = windowed_layers(spec)
    return any(windowed) and not all(windowed)


def indexer_bytes_per_token_layer(spec: ModelSpec) -> float:
    """Bytes of sparse-attention indexer key one token keeps per layer: FP8 values and one FP32 scale
    per 128 of them (0 without an indexer)."""
    if not (spec.index_topk and spec.index_head_dim):
        return 0.0
    return spec.index_head_dim + 4.0 * math.ceil(spec.index_head_dim / 128)


def kv_bytes_per_token(spec: ModelSpec, kv: KvDtype) -> float:
    """Bytes one token adds to the cache when every layer keeps it (context within the window)."""
    s = kv_shape(spec)
    return s.layers * (s.elements_per_layer * kv.bytes_per_element + s.index_bytes_per_layer)


def kv_heads_per_gpu(spec: ModelSpec, tp: int) -> int:
    """KV heads each GPU holds under tensor parallelism: sharded, but replicated when ``tp > kv_heads``."""
    s = kv_shape(spec)
    if s.mla:
        return 0
    return max(1, math.ceil(s.kv_heads / tp))


def cached_tokens(spec: ModelSpec, tokens: int, *, layer_windows: bool = True) -> tuple[int, int]:
    """(tokens held by each full layer, tokens held by each sliding layer) for a sequence of ``tokens``;
    ``layer_windows`` False: an engine without a cache per layer kind, where a model mixing sliding and
    full layers holds the whole sequence in every layer (``EngineProfile.keeps_layer_windows``)."""
    s = kv_shape(spec)
    if not s.sliding_layers:
        return tokens, 0
    if not layer_windows and mixes_windows(spec):
        return tokens, tokens
    return tokens, min(tokens, s.window)


def layer_cached_tokens(
    spec: ModelSpec, tokens: int, block_tokens: int = 1, *, layer_windows: bool = True
) -> tuple[int, ...]:
    """The tokens each decoder layer of ``spec`` holds in its cache for a sequence of ``tokens`` tokens, in
    order: all of them in a full layer, at most the window in a sliding one (:func:`windowed_layers`), none
    in a linear-attention layer (its state is :func:`linear_state_bytes`;
    the whole sequence where the engine has no per-layer windows, ``layer_windows`` False, and the model
    mixes sliding and full layers), each rounded up to whole ``block_tokens``-token blocks (paged
    allocation: vLLM 16, llama.cpp 256)."""
    if tokens <= 0:
        return (0,) * spec.num_hidden_layers
    full, slide = cached_tokens(spec, tokens, layer_windows=layer_windows)
    if block_tokens > 1:
        full = math.ceil(full / block_tokens) * block_tokens
        slide = math.ceil(slide / block_tokens) * block_tokens
    kinds = spec.layer_types
    return tuple(
        0 if i < len(kinds) and kinds[i] == "linear" else slide if windowed else full
        for i, windowed in enumerate(windowed_layers(spec))
    )


def kv_bytes_per_sequence(
    spec: ModelSpec,
    kv: KvDtype,
    tokens: int,
    *,
    tp: int = 1,
    block_tokens: int = 1,
    layer_windows: bool = True,
) -> float:
    """Cache bytes **per GPU** for one sequence of ``tokens`` tokens.

    ``tp``: tensor-parallel degree (KV heads sharded, replicated past ``kv_heads``; an MLA latent is
    replicated on every GPU). ``block_tokens``: paged allocation granularity (each layer rounds up to
    whole blocks: :func:`layer_cached_tokens`). ``layer_windows``: whether the engine keeps a mixed model's
    sliding layers at their window (``EngineProfile.keeps_layer_windows``). A whole-layer split's GPUs
    hold their own layers' share (``memory.layer_split_kv_shares``).
    """
    if tokens <= 0:
        return 0.0
    s = kv_shape(spec)
    held = sum(layer_cached_tokens(spec, tokens, block_tokens, layer_windows=layer_windows))
    per_layer_elems = float(s.elements_per_layer) if s.mla else 2.0 * kv_heads_per_gpu(spec, tp) * s.head_dim
    # the indexer keys (sparse MLA: no sliding layer, so every layer's) replicated like the latent
    return per_layer_elems * held * kv.bytes_per_element + s.index_bytes_per_layer * held


def kv_bytes_per_token_at(spec: ModelSpec, kv: KvDtype, tokens: int, *, layer_windows: bool = True) -> float:
    """Bytes each token of a ``tokens``-token sequence takes in the cache on average, the whole model
    (all layers, before any sharding): :func:`kv_bytes_per_token` while the sequence fits the sliding
    window, less past it, where sliding-window layers keep only the last ``window`` tokens (Gemma 2/3,
    gpt-oss; not a mixed model's under an engine without per-layer windows, ``layer_windows`` False).
    Times ``tokens``, the sequence's cache (``kv_bytes_per_sequence`` on one GPU)."""
    if tokens <= 0:
        return kv_bytes_per_token(spec, kv)
    return kv_bytes_per_sequence(spec, kv, tokens, layer_windows=layer_windows) / tokens


def kv_read_bytes_per_step(spec: ModelSpec, kv: KvDtype, context: float, *, tp: int = 1) -> float:
    """Bytes of cache one decode step reads for one sequence at ``context`` tokens (per GPU)."""
    if context <= 0:
        return 0.0
    s = kv_shape(spec)
    per_layer_elems = float(s.elements_per_layer) if s.mla else 2.0 * kv_heads_per_gpu(spec, tp) * s.head_dim
    slide = min(context, s.window) if s.sliding_layers else 0.0
    full = min(context, s.topk) if s.topk else context  # sparse attention: the picked tokens only
    read = per_layer_elems * (s.full_layers * full + s.sliding_layers * slide) * kv.bytes_per_element
    return read + s.index_bytes_per_layer * s.full_layers * context  # the indexer scans them all


@dataclass(frozen=True, slots=True)
class LinearStateDtypes:
    """Bytes per element of a linear-attention layer's per-sequence state as an engine keeps it: the short
    convolution's last inputs and the recurrent matrix."""

    conv: float
    recurrent: float
    how: str  # where the engine takes them from


def linear_state_dtypes(spec: ModelSpec, kv: KvDtype, engine: str) -> LinearStateDtypes:
    """The state dtypes ``engine`` keeps for ``spec``'s linear-attention layers (read in each engine's
    source; the model's dtype is 16-bit, or fp32 where the cache is, ``kv`` "auto" on fp32 weights):

    * vLLM 0.33.0 (``MambaStateDtypeCalculator.gated_delta_net_state_dtype``): ``--mamba-cache-dtype`` and
      ``--mamba-ssm-cache-dtype`` "auto", the model's dtype for both, unless the checkpoint's config names
      ``mamba_ssm_dtype`` for the recurrent state (``Qwen3_5ForConditionalGenerationConfig``);
    * SGLang 0.5.10 (``configs/mamba_utils.mamba2_state_dtype``): conv bf16, recurrent float32 unless the
      config names ``mamba_ssm_dtype``;
    * HF transformers 5.25.0: the chunked and recurrent gated delta rules (torch and fla) compute the state
      in float32 and cache it so; the conv state in the model's dtype;
    * llama.cpp (``llama_memory_recurrent``, type_r / type_s f32): float32 for both.
    """
    model = 4.0 if kv.bytes_per_element >= 4.0 else 2.0
    config = 4.0 if spec.linear_state_dtype == "fp32" else 0.0
    if engine == "llama.cpp":
        return LinearStateDtypes(4.0, 4.0, "llama.cpp keeps recurrent states in f32")
    if engine == "hf-transformers":
        return LinearStateDtypes(model, 4.0, "transformers caches the gated delta rule's state in float32")
    if engine == "sglang":
        return LinearStateDtypes(
            2.0, config or 4.0, "SGLang: conv state bf16, recurrent state --mamba-ssm-dtype (default float32)"
        )
    return LinearStateDtypes(
        model,
        config or model,
        "vLLM: --mamba-cache-dtype / --mamba-ssm-cache-dtype auto: the model's dtype"
        + (", the recurrent state float32 as the checkpoint's config asks" if config else ""),
    )


def linear_state_bytes(spec: ModelSpec, kv: KvDtype, engine: str = "", *, tp: int = 1) -> float:
    """Bytes **per GPU** of the fixed-size state one sequence keeps in ``spec``'s linear-attention layers,
    whatever its length: per layer the recurrent matrix (``linear_num_value_heads x linear_key_head_dim x
    linear_value_head_dim``) and the convolution's last ``linear_conv_kernel_dim - 1`` inputs of q, k and
    v; both split by value heads under tensor parallelism (vLLM's ``gated_delta_net_state_shape``).
    Qwen3-Next-80B-A3B in bf16: 36 x (524,288 x 2 + 24,576 x 2) B = 39.5 MB a sequence on one GPU."""
    layers = kv_shape(spec).linear_layers  # cached: this runs in every decode step
    if not layers:
        return 0.0
    dtypes = linear_state_dtypes(spec, kv, engine)
    key_dim = spec.linear_num_key_heads * spec.linear_key_head_dim
    value_dim = spec.linear_num_value_heads * spec.linear_value_head_dim
    conv = (2 * key_dim + value_dim) * max(0, spec.linear_conv_kernel_dim - 1)
    recurrent = spec.linear_num_value_heads * spec.linear_key_head_dim * spec.linear_value_head_dim
    return layers * (conv * dtypes.conv + recurrent * dtypes.recurrent) / max(1, tp)


def linear_state_step_bytes(spec: ModelSpec, kv: KvDtype, engine: str = "", *, tp: int = 1) -> float:
    """Bytes of linear-attention state one decode step moves for one sequence (per GPU): the whole state
    read and written back (the gated delta rule updates every element of the recurrent matrix each
    token)."""
    return 2.0 * linear_state_bytes(spec, kv, engine, tp=tp)


#: Tokens vLLM's hybrid blocks are a multiple of where FlashInfer runs the gated delta rule's prefill and
#: prefix caching (on by default) keeps linear-attention checkpoints ("align" mode):
#: ``FLASHINFER_GDN_CHECKPOINT_ALIGNMENT`` (read in vLLM 0.33.0, ``v1/attention/backends/gdn_attn.py``)
VLLM_GDN_CHECKPOINT_TOKENS = 64


def vllm_gdn_checkpoint_tokens(cc: tuple[int, int] | None) -> int:
    """The checkpoint alignment vLLM 0.33.0's default GDN prefill backend imposes on a GPU of compute
    capability ``cc`` (``qwen_gdn_linear_attn``: FlashInfer on CC 9.0 whatever the CUDA runtime; on
    Blackwell only with CUDA 13 and 128-wide key heads, which a build is not known to have here: 1)."""
    return VLLM_GDN_CHECKPOINT_TOKENS if cc == (9, 0) else 1


def vllm_hybrid_pages(
    spec: ModelSpec, kv: KvDtype, block_tokens: int, *, tp: int = 1, checkpoint_tokens: int = 1
) -> tuple[int, float]:
    """(attention block in tokens, state bytes per sequence per GPU) of a model with linear-attention layers
    in vLLM, whose hybrid cache gives every layer pages of one size (read in vLLM 0.33.0:
    ``Platform._align_hybrid_block_size``): the attention block grows to the smallest multiple of
    ``block_tokens`` (16; of its least common multiple with ``checkpoint_tokens`` where prefix caching keeps
    prefill checkpoints: :func:`vllm_gdn_checkpoint_tokens`) whose page in one attention layer holds one
    linear layer's state, and each state is padded to that page. Qwen3-Next in bf16 on one GPU: a layer's
    state is 1,097,728 B and a token 2,048 B in an attention layer, so blocks of 16 x 34 = 544 tokens and 36
    pages of 1,114,112 B (on an H100, 64 x 9 = 576 tokens). One state per running sequence: the ones
    prefix caching keeps beyond it are evictable. ``block_tokens`` and the plain state for a model without
    such layers, or an MLA one."""
    state = linear_state_bytes(spec, kv, "vllm", tp=tp)
    if not spec.linear_layers or spec.is_mla or block_tokens < 1:
        return block_tokens, state
    per_token = 2.0 * kv_heads_per_gpu(spec, tp) * kv_shape(spec).head_dim * kv.bytes_per_element
    per_layer = state / spec.linear_layers
    align = math.lcm(block_tokens, max(1, checkpoint_tokens))
    block = align * max(1, math.ceil(per_layer / (align * per_token)))
    return block, spec.linear_layers * block * per_token


def engine_state_pages(
    spec: ModelSpec,
    kv: KvDtype,
    engine: str,
    block_tokens: int,
    *,
    tp: int = 1,
    cc: tuple[int, int] | None = None,
) -> tuple[int, float]:
    """(attention block in tokens, linear-attention state bytes per sequence per GPU) as ``engine`` lays out a
    hybrid model's cache on a GPU of compute capability ``cc``: vLLM's pages of one size
    (:func:`vllm_hybrid_pages`), elsewhere the engine's own block and the plain state."""
    if engine == "vllm":
        return vllm_hybrid_pages(
            spec, kv, block_tokens, tp=tp, checkpoint_tokens=vllm_gdn_checkpoint_tokens(cc)
        )
    return block_tokens, linear_state_bytes(spec, kv, engine, tp=tp)


#: SGLang's split of the memory left for caches between linear-attention states and the attention KV cache
#: of a hybrid model, state : KV (``--mamba-full-memory-ratio`` default 0.9, read in SGLang 0.5.10's
#: ``model_runner_kv_cache_mixin``: two fixed pools, each sequence taking a state slot and KV tokens)
SGLANG_STATE_TO_KV_RATIO = 0.9


def sequence_cache_bytes(engine: str, kv: float, state: float) -> float:
    """The cache memory one sequence takes of ``engine``'s pool, given its KV cache (``kv``) and its
    linear-attention state (``state``) bytes: both, from one pool (vLLM's hybrid cache pages them alike);
    in SGLang the share of the whole of whichever of its two fixed pools runs out first (the state pool is
    0.9 / 1.9 of the memory: a sequence whose state is the larger need takes state x 1.9 / 0.9 of it)."""
    if not state or engine != "sglang":
        return kv + state
    r = SGLANG_STATE_TO_KV_RATIO
    return max(state * (1.0 + r) / r, kv * (1.0 + r))


@dataclass(frozen=True, slots=True)
class EngineKvDtypes:
    """The cache dtypes an engine offers (gpuscout's names) and how it is asked for them."""

    names: tuple[str, ...]
    how: str  # the engine's own flag and values


# "auto" (every server's default) keeps the model's own dtype: 16-bit, or fp32 for fp32 weights. Only
# these size an estimate: a dtype the engine has no kernels for is refused, not sized.
_SIXTEEN = ("fp32", "bf16", "fp16")
ENGINE_KV_DTYPES: dict[str, EngineKvDtypes] = {
    # vllm/config/cache.py CacheDType: auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla
    "vllm": EngineKvDtypes(
        (*_SIXTEEN, "fp8"), "--kv-cache-dtype auto (the model's dtype), fp8, fp8_e4m3 or fp8_e5m2"
    ),
    # sglang/srt/server_args.py --kv-cache-dtype: auto, fp8_e5m2, fp8_e4m3
    "sglang": EngineKvDtypes(
        (*_SIXTEEN, "fp8"), "--kv-cache-dtype auto (the model's dtype), fp8_e4m3 or fp8_e5m2"
    ),
    # quantization kv_cache_quant_algo: FP8 or INT8 (else the model's dtype)
    "tensorrt-llm": EngineKvDtypes(
        (*_SIXTEEN, "fp8", "int8"),
        "kv_cache_quant_algo FP8 or INT8 (--kv_cache_dtype fp8), else the model's dtype",
    ),
    # text-generation-launcher --kv-cache-dtype: fp8_e4m3fn, fp8_e5m2 (unset: the model's dtype)
    "tgi": EngineKvDtypes(
        (*_SIXTEEN, "fp8"), "--kv-cache-dtype fp8_e4m3fn or fp8_e5m2, unset for the model's dtype"
    ),
    "hf-transformers": EngineKvDtypes(
        _SIXTEEN,
        "the model's dtype (its QuantizedCache, quanto / HQQ int2-int8 with a 16-bit residual, is not "
        "modelled)",
    ),
    "gpt-fast": EngineKvDtypes(_SIXTEEN, "the model's dtype (its KV cache has no quantised variant)"),
    # common/arg.cpp kv_cache_types: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1
    "llama.cpp": EngineKvDtypes(
        (*_SIXTEEN, "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"),
        "--cache-type-k / --cache-type-v f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0 or iq4_nl "
        "(a quantised V cache needs flash attention, -fa)",
    ),
}


def engine_kv_dtypes(engine: str, sparse_mla_kv: str = "") -> EngineKvDtypes | None:
    """The cache dtypes ``engine`` offers (its own sparse-MLA cache format among them when it has
    one, ``sparse_mla_kv``); None for an engine the table does not know (nothing is refused)."""
    found = ENGINE_KV_DTYPES.get(engine)
    if found is None or not sparse_mla_kv:
        return found
    return EngineKvDtypes((*found.names, sparse_mla_kv), f"{found.how}, {sparse_mla_kv} for sparse MLA")
