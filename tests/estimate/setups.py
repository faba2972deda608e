"""One way for the physics tests to build an estimator Setup from names."""

from __future__ import annotations

from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.estimate.throughput import Setup
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model


def make_setup(
    model: str,
    gpu: str,
    precision: str = "bf16",
    engine: str = "vllm",
    gpus: int = 1,
    kv: str = "bf16",
) -> Setup:
    """``model`` in ``precision`` on ``gpus`` x ``gpu`` under ``engine`` (a name with its era), tensor
    parallel, with a ``kv`` cache."""
    return Setup(
        resolve_model(model),
        resolve_gpu(gpu),
        resolve_precision(precision),
        resolve_kv_dtype(kv),
        resolve_engine(engine),
        gpus,
        "tensor",
    )
