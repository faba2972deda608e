"""The GPU runtime an engine runs on, by the accelerator's vendor, and the words that name it.

The engines' profiles (:mod:`gpuscout.estimate.engines`) describe them in NVIDIA's words: llama.cpp's
CUDA backend, the CUDA context each process holds, the CUDA graphs a decode step replays. An estimate
on another vendor's accelerator names that vendor's runtime instead (:func:`on_runtime`), so that an
AMD card's answer reads "llama.cpp (HIP/ROCm, layer split)" and "HIP graphs", not CUDA's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DeviceRuntime:
    """The GPU runtime an engine runs on for one vendor's accelerators, as the estimate names it: the
    llama.cpp backend built for them, the per-process context it allocates, and the captured graphs it
    replays. An engine's own words name NVIDIA's (CUDA); an AMD card runs the same engines through HIP
    (ROCm), where PyTorch's ``torch.cuda.graphs`` capture HIP graphs and llama.cpp builds its HIP
    backend (ggml-hip: docs/build.md, "HIP"); Gaudi runs them through its HPU runtime and HPU graphs,
    a TPU through XLA (PJRT), Trainium / Inferentia through the Neuron runtime."""

    backend: str  # llama.cpp's backend on these accelerators ("" where none runs there)
    context: str  # the runtime context each process holds on a GPU ("CUDA context")
    graphs: str  # the captured graphs an engine replays ("CUDA graphs")


#: NVIDIA's runtime: the engines' own words, and the runtime of an accelerator whose vendor is not known
CUDA_RUNTIME = DeviceRuntime(backend="CUDA", context="CUDA context", graphs="CUDA graphs")

#: The runtime by vendor (``Accelerator.vendor``, folded to lower case)
DEVICE_RUNTIMES: dict[str, DeviceRuntime] = {
    "nvidia": CUDA_RUNTIME,
    "amd": DeviceRuntime(backend="HIP/ROCm", context="HIP (ROCm) context", graphs="HIP graphs"),
    "intel": DeviceRuntime(backend="", context="HPU runtime context", graphs="HPU graphs"),
    "google": DeviceRuntime(backend="", context="TPU runtime (PJRT) context", graphs="XLA-compiled graphs"),
    "aws": DeviceRuntime(backend="", context="Neuron runtime context", graphs="Neuron-compiled graphs"),
}


def device_runtime(vendor: str) -> DeviceRuntime:
    """The runtime an engine runs on for ``vendor``'s accelerators (CUDA's where the vendor is unknown)."""
    return DEVICE_RUNTIMES.get(vendor.strip().lower(), CUDA_RUNTIME)


def on_runtime(text: str, runtime: DeviceRuntime) -> str:
    """``text`` (an engine's label or note, in NVIDIA's words) with the runtime of ``runtime`` named:
    "llama.cpp (CUDA, layer split)" is "llama.cpp (HIP/ROCm, layer split)" on an AMD card, "no CUDA
    graphs" "no HIP graphs"; unchanged on NVIDIA's."""
    if runtime == CUDA_RUNTIME or "CUDA" not in text:
        return text
    text = text.replace(CUDA_RUNTIME.graphs, runtime.graphs).replace(CUDA_RUNTIME.context, runtime.context)
    backend = f"{runtime.backend}, " if runtime.backend else ""
    return text.replace("(CUDA, ", f"({backend}")


#: The support rules' platform target for each vendor (``knowledge.engine_support.platform_of``'s names)
_TARGET_OF_VENDOR = {"nvidia": "nvidia", "amd": "amd", "google": "tpu", "intel": "gaudi", "aws": "neuron"}


@functools.lru_cache(maxsize=256)
def runs_on_vendor(engine: str, vendor: str) -> bool:
    """Whether the support rules run ``engine`` on any accelerator of ``vendor`` (a platform row for one of
    its targets that is not ``unsupported``): an engine that does not (TensorRT-LLM on AMD) keeps its own
    words on its refusal rather than a runtime it never uses ("HIP graphs off")."""
    from gpuscout.knowledge.engine_support import support_rules

    target = _TARGET_OF_VENDOR.get(vendor.strip().lower())
    if target is None:
        return True
    return any(
        r.engine == engine
        and r.precision == "*"
        and r.target.split(":")[0] == target
        and r.mode != "unsupported"
        for r in support_rules()
    )
