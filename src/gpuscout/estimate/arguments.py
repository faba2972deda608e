"""Checking the arguments of the estimate entry points: names resolved, numbers in range.

Every failure is an :class:`InvalidInputError` naming the field and what it accepts (an unknown
model or GPU name raises the knowledge table's ``UnknownNameError`` with the closest names).
"""

from __future__ import annotations

import math

from gpuscout.errors import InvalidInputError, WrongModelKind
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec


def resolve_model_arg(model: str | ModelSpec) -> ModelSpec:
    """A ``ModelSpec`` as given, or the one a model name resolves to."""
    if isinstance(model, ModelSpec):
        return model
    if not isinstance(model, str) or not model.strip():
        raise InvalidInputError(
            "model", f"expected a model name or a ModelSpec, got {model!r}", "e.g. llama-3.1-8b"
        )
    from gpuscout.knowledge.models import resolve_model

    return resolve_model(model)


#: Where each kind of model is answered: what it is, the command that times it, the Python function
#: behind that command, and the command that prices it (empty: none does).
FACES: dict[str, tuple[str, str, str, str]] = {
    "llm": (
        "a language model",
        "gpuscout estimate {name} --gpu GPU",
        "gpuscout.estimate",
        "gpuscout recommend serve|batch|finetune {name}",
    ),
    "diffusion": (
        "an image (diffusion) model",
        "gpuscout images {name} --gpu GPU",
        "gpuscout.estimate_images",
        "gpuscout recommend batch {name} --images N",
    ),
    "audio": (
        "a speech-to-text model",
        "gpuscout transcribe {name} --gpu GPU",
        "gpuscout.estimate_transcription",
        "",
    ),
}


def other_face(name: str, kind: str, wanted: str = "a language model") -> str:
    """Why a model of ``kind`` is not what an entry point answers (``wanted``), and where it is answered:
    "flux.1-dev is an image (diffusion) model, not a language model: `gpuscout images ...` times it"."""
    face = FACES.get(kind)
    if face is None:
        return f"{name} is a {kind} model, not {wanted}"
    what, command, function, priced = face
    text = f"{name} is {what}, not {wanted}: `{command.format(name=name)}` times it (Python: {function})"
    if priced:
        text += f" and `{priced.format(name=name)}` prices it"
    return text


def require_language_model(spec: ModelSpec) -> None:
    """Nothing for a language model; otherwise an error naming the ``model`` field and where a model of
    its kind is answered (the LLM estimators size tokens, not images or audio)."""
    if spec.kind != "llm":
        raise WrongModelKind(
            spec.name, spec.kind, "a language model", other_face(spec.name, spec.kind), "a language model"
        )


def resolve_gpu_arg(gpu: str | Accelerator) -> Accelerator:
    """An ``Accelerator`` as given, or the one a GPU name resolves to."""
    if isinstance(gpu, Accelerator):
        return gpu
    if not isinstance(gpu, str) or not gpu.strip():
        raise InvalidInputError(
            "gpu", f"expected a GPU name or an Accelerator, got {gpu!r}", "e.g. H100, RTX 4090"
        )
    from gpuscout.knowledge.accelerators import resolve_gpu

    return resolve_gpu(gpu)


def int_in(
    field: str, value: object, low: int, high: int, *, error: type[InvalidInputError] = InvalidInputError
) -> int:
    """``value`` when it is a whole number (not a bool) in ``low..high``; else ``error`` (pass
    ``ConfigurationRejected`` where the value is a hardware configuration: GPUs, nodes, batch)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(field, f"must be a whole number, got {value!r}", f"{low}..{high}")
    if not low <= value <= high:
        raise error(field, f"{value} is out of range", f"{low}..{high}")
    return value


def positive_float(field: str, value: object, high: float) -> float:
    """``value`` as float when it is a finite number (not a bool) in ``(0, high]``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInputError(field, f"must be a positive number, got {value!r}", f"> 0, <= {high:g}")
    if not 0 < value <= high:
        raise InvalidInputError(field, f"{value} is out of range", f"> 0, <= {high:g}")
    return float(value)
