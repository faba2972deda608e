"""The model registry and the model name resolver.

The registry (``data/models.csv``) is curated from the shared reference table; each row keeps its
source and notes, and says where its official parameter totals come from.

``resolve_model`` accepts canonical names ("llama-3.1-8b"), Hugging Face ids (any case), and the names
people and benchmark tables write ("Llama 3 8B", "Meta-Llama-3-8B", "Llama 3.1 8B Instruct"):
instruct/chat/base/hf/it suffixes and the "Meta-" prefix are ignored because they name checkpoints of
one architecture. A few historical names map onto an identical architecture with a note (see
``_NOTED_ALIASES``): the original LLaMA-7B/13B have exactly Llama-2-7B/13B's shapes.
A parenthesised name wins when it is itself a model ("LLaMA 7B (codellama-7b)" -> codellama-7b).

One exception to "suffixes name checkpoints of one architecture": a checkpoint whose config.json states
another context window than the row's (``CHECKPOINT_WINDOWS``: Qwen2.5's -Instruct repos say 32,768
where the base repos of 1.5B and 7B-72B say 131,072) resolves to its own entry, the row's architecture
under the checkpoint's name ("qwen2.5-7b-instruct") with that window, so that a context past it is
refused, or, where the model card documents YaRN, accepted up to the scaled window with a warning
(``ModelSpec.native_context``).
"""

from __future__ import annotations

import csv
import functools
import io
import re
from dataclasses import dataclass, replace
from importlib import resources

from gpuscout.errors import UnknownNameError, closest, fold_name
from gpuscout.knowledge.fused_experts import fused_experts
from gpuscout.knowledge.model_types import ModelSpec, local_then_full

__all__ = [
    "CHECKPOINT_WINDOWS",
    "CheckpointWindow",
    "ModelResolution",
    "all_models",
    "model_names",
    "resolve_model",
    "resolve_model_detail",
]

_DATA_FILE = "models.csv"
_NOISE = frozenset({"meta", "instruct", "chat", "hf", "base", "it", "pt", "model"})

# compact key -> (canonical name, note). Names that mean an identical architecture under another name.
_NOTED_ALIASES: dict[str, tuple[str, str]] = {
    "llama7b": (
        "llama-2-7b",
        "original LLaMA-7B (2023) has Llama-2-7B's architecture (4096 hidden, 32 layers, MHA, vocab 32000); "
        "only its trained context differs (2048)",
    ),
    "llama13b": (
        "llama-2-13b",
        "original LLaMA-13B has Llama-2-13B's architecture; only its trained context differs (2048)",
    ),
    "llama70b": (
        "llama-2-70b",
        "there is no original LLaMA-70B (LLaMA-1 stops at 65B); "
        "'LLaMA 70B' in benchmark tables is Llama-2-70B",
    ),
    "mistral7b": (
        "mistral-7b-v0.3",
        "'Mistral 7B' without a version taken as v0.3 (v0.1 has vocab 32000 and a 4096 sliding window)",
    ),
    "mistral7bv0.2": (
        "mistral-7b-v0.3",
        "Mistral 7B v0.2 has v0.3's shape (no sliding window, 32k context) with 768 fewer vocabulary "
        "entries (32000): 6M parameters less",
    ),
    "deepseekr1": ("deepseek-v3", "DeepSeek-R1 is a fine-tune of DeepSeek-V3: same architecture"),
    "deepseekr10528": ("deepseek-v3", "DeepSeek-R1-0528 is a fine-tune of DeepSeek-V3: same architecture"),
    # stop 67: further-trained checkpoints renters name, each the named row's config.json shape (recalled
    # from the Hugging Face repos, not re-read in this session)
    "deepseekv3.1": (
        "deepseek-v3",
        "DeepSeek-V3.1 is DeepSeek-V3 further trained: same architecture and window (163,840), FP8 weights",
    ),
    "deepseekv3.1terminus": (
        "deepseek-v3",
        "DeepSeek-V3.1-Terminus is an update of DeepSeek-V3.1: DeepSeek-V3's architecture, FP8 weights",
    ),
    "deepseekr1distillllama8b": (
        "llama-3.1-8b",
        "DeepSeek-R1-Distill-Llama-8B is Llama-3.1-8B fine-tuned on R1's outputs: same architecture",
    ),
    "deepseekr1distillqwen7b": (
        "qwen2.5-7b",
        "DeepSeek-R1-Distill-Qwen-7B is Qwen2.5-Math-7B fine-tuned on R1's outputs: Qwen2.5-7B's shape",
    ),
    "deepseekr1distillqwen14b": (
        "qwen2.5-14b",
        "DeepSeek-R1-Distill-Qwen-14B is Qwen2.5-14B fine-tuned on R1's outputs: same architecture",
    ),
    # stop 69: later releases with their row's architecture and window, read in their config.json copies
    # in the aiconfigurator-core 0.12.0 wheel (PyPI)
    "minimaxm2.5": (
        "minimax-m2",
        "MiniMax-M2.5 has MiniMax-M2's architecture and window (its config.json, as copied in the "
        "aiconfigurator-core 0.12.0 wheel)",
    ),
    "glm5.1": (
        "glm-5",
        "GLM-5.1 has GLM-5's architecture and window (its config.json, as copied in the aiconfigurator-core "
        "0.12.0 wheel)",
    ),
    # stop 69: Qwen3.6's sizes as NVIDIA's NVFP4 checkpoints state them (nvidia/Qwen3.6-27B-NVFP4 and
    # -35B-A3B-NVFP4 config.json, copied in the aiconfigurator-core 0.12.0 wheel): Qwen3.5's, layer for layer
    "qwen3.627b": (
        "qwen3.5-27b",
        "Qwen3.6-27B has Qwen3.5-27B's architecture (64 layers of 5120, 48 of them Gated DeltaNet, the same "
        "heads and vocabulary: the config.json of NVIDIA's NVFP4 checkpoint of it; its own not read)",
    ),
    "qwen3.635ba3b": (
        "qwen3.5-35b-a3b",
        "Qwen3.6-35B-A3B has Qwen3.5-35B-A3B's architecture (40 layers, 256 experts of 512, 8 per token: the "
        "config.json of NVIDIA's NVFP4 checkpoint of it; its own not read)",
    ),
    "llama3.1nemotron70b": (
        "llama-3.1-70b",
        "Llama-3.1-Nemotron-70B-Instruct is NVIDIA's fine-tune of Llama-3.1-70B-Instruct: same architecture",
    ),
}


@dataclass(frozen=True, slots=True)
class CheckpointWindow:
    """A checkpoint of a registry row (same architecture) whose config.json states another context window
    than the row's. ``window``: its config.json ``max_position_embeddings``; ``yarn_factor``: the static
    YaRN factor its model card documents for longer contexts (0: none documented: ``window`` is the
    limit); ``source``: where both figures come from."""

    checkpoint: str  # the Hugging Face id
    model: str  # the registry row it shares the architecture with
    window: int
    yarn_factor: float
    source: str

    @property
    def name(self) -> str:
        """Its entry's name: the id's repo part, lower case ("qwen2.5-7b-instruct")."""
        return self.checkpoint.rsplit("/", 1)[-1].lower()

    @property
    def scaled_window(self) -> int:
        """The window with the documented YaRN scaling (``window`` where none is documented)."""
        return int(self.window * self.yarn_factor) if self.yarn_factor else self.window


_QWEN25_BENCH = (
    "QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst @a912d239c2d0 (benchmarks/data/"
    "measurements.csv) runs {} to {} tokens"
)


def _qwen25_instruct(size: str, row_window: int) -> CheckpointWindow:
    """Qwen2.5-{size}-Instruct (7B-72B): config.json max_position_embeddings 32,768 (its base repo:
    ``row_window``), the model card's YaRN factor 4 to 131,072."""
    return CheckpointWindow(
        f"Qwen/Qwen2.5-{size}-Instruct",
        f"qwen2.5-{size.lower()}",
        32_768,
        4.0,
        f"config.json of Qwen/Qwen2.5-{size}-Instruct: max_position_embeddings 32768, no rope_scaling "
        f"(the base repo's: {row_window}); model card 'Processing Long Texts': context length 'Full "
        "131,072 tokens' with rope_scaling {factor 4.0, original_max_position_embeddings 32768, type "
        "yarn} added to config.json, and 'vLLM only supports static YARN, which means the scaling factor "
        "remains constant regardless of input length, potentially impacting performance on shorter "
        "texts' (both recalled from the Hugging Face repo, not re-read in this session; the 7B config "
        "also quoted by GenZ-LLM-Analyzer GenZ/Models/Model_sets/alibaba.py @091bdd0a2777); "
        + _QWEN25_BENCH.format(f"Qwen2.5-{size}-Instruct", "131,072"),
    )


def _qwen25_coder(size: str, row_window: int) -> CheckpointWindow:
    """Qwen2.5-Coder-{size}-Instruct: Qwen2.5-{size}'s architecture, config.json max_position_embeddings
    32,768 (the base repo's: ``row_window``), the model card's YaRN factor 4 to 131,072 (as the Instruct
    repos of Qwen2.5)."""
    return CheckpointWindow(
        f"Qwen/Qwen2.5-Coder-{size}-Instruct",
        f"qwen2.5-{size.lower()}",
        32_768,
        4.0,
        f"config.json of Qwen/Qwen2.5-Coder-{size}-Instruct: Qwen2.5-{size}'s layers, heads and vocabulary, "
        f"max_position_embeddings 32768 (the base repo of Qwen2.5-{size}: {row_window}); model card "
        "'Processing Long Texts': 'Context Length: Full 131,072 tokens' with rope_scaling {factor 4.0, "
        "original_max_position_embeddings 32768, type yarn} (both recalled from the Hugging Face repo, not "
        "re-read in this session)",
    )


def _qwen3_2507(size: str, mode: str) -> CheckpointWindow:
    """Qwen3-{size}-{mode}-2507, the July 2025 update of Qwen3-{size}: the row's architecture (layers,
    heads, experts and their sizes unchanged), config.json max_position_embeddings 262,144 where the row's
    says 40,960; no YaRN factor (the model card's 1M-token extension is Dual Chunk Attention with sparse
    attention and its own config, which gpuscout does not model)."""
    return CheckpointWindow(
        f"Qwen/Qwen3-{size}-{mode}-2507",
        f"qwen3-{size.lower()}",
        262_144,
        0.0,
        f"config.json of Qwen/Qwen3-{size}-{mode}-2507: max_position_embeddings 262144, the layer, head and "
        f"expert counts of Qwen/Qwen3-{size}; model card: 'Context Length: 262,144 natively' (both recalled "
        "from the Hugging Face repo, not re-read in this session)",
    )


def _mistral_small_3(kind: str) -> CheckpointWindow:
    """Mistral Small 3 (January 2025, "2501"): Mistral Small 3.1's language model (the row describes 3.1,
    whose text layers are 3's) with a 32,768-token window, text only."""
    return CheckpointWindow(
        f"mistralai/Mistral-Small-24B-{kind}-2501",
        "mistral-small-3.1-24b",
        32_768,
        0.0,
        f"config.json of mistralai/Mistral-Small-24B-{kind}-2501 (MistralForCausalLM): the layer, head and "
        "vocabulary sizes of Mistral Small 3.1's language model, max_position_embeddings 32768, rope_theta "
        "1e8; Mistral AI's announcement (https://mistral.ai/news/mistral-small-3): 'a 32k context window' "
        "(both recalled, not re-read in this session; 3.1's announcement gives 'up to 128k tokens')",
    )


def _aic_window(checkpoint: str, model: str, window: int, shape: str) -> CheckpointWindow:
    """A later release of ``model``'s architecture whose config.json (copied in the aiconfigurator-core 0.12.0
    wheel) states a longer ``window``; no YaRN factor beyond it."""
    org, repo = checkpoint.split("/")
    return CheckpointWindow(
        checkpoint,
        model,
        window,
        0.0,
        f"config.json of {checkpoint} as copied in the aiconfigurator-core 0.12.0 wheel (PyPI; "
        f"aiconfigurator_core/model_configs/{org}--{repo}_config.json): {shape} layers, heads, experts and "
        f"vocabulary, max_position_embeddings {window}",
    )


#: Checkpoints whose config.json window differs from their registry row's (the rows describe the base
#: repos). Qwen2.5-0.5B/3B-Instruct state their base's 32,768 and need no entry; Llama 3.x, Mistral,
#: Mixtral, Gemma, Falcon, MPT, Nemotron and Qwen1/1.5 instruct/chat checkpoints state their base's
#: window too.
CHECKPOINT_WINDOWS: tuple[CheckpointWindow, ...] = (
    CheckpointWindow(
        "Qwen/Qwen2.5-1.5B-Instruct",
        "qwen2.5-1.5b",
        32_768,
        0.0,  # the 0.5B-3B model cards document no YaRN extension
        "config.json of Qwen/Qwen2.5-1.5B-Instruct: max_position_embeddings 32768 (the base repo's: "
        "131072); model card: 'Context Length: Full 32,768 tokens and generation 8192 tokens', no YaRN "
        "section (both recalled from the Hugging Face repo, not re-read in this session); "
        + _QWEN25_BENCH.format("Qwen2.5-0.5B/1.5B/3B-Instruct", "32,768 (max_model_len=32768)"),
    ),
    _qwen25_instruct("7B", 131_072),
    _qwen25_instruct("14B", 131_072),
    _qwen25_instruct("32B", 131_072),
    _qwen25_instruct("72B", 131_072),
    *(_qwen3_2507("30B-A3B", mode) for mode in ("Instruct", "Thinking")),
    *(_qwen3_2507("235B-A22B", mode) for mode in ("Instruct", "Thinking")),
    CheckpointWindow(
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "qwen3-30b-a3b",
        262_144,
        0.0,  # the card's extension to 1M tokens is not taken: the 262,144 it serves natively is the limit
        "config.json of Qwen/Qwen3-Coder-30B-A3B-Instruct: max_position_embeddings 262144, the layer, head "
        "and expert counts of Qwen/Qwen3-30B-A3B; model card: 'Context Length: 262,144 natively' (both "
        "recalled from the Hugging Face repo, not re-read in this session)",
    ),
    *(_qwen25_coder(size, window) for size, window in (("7B", 131_072), ("14B", 131_072), ("32B", 131_072))),
    *(_mistral_small_3(kind) for kind in ("Instruct", "Base")),
    CheckpointWindow(
        "moonshotai/Kimi-K2-Instruct-0905",
        "kimi-k2",
        262_144,
        0.0,
        "config.json of moonshotai/Kimi-K2-Instruct-0905: Kimi K2's architecture, max_position_embeddings "
        "262144; model card: 'Extended context length: ... increased from 128k to 256k' (both recalled "
        "from the Hugging Face repo, not re-read in this session)",
    ),
    # stop 69: later releases of a row's architecture with a longer window, each read in its config.json copy
    # in the aiconfigurator-core 0.12.0 wheel (aiconfigurator_core/model_configs/<org>--<model>_config.json)
    _aic_window("MiniMaxAI/MiniMax-M2.7", "minimax-m2", 204_800, "MiniMax-M2's"),
    _aic_window("zai-org/GLM-5.2", "glm-5", 1_048_576, "GLM-5's"),
    _aic_window("zai-org/GLM-5.3", "glm-5", 1_048_576, "GLM-5's"),
)


def _checkpoint_key(name: str) -> str:
    """How checkpoint names compare: like :func:`_compact` (the Hub org dropped, case, spaces,
    underscores and dashes ignored) but keeping the words it drops ("instruct"), which tell a
    checkpoint from its base."""
    text = fold_name(name).strip().lower()
    if "/" in text:
        text = text.rsplit("/", 1)[1]
    return re.sub(r"[\s_\-]+", "", text)


@functools.cache
def _checkpoint_specs() -> dict[str, ModelSpec]:
    """Each ``CHECKPOINT_WINDOWS`` entry as a spec (its row's architecture, its own name, id and window),
    by its id's and its name's key."""
    rows = {m.name: m for m in all_models()}
    out: dict[str, ModelSpec] = {}
    for cw in CHECKPOINT_WINDOWS:
        base = rows[cw.model]
        yarn = (
            f"; past {cw.window:,} tokens it needs YaRN rope scaling (factor {cw.yarn_factor:g}) configured"
            if cw.yarn_factor
            else ""
        )
        spec = replace(
            base,
            name=cw.name,
            hf_id=cw.checkpoint,
            max_position_embeddings=cw.scaled_window,
            native_context=cw.window if cw.yarn_factor else 0,
            aliases=(),
            source=f"{base.source}; context window: {cw.source}",
            notes=(
                f"{cw.checkpoint}: {base.name}'s architecture; its config.json window is {cw.window:,} "
                f"tokens{yarn}. {base.notes}"
            ),
        )
        for label in (cw.checkpoint, cw.name):
            out[_checkpoint_key(label)] = spec
    return out


@dataclass(frozen=True, slots=True)
class ModelResolution:
    """The outcome of resolving a model name.

    ``precision`` is set when the name is a quantized checkpoint of a registry model ("Qwen3-14B-AWQ"
    -> qwen3-14b, "int4"; a GGUF repo: its Q4_K_M file assumed, said in ``note``): the architecture is
    the base model's, the weights are in that format; "" otherwise.
    """

    model: ModelSpec
    exact: bool
    note: str = ""
    precision: str = ""


# Checkpoint-name suffixes that say how the weights were quantized -> gpuscout precision name.
_QUANT_SUFFIX = re.compile(
    r"[\s_\-]+(?P<q>awq(?:[\s_\-]*int4)?|gptq[\s_\-]*int4|gptq[\s_\-]*int8|gptq|fp8(?:[\s_\-]*dynamic)?|int4|int8|"
    r"nvfp4|mxfp4|bnb[\s_\-]*4bit|4bit|gguf)$",
    re.IGNORECASE,
)
# None: the publisher's FP8 checkpoint of the model, whose scaling depends on the family
# (:func:`fp8_checkpoint_format`); "-FP8-dynamic" checkpoints (llm-compressor) scale per channel
_QUANT_PRECISION: dict[str, tuple[str | None, str]] = {
    # int4 named by its checkpoint format: engines do not load AWQ and GPTQ alike everywhere (TGI on ROCm)
    "awq": ("awq", "AWQ int4"),
    "awqint4": ("awq", "AWQ int4"),  # hugging-quants' "...-AWQ-INT4" repos
    "gptqint4": ("gptq", "GPTQ int4"),
    "gptq": ("gptq", "GPTQ int4"),
    "int4": ("int4", "int4"),
    "gptqint8": ("int8", "GPTQ int8 (weight-only)"),
    "int8": ("int8", "int8 (weight-only)"),
    "fp8": (None, "FP8"),
    "fp8dynamic": ("fp8", "FP8 dynamic (per-channel)"),
    "nvfp4": ("nvfp4", "NVFP4"),
    "mxfp4": ("mxfp4", "MXFP4"),
    "bnb4bit": ("nf4", "bitsandbytes NF4"),
    "4bit": ("nf4", "bitsandbytes NF4"),
    # a GGUF repo holds files of several quantizations (Q4_K_M, Q8_0, ...): Q4_K_M, the one most run, is
    # assumed and the note says so (and how to name another)
    "gguf": ("gguf-q4_k_m", "GGUF"),
}

# A dated checkpoint suffix ("Qwen3-30B-A3B-Instruct-2507": YYMM; "-0528": MMDD; "-20240620"). Such a name
# resolves only where the registry has its checkpoint (``CHECKPOINT_WINDOWS``: an update can change the
# window); otherwise its undated name leads the suggestions.
_DATE_SUFFIX = re.compile(r"[\s_\-]+(?:\d{4}|\d{8})$")


# Families whose publisher's FP8 checkpoints ("Qwen/Qwen3-8B-FP8") are block-scaled: the Qwen3 model cards,
# "fine-grained fp8 quantization with block size of 128" (quantization_config weight_block_size [128, 128])
_BLOCK_FP8_FAMILIES = frozenset({"qwen3", "qwen3_moe"})


# Meta's own FP8 checkpoints of Llama 3.x ("meta-llama/Llama-3.1-405B-Instruct-FP8", quant_method
# fbgemm_fp8) convert the MLPs only, row-wise: self-attention and the first and last decoder layers stay bf16
# (Llama 3 paper, section 6.2; the checkpoint's quantization_config.modules_to_not_convert): "fp8-ffn".
# Other publishers' FP8 checkpoints of the same models (neuralmagic / RedHatAI, llm-compressor) quantize
# every linear layer: "fp8". Publisher (the Hub org) -> the model families it publishes so.
_FBGEMM_FP8_PUBLISHERS: dict[str, tuple[str, ...]] = {"meta-llama": ("llama3",)}
META_FP8_SOURCES = (
    "https://arxiv.org/abs/2407.21783",
    "https://huggingface.co/meta-llama/Llama-3.1-405B-Instruct-FP8/blob/main/config.json",
)


def fp8_checkpoint_format(spec: ModelSpec, publisher: str = "") -> str:
    """The format of ``spec``'s FP8 checkpoint by ``publisher`` (the Hub org of the name; "" = not said, the
    model's own publisher as the registry knows it): "fp8-block" (128x128 block scales: DeepSeek-V3, Qwen3),
    "fp8-ffn" (Meta's Llama 3.x FP8: FBGEMM row-wise FP8 MLPs, attention and first/last layers bf16) or
    "fp8" (per-tensor / per-channel scales, the common third-party and ModelOpt form)."""
    if spec.native_precision == "fp8-block" or spec.family in _BLOCK_FP8_FAMILIES:
        return "fp8-block"
    families = _FBGEMM_FP8_PUBLISHERS.get(publisher.strip().lower(), ())
    if any(spec.family.startswith(f) for f in families):
        return "fp8-ffn"
    return "fp8"


def _publisher(name: str) -> str:
    """The Hub org of a name written as an id ("meta-llama" of "meta-llama/Llama-3.1-405B-FP8"), else ""."""
    org, slash, _ = name.strip().partition("/")
    return org.strip().lower() if slash else ""


def _split_quantization(name: str) -> tuple[str, str | None, str] | None:
    """("Qwen3-14B", "awq", "AWQ int4") for "Qwen3-14B-AWQ"; None when the name has no such suffix."""
    found = _QUANT_SUFFIX.search(name.strip())
    if found is None:
        return None
    key = re.sub(r"[\s_\-]+", "", found.group("q").lower())
    precision, label = _QUANT_PRECISION[key]
    return name.strip()[: found.start()], precision, label


def _compact(name: str) -> str:
    text = fold_name(name).strip().lower().replace("[", " ").replace("]", " ")
    if "/" in text:
        text = text.rsplit("/", 1)[1]
    tokens = [t for t in re.split(r"[\s_\-]+", text) if t and t not in _NOISE]
    return "".join(tokens)


def _int(text: str) -> int:
    return int(text) if text.strip() else 0


def _opt_float(text: str) -> float | None:
    return float(text) if text.strip() else None


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value not in {"true", "false"}:
        raise ValueError(f"expected true/false, got {text!r}")
    return value == "true"


def expand_layer_pattern(pattern: str, layers: int) -> tuple[str, ...]:
    """Per-layer attention kinds from a compact pattern.

    "" -> all full (empty tuple); "all-sliding"; "alternate-sliding-full" (even layers sliding, as
    Gemma 2 and gpt-oss); "N-sliding-1-full" (N local layers then one global, as Gemma 3 with N=5);
    "N-chunked-1-full" the same with chunked local layers (Llama 4, N=3: ``ModelSpec.chunked_attention``);
    "N-linear-1-full" N linear-attention layers then one full (Qwen3-Next, Qwen3.5: N=3, transformers'
    ``full_attention_interval`` 4).
    """
    if not pattern:
        return ()
    if pattern == "all-sliding":
        return ("sliding",) * layers
    if pattern == "alternate-sliding-full":
        return tuple("sliding" if i % 2 == 0 else "full" for i in range(layers))
    found = re.fullmatch(r"(\d+)-(sliding|chunked|linear)-1-full", pattern)
    if found:
        period = int(found.group(1)) + 1
        kinds = local_then_full(layers, period)
        if found.group(2) == "linear":
            return tuple("linear" if k == "sliding" else k for k in kinds)
        return kinds
    raise ValueError(f"unknown layer pattern {pattern!r}")


def _row_to_model(row: dict[str, str]) -> ModelSpec:
    layers = _int(row["num_hidden_layers"])
    sliding = _int(row["sliding_window"]) or None
    return ModelSpec(
        name=row["name"],
        hf_id=row["hf_id"],
        family=row["family"],
        kind=row["kind"],
        num_hidden_layers=layers,
        hidden_size=_int(row["hidden_size"]),
        intermediate_size=_int(row["intermediate_size"]),
        num_attention_heads=_int(row["num_attention_heads"]),
        num_key_value_heads=_int(row["num_key_value_heads"]),
        head_dim=_int(row["head_dim"]),
        vocab_size=_int(row["vocab_size"]),
        max_position_embeddings=_int(row["max_position_embeddings"]),
        tie_word_embeddings=_bool(row["tie_word_embeddings"]),
        sliding_window=sliding,
        layer_types=expand_layer_pattern(row["layer_pattern"], layers)
        if sliding or "linear" in row["layer_pattern"]
        else (),
        chunked_attention=bool(sliding) and "chunked" in row["layer_pattern"],
        num_experts=_int(row["num_experts"]),
        experts_per_token=_int(row["experts_per_token"]),
        moe_intermediate_size=_int(row["moe_intermediate_size"]),
        shared_experts=_int(row["shared_experts"]),
        first_dense_layers=_int(row["first_dense_layers"]),
        moe_layer_step=_int(row.get("moe_layer_step") or "") or 1,
        kv_lora_rank=_int(row["kv_lora_rank"]),
        q_lora_rank=_int(row["q_lora_rank"]),
        qk_rope_head_dim=_int(row["qk_rope_head_dim"]),
        qk_nope_head_dim=_int(row["qk_nope_head_dim"]),
        v_head_dim=_int(row["v_head_dim"]),
        index_topk=_int(row["index_topk"]),
        index_n_heads=_int(row["index_n_heads"]),
        index_head_dim=_int(row["index_head_dim"]),
        official_total_params_b=_opt_float(row["official_total_params_b"]),
        official_active_params_b=_opt_float(row["official_active_params_b"]),
        torch_dtype=row["torch_dtype"],
        source=row["source"],
        notes=row["notes"],
        aliases=tuple(a.strip() for a in row["aliases"].split(";") if a.strip()),
        mlp_type=row["mlp_type"],
        norm_type=row["norm_type"],
        norms_per_layer=_int(row["norms_per_layer"]),
        attention_bias=row["attention_bias"],
        qk_norm=_bool(row["qk_norm"]),
        mlp_bias=_bool(row["mlp_bias"]),
        router_bias=_bool(row["router_bias"]),
        attention_sinks=_bool(row["attention_sinks"]),
        fused_experts=fused_experts(row["family"]),
        mtp_layers=_int(row["mtp_layers"]),
        total_params_b=_opt_float(row["total_params_b"]),
        auxiliary_params_b=_opt_float(row["auxiliary_params_b"]),
        params_source=row["params_source"],
        native_precision=(row.get("native_precision") or "").strip(),
        linear_num_key_heads=_int(row.get("linear_num_key_heads") or ""),
        linear_num_value_heads=_int(row.get("linear_num_value_heads") or ""),
        linear_key_head_dim=_int(row.get("linear_key_head_dim") or ""),
        linear_value_head_dim=_int(row.get("linear_value_head_dim") or ""),
        linear_conv_kernel_dim=_int(row.get("linear_conv_kernel_dim") or ""),
        linear_state_dtype=(row.get("linear_state_dtype") or "").strip(),
        attention_output_gate=_bool(row.get("attention_output_gate") or "false"),
    )


@functools.cache
def all_models() -> tuple[ModelSpec, ...]:
    """Every model in the curated registry, in table order."""
    text = resources.files("gpuscout.knowledge").joinpath("data", _DATA_FILE).read_text(encoding="utf-8")
    return tuple(_row_to_model(row) for row in csv.DictReader(io.StringIO(text)))


def model_names() -> tuple[str, ...]:
    """Canonical names, in table order."""
    return tuple(m.name for m in all_models())


@functools.cache
def _index() -> dict[str, ModelSpec]:
    index: dict[str, ModelSpec] = {}
    for model in all_models():
        for label in (model.name, model.hf_id, *model.aliases):
            key = _compact(label)
            other = index.get(key)
            if other is not None and other is not model:
                raise ValueError(f"model alias {label!r} is claimed by {other.name} and {model.name}")
            index[key] = model
    for key, (target, _note) in _NOTED_ALIASES.items():
        if key in index:
            raise ValueError(f"noted alias {key!r} shadows a registry name")
        if target not in {m.name for m in all_models()}:
            raise ValueError(f"noted alias {key!r} points to unknown model {target!r}")
    return index


def _suggestions(name: str) -> list[str]:
    """The closest known names to ``name``; for a dated checkpoint name ("Qwen3-8B-Instruct-2507"), the
    names closest to it undated first (the model it names, where the undated name resolves)."""
    dated = _DATE_SUFFIX.search(name.strip())
    if dated is None:
        return _closest_names(name)
    undated = name.strip()[: dated.start()]
    hit = _lookup(undated) if undated.strip() else None
    lead = [hit.model.name] if hit is not None else []
    found = [*lead, *_closest_names(undated), *_closest_names(name)] if undated.strip() else lead
    return list(dict.fromkeys(found))[:6]


#: The fewest characters (compacted) a typed name needs to be read as the start of a family's names
_FAMILY_PREFIX_CHARS = 3


def _closest_names(name: str) -> list[str]:
    owner: dict[str, str] = {}
    for model in all_models():
        for label in (model.name, model.hf_id, *model.aliases):
            owner[label] = model.name
    for cw in CHECKPOINT_WINDOWS:  # the checkpoints with their own entries (qwen2.5-7b-instruct)
        owner[cw.checkpoint] = owner[cw.name] = cw.name
    ranked: list[str] = []
    for label in closest(name, owner, n=15):
        if owner[label] not in ranked:
            ranked.append(owner[label])
    # a name that begins a model's name ("llama 4", "glm", "gemma 3") is a family: its models first, the
    # closest first, rather than whatever spelling is nearest ("llama-3-8b" for "llama-4")
    key = _compact(name)
    family = (
        {o for label, o in owner.items() if _compact(label).startswith(key)}
        if len(key) >= _FAMILY_PREFIX_CHARS
        else set()
    )
    first = [n for n in ranked if n in family] + sorted(family.difference(ranked))
    return list(dict.fromkeys([*first, *ranked]))[:6]


def _lookup(name: str) -> ModelResolution | None:
    by_name = {m.name: m for m in all_models()}
    if name in by_name:
        return ModelResolution(by_name[name], exact=True)
    checkpoint = _checkpoint_specs().get(_checkpoint_key(name))
    if checkpoint is not None:  # a checkpoint with its own window (Qwen2.5-7B-Instruct)
        return ModelResolution(checkpoint, exact=True)
    key = _compact(name)
    hit = _index().get(key)
    if hit is not None:
        return ModelResolution(hit, exact=True)
    if key in _NOTED_ALIASES:
        target, note = _NOTED_ALIASES[key]
        return ModelResolution(by_name[target], exact=False, note=note)
    return None


def resolve_model_detail(name: str, *, field: str = "model", imported: bool = True) -> ModelResolution:
    """Resolve a model name, with a note when it maps onto another name's architecture; a name the
    curated table does not know, to a model the user imported (``imported=False``: the curated table
    alone). The curated answer is cached; an imported one is read afresh (a model imported or removed
    while a server runs is seen at once)."""
    try:
        return _resolve_curated(name, field)
    except UnknownNameError as exc:
        if not imported or not isinstance(name, str) or not name.strip():
            raise
        return _imported_model(name, field, list(exc.suggestions))


@functools.lru_cache(maxsize=1024)
def _resolve_curated(name: str, field: str) -> ModelResolution:
    """:func:`resolve_model_detail` in the curated table alone."""
    if not isinstance(name, str) or not name.strip():
        raise UnknownNameError(field, str(name), model_names()[:6])
    typed, name = name, fold_name(name)  # pasted look-alikes ("Llama‑3.1‑8B", U+2011) read as ASCII
    inner = re.findall(r"\(([^)]*)\)", name)
    outer = re.sub(r"\([^)]*\)", " ", name).strip()
    whole = _lookup(name) if inner else None  # an alias may hold the parentheses ("GPT-2 1.2B (Megatron-LM)")
    if whole is not None:
        return whole
    for candidate in inner:
        found = _lookup(candidate) if candidate.strip() else None
        if found is not None:
            note = f"resolved from the parenthesised name {candidate.strip()!r}"
            return ModelResolution(found.model, found.exact, "; ".join(filter(None, [note, found.note])))
    found = _lookup(outer) if outer else None
    if found is None and outer:
        quant = _split_quantization(outer)
        base = _lookup(quant[0]) if quant and quant[0] else None
        if quant is not None and base is not None:
            precision = (
                quant[1] if quant[1] is not None else fp8_checkpoint_format(base.model, _publisher(outer))
            )
            note = f"{quant[2]} checkpoint of {base.model.name}: same architecture, weights in {precision}"
            if quant[2] == "GGUF":  # a repo of several files: which one runs is the user's to say
                note = (
                    f"{quant[2]} repo of {base.model.name}: same architecture; the name does not say which "
                    f"quantization runs: {precision} assumed (--precision gguf-q8_0, gguf-f16, ... for "
                    "another)"
                )
            if precision == "fp8-ffn":
                note += (
                    " (Meta's FBGEMM FP8, quant_method fbgemm_fp8: row-wise FP8 MLPs; self-attention and "
                    "the first and last layers stay bf16, Llama 3 paper section 6.2; sources: "
                    f"{' ; '.join(META_FP8_SOURCES)})"
                )
            return ModelResolution(
                base.model, base.exact, "; ".join(filter(None, [note, base.note])), precision=precision
            )
    if found is None:
        raise unknown_model(field, typed, _suggestions(outer or name))
    return found


def unknown_model(field: str, typed: str, suggestions: list[str]) -> UnknownNameError:
    """The error for a model name no row holds: :class:`~gpuscout.errors.UnknownNameError`, saying what
    the model is and why it has no row where it is one of an architecture gpuscout does not model
    (:mod:`gpuscout.knowledge.unmodelled`)."""
    from gpuscout.knowledge.unmodelled import unmodelled_name

    family = unmodelled_name(typed)
    if family is not None and family.modelled_as:  # its architecture's row first, then the near names
        suggestions = [family.modelled_as, *(s for s in suggestions if s != family.modelled_as)][:6]
    return UnknownNameError(field, typed, suggestions, reason=family.reason() if family else "")


def _imported_model(typed: str, field: str, suggestions: list[str]) -> ModelResolution:
    """The model a user imported under ``typed`` (:mod:`gpuscout.knowledge.edge_models`), for a name the
    curated table does not know; else the unknown-name error, the closest imported names first."""
    from gpuscout.knowledge import edge_models
    from gpuscout.knowledge.model_registry import name_key

    mine = edge_models.imported()
    key = name_key(typed)
    for spec in mine:
        if name_key(spec.name) == key:
            return ModelResolution(spec, exact=True, note="imported by you")
    near = closest(typed, [s.name for s in mine], n=3) if mine else []
    raise unknown_model(field, typed, [*near, *(s for s in suggestions if s not in near)][:6])


def is_entry_name(spec: ModelSpec, label: str) -> bool:
    """Whether ``label`` names the entry ``spec`` itself (its name or HF id, spelled any way the lookup
    accepts), rather than an alias that is sized as it ("deepseek-r1" for deepseek-v3)."""
    return _compact(label) in (_compact(spec.name), _compact(spec.hf_id))


def label_as_typed(spec: ModelSpec, typed: str) -> str:
    """The model as the user named it, with the entry it was sized as where that is another name
    ("deepseek-r1 (as deepseek-v3)": R1 shares V3's architecture); the entry's name where ``typed`` is it."""
    return spec.name if is_entry_name(spec, typed) else f"{typed.strip()} (as {spec.name})"


def resolve_model(name: str | ModelSpec, *, field: str = "model") -> ModelSpec:
    """The model a name means (a ``ModelSpec`` passes through); raises ``UnknownNameError`` if unknown."""
    if isinstance(name, ModelSpec):
        return name
    return resolve_model_detail(name, field=field).model
