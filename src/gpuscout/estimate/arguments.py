"""Checking the arguments of the estimate entry points: names resolved, numbers in range.

Every failure is an :class:`InvalidInputError` naming the field and what it accepts (an unknown
model or GPU name raises the knowledge table's ``UnknownNameError`` with the closest names).
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import TYPE_CHECKING

from gpuscout.errors import InvalidInputError, WrongModelKind
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

if TYPE_CHECKING:
    from gpuscout.estimate.engines import EngineProfile


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


def whole_number(value: object) -> int | None:
    """``value`` as an ``int`` when it is a whole number, None otherwise.

    A whole number is an int (numpy's integers too: anything ``numbers.Integral``) or a real number
    equal to one, as a count typed or computed arrives (``2.0``, ``numpy.float64(2.0)``,
    ``Fraction(4, 2)``); not a bool (``True`` is no count), not ``2.5``, nan or infinity, and not a
    string (a face parses text before it calls the core)."""
    if _is_bool(value):
        return None
    if isinstance(value, numbers.Integral):
        return operator.index(value)
    if isinstance(value, numbers.Rational):  # exact, however large
        return int(value.numerator) if value.denominator == 1 else None
    real = _real(value)
    if real is not None and math.isfinite(real) and real.is_integer():
        return int(real)
    return None


def int_in(
    field: str, value: object, low: int, high: int, *, error: type[InvalidInputError] = InvalidInputError
) -> int:
    """``value`` as an ``int`` when it is a whole number (:func:`whole_number`: ``2`` or ``2.0``, not a
    bool) in ``low..high``; else ``error`` (pass ``ConfigurationRejected`` where the value is a hardware
    configuration: GPUs, nodes, batch). Use the value returned: ``2.0`` comes back as ``2``."""
    number = whole_number(value)
    if number is None:
        raise error(field, f"must be a whole number, got {value!r}", f"{low}..{high}")
    if not low <= number <= high:
        raise error(field, f"{number} is out of range", f"{low}..{high}")
    return number


def positive_float(field: str, value: object, high: float) -> float:
    """``value`` as float when it is a finite real number (not a bool; numpy's numbers too) in
    ``(0, high]``."""
    number = _real(value)
    if number is None or not math.isfinite(number):
        raise InvalidInputError(field, f"must be a positive number, got {value!r}", f"> 0, <= {high:g}")
    if not 0 < number <= high:
        raise InvalidInputError(field, f"{value} is out of range", f"> 0, <= {high:g}")
    return number


def _is_bool(value: object) -> bool:
    """A bool, Python's or numpy's (``numpy.bool_`` is not a subclass of ``bool``)."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _real(value: object) -> float | None:
    """``value`` as a float when it is a real number and not a bool (None otherwise)."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except (OverflowError, ValueError):  # a Fraction or Integral too large for a float
        return None


#: Engines that refuse to start with a context length above the model's window, and the override.
#: vLLM derives its max_model_len from the config (max_position_embeddings, RoPE scaling weighed) and
#: refuses a larger --max-model-len ("User-specified max_model_len ... is greater than the derived
#: max_model_len") unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set; SGLang refuses a larger
#: --context-length unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set.
REFUSE_PAST_WINDOW: dict[str, str] = {
    "vllm": "vLLM refuses a max_model_len above the model's derived one (unless "
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set)",
    "sglang": "SGLang refuses a context length above the model's (unless "
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set)",
}


def within_max_model_len(
    spec: ModelSpec,
    eng: EngineProfile,
    context_in: int,
    context_out: int,
    asked: str = "context_in + context_out",
) -> str:
    """Check the engine's stated ``--max-model-len`` (SGLang: ``--context-length``) against the context
    asked (``asked`` names it: "context_in + context_out", or "context") and the model's window.

    A max_model_len shorter than the context asked is an input error naming the ``engine`` field and
    both figures: the engine rejects a request whose prompt plus output exceeds it (vLLM answers 400,
    "This model's maximum context length is ..."), so no estimate at that context is an answer. One
    longer than the model's window (``max_position_embeddings``) is the returned warning: vLLM and
    SGLang refuse to start with it unless an override is set (:data:`REFUSE_PAST_WINDOW`; the engine
    text cannot say whether it is, and Qwen's SGLang speed benchmark ran Qwen3 with
    context_length=140000, so it was), and past the window the output is wrong without RoPE scaling.
    "" when there is nothing to say.
    """
    from gpuscout.estimate.launch_flags import max_model_len_flag

    limit = eng.max_model_len
    if not limit:
        return ""
    flag = max_model_len_flag(eng.name)
    window = spec.max_position_embeddings
    if window and limit > window:
        said = (
            f"{flag} {limit} is longer than {spec.name}'s context window of {window:,} tokens "
            "(max_position_embeddings)"
        )
        refusal = REFUSE_PAST_WINDOW.get(eng.name)
        started = f"{refusal}: taken as started with that override; " if refusal else ""
        warning = f"{said}: {started}past the window the output is wrong without RoPE scaling"
    else:
        warning = ""
    total = context_in + context_out
    if total > limit:
        parts = f": {context_in:,} + {context_out:,}" if asked == "context_in + context_out" else ""
        raise InvalidInputError(
            "engine",
            f"{flag} {limit} is shorter than the {total:,}-token context asked ({asked}{parts}): "
            f"{eng.label} rejects a request whose prompt and output exceed it",
            f"{flag} >= {total}, or {asked} <= {limit}",
        )
    return warning
