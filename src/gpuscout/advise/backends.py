"""What the advisor needs from the rest of gpuscout, as one injectable bundle.

The advisor's logic takes a ``Backends`` so tests and benchmarks can pass a small fake estimator; the
default wires in the real estimator and knowledge tables (imported lazily, on first use).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.types import Estimate, MemoryBreakdown, MemoryNeed
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.provider_types import ProviderTerms
from gpuscout.wording import and_list

if TYPE_CHECKING:
    from gpuscout.estimate.pretrain_batch import OptimalBatch
    from gpuscout.knowledge.model_registry import ModelRegistry
    from gpuscout.knowledge.model_types import ModelSpec


class TrainingResult(Protocol):
    """The fields of ``TrainingEstimate`` the advisor reads."""

    @property
    def fits(self) -> bool: ...
    @property
    def memory(self) -> MemoryBreakdown: ...
    @property
    def tokens_per_s(self) -> float: ...
    @property
    def time_s(self) -> float | None: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def trainable_params(self) -> int: ...


class ImageResult(Protocol):
    """The fields of ``ImageEstimate`` the advisor reads."""

    @property
    def fits(self) -> bool: ...
    @property
    def memory(self) -> MemoryBreakdown: ...
    @property
    def seconds_per_image(self) -> float | None: ...  # None: does not fit, no speed given
    @property
    def images_per_s(self) -> float | None: ...
    @property
    def precision(self) -> str: ...
    @property
    def engine(self) -> str: ...
    @property
    def assumptions(self) -> dict[str, str]: ...
    @property
    def warnings(self) -> list[str]: ...


InferenceFn = Callable[..., Estimate]
MemoryNeedFn = Callable[..., MemoryNeed]  # ``estimate.api.memory_needed``: a whole batch, uncapped
TrainingFn = Callable[..., TrainingResult]
ImagesFn = Callable[..., ImageResult]


@dataclass(frozen=True, slots=True)
class RunOption:
    """A combination the support rules say would run where the one asked for cannot: the engine, the
    precision as ``estimate()`` spells it, and the rule's words (mode, reason, tag)."""

    engine: str
    precision: str
    message: str
    # the engine asked from a later release ("vllm 0.9 or later"): said, never run in place of the one named
    later_release: bool = False


class AlternativesFn(Protocol):
    """(engine, precision, accelerator) -> what else would run there, nearest first. ``dense_model``: the
    model has no experts, so a neighbouring MXFP4 is a dense MXFP4 checkpoint (the ``mxfp4:dense`` rules),
    never gpt-oss's, which only its MoE kernels run."""

    def __call__(
        self, engine: str, precision: str, acc: Accelerator, *, dense_model: bool = False
    ) -> tuple[RunOption, ...]: ...


#: (engine, precision, accelerator) -> the rule by which the engine runs nothing on the accelerator
#: (its platform row refuses the GPU, whatever the precision), or None where a precision may run.
PlatformRefusalFn = Callable[[str, str, Accelerator], str | None]


@dataclass(frozen=True, slots=True)
class Backends:
    """Estimators and knowledge look-ups. ``accelerator`` maps a canonical name to its ``Accelerator``;
    ``params_b`` gives a model's total parameters in billions; ``model_kind`` is "llm"/"diffusion"/..."""

    inference: InferenceFn
    training: TrainingFn
    images: ImagesFn
    accelerator: Callable[[str], Accelerator]
    provider_terms: Callable[[str], ProviderTerms]
    params_b: Callable[[str], float]
    active_params_b: Callable[[str], float]  # parameters used per token (MoE: active experts)
    model_kind: Callable[[str], str]
    model_name: Callable[[str], str]  # canonical model name (raises UnknownNameError)
    max_context: Callable[[str], int | None] | None = None  # a language model's context, tokens
    provider_ids: Callable[[], tuple[str, ...]] | None = None  # known provider ids and aliases
    canonical_provider: Callable[[str], str | None] | None = None  # "vast" -> "vastai"; None if unknown
    models: ModelRegistry | None = None  # the registry model names resolve through (imported models too)
    # what would run where the engine cannot run the precision (the estimator's support rules)
    alternatives: AlternativesFn | None = None
    # whether a model has experts (``ModelSpec.is_moe``; None: unknown, taken as gpt-oss's MoE): a dense
    # model's alternatives never offer the MXFP4 only MoE kernels run (``AlternativesFn``'s dense_model)
    is_moe: Callable[[str], bool] | None = None
    # where the engine runs nothing on a GPU (TensorRT-LLM on AMD): the support rules' platform row
    platform_refusal: PlatformRefusalFn | None = None
    native_precision: Callable[[str], str] | None = None  # the checkpoint's own format ("bf16", "fp8"...)
    # GB of a model's weights as published (its checkpoint's own format: DeepSeek-V3's FP8, gpt-oss's MXFP4
    # experts), what a fine-tune fetches; None: taken as bf16 (2 bytes per parameter)
    published_weights_gb: Callable[[str], float] | None = None
    memory_needed: MemoryNeedFn | None = None  # the memory of a whole batch (None: only what runs is known)
    # why a named engine release cannot load the model's architecture, and the release that would on the
    # GPUs given at the precision asked (model, engine, GPUs, precision) -> "" where it can
    release_refusal: Callable[[str, str, tuple[str, ...], str], str] | None = None
    # (model, seq_len, tokens) -> the compute-optimal global batch of pre-training it over ``tokens``
    # (``estimate.pretrain_batch.optimal_batch``); None: not known (a test's fake), no such cap
    pretrain_batch: Callable[[str | ModelSpec, int, float], OptimalBatch] | None = None


def _registry(models: ModelRegistry | None) -> ModelRegistry:
    if models is not None:
        return models
    from gpuscout.knowledge.model_registry import ModelRegistry

    return ModelRegistry()


def _params_of(spec: ModelSpec) -> float:
    from gpuscout.knowledge.params import count_params

    if spec.kind != "llm" and spec.official_total_params_b:
        return float(spec.official_total_params_b)
    return float(count_params(spec).total) / 1e9


def _active_of(spec: ModelSpec) -> float:
    from gpuscout.knowledge.params import count_params

    if spec.kind != "llm":
        return _params_of(spec)
    return float(count_params(spec).active) / 1e9


def _provider_terms(name: str) -> ProviderTerms:
    from gpuscout.knowledge.providers import provider_terms

    return provider_terms(name)


def _provider_ids() -> tuple[str, ...]:
    from gpuscout.knowledge.providers import all_provider_terms

    return tuple(t.name for t in all_provider_terms())


def _canonical_provider(name: str) -> str | None:
    from gpuscout.knowledge.providers import canonical_provider

    return canonical_provider(name)


# What llama.cpp loads for a support-rule precision (it runs GGUF files only).
_GGUF_FOR = {"int4": "q4_k_m", "nf4": "q4_k_m", "int8": "q8_0", "bf16": "gguf-f16", "fp16": "gguf-f16"}


def support_alternatives(
    engine: str, precision: str, acc: Accelerator, *, dense_model: bool = False
) -> tuple[RunOption, ...]:
    """The estimator's nearest combinations that run on ``acc`` (``gpuscout.estimate.support.can_run``),
    spelled so that ``estimate()`` takes them; none when the asked one runs as it is. ``dense_model``: for
    a model without experts (no MXFP4 that only gpt-oss's MoE kernels run)."""
    from gpuscout.estimate.support import can_run
    from gpuscout.knowledge.engine_support import CHECKPOINTS

    # checkpoint formats estimate() takes as precision names ("awq", "gptq": the int4 ones the support rules
    # tell apart), so an alternative narrowed to one keeps it
    by_name = CHECKPOINTS["int4"]

    check = can_run(engine, precision, acc, dense_model=dense_model)
    if check.supported:
        return ()
    options = []
    for alt in check.alternatives:
        # a checkpoint format the estimator takes by name ("gptq" where AWQ is refused), else the precision
        name = alt.checkpoint if alt.checkpoint in by_name else alt.precision
        if alt.engine == "llama.cpp":
            if name not in _GGUF_FOR:
                continue
            name = _GGUF_FOR[name]
        elif name == "gguf":
            continue
        # the same engine from a later release ("vllm 0.9"), spelled so that estimate() times that release
        engine_name = f"{alt.engine} {alt.since}" if alt.since and not alt.at_least else alt.engine
        options.append(RunOption(engine_name, name, alt.message(), later_release=bool(alt.since)))
    return tuple(options)


def support_platform_refusal(engine: str, precision: str, acc: Accelerator) -> str | None:
    """The support rules' platform row where it refuses ``engine`` on ``acc`` outright ("TensorRT-LLM
    runs on NVIDIA GPUs only"): no precision runs there. None where the platform runs the engine (a
    refusal, if any, is then the precision's). ``precision`` is any format ``estimate()`` takes: the
    platform row is judged before the precision's (``knowledge.engine_support``)."""
    from gpuscout.estimate.engines import resolve_engine
    from gpuscout.estimate.precision import resolve_precision
    from gpuscout.estimate.support import verdict_for

    verdict = verdict_for(resolve_engine(engine), resolve_precision(precision), acc)
    rule = verdict.platform_rule
    if rule is None:  # no rule says the engine runs on this platform at all
        return verdict.reason
    return rule.rule if rule.mode == "unsupported" else None


class _Inference:
    """The real estimator, models named through the registry. ``session()`` gives the same function
    for one ranking: its calls share what does not depend on the load
    (:class:`~gpuscout.estimate.api.EstimateSession`), so a GPU and split asked at several batch sizes
    are set up once. The advisor's evaluators use a session when ``Backends.inference`` offers one."""

    __slots__ = ("_resolve",)

    def __init__(self, resolve: Callable[[str | ModelSpec], ModelSpec]) -> None:
        self._resolve = resolve

    def __call__(self, model: str | ModelSpec, *args: Any, **kwargs: Any) -> Estimate:
        from gpuscout.estimate.api import estimate

        return estimate(self._resolve(model), *args, **kwargs)

    def session(self) -> InferenceFn:
        from gpuscout.estimate.api import EstimateSession

        run, resolve = EstimateSession(), self._resolve

        def inference(model: str | ModelSpec, *args: Any, **kwargs: Any) -> Estimate:
            return run(resolve(model), *args, **kwargs)

        return inference


#: The estimator's names for a request's shape and the workload fields the advisor gives them from
#: (``context_in=w.prompt_tokens``, ``context_out=w.output_tokens``).
ESTIMATOR_WORDS = {"context_in": "prompt_tokens", "context_out": "output_tokens"}
_ESTIMATOR_WORD = re.compile(r"\b(" + "|".join(ESTIMATOR_WORDS) + r")\b")


def in_workload_words(exc: InvalidInputError) -> InvalidInputError:
    """An estimator's input error as the advisor's: its field and text name the workload's fields for
    the request shape (``prompt_tokens + output_tokens <= 1000``) where the estimator says its own
    (``context_in + context_out``), so every face names what its user gave. ``exc`` itself when it
    names neither (an unknown name, a model of another kind keep their type and details)."""

    from gpuscout.estimate.launch_flags import LayoutFlagError

    if isinstance(exc, LayoutFlagError):  # the advisor has no --gpus / --parallel: it chooses the layout
        return InvalidInputError(
            "engine",
            f"{exc.said} sets the parallel layout, which the advisor chooses for each offer (tensor "
            "parallel, replicas, a pipeline where the GPUs talk over PCIe): leave it out",
            exc.accepted,
        )

    def ours(text: str) -> str:
        return _ESTIMATOR_WORD.sub(lambda m: ESTIMATOR_WORDS[m.group(1)], text)

    field = ESTIMATOR_WORDS.get(exc.field, exc.field)
    message = ours(exc.message)
    accepted = ours(exc.accepted) if exc.accepted else exc.accepted
    if (field, message, accepted) == (exc.field, exc.message, exc.accepted):
        return exc
    return InvalidInputError(field, message, accepted, names=exc.names)


def inference_session(inference: InferenceFn) -> InferenceFn:
    """``inference`` for one ranking: its session when it offers one (the real estimator does), else
    itself (a test's fake, a benchmark's memoised oracle)."""
    session = getattr(inference, "session", None)
    return session() if callable(session) else inference


def _accelerator(name: str) -> Accelerator:
    from gpuscout.knowledge.accelerators import resolve_gpu

    return resolve_gpu(name)


def default_backends(models: ModelRegistry | None = None) -> Backends:
    """The real estimator and knowledge tables; model names resolve through ``models`` (the curated
    registry plus a user's imported models, read at the edge) or the curated registry alone."""
    reg = _registry(models)
    resolve = reg.resolve

    inference = _Inference(resolve)

    def native_precision(name: str) -> str:
        """The format a name's weights come in: a quantized checkpoint's name says it ("Qwen/Qwen3-8B-AWQ":
        awq, "...-GGUF": its Q4_K_M file), else the model's published format (DeepSeek-R1: FP8), else bf16."""
        detail = reg.resolve_detail(name)
        return detail.precision or detail.model.native_precision or "bf16"

    @functools.cache  # asked once per configuration evaluated, of the one model of a workload
    def published_weights_gb(name: str) -> float:
        """GB of ``name``'s weights in the format its checkpoint comes in, as :func:`native_precision`
        reads it (the format a quantized checkpoint's name states, "...-FP8", else
        ``ModelSpec.native_precision``, else bf16): a fine-tune downloads those files (and dequantizes
        them on load), not a bf16 copy."""
        from gpuscout.estimate.memory import weights_bytes_total
        from gpuscout.estimate.precision import resolve_precision

        detail = reg.resolve_detail(name)
        spec = detail.model
        published = detail.precision or spec.native_precision
        if not published:  # published in bf16: 2 bytes per parameter, as before
            return _params_of(spec) * 2.0
        try:
            fmt = resolve_precision(published)
        except InvalidInputError:  # an imported config's format the table does not know: taken as bf16
            fmt = resolve_precision("bf16")
        return weights_bytes_total(spec, fmt) / 1e9

    def training(model: str | ModelSpec, *args: Any, **kwargs: Any) -> TrainingResult:
        from gpuscout.estimate.training import estimate_training

        result: TrainingResult = estimate_training(resolve(model), *args, **kwargs)
        return result

    def images(model: str | ModelSpec, *args: Any, **kwargs: Any) -> ImageResult:
        from gpuscout.estimate.diffusion import estimate_images

        result: ImageResult = estimate_images(resolve(model), *args, **kwargs)
        return result

    def memory_needed(model: str | ModelSpec, *args: Any, **kwargs: Any) -> MemoryNeed:
        from gpuscout.estimate.api import memory_needed as need

        return need(resolve(model), *args, **kwargs)

    def release_refusal(model: str, engine: str, gpus: tuple[str, ...] = (), precision: str = "") -> str:
        """Why ``engine``'s named release cannot load ``model`` (it predates the architecture), and the later
        release that would where some GPU runs the ``precision`` asked (else the model's own format) with
        it, judged on ``gpus`` (the offers' accelerators it was tried on: "vllm 0.5.3 or later, before
        0.20" on V100s; each wording with its GPUs where they differ); the hardware aside where none is
        given; "" where it loads it."""
        from gpuscout.estimate.engines import resolve_engine
        from gpuscout.estimate.precision import resolve_precision
        from gpuscout.estimate.support import release_refusal as refusal
        from gpuscout.estimate.support import release_that_loads
        from gpuscout.knowledge.accelerators import all_accelerators

        eng, spec = resolve_engine(engine), resolve(model)
        found = refusal(eng, spec.family)
        if found is None:
            return ""
        fmt = resolve_precision(precision.strip() or spec.native_precision or "bf16")
        what = fmt.name if precision.strip() else f"its {fmt.name}"
        # the later release that runs the format, judged once per GPU the rules know
        later = {acc.name: release_that_loads(found, eng, fmt, acc) for acc in all_accelerators()}
        if not any(later.values()):  # TGI and gpt-oss: no release of it runs the model's MXFP4 on any GPU
            return f"{found.reason}; no {eng.name} release runs {what} on any GPU the rules know"
        # on the offers' GPUs: one wording for all of them, else each wording with the GPUs it is for
        by_words: dict[str | None, list[str]] = {}
        for gpu in gpus:
            said = later[gpu] if gpu in later else release_that_loads(found, eng, fmt, _accelerator(gpu))
            by_words.setdefault(said, []).append(gpu)
        if not by_words:
            return f"{found.reason}; would run: {found.instead}"
        none = f"no {eng.name} release runs {what}"
        if len(by_words) == 1:
            said = next(iter(by_words))
            return f"{found.reason}; " + (
                f"{none} on these offers' GPUs" if said is None else f"would run: {said}"
            )
        # a release that runs it first (that of most GPUs), then the others with (a few of) their GPUs
        (head, _), *others = sorted(by_words.items(), key=lambda kv: (kv[0] is None, -len(kv[1])))
        parts = [f"{said or none} on {and_list(names, shown=3)}" for said, names in others]
        return f"{found.reason}; would run: {head} (except: {'; '.join(parts)})"

    def pretrain_batch(model: str | ModelSpec, seq_len: int, tokens: float) -> OptimalBatch:
        from gpuscout.estimate.pretrain_batch import optimal_batch

        return optimal_batch(resolve(model), seq_len, tokens)

    def max_context(name: str) -> int | None:
        spec = resolve(name)
        llm = spec.kind == "llm" and spec.max_position_embeddings > 0
        return spec.max_position_embeddings if llm else None

    return Backends(
        inference=inference,
        training=training,
        images=images,
        accelerator=_accelerator,
        provider_terms=_provider_terms,
        params_b=lambda name: _params_of(resolve(name)),
        active_params_b=lambda name: _active_of(resolve(name)),
        model_kind=lambda name: resolve(name).kind,
        model_name=lambda name: resolve(name).name,
        max_context=max_context,
        provider_ids=_provider_ids,
        canonical_provider=_canonical_provider,
        models=reg,
        alternatives=support_alternatives,
        is_moe=lambda name: resolve(name).is_moe,
        platform_refusal=support_platform_refusal,
        native_precision=native_precision,
        published_weights_gb=published_weights_gb,
        memory_needed=memory_needed,
        release_refusal=release_refusal,
        pretrain_batch=pretrain_batch,
    )
