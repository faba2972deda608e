"""Checking the arguments of the estimate entry points: names resolved, numbers in range.

Every failure is an :class:`InvalidInputError` naming the field and what it accepts (an unknown
model or GPU name raises the knowledge table's ``UnknownNameError`` with the closest names).
"""

from __future__ import annotations

import math

from gpuscout.errors import InvalidInputError
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
