"""An estimate names the runtime that runs on the accelerator asked for: llama.cpp runs on an AMD card
through its HIP (ROCm) backend, so `gpuscout estimate llama-3.1-8b --gpu MI300X --engine llama.cpp`
no longer says "llama.cpp (CUDA, layer split)", nor a "CUDA context" or "CUDA graphs" there (a Gaudi
has HPU graphs, a TPU XLA-compiled ones); NVIDIA's words stay as they were."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import diagnose
from gpuscout.estimate.runtime import CUDA_RUNTIME, device_runtime, on_runtime
from gpuscout.estimate.training import estimate_training


def _words(est: object) -> str:
    """Every text an estimate carries: its assumptions and warnings."""
    assumptions = getattr(est, "assumptions", {})
    return " | ".join([*assumptions.values(), *getattr(est, "warnings", [])])


def test_llama_cpp_on_an_amd_card_names_its_hip_backend() -> None:
    est = estimate("llama-3.1-8b", "MI300X", engine="llama.cpp", precision="q4_k_m")
    assert est.supported
    assert est.assumptions["engine"] == "llama.cpp (HIP/ROCm, layer split)"
    assert "HIP (ROCm) context" in est.assumptions["memory_budget"]
    assert est.assumptions["fixed_costs"].endswith("(HIP graphs)")
    assert "CUDA" not in _words(est)


def test_nvidia_keeps_the_cuda_words() -> None:
    est = estimate("llama-3.1-8b", "H100-SXM", engine="llama.cpp", precision="q4_k_m")
    assert est.assumptions["engine"] == "llama.cpp (CUDA, layer split)"
    assert "CUDA context" in est.assumptions["memory_budget"]
    assert est.assumptions["fixed_costs"].endswith("(CUDA graphs)")


@pytest.mark.parametrize(
    ("gpu", "engine", "graphs"),
    [
        ("MI300X", "vllm", "HIP graphs"),
        ("MI300X", "sglang", "HIP graphs"),
        ("MI300X", "vllm 0.6", "HIP graphs"),
        ("Gaudi2", "vllm", "HPU graphs"),
        ("TPU-v6e", "vllm", "XLA-compiled graphs"),
    ],
)
def test_no_cuda_words_off_nvidia(gpu: str, engine: str, graphs: str) -> None:
    est = estimate("llama-3.1-8b", gpu, engine=engine)
    assert est.supported
    assert graphs in est.assumptions["fixed_costs"]
    assert "CUDA" not in _words(est)


def test_an_engine_that_cannot_run_there_names_no_backend_it_lacks() -> None:
    # llama.cpp has no Gaudi backend: the refusal's label names none, not CUDA's
    est = estimate("llama-3.1-8b", "Gaudi2", engine="llama.cpp", precision="q4_k_m")
    assert not est.supported
    assert est.assumptions["engine"] == "llama.cpp (layer split)"


def test_an_era_label_is_said_in_the_gpus_words() -> None:
    est = estimate("llama-3-8b", "MI300X", engine="tgi 2.0")  # Llama 3 (TGI 2.0 predates Llama 3.1's rope)
    assert est.supported
    assert "CUDA" not in est.assumptions["engine"] and "HIP graphs" in est.assumptions["engine"]


def test_diagnose_on_an_amd_card_says_hip() -> None:
    d = diagnose("llama-3.1-8b", "MI300X", measured_tps=20.0, engine="llama.cpp", precision="q4_k_m")
    text = " ".join([d.verdict, *d.suggestions])
    assert "CUDA" not in text
    assert "HIP graphs" in text  # the remedy of a slow run: check the engine's graphs


def test_training_on_an_amd_card_holds_a_hip_context() -> None:
    t = estimate_training("llama-3.1-8b", "MI300X", method="lora", gpus=1)
    assert "HIP (ROCm) context" in t.assumptions["overhead"]
    assert "CUDA" not in _words(t)


def test_the_runtime_of_each_vendor() -> None:
    assert device_runtime("NVIDIA") == CUDA_RUNTIME == device_runtime("")  # unknown vendor: CUDA's words
    assert device_runtime("AMD").backend == "HIP/ROCm"
    assert on_runtime("llama.cpp (CUDA, layer split)", device_runtime("Intel")) == "llama.cpp (layer split)"
    assert on_runtime("x (CUDA graphs)", CUDA_RUNTIME) == "x (CUDA graphs)"


def test_an_engine_that_never_runs_on_the_vendor_keeps_its_own_words() -> None:
    """TensorRT-LLM runs on NVIDIA GPUs only: its refusal on an MI300X named 'HIP graphs' beside 'runs on
    NVIDIA GPUs only'; an engine that runs there (vLLM on ROCm) is named in the card's runtime."""
    from gpuscout.estimate.runtime import runs_on_vendor

    trt = estimate("llama-3.1-8b", "MI300X", engine="tensorrt-llm 0.18")
    assert not trt.supported and "HIP" not in trt.assumptions["engine"]
    assert not runs_on_vendor("tensorrt-llm", "AMD") and runs_on_vendor("vllm", "AMD")
    assert runs_on_vendor("llama.cpp", "AMD") and not runs_on_vendor("sglang", "Intel")
