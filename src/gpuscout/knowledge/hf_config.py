"""Import a model architecture from a parsed Hugging Face ``config.json`` (:func:`spec_from_hf_config`).

Understands the field names of llama, mistral, mixtral, qwen2, qwen2_moe-style qwen3_moe, qwen3, deepseek_v3
(v2, v32 with its sparse-attention indexer; kimi_k2 and Kimi K2.5's kimi_k25, DeepSeek-V3's fields), mistral4,
glm_moe_dsa (GLM-5: DeepSeek-V3.2's sparse MLA), gpt_oss,
glm4_moe, minimax_m2, qwen3_next and qwen3_5 / qwen3_5_moe (Gated DeltaNet linear attention), llama4,
gemma / gemma2 / gemma3 and mistral3 (incl. ``text_config`` nesting), phi3 and
falcon (old ``RefinedWeb`` names ``n_layer``/``n_head``/``n_head_kv`` and new ones).
Only the config is read, never weights. A key that a supported architecture needs and the config lacks
raises ``InvalidInputError`` naming the key. Pure: reading the file or fetching it from the Hub lives at the
edge, in :mod:`gpuscout.loaders`.

The context window (``ModelSpec.max_position_embeddings``) reads ``rope_scaling`` (transformers 5:
``rope_parameters``) as well: see :func:`context_window`; the spec's ``notes`` say which figure was
taken and why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.fused_experts import LINEAR, fused_experts
from gpuscout.knowledge.model_types import EXPERTS_ONLY_BASE, ModelSpec, local_then_full

#: DeepSeek-V2/V3's field names (MLA, ``n_routed_experts``, ``first_k_dense_replace``): V3.2 adds its sparse
#: attention's indexer; Kimi K2 (``kimi_k2``) and Kimi K2.5's wrapper (``kimi_k25``) are V3's shape
_DEEPSEEK_SHAPED = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "kimi_k25")

SUPPORTED_MODEL_TYPES: tuple[str, ...] = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    *_DEEPSEEK_SHAPED,
    "gpt_oss",
    "glm4_moe",
    "minimax_m2",
    "mistral4",
    "glm_moe_dsa",
    "qwen3_next",
    "qwen3_5",
    "qwen3_5_text",
    "qwen3_5_moe",
    "qwen3_5_moe_text",
    "llama4",
    "llama4_text",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "phi3",
    "falcon",
    "RefinedWeb",
    "RefinedWebModel",
)

# transformers' per-class default for tie_word_embeddings when the config omits it
_TIED_BY_DEFAULT = frozenset(
    {"gemma", "gemma2", "gemma3", "gemma3_text", "falcon", "RefinedWeb", "RefinedWebModel"}
)
#: Qwen3-Next and Qwen3.5 (read in transformers 5.25.0 ``models/qwen3_next``, ``qwen3_5``, ``qwen3_5_moe``):
#: Gated DeltaNet linear-attention layers (``layer_types`` "linear_attention", else every layer but each
#: ``full_attention_interval``-th), gated attention (q_proj twice the query width) with per-head q / k norms,
#: a shared expert of ``shared_expert_intermediate_size`` beside the routed ones
_GATED_DELTANET = frozenset({"qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"})
#: QK norm: per head in Qwen3 and Gemma 3; over the whole q and k widths in MiniMax-M2 (``MiniMaxM2Attention``
#: q_norm / k_norm, read in transformers 5.25.0), counted per head all the same (0.4M weights short in M2)
_QK_NORM = frozenset({"qwen3", "qwen3_moe", "gemma3", "gemma3_text", "minimax_m2", *_GATED_DELTANET})
_DEFAULT_VOCAB = {"gemma3": 262208, "gemma3_text": 262208}  # Gemma3TextConfig default
#: Llama 4 (transformers ``Llama4TextConfig``): ``intermediate_size`` is the experts' width and
#: ``intermediate_size_mlp`` the dense layers'; every MoE layer has one shared expert of the experts' width
#: (``Llama4TextMoe.shared_expert``); MoE on every ``interleave_moe_layer_step``-th layer; chunked attention
#: (``attention_chunk_size``) on the RoPE layers, a NoPE full-attention layer every
#: ``no_rope_layer_interval``-th (read in transformers 5.25.0 ``models/llama4``)
_LLAMA4 = frozenset({"llama4", "llama4_text"})


# ---- bounds: a config.json beyond these describes no model that was ever published -----------------
# Each is several times the largest published figure, so a real config never meets one; a typo or a
# made-up config (hidden_size 1e9: an "80 billion B" model) is refused by name instead of sized.
#: Widest published hidden size: 20,480 (Megatron-Turing NLG 530B); Llama 3.1 405B: 16,384.
MAX_HIDDEN_SIZE = 65_536
#: Deepest published decoder: 126 layers (Llama 3.1 405B); PaLM 540B: 118.
MAX_LAYERS = 1_024
#: Most attention heads published: 232 (Falcon 180B); Llama 3.1 405B and DeepSeek-V3: 128.
MAX_HEADS = 1_024
#: Widest published head: 256 (Gemma, Gemma 2/3); MLA's query/key head: 192 (DeepSeek-V3).
MAX_HEAD_DIM = 2_048
#: Widest published MLP: 73,728 (PaLM 540B, Nemotron-4 340B); 8 x the hidden-size bound (Gemma 7B's
#: MLP is 8 x its hidden size, the widest ratio published).
MAX_INTERMEDIATE_SIZE = 8 * MAX_HIDDEN_SIZE
#: Largest published vocabulary: 262,208 (Gemma 3).
MAX_VOCAB = 2_097_152
#: Most routed experts published: 512 (Qwen3-Next); Kimi K2: 384.
MAX_EXPERTS = 4_096
#: Longest published context window: 10,485,760 tokens (Llama 4 Scout). Also the bound of the other
#: integers a config gives (LoRA ranks, sparse-attention top-k...); MAX_TOTAL_PARAMS bounds their sum.
MAX_TOKENS = 134_217_728
#: Largest published models: Kimi K2, 1.04 T parameters; Switch-C (2021, an encoder-decoder): 1.6 T.
MAX_TOTAL_PARAMS = 10 * 10**12


def _first(cfg: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if cfg.get(key) is not None:
            return cfg[key]
    return None


def _named(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    """The key of ``keys`` the config gives (the first when it gives none): the field an error names."""
    return next((key for key in keys if cfg.get(key) is not None), keys[0])


_UNPUBLISHED = "no published model has more"


def _check_int(field: str, value: object, *, least: int, most: int, why: str = _UNPUBLISHED) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "a positive integer" if least > 0 else "a non-negative integer"
        raise InvalidInputError(field, f"must be {kind}, got {value!r}", f"an integer {least} to {most:,}")
    if not least <= value <= most:
        raise InvalidInputError(
            field,
            f"{value:,} is out of range",
            f"an integer {least} to {most:,}; {why}",
        )
    return value


def _required_int(cfg: Mapping[str, Any], *keys: str, most: int = MAX_TOKENS) -> int:
    value = _first(cfg, *keys)
    if value is None:
        raise InvalidInputError(keys[0], "missing from config.json", " or ".join(keys))
    return _check_int(_named(cfg, keys), value, least=1, most=most)


#: MoE model types whose experts have their own width (``moe_intermediate_size``), not ``intermediate_size``
#: (which sizes only their dense layers or shared expert, where they have one).
_OWN_EXPERT_WIDTH = frozenset({"qwen3_moe", *_DEEPSEEK_SHAPED, "glm4_moe", "mistral4", "glm_moe_dsa"})


def _opt_int(cfg: Mapping[str, Any], *keys: str, most: int = MAX_TOKENS, why: str = _UNPUBLISHED) -> int:
    value = _first(cfg, *keys)
    if value is None:
        return 0
    return _check_int(_named(cfg, keys), value, least=0, most=most, why=why)


def _check_finite(value: object, path: str, depth: int = 0) -> None:
    """Refuse a NaN or infinite number anywhere in a config (Python's JSON reader takes ``NaN`` and
    ``Infinity``, which no config.json written by transformers holds); ``path`` names the field."""
    if depth > 32:
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInputError(path, f"must be a finite number, got {value!r}", "a finite number")
    if isinstance(value, Mapping):
        for key, item in value.items():
            _check_finite(item, f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_finite(item, f"{path}[{i}]", depth + 1)


def _check_positive_number(cfg: Mapping[str, Any], key: str) -> None:
    value = cfg.get(key)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise InvalidInputError(key, f"must be a positive number, got {value!r}", "a finite number > 0")


def _attention_heads(
    cfg: Mapping[str, Any], hidden: int, heads: int, kv_heads: object, kv_field: str, mla: bool
) -> tuple[int, int]:
    """(KV heads, head dim), checked as transformers builds the attention: the query heads share the
    KV heads evenly, and without an explicit ``head_dim`` each head is ``hidden_size / heads`` wide."""
    kv = _check_int(kv_field, kv_heads, least=1, most=MAX_HEADS)
    if heads % kv:
        divisors = ", ".join(str(d) for d in range(1, heads + 1) if heads % d == 0)
        raise InvalidInputError(
            kv_field,
            f"{kv} does not divide num_attention_heads {heads} (each KV head serves a whole group of query "
            "heads)",
            f"a divisor of {heads}: {divisors}",
        )
    if cfg.get("head_dim") is not None:
        return kv, _check_int("head_dim", cfg["head_dim"], least=1, most=MAX_HEAD_DIM)
    if mla:
        return kv, hidden // heads  # replaced by qk_nope_head_dim + qk_rope_head_dim
    if hidden % heads:
        raise InvalidInputError(
            "hidden_size",
            f"{hidden:,} is not a multiple of num_attention_heads {heads} and the config gives no head_dim",
            f"a multiple of {heads}, or a head_dim",
        )
    return kv, _check_int("head_dim", hidden // heads, least=1, most=MAX_HEAD_DIM)


def _layer_types(cfg: Mapping[str, Any], model_type: str, layers: int, window: int | None) -> tuple[str, ...]:
    explicit = cfg.get("layer_types")
    if explicit:
        if not isinstance(explicit, list):
            raise InvalidInputError("layer_types", f"must be a list, got {explicit!r}", "one entry per layer")
        if len(explicit) != layers:
            raise InvalidInputError("layer_types", f"has {len(explicit)} entries for {layers} layers")
        kinds = []
        for kind in explicit:
            text = str(kind).lower()
            if model_type in _GATED_DELTANET:  # transformers' Qwen3-Next / Qwen3.5 know these two
                if text not in {"linear_attention", "full_attention"}:
                    raise InvalidInputError(
                        "layer_types", f"unknown layer type {kind!r}", "linear_attention or full_attention"
                    )
                kinds.append("linear" if text == "linear_attention" else "full")
                continue
            local = "sliding" in text or "local" in text or "chunked" in text
            kinds.append("sliding" if local else "full")
        return tuple(kinds) if "sliding" in kinds or "linear" in kinds else ()
    if model_type in _GATED_DELTANET:  # transformers' default: full attention every 4th layer
        interval = 4
        if cfg.get("full_attention_interval") is not None:
            interval = _required_int(cfg, "full_attention_interval", most=MAX_LAYERS)
        return tuple("full" if (i + 1) % interval == 0 else "linear" for i in range(layers))
    if window is None:
        return ()
    if model_type in _LLAMA4:
        return _llama4_layer_types(cfg, layers)
    if model_type == "gemma2":
        return tuple("sliding" if i % 2 == 0 else "full" for i in range(layers))
    if model_type in {"gemma3", "gemma3_text"}:
        period = _opt_int(cfg, "sliding_window_pattern", most=MAX_LAYERS) or 6
        return local_then_full(layers, period)
    return ("sliding",) * layers


def _llama4_layer_types(cfg: Mapping[str, Any], layers: int) -> tuple[str, ...]:
    """Llama 4's chunked layers (recorded as "sliding"): those with RoPE, as ``no_rope_layers`` lists them
    (1 = RoPE, chunked; 0 = NoPE, full attention), else every layer but each ``no_rope_layer_interval``-th."""
    listed = cfg.get("no_rope_layers")
    if listed:
        if not isinstance(listed, list) or len(listed) < layers:
            raise InvalidInputError(
                "no_rope_layers", f"must list at least one entry per layer ({layers})", "a list of 0 / 1"
            )
        return tuple("sliding" if listed[i] else "full" for i in range(layers))
    interval = _opt_int(cfg, "no_rope_layer_interval", most=MAX_LAYERS) or 4
    return local_then_full(layers, interval)


def _moe_layer_step(cfg: Mapping[str, Any], model_type: str, layers: int) -> int:
    """Every how many layers the MoE block sits (``ModelSpec.moe_layer_step``): Llama 4's
    ``interleave_moe_layer_step``, Qwen-MoE's ``decoder_sparse_step``; an explicit ``moe_layers`` list
    (Llama 4) must be that pattern, and Qwen's ``mlp_only_layers`` (dense layers at any place) is refused."""
    if cfg.get("mlp_only_layers"):
        raise InvalidInputError(
            "mlp_only_layers",
            "dense layers at listed places among the MoE ones are not supported",
            "an empty list (the MoE block on every layer, or every decoder_sparse_step-th)",
        )
    key = "interleave_moe_layer_step" if model_type in _LLAMA4 else "decoder_sparse_step"
    step = _opt_int(cfg, key, most=MAX_LAYERS) or 1
    listed = cfg.get("moe_layers") if model_type in _LLAMA4 else None
    if listed is not None:
        expected = list(range(step - 1, layers, step))
        if listed != expected:
            raise InvalidInputError(
                "moe_layers",
                f"lists MoE layers other than every {step}-th (interleave_moe_layer_step {step})",
                f"null, or {expected[:4]}... (every interleave_moe_layer_step-th layer)",
            )
    return step


def _shared_experts(cfg: Mapping[str, Any], model_type: str, moe_width: int) -> int:
    """Shared experts of each MoE layer, in units of the routed experts' width (``moe_width``): DeepSeek's
    ``n_shared_experts``; Llama 4's one (``Llama4TextMoe.shared_expert``, no config key); Qwen3-Next's and
    Qwen3.5's ``shared_expert_intermediate_size`` over the experts' width."""
    if model_type in _LLAMA4:
        return 1
    if model_type in _GATED_DELTANET:
        width = _opt_int(cfg, "shared_expert_intermediate_size", most=MAX_INTERMEDIATE_SIZE)
        if width % max(1, moe_width):
            raise InvalidInputError(
                "shared_expert_intermediate_size",
                f"{width:,} is not a whole number of experts of moe_intermediate_size {moe_width:,}",
                "a multiple of moe_intermediate_size (gpuscout sizes the shared expert in routed experts)",
            )
        return width // max(1, moe_width)
    return _opt_int(cfg, "n_shared_experts")


def _sliding_window(cfg: Mapping[str, Any], model_type: str) -> int | None:
    if model_type in _LLAMA4:
        # chunked attention: a layer keeps (and reads) at most one chunk of KV, as a window of that size
        chunk = cfg.get("attention_chunk_size")
        return None if chunk is None else _check_int("attention_chunk_size", chunk, least=1, most=MAX_TOKENS)
    window = cfg.get("sliding_window")
    if window is None:
        return None
    if model_type in {"qwen2", "qwen3", "qwen3_moe", "qwen2_moe"} and not cfg.get(
        "use_sliding_window", False
    ):
        return None  # Qwen configs keep a value but disable it
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise InvalidInputError("sliding_window", f"must be a positive integer or null, got {window!r}")
    return _check_int("sliding_window", window, least=1, most=MAX_TOKENS)


def _text_config(raw: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    model_type = raw.get("model_type")
    if not isinstance(model_type, str):
        raise InvalidInputError("model_type", "missing from config.json", ", ".join(SUPPORTED_MODEL_TYPES))
    cfg = dict(raw)
    text = raw.get("text_config")
    if isinstance(text, Mapping):
        # multimodal wrappers (Gemma 3...): the language model lives under text_config
        cfg = {**{k: v for k, v in raw.items() if k != "text_config"}, **text}
        # Kimi K2.5's text model is Kimi K2's (model_type kimi_k2 or deepseek_v3): the wrapper names the
        # model, whose first releases differ from K2's
        if model_type != "kimi_k25":
            model_type = str(text.get("model_type") or model_type)
    if model_type not in SUPPORTED_MODEL_TYPES:
        from gpuscout.knowledge.unmodelled import unmodelled_type

        family = unmodelled_type(model_type)
        why = f": {family.reason()}" if family else ""
        raise InvalidInputError(
            "model_type",
            f"architecture {model_type!r} is not supported{why}",
            ", ".join(SUPPORTED_MODEL_TYPES),
        )
    return cfg, model_type


#: RoPE scaling types that stretch the trained window by ``factor`` (transformers' "yarn" (YaRN),
#: "linear" (position interpolation) and "dynamic" (dynamic NTK)): a config that states the unscaled
#: window in ``max_position_embeddings`` serves ``factor`` x that many tokens.
_STRETCHING_ROPE = frozenset({"yarn", "linear", "dynamic"})
#: Types whose config states the extended window in ``max_position_embeddings`` already: "llama3"
#: (Llama 3.1+: 131,072 with factor 8 over an original 8,192) and Phi-3's "longrope" (old name "su").
_WINDOW_STATED_ROPE = frozenset({"llama3", "longrope", "su"})
#: Model types whose ``max_position_embeddings`` is the scaled window whatever the rope type: Gemma 3's
#: linear factor 8 applies to its global layers of a 131,072-token model (vLLM skips the factor for it
#: too).
_WINDOW_STATED_MODELS = frozenset({"gemma3", "gemma3_text"})


class ContextWindow(NamedTuple):
    """The tokens a config's model serves (``tokens``, 0: unknown) and how that figure was read
    (``note``: "" when it is ``max_position_embeddings`` with no RoPE scaling to weigh)."""

    tokens: int
    note: str


class ParsedConfig(NamedTuple):
    """A ``config.json``'s model and its context window as read once (:func:`parse_hf_config`)."""

    spec: ModelSpec
    window: ContextWindow  # the spec's ``max_position_embeddings`` and how that figure was read


def _rope_scaling(cfg: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The config's RoPE scaling block: ``rope_scaling``, else transformers 5's ``rope_parameters``
    (per layer kind in Gemma 3: the full-attention layers' one sets the window)."""
    rope = cfg.get("rope_scaling")
    if rope is None:
        rope = cfg.get("rope_parameters")
        if isinstance(rope, Mapping) and not ({"rope_type", "type"} & rope.keys()):
            rope = rope.get("full_attention")
    if rope is None:
        return None
    if not isinstance(rope, Mapping):
        raise InvalidInputError("rope_scaling", f"must be a JSON object or null, got {rope!r}")
    return rope


#: The family of an imported Llama config with Llama 3.1's rope scaling.
LLAMA3_ROPE_FAMILY = "llama (rope_type llama3)"
#: Families only an import has (no row of the model table), which the architecture rules may name.
IMPORTED_FAMILIES = (LLAMA3_ROPE_FAMILY,)


def _family(cfg: Mapping[str, Any], model_type: str) -> str:
    """The imported model's family, as the architecture rules name it: its ``model_type``, except a Llama
    config with Llama 3.1's rope scaling ("llama (rope_type llama3)"), which releases before that scaling
    refuse (``knowledge/data/architecture_support.csv``) whatever the model's name."""
    rope = _rope_scaling(cfg)
    kind = str(rope.get("rope_type") or rope.get("type") or "").lower() if rope is not None else ""
    if model_type == "llama" and kind == "llama3":
        return LLAMA3_ROPE_FAMILY
    if model_type in _LLAMA4:
        return "llama4"  # the wrapper's model_type and its text model's: one architecture
    if model_type == "gemma3_text":
        return "gemma3"  # Gemma 3's text model (the 1B, a multimodal config's text_config): one architecture
    if model_type in {"qwen3_5_text", "qwen3_5_moe_text"}:
        return model_type.removesuffix("_text")  # Qwen3.5's language model: the wrapper's architecture
    return model_type


def _rope_factor(rope: Mapping[str, Any], kind: str) -> float:
    factor = rope.get("factor")
    if factor is None:
        raise InvalidInputError(
            "rope_scaling", f"a {kind} rope_scaling has no factor", "factor: a number >= 1"
        )
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not math.isfinite(factor):
        raise InvalidInputError("rope_scaling", f"factor must be a number, got {factor!r}", ">= 1")
    if factor <= 0:
        raise InvalidInputError("rope_scaling", f"factor must be positive, got {factor!r}", ">= 1")
    return float(factor)


def _window_from(cfg: Mapping[str, Any], model_type: str) -> ContextWindow:
    stated = _opt_int(cfg, "max_position_embeddings", "n_positions", "max_seq_len")
    rope = _rope_scaling(cfg)
    if rope is None:
        return ContextWindow(stated, "")
    kind = str(rope.get("rope_type") or rope.get("type") or "default").lower()
    if kind == "default":
        return ContextWindow(stated, "")
    said = f"max_position_embeddings {stated:,}"
    original = _opt_int(rope, "original_max_position_embeddings") or _opt_int(
        cfg, "original_max_position_embeddings"
    )
    if kind in _WINDOW_STATED_ROPE or model_type in _WINDOW_STATED_MODELS:
        over = [f"factor {rope['factor']:g}"] if isinstance(rope.get("factor"), int | float) else []
        over += [f"original {original:,}"] if original else []
        how = f"rope_type {kind}" + (f" ({', '.join(over)})" if over else "")
        if kind not in _WINDOW_STATED_ROPE:
            how += f" of model_type {model_type}"
        return ContextWindow(stated, f"context window {said} as stated: with {how} it is the scaled window")
    if kind not in _STRETCHING_ROPE:
        return ContextWindow(stated, f"context window {said} as stated (rope_scaling type {kind!r} not read)")
    factor = _rope_factor(rope, kind)
    base = original or stated
    if not base:
        return ContextWindow(0, "")
    if original and stated > original:
        return ContextWindow(
            stated,
            f"context window {said} as stated: it exceeds original_max_position_embeddings {original:,}, "
            f"so it is the {kind}-scaled window already (factor {factor:g})",
        )
    if factor <= 1:
        return ContextWindow(
            stated, f"context window {said}: rope_scaling {kind} factor {factor:g} does not extend it"
        )
    if not factor * base <= MAX_TOKENS:  # a float: a factor of 1e308 makes it infinite
        raise InvalidInputError(
            "rope_scaling",
            f"factor {factor:g} x {base:,} tokens makes a window of {factor * base:,.0f} tokens",
            f"a window of at most {MAX_TOKENS:,} tokens; no published model serves more",
        )
    tokens = int(factor * base)
    of = f"original_max_position_embeddings {original:,}" if original else said
    unscaled = (
        f", max_position_embeddings {stated:,} being the unscaled window" if original and stated else ""
    )
    return ContextWindow(
        tokens, f"context window {tokens:,} tokens: rope_scaling {kind} factor {factor:g} x {of}{unscaled}"
    )


def context_window(config: Mapping[str, Any]) -> ContextWindow:
    """The context window of a parsed ``config.json``'s model, RoPE scaling weighed.

    For "yarn", "linear" and "dynamic" scaling a config that states the unscaled window
    (``max_position_embeddings`` equal to ``original_max_position_embeddings``, or no original given)
    serves ``factor`` x the original (a Qwen config of 32,768 with YaRN factor 4: 131,072); one whose
    ``max_position_embeddings`` already exceeds the original states the scaled window (DeepSeek-V3:
    163,840 = 40 x 4,096; gpt-oss: 131,072 = 32 x 4,096), kept as stated. "llama3" and "longrope"
    configs (and Gemma 3's) state the scaled window already (Llama 3.1: 131,072).
    """
    cfg, model_type = _text_config(config)
    return _window_from(cfg, model_type)


def _spec_from_dict(raw: Mapping[str, Any], name: str | None, source: str) -> ParsedConfig:
    cfg, model_type = _text_config(raw)
    _check_finite(raw, "")
    _check_positive_number(cfg, "rope_theta")
    falcon = model_type in {"falcon", "RefinedWeb", "RefinedWebModel"}
    layers = _required_int(cfg, "num_hidden_layers", "n_layer", "num_layers", most=MAX_LAYERS)
    hidden = _required_int(cfg, "hidden_size", "n_embd", "d_model", most=MAX_HIDDEN_SIZE)
    heads = _required_int(cfg, "num_attention_heads", "n_head", most=MAX_HEADS)
    if falcon:
        kv_field = _named(cfg, ("num_kv_heads", "n_head_kv"))
        kv_heads = _first(cfg, "num_kv_heads", "n_head_kv")
        if kv_heads is None:
            kv_heads = 1 if cfg.get("multi_query", True) else heads
    else:
        kv_field = "num_key_value_heads"
        kv_heads = _first(cfg, "num_key_value_heads") or heads
    mla = bool(cfg.get("kv_lora_rank"))  # MLA heads are sized by qk_*_head_dim, not hidden / heads
    kv_heads, head_dim = _attention_heads(cfg, hidden, heads, kv_heads, kv_field, mla)
    if "vocab_size" in cfg and cfg["vocab_size"] is not None:
        vocab = _required_int(cfg, "vocab_size", most=MAX_VOCAB)
    elif model_type in _DEFAULT_VOCAB:
        vocab = _DEFAULT_VOCAB[model_type]
    else:
        raise InvalidInputError("vocab_size", "missing from config.json")
    if falcon:
        intermediate = _opt_int(cfg, "ffn_hidden_size", most=MAX_INTERMEDIATE_SIZE) or 4 * hidden
    elif model_type in _LLAMA4:
        intermediate = _required_int(cfg, "intermediate_size_mlp", most=MAX_INTERMEDIATE_SIZE)
    elif model_type in {"qwen3_5_moe", "qwen3_5_moe_text"}:  # experts on every layer: no dense width
        intermediate = _opt_int(cfg, "intermediate_size", most=MAX_INTERMEDIATE_SIZE)
    else:
        intermediate = _required_int(cfg, "intermediate_size", most=MAX_INTERMEDIATE_SIZE)
    window = _window_from(cfg, model_type)
    tie = cfg.get("tie_word_embeddings")
    if tie is None:
        tie = model_type in _TIED_BY_DEFAULT
    sliding = _sliding_window(cfg, model_type)

    num_experts = _opt_int(cfg, "num_local_experts", "n_routed_experts", "num_experts", most=MAX_EXPERTS)
    experts_per_token = (
        _opt_int(
            cfg,
            "num_experts_per_tok",
            "experts_per_token",
            most=num_experts,
            why="at most the number of experts",
        )
        if num_experts
        else 0
    )
    moe_width = 0
    if num_experts:
        if not experts_per_token:
            raise InvalidInputError("num_experts_per_tok", "missing from an MoE config.json")
        moe_width = _opt_int(cfg, "moe_intermediate_size", most=MAX_INTERMEDIATE_SIZE)
        if not moe_width and model_type in _OWN_EXPERT_WIDTH:
            # these size their experts by moe_intermediate_size alone (Qwen3-30B-A3B: 768, against an
            # intermediate_size of 6144 that no layer of it uses): the dense width would be 8x too large
            raise InvalidInputError(
                "moe_intermediate_size",
                f"missing from a {model_type} config.json, which sizes its experts by it",
                "the experts' FFN width (Qwen3-30B-A3B: 768)",
            )
        if model_type in _LLAMA4:
            moe_width = _required_int(cfg, "intermediate_size", most=MAX_INTERMEDIATE_SIZE)
        moe_width = moe_width or intermediate  # Mixtral-style configs: the experts are the FFN
    moe_step = _moe_layer_step(cfg, model_type, layers) if num_experts else 1
    first_dense = _opt_int(cfg, "first_k_dense_replace") if num_experts else 0

    if model_type == "qwen2" or (model_type == "glm4_moe" and cfg.get("attention_bias")):
        attention_bias = "qkv"  # GLM-4.5: q, k, v biased by attention_bias, o_proj never (Glm4MoeAttention)
    elif cfg.get("attention_bias") or (falcon and cfg.get("bias")):
        attention_bias = "all"
    else:
        attention_bias = "none"
    gpt_oss = model_type == "gpt_oss"
    if model_type in {"gemma2", "gemma3", "gemma3_text"}:
        norms_per_layer = 4
    elif falcon and not (cfg.get("new_decoder_architecture") or model_type == "RefinedWeb"):
        norms_per_layer = 1 if cfg.get("parallel_attn", True) else 2
    else:
        norms_per_layer = 2
    kv_lora = _opt_int(cfg, "kv_lora_rank", most=MAX_HIDDEN_SIZE)
    if kv_lora:
        head_dim = _opt_int(cfg, "qk_nope_head_dim", most=MAX_HEAD_DIM) + _opt_int(
            cfg, "qk_rope_head_dim", most=MAX_HEAD_DIM
        )
    hf_id = str(cfg.get("_name_or_path") or "")
    spec_name = name or (hf_id.rsplit("/", 1)[-1].lower() if hf_id else f"imported-{model_type}")
    spec = ModelSpec(
        name=spec_name,
        hf_id=hf_id,
        family=_family(cfg, model_type),
        kind="llm",
        num_hidden_layers=layers,
        hidden_size=hidden,
        intermediate_size=intermediate,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim,
        vocab_size=vocab,
        max_position_embeddings=window.tokens,
        tie_word_embeddings=bool(tie),
        sliding_window=sliding,
        layer_types=_layer_types(cfg, model_type, layers, sliding),
        chunked_attention=sliding is not None and model_type in _LLAMA4,
        num_experts=num_experts,
        experts_per_token=experts_per_token,
        moe_intermediate_size=moe_width,
        shared_experts=_shared_experts(cfg, model_type, moe_width) if num_experts else 0,
        first_dense_layers=first_dense,
        moe_layer_step=moe_step,
        kv_lora_rank=kv_lora,
        q_lora_rank=_opt_int(cfg, "q_lora_rank"),
        qk_rope_head_dim=_opt_int(cfg, "qk_rope_head_dim") if kv_lora else 0,
        qk_nope_head_dim=_opt_int(cfg, "qk_nope_head_dim") if kv_lora else 0,
        v_head_dim=_opt_int(cfg, "v_head_dim") if kv_lora else 0,
        index_topk=_opt_int(cfg, "index_topk"),
        index_n_heads=_opt_int(cfg, "index_n_heads"),
        index_head_dim=_opt_int(cfg, "index_head_dim"),
        **_linear_attention_fields(cfg, model_type),
        torch_dtype=str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16"),
        source=source,
        notes="; ".join(
            filter(
                None,
                (
                    f"imported from config.json (model_type {model_type})",
                    window.note,
                    quantization_note(raw.get("quantization_config") or cfg.get("quantization_config")),
                ),
            )
        ),
        mlp_type="plain" if falcon else "gated",
        norm_type="layernorm" if falcon else "rmsnorm",
        norms_per_layer=norms_per_layer,
        attention_bias=attention_bias,
        qk_norm=model_type in _QK_NORM or (model_type == "glm4_moe" and bool(cfg.get("use_qk_norm"))),
        mlp_bias=gpt_oss or bool(cfg.get("mlp_bias")) or bool(falcon and cfg.get("bias")),
        router_bias=gpt_oss,
        attention_sinks=gpt_oss,
        fused_experts=fused_experts(_family(cfg, model_type)) if num_experts else LINEAR,
        mtp_layers=_opt_int(cfg, "num_nextn_predict_layers"),
        imported=True,
        native_precision=_native_for(
            native_precision(raw.get("quantization_config") or cfg.get("quantization_config")), num_experts
        ),
    )
    _check_size(spec)
    return ParsedConfig(spec, window)


def _linear_attention_fields(cfg: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    """The Gated DeltaNet fields of a Qwen3-Next / Qwen3.5 config (none for other model types): the linear
    heads and their widths, the convolution's taps, the recurrent state's dtype where the config names one
    (``mamba_ssm_dtype``), and the gated attention's wider q_proj."""
    if model_type not in _GATED_DELTANET:
        return {}
    state = str(cfg.get("mamba_ssm_dtype") or "").lower()
    return {
        "linear_num_key_heads": _required_int(cfg, "linear_num_key_heads", most=MAX_HEADS),
        "linear_num_value_heads": _required_int(cfg, "linear_num_value_heads", most=MAX_HEADS),
        "linear_key_head_dim": _required_int(cfg, "linear_key_head_dim", most=MAX_HEAD_DIM),
        "linear_value_head_dim": _required_int(cfg, "linear_value_head_dim", most=MAX_HEAD_DIM),
        "linear_conv_kernel_dim": _required_int(cfg, "linear_conv_kernel_dim", most=64),
        "linear_state_dtype": "fp32" if state in {"float32", "fp32"} else "",
        # transformers builds the gate unconditionally; Qwen3.5's configs state it (attn_output_gate true)
        "attention_output_gate": bool(cfg.get("attn_output_gate", True)),
    }


def _native_for(native: str, num_experts: int) -> str:
    """An experts-only format read from a config with no experts is the whole model's (int4, mxfp4)."""
    return EXPERTS_ONLY_BASE.get(native, native) if not num_experts else native


def _check_size(spec: ModelSpec) -> None:
    """Refuse a config whose fields are each within bounds but whose model is larger than any published
    (:data:`MAX_TOTAL_PARAMS`), naming the fields that make it so."""
    from gpuscout.knowledge.params import count_params

    total = count_params(spec).total
    if total > MAX_TOTAL_PARAMS:
        raise InvalidInputError(
            "config",
            f"describes a model of {total / 1e12:,.1f} trillion parameters (num_hidden_layers "
            f"{spec.num_hidden_layers}, hidden_size {spec.hidden_size:,}, intermediate_size "
            f"{spec.intermediate_size:,}, {spec.num_experts} experts)",
            f"at most {MAX_TOTAL_PARAMS // 10**12} trillion parameters; no published model has more",
        )


def native_precision(quantization_config: object) -> str:
    """The format a checkpoint ships in, from its ``quantization_config`` ("" = 16-bit / unknown).

    "fp8-block" for ``quant_method: fp8`` with a ``weight_block_size`` (DeepSeek-V3/R1, Qwen3 FP8: one
    scale per 128x128 block), "fp8" for per-tensor / per-channel FP8 (compressed-tensors, ModelOpt);
    "fp8-ffn" for ``fbgemm_fp8`` that leaves ``self_attn`` unconverted (Meta's Llama 3.1 FP8);
    "mxfp4-moe" when MXFP4 leaves attention and the router unconverted (gpt-oss), "mxfp4" otherwise;
    "int4-moe" for a compressed-tensors int4 scheme that ignores the attention (Kimi-K2-Thinking's int4
    experts; the spec makes it "int4" for a model without experts);
    AWQ/GPTQ 4-bit -> "int4", 8-bit GPTQ -> "int8"; bitsandbytes 4-bit -> "nf4".
    """
    if not isinstance(quantization_config, Mapping):
        return ""
    method = str(quantization_config.get("quant_method") or "").lower()
    bits = quantization_config.get("bits")
    if method == "fbgemm_fp8":
        # Meta's Llama 3.1 FP8 checkpoints: row-wise FP8 MLPs, self-attention left in bf16
        skipped = " ".join(str(m) for m in quantization_config.get("modules_to_not_convert") or [])
        return "fp8-ffn" if "self_attn" in skipped else "fp8"
    if method == "fp8":
        return "fp8-block" if quantization_config.get("weight_block_size") else "fp8"
    if method == "mxfp4":
        skipped = " ".join(str(m) for m in quantization_config.get("modules_to_not_convert") or [])
        return "mxfp4-moe" if "self_attn" in skipped else "mxfp4"
    if method in ("awq", "gptq"):
        return "int8" if bits == 8 else "int4"
    if method == "bitsandbytes":
        return "nf4" if quantization_config.get("load_in_4bit") else "int8"
    if method in ("compressed-tensors", "modelopt"):
        text = str(quantization_config).lower()
        if "nvfp4" in text or "fp4" in text:
            return "nvfp4"
        algo = str(quantization_config.get("quant_algo") or "").upper()  # ModelOpt's scheme name
        if "W4A16" in algo or "INT4" in algo:
            return "int4"
        if "W8A8" in algo or "INT8" in algo:
            return "w8a8"
        found = _compressed_tensors_int(quantization_config)
        ignored = " ".join(str(m) for m in quantization_config.get("ignore") or [])
        if found == "int4" and "self_attn" in ignored:
            return "int4-moe"  # int4 experts, attention left in bf16 (Kimi-K2-Thinking); a dense model: int4
        if found:
            return found
        if "fp8" in text or "float" in text:
            return "fp8"
    return ""


def _compressed_tensors_int(quantization_config: Mapping[str, Any]) -> str:
    """An integer compressed-tensors scheme, from its ``config_groups``' ``weights`` (and
    ``input_activations``): 4-bit int weights -> "int4" (W4A16, llm-compressor's "pack-quantized"),
    8-bit int weights with 8-bit int activations -> "w8a8", without -> "int8" (W8A16); "" for float
    weights (FP8 / FP4, read by the caller) or no group that says."""
    groups = quantization_config.get("config_groups")
    if not isinstance(groups, Mapping):
        return ""
    for group in groups.values():
        weights = group.get("weights") if isinstance(group, Mapping) else None
        if not isinstance(weights, Mapping) or str(weights.get("type") or "").lower() != "int":
            continue
        bits = weights.get("num_bits")
        acts = group.get("input_activations")
        int_acts = isinstance(acts, Mapping) and str(acts.get("type") or "").lower() == "int"
        if bits == 4:
            return "int4"
        if bits == 8:
            return "w8a8" if int_acts and acts.get("num_bits") == 8 else "int8"
    return ""


#: The ``quant_method`` values :func:`native_precision` reads (the rest are sized as 16-bit, said so).
READ_QUANT_METHODS = (
    "awq",
    "gptq",
    "fp8",
    "fbgemm_fp8",
    "mxfp4",
    "bitsandbytes",
    "compressed-tensors",
    "modelopt",
)


def quantization_note_in(notes: str) -> str:
    """The :func:`quantization_note` a spec's ``notes`` end with (the parser puts it last), "" where none."""
    at = notes.find("quantization_config (")
    return notes[at:] if at >= 0 else ""


def quantization_note(quantization_config: object) -> str:
    """What an import says of a ``quantization_config`` whose format it does not read ("" where it reads
    it, or where there is none): the checkpoint is then sized as 16-bit weights, too large."""
    if not isinstance(quantization_config, Mapping) or native_precision(quantization_config):
        return ""
    method = str(quantization_config.get("quant_method") or "?")
    what = (
        f"quantization_config (quant_method {method!r}) holds a scheme gpuscout does not read (it reads "
        "4- and 8-bit integer and FP8 / FP4 ones)"
        if method.lower() in READ_QUANT_METHODS
        else f"quantization_config (quant_method {method!r}) is not a format gpuscout reads "
        f"({', '.join(READ_QUANT_METHODS)})"
    )
    return (
        f"{what}: sized as 16-bit weights, larger than the checkpoint; name the format with --precision "
        "where it is one gpuscout knows (int4, int8, fp8, nvfp4)"
    )


def parse_hf_config(
    config: Mapping[str, Any], *, name: str | None = None, source: str = "config.json (dict)"
) -> ParsedConfig:
    """:func:`spec_from_hf_config`'s spec with the context window it took (for a caller that words its
    own notes: an imported model's say where it came from)."""
    if not isinstance(config, Mapping):
        raise InvalidInputError("config", f"expected a JSON object, got {type(config).__name__}")
    return _spec_from_dict(config, name, source)


def spec_from_hf_config(
    config: Mapping[str, Any], *, name: str | None = None, source: str = "config.json (dict)"
) -> ModelSpec:
    """Build a ``ModelSpec`` from a parsed Hugging Face ``config.json`` (pure: no file or network).

    ``name`` defaults to the config's ``_name_or_path`` (its last part, lower case), else
    ``imported-<model_type>``. Reading a file or the Hub is :mod:`gpuscout.loaders`' job.
    """
    return parse_hf_config(config, name=name, source=source).spec
