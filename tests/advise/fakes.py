"""A small, hand-checkable fake estimator injected into the advisor's tests.

Bandwidth-bound decode (weights + each sequence's KV read per step), a fixed TP communication cost
that grows when the fabric is slow, memory = weights + KV x users + 1 GB. Only the *shape* matters:
the advisor's own logic is what these tests check; scenario tests use the real estimator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gpuscout.advise.backends import Backends
from gpuscout.errors import UnknownNameError
from gpuscout.estimate.types import Estimate, MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.provider_types import ProviderTerms
from tests.advise.helpers import accelerator, terms

MODELS = {"small": (8e9, 131072.0), "big": (70e9, 327680.0)}  # params, KV bytes per token
BYTES = {"bf16": 2.0, "fp8": 1.0, "int4": 0.5}

ACCELERATORS = {
    "H100-SXM": accelerator("H100-SXM", memory=80, bandwidth=3350, bf16=989),
    "H200-SXM": accelerator("H200-SXM", memory=141, bandwidth=4800, bf16=989),
    "A100-SXM4-80GB": accelerator("A100-SXM4-80GB", memory=80, bandwidth=2039, bf16=312, fp8=False),
    "L40S": accelerator("L40S", memory=48, bandwidth=864, bf16=362, interconnect="PCIe 4.0"),
    "RTX4090": accelerator(
        "RTX4090", memory=24, bandwidth=1008, bf16=165, interconnect="PCIe 4.0", kind="consumer"
    ),
}


def fake_inference(
    model: str,
    gpu: Accelerator,
    *,
    gpus: int = 1,
    precision: str | None = None,
    engine: str = "vllm",
    batch: int | str = 1,
    context_in: int = 512,
    context_out: int = 512,
    **_: Any,
) -> Estimate:
    params, kv_bpt = MODELS[model]
    precision = precision or "bf16"  # the fake's models are all bf16 checkpoints
    weights = params * BYTES[precision] / gpus / 1e9
    kv_seq = kv_bpt * (context_in + context_out) / gpus / 1e9
    usable = gpu.memory_gb * 0.9 - 1.0
    max_batch = max(0, min(256, math.floor((usable - weights) / kv_seq))) if usable > weights else 0
    b = max_batch if batch == "max" else int(batch)
    fits = max_batch >= max(b, 1)
    b = max(b, 1)
    step_s = (weights + kv_seq * b / 2) / (gpu.bandwidth_gbps * 0.8)
    if gpus > 1:
        step_s += 2e-5 * 900.0 / (gpu.interconnect_gbps or 64.0) * 10
    prefill = (gpu.bf16_tflops or 100) * 1e12 * 0.5 * gpus / (2 * params)
    mem = MemoryBreakdown(
        weights_gb=weights,
        kv_cache_gb=kv_seq * b,
        activations_gb=0.5,
        overhead_gb=0.5,
        capacity_gb=gpu.memory_gb,
        kv_bytes_per_token=kv_bpt,
    )
    return Estimate(
        model=model,
        gpu=gpu.name,
        gpus=gpus,
        precision=precision,
        engine=engine,
        task="inference",
        parallel="tensor",
        batch=b,
        context_in=context_in,
        context_out=context_out,
        kv_dtype="bf16",
        fits=fits,
        binding_constraint="fits" if fits else "weights" if max_batch == 0 else "kv_cache",
        memory=mem,
        max_batch=max_batch,
        decode_tokens_per_s=1 / step_s,
        output_tokens_per_s_total=b / step_s,
        prefill_tokens_per_s=prefill,
        ttft_ms=context_in / prefill * 1000 * (1 + b / 32),
        bound="memory",
        assumptions={"engine": engine},
        warnings=[],
        # as the support rules say: FP8 without FP8 tensor cores runs weight-only (Marlin)
        support="weight-only" if precision == "fp8" and not gpu.fp8_supported else "native",
    )


@dataclass
class FakeTraining:
    fits: bool
    memory: MemoryBreakdown
    tokens_per_s: float
    time_s: float | None
    warnings: list[str] = field(default_factory=list)
    trainable_params: int = 0  # unknown: the advisor's ADAPTER_SHARE stands in


def fake_training(
    model: str,
    gpu: Accelerator,
    *,
    gpus: int = 1,
    nodes: int = 1,
    method: str = "lora",
    tokens: float | None = None,
    epochs: float = 1.0,
    sharding: str = "none",
    **_: Any,
) -> FakeTraining:
    params, _kv = MODELS[model]
    world = gpus * nodes
    per_param = {"full": 16.0, "lora": 2.1, "qlora": 0.6}[method]
    shard = world if (sharding == "fsdp" and method == "full") else 1
    need = params * per_param / shard / 1e9 + 2.0
    fits = need <= gpu.memory_gb * 0.95
    tps = (gpu.bf16_tflops or 100) * 1e12 * 0.4 * world / (6 * params)
    mem = MemoryBreakdown(
        weights_gb=need - 2, kv_cache_gb=0, activations_gb=2, overhead_gb=0, capacity_gb=gpu.memory_gb
    )
    time_s = None if tokens is None else tokens * epochs / tps
    return FakeTraining(fits=fits, memory=mem, tokens_per_s=tps, time_s=time_s)


@dataclass
class FakeImages:
    fits: bool
    memory: MemoryBreakdown
    seconds_per_image: float
    images_per_s: float
    precision: str = "bf16"
    engine: str = "diffusers"
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def fake_images(model: str, gpu: Accelerator, *, steps: int = 30, **_: Any) -> FakeImages:
    spi = 1000.0 / (gpu.bf16_tflops or 100) * steps / 30
    mem = MemoryBreakdown(
        weights_gb=7, kv_cache_gb=0, activations_gb=3, overhead_gb=1, capacity_gb=gpu.memory_gb
    )
    return FakeImages(fits=gpu.memory_gb >= 12, memory=mem, seconds_per_image=spi, images_per_s=1 / spi)


TERMS: dict[str, ProviderTerms] = {
    "persec": terms("persec", increment=1),
    "perhour": terms("perhour", increment=3600),
    "market": terms("market", kind="marketplace", increment=1),
    "cloud": terms("cloud", kind="hyperscaler", increment=1, minimum=60),
}


def _acc(name: str) -> Accelerator:
    if name not in ACCELERATORS:
        raise UnknownNameError("gpu", name, list(ACCELERATORS))
    return ACCELERATORS[name]


class CountingBackends:
    """Fake backends that count inference calls (to check estimates run once per configuration)."""

    def __init__(self) -> None:
        self.inference_calls = 0

    def _inference(self, *args: Any, **kwargs: Any) -> Estimate:
        self.inference_calls += 1
        return fake_inference(*args, **kwargs)

    def backends(self) -> Backends:
        return Backends(
            inference=self._inference,
            training=fake_training,
            images=fake_images,
            accelerator=_acc,
            provider_terms=lambda name: TERMS.get(name, terms(name, increment=None)),
            params_b=lambda m: MODELS[m][0] / 1e9,
            active_params_b=lambda m: MODELS[m][0] / 1e9,
            model_kind=lambda m: "llm",
            model_name=lambda m: m,
        )


def fake_backends() -> Backends:
    return CountingBackends().backends()
