"""What the advisor needs from the rest of gpuscout, as one injectable bundle.

The advisor's logic takes a ``Backends`` so tests and benchmarks can pass a small fake estimator; the
default wires in the real estimator and knowledge tables (imported lazily, on first use).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from gpuscout.estimate.types import Estimate, MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.provider_types import ProviderTerms


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


class ImageResult(Protocol):
    """The fields of ``ImageEstimate`` the advisor reads."""

    @property
    def fits(self) -> bool: ...
    @property
    def memory(self) -> MemoryBreakdown: ...
    @property
    def seconds_per_image(self) -> float: ...
    @property
    def images_per_s(self) -> float: ...


InferenceFn = Callable[..., Estimate]
TrainingFn = Callable[..., TrainingResult]
ImagesFn = Callable[..., ImageResult]


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


def _inference(*args: Any, **kwargs: Any) -> Estimate:
    from gpuscout.estimate.api import estimate

    result: Estimate = estimate(*args, **kwargs)
    return result


def _training(*args: Any, **kwargs: Any) -> TrainingResult:
    from gpuscout.estimate.training import estimate_training

    result: TrainingResult = estimate_training(*args, **kwargs)
    return result


def _images(*args: Any, **kwargs: Any) -> ImageResult:
    from gpuscout.estimate.diffusion import estimate_images

    result: ImageResult = estimate_images(*args, **kwargs)
    return result


def _accelerator(name: str) -> Accelerator:
    from gpuscout.knowledge.accelerators import resolve_gpu

    return resolve_gpu(name)


def _provider_terms(name: str) -> ProviderTerms:
    from gpuscout.knowledge.providers import provider_terms

    return provider_terms(name)


def _params_b(name: str) -> float:
    from gpuscout.knowledge.models import resolve_model
    from gpuscout.knowledge.params import count_params

    spec = resolve_model(name)
    if spec.kind != "llm" and spec.official_total_params_b:
        return float(spec.official_total_params_b)
    return float(count_params(spec).total) / 1e9


def _active_params_b(name: str) -> float:
    from gpuscout.knowledge.models import resolve_model
    from gpuscout.knowledge.params import count_params

    spec = resolve_model(name)
    if spec.kind != "llm":
        return _params_b(name)
    return float(count_params(spec).active) / 1e9


def _model_kind(name: str) -> str:
    from gpuscout.knowledge.models import resolve_model

    kind: str = resolve_model(name).kind
    return kind


def _model_name(name: str) -> str:
    from gpuscout.knowledge.models import resolve_model

    canonical: str = resolve_model(name).name
    return canonical


def _max_context(name: str) -> int | None:
    from gpuscout.knowledge.models import resolve_model

    spec = resolve_model(name)
    return spec.max_position_embeddings if spec.kind == "llm" and spec.max_position_embeddings > 0 else None


def _provider_ids() -> tuple[str, ...]:
    from gpuscout.knowledge.providers import all_provider_terms

    return tuple(t.name for t in all_provider_terms())


def _canonical_provider(name: str) -> str | None:
    from gpuscout.knowledge.providers import canonical_provider

    return canonical_provider(name)


def default_backends() -> Backends:
    """The real estimator and knowledge tables."""
    return Backends(
        inference=_inference,
        training=_training,
        images=_images,
        accelerator=_accelerator,
        provider_terms=_provider_terms,
        params_b=_params_b,
        active_params_b=_active_params_b,
        model_kind=_model_kind,
        model_name=_model_name,
        max_context=_max_context,
        provider_ids=_provider_ids,
        canonical_provider=_canonical_provider,
    )
