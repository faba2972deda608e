"""What the model pages show, computed with the estimator: memory by precision, VRAM against
context length and concurrency, and the smallest count of each GPU that holds the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.params import count_params

PRECISIONS: tuple[str, ...] = ("bf16", "fp8", "int8", "int4")
CONTEXTS: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
CONCURRENCIES: tuple[int, ...] = (1, 8, 32, 128)
GPU_COUNTS: tuple[int, ...] = (1, 2, 4, 8)
DEFAULT_CONTEXT = 4096
# Memory per model is the same on any GPU big enough not to matter; one large part is used to size it.
_SIZING_GPU = "B200"


@dataclass(frozen=True, slots=True)
class Fit:
    gpu: Accelerator
    gpus_needed: int | None  # None: not even 8 of them


def params_b(spec: ModelSpec) -> tuple[float | None, float | None]:
    """Total and active parameters (billions); ``None`` when they cannot be counted."""
    try:
        count = count_params(spec)
    except InvalidInputError:
        return spec.total_params_b, None
    return count.total_b, count.active_b


def memory(spec: ModelSpec, precision: str, context: int, concurrency: int) -> MemoryBreakdown:
    """Whole-model memory (one GPU, no tensor parallelism) for ``concurrency`` sequences of ``context``."""
    est = estimate(spec, _SIZING_GPU, gpus=1, precision=precision, batch=concurrency,
                   context_in=context, context_out=0)
    return est.memory


def memory_by_precision(spec: ModelSpec, context: int = DEFAULT_CONTEXT, concurrency: int = 1
                        ) -> list[tuple[str, MemoryBreakdown]]:
    return [(p, memory(spec, p, context, concurrency)) for p in PRECISIONS]


def vram_series(spec: ModelSpec, precision: str) -> tuple[list[int], dict[str, list[float]]]:
    """Total GB per context length (up to the model's maximum), one series per concurrency."""
    contexts = [c for c in CONTEXTS if c <= max(spec.max_position_embeddings, CONTEXTS[0])]
    series = {
        f"{n} concurrent": [round(memory(spec, precision, c, n).total_gb, 2) for c in contexts]
        for n in CONCURRENCIES
    }
    return contexts, series


@lru_cache(maxsize=256)
def fits(spec: ModelSpec, precision: str, context: int = DEFAULT_CONTEXT) -> tuple[Fit, ...]:
    """For each accelerator, the smallest of 1/2/4/8 GPUs (tensor parallel) that holds one sequence."""
    out: list[Fit] = []
    for acc in all_accelerators():
        needed = None
        for n in GPU_COUNTS:
            try:
                est = estimate(spec, acc, gpus=n, precision=precision, batch=1,
                               context_in=context, context_out=0)
            except InvalidInputError:
                break  # e.g. this accelerator cannot run the format at all
            if est.fits:
                needed = n
                break
        out.append(Fit(acc, needed))
    return tuple(out)


def sort_fits(items: Sequence[Fit]) -> list[Fit]:
    return sorted(items, key=lambda f: (f.gpus_needed is None, f.gpus_needed or 0, f.gpu.memory_gb))


def group_fits(items: Sequence[Fit]) -> list[tuple[int | None, list[Fit]]]:
    """Fits grouped by GPUs needed (1, 2, 4, 8, then None = more than 8), each group by memory."""
    groups: dict[int | None, list[Fit]] = {}
    for f in sort_fits(items):
        groups.setdefault(f.gpus_needed, []).append(f)
    return list(groups.items())
