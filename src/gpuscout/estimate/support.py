"""Can engine E run precision P on accelerator A? The estimator's face of ``knowledge.engine_support``.

``can_run`` takes the names people write ("vLLM", "awq", "H100") and answers with a
:class:`~gpuscout.knowledge.engine_support.SupportVerdict` (native / weight-only / fp16 fallback /
dequantized / unsupported, the reason, the rule's tag and sources) plus the nearest combinations that
would work. ``estimate()`` uses the same verdict: an unsupported combination comes back with
``supported=False`` and the reason, never a speed.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.arguments import resolve_gpu_arg
from gpuscout.estimate.engines import NEWEST_RELEASES, EngineProfile, resolve_engine
from gpuscout.estimate.precision import WeightFormat, has_bf16, resolve_precision
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.architecture_support import too_old_for
from gpuscout.knowledge.engine_support import (
    Alternative,
    SupportVerdict,
    alternatives,
    check_support,
    first_running_release,
    later_release_words,
    refused_again_at,
)
from gpuscout.knowledge.float16_refusals import float16_refusal

# Weight format -> precision key of the support rules.
_KEYS = {
    "fp32": "fp32",
    "bf16": "bf16",
    "fp16": "fp16",
    "fp8": "fp8",
    "fp8-block": "fp8",
    "fp8-ffn": "fp8",
    "int8": "int8",
    "w8a8": "w8a8",
    "int4": "int4",
    "int4-g32": "int4",
    "nf4": "nf4",
    "nvfp4": "nvfp4",
    "mxfp4": "mxfp4",
    "mxfp4-moe": "mxfp4",
    "int4-moe": "int4",
}


# Weight format -> the checkpoint format it always is, where the support rules tell it apart from the
# precision's other checkpoints: fp8-ffn is Meta's FBGEMM FP8 (quant_method fbgemm_fp8), which transformers
# runs only from CC 9.0 and vLLM from CC 8.0 (``fp8:fbgemm`` rows), whatever the other FP8 formats do. mxfp4
# is a dense MXFP4 checkpoint (every linear layer MXFP4), judged by the ``mxfp4:dense`` rows where they differ
# from gpt-oss's (mxfp4-moe: MXFP4 experts alone): vLLM, SGLang and TensorRT-LLM run their MXFP4 as W4A16 on
# Blackwell, so its linear layers are timed weight-only, at the 16-bit rate, not the FP4 one.
_CHECKPOINT_OF_FORMAT = {"fp8-ffn": "fbgemm", "mxfp4": "dense"}


def support_key(fmt: WeightFormat) -> str:
    """The support-rule precision key of a weight format ("gguf" for every GGUF type)."""
    if fmt.gguf:
        return "gguf"
    return _KEYS[fmt.name]


@dataclass(frozen=True, slots=True)
class RunCheck:
    """``can_run``'s answer: the verdict and, when it is not native, what else would run."""

    verdict: SupportVerdict
    alternatives: tuple[Alternative, ...]

    @property
    def supported(self) -> bool:
        return self.verdict.supported

    @property
    def mode(self) -> str:
        return self.verdict.mode

    def raise_if_unsupported(self) -> None:
        """Raise ConfigurationRejected when the combination cannot run: field "engine" where only the
        release named is too old (a later one runs it: the first alternative says which), else "gpu"."""
        if not self.supported:
            alt = "; ".join(a.message() for a in self.alternatives) or "none found"
            later = any(a.since for a in self.alternatives)
            raise ConfigurationRejected(
                "engine" if later else "gpu", self.verdict.message(), f"would run: {alt}"
            )


def support_checkpoint(fmt: WeightFormat) -> str:
    """The checkpoint format a weight format is judged as: the one its spelling named ("awq"), else the one
    the format always is ("fbgemm" for fp8-ffn), else "" (any checkpoint of the precision)."""
    return fmt.checkpoint or _CHECKPOINT_OF_FORMAT.get(fmt.name, "")


#: The first compute capability the flash-attn package's FlashAttention-2 kernels run on (Ampere): below
#: it they raise "FlashAttention only supports Ampere GPUs or newer" (Volta, Turing: FlashAttention 1.x).
FLASH_ATTENTION_2_MIN_CC = (8, 0)
FLASH_ATTENTION_2_SOURCE = "https://github.com/Dao-AILab/flash-attention#installation-and-features"


def flash_attention_2_refusal(engine: EngineProfile, acc: Accelerator) -> str:
    """Why ``engine`` started with FlashAttention-2 attention (transformers'
    ``attn_implementation='flash_attention_2'``: the ``flash-attention-2`` variant) cannot run on ``acc``,
    an NVIDIA GPU before Ampere; "" where it can or the variant is not asked."""
    cc = acc.nvidia_cc
    if "flash-attention-2" not in engine.era.split("+") or cc is None or cc >= FLASH_ATTENTION_2_MIN_CC:
        return ""
    return (
        f"{engine.name}: attn_implementation='flash_attention_2' needs compute capability "
        f"{FLASH_ATTENTION_2_MIN_CC[0]}.{FLASH_ATTENTION_2_MIN_CC[1]}+ (the flash-attn kernels: Ampere or "
        f"newer); {acc.name} is {cc[0]}.{cc[1]}"
    )


def verdict_for(engine: EngineProfile, fmt: WeightFormat, acc: Accelerator) -> SupportVerdict:
    """The support verdict for an already resolved engine profile and format (its checkpoint format too,
    when the spelling named one: "awq" is judged as an AWQ checkpoint, not as any int4; fp8-ffn as FBGEMM
    FP8)."""
    key = support_key(fmt)
    return check_support(engine.name, key, acc, support_checkpoint(fmt), engine.version)


def can_run(
    engine: str | EngineProfile,
    precision: str | WeightFormat,
    gpu: str | Accelerator,
    *,
    dense_model: bool = False,
) -> RunCheck:
    """Can ``engine`` run ``precision`` on ``gpu``? Natively, weight-only, as fp16, dequantized or not at
    all, why (with the rule's source and tag), and the nearest alternatives (another engine with the same
    precision, the nearest precision this engine runs) when it is not native.

    ``dense_model``: the alternatives are for a model without experts (``not spec.is_moe``), so a
    neighbouring MXFP4 is judged as a dense MXFP4 checkpoint (``mxfp4:dense`` rows), not by gpt-oss's MoE
    kernels; leave it False where no model is known (the precision alone is asked).

    Names are resolved like ``estimate()``'s arguments; unknown ones raise UnknownNameError /
    InvalidInputError naming the field.
    """
    eng = resolve_engine(engine)
    fmt = resolve_precision(precision)
    acc = resolve_gpu_arg(gpu)
    verdict = verdict_for(eng, fmt, acc)
    alts = (
        ()
        if verdict.mode == "native"
        else alternatives(
            eng.name,
            verdict.precision,
            acc,
            checkpoint=verdict.checkpoint,
            dense_model=dense_model,
            release=eng.version,
        )
    )
    return RunCheck(verdict, alts)


@dataclass(frozen=True, slots=True)
class ReleaseRefusal:
    """Why a named engine release cannot load a model's architecture (it predates it), what would, and
    where the rule is read."""

    reason: str
    instead: str  # what would run, the hardware aside (:func:`instead_of_release` judges it on a GPU)
    sources: tuple[str, ...]
    since: str = ""  # the first release that loads the model (only a lower bound where ``at_least``)
    at_least: bool = False


def release_refusal(engine: EngineProfile, family: str) -> ReleaseRefusal | None:
    """The refusal of ``engine``'s named release (``EngineProfile.version``, else the release its named era
    stands for: ``era_release``, "2024" of "llama.cpp 2024") for a model of ``family``
    (``ModelSpec.family``) where the architecture rules say the release predates it
    (:mod:`gpuscout.knowledge.architecture_support`); None where it loads it or no release is named."""
    release = engine.version or engine.era_release
    rule = too_old_for(engine.name, release, family)
    if rule is None:
        return None
    product = NEWEST_RELEASES[engine.name].product if engine.name in NEWEST_RELEASES else engine.name
    return ReleaseRefusal(
        reason=rule.refusal(release, product),
        instead=later_release_words(engine.name, rule.since, rule.at_least),
        sources=rule.sources,
        since=rule.since,
        at_least=rule.at_least,
    )


def release_that_loads(
    refusal: ReleaseRefusal, engine: EngineProfile, fmt: WeightFormat, acc: Accelerator
) -> str | None:
    """How to name the release of ``engine`` that loads the model (``refusal``) and runs ``fmt`` on ``acc``,
    judged at that release (vLLM 0.5.3 loads Llama 3.1 but runs nothing on a B200: "vllm 0.9 or later"),
    and where a later one stops running it there (a V100: "vllm 0.5.3 or later, before 0.20"); None where
    no release of it runs ``fmt`` there (TGI and MXFP4)."""
    key, checkpoint = support_key(fmt), support_checkpoint(fmt)
    if check_support(engine.name, key, acc, checkpoint, refusal.since).supported:
        until = refused_again_at(engine.name, key, acc, checkpoint, refusal.since)
        return later_release_words(engine.name, refusal.since, refusal.at_least, until)
    later = first_running_release(engine.name, key, acc, checkpoint, refusal.since)
    if later is None:
        return None
    return later_release_words(engine.name, later.since, refusal.at_least or later.at_least, later.until)


def instead_of_release(
    refusal: ReleaseRefusal, engine: EngineProfile, fmt: WeightFormat, acc: Accelerator, *, dense_model: bool
) -> str:
    """What would run on ``acc`` where ``engine``'s named release is too old for the model (``refusal``):
    the release that loads it and runs ``fmt`` here (:func:`release_that_loads`), else other engines (TGI
    runs no MXFP4 at any release: a later TGI would not run gpt-oss here either). "" where nothing the
    rules know runs it."""
    later = release_that_loads(refusal, engine, fmt, acc)
    if later is not None:
        return later
    today = check_support(engine.name, support_key(fmt), acc, support_checkpoint(fmt))
    alts = alternatives(
        engine.name, today.precision, acc, checkpoint=today.checkpoint, dense_model=dense_model
    )
    # other engines only: the named release loads the model in no format, today's runs none of this here
    return "; ".join(a.message() for a in alts if a.engine != engine.name)


def refused_for_age(engine: EngineProfile, fmt: WeightFormat, acc: Accelerator) -> bool:
    """Whether ``engine``'s named release is refused ``fmt`` on ``acc`` only for being too old (a later
    release runs it: :func:`first_running_release`), so that the engine field is the one to change."""
    later = first_running_release(engine.name, support_key(fmt), acc, support_checkpoint(fmt), engine.version)
    return later is not None


@dataclass(frozen=True, slots=True)
class Float16Answer:
    """How an engine that refuses float16 for a model's architecture
    (:mod:`gpuscout.knowledge.float16_refusals`) runs a format: refused (``refusal``, what would run:
    ``instead``), or in float32 where the support rules would fall back to float16 (``note``)."""

    refusal: str = ""
    instead: str = ""
    note: str = ""
    source: str = ""

    @property
    def refused(self) -> bool:
        return bool(self.refusal)


def without_float16(
    engine: EngineProfile, family: str, fmt: WeightFormat, verdict: SupportVerdict, acc: Accelerator
) -> Float16Answer | None:
    """The answer for ``fmt`` on ``acc`` where ``engine`` refuses float16 for models of ``family``; None
    where it runs as the support rules say (no such rule, or a GPU with bfloat16 and a format other than
    fp16). On a GPU without bfloat16 the engine's default dtype is float32: bf16 runs as fp32, and a
    quantized checkpoint, whose kernels take 16-bit activations, is refused."""
    rule = float16_refusal(engine.name, engine.version or engine.era_release, family)
    if rule is None:
        return None
    said = f'"{rule.says}"'
    if fmt.name == "fp16":
        return Float16Answer(
            refusal=rule.reason(engine.label, family),
            instead="bf16 (on a GPU with bfloat16: NVIDIA compute capability 8.0 or later), or fp32",
            source=rule.source,
        )
    if has_bf16(acc) or fmt.name == "fp32":
        return None
    lacks = (
        f"{acc.name} has no bfloat16 (compute capability below 8.0) and float16 is refused for {family} "
        f"models ({said})"
    )
    if verdict.mode == "fallback-fp16":
        return Float16Answer(
            note=f"{engine.label}: bf16 on {acc.name} runs as fp32: {lacks}, so the default dtype is float32 "
            "here: weights of 4 bytes, a float32 KV cache, math at the FP32 rate",
            source=rule.source,
        )
    return Float16Answer(
        refusal=f"{engine.label} on {acc.name}: {lacks}, so it loads the model in float32, and its "
        f"{fmt.label} kernels take float16 or bfloat16 activations only",
        instead=f"fp32 on {acc.name}, or {fmt.name} on a GPU with bfloat16 (compute capability 8.0 or later)",
        source=rule.source,
    )
