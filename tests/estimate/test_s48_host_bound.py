"""The caveat on eager decoding that the host CPU sets (HF transformers without CUDA graphs): the speed of
such a step is the speed of one Python thread, which no offer states, so the estimate says so."""

from __future__ import annotations

import gpuscout
from gpuscout.estimate.api import HOST_BOUND_SHARE, host_bound_note
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.throughput import StepTime


def _host_notes(est: object) -> list[str]:
    return [w for w in est.warnings if w.startswith("decoding is host-bound")]  # type: ignore[attr-defined]


def test_transformers_small_batch_decode_names_the_host() -> None:
    # Llama-3.1-8B bf16 on an H200: ~16 GB of weights at ~3.4 TB/s is ~5 ms of GPU time, while 32 layers of
    # eager launches (hundreds of microseconds each) are tens of milliseconds: the host sets the step
    est = gpuscout.estimate("llama-3.1-8b", gpu="H200", engine="transformers", concurrency=1)
    (note,) = _host_notes(est)
    assert "one CPU thread" in note and "1.3 to 2.5 times slower" in note
    # hosts differ both ways: the published runs of a faster host are named too
    assert "up to 2.1 times faster" in note
    assert "vLLM or SGLang" in note  # the engine never uses graphs: the way out is another engine


def test_graph_engines_at_captured_batches_carry_no_host_note() -> None:
    for engine in ("vllm", "sglang", "tgi"):
        est = gpuscout.estimate("llama-3.1-8b", gpu="H200", engine=engine, concurrency=1)
        assert not _host_notes(est), engine


def test_the_note_follows_the_step_split() -> None:
    eng = resolve_engine("transformers")
    # GPU time (50 ms of weight reads) above the host's 20 ms: the GPU sets the step, no note
    gpu_bound = StepTime(total=0.060, memory=0.050, compute=0.01, fixed=0.020, comm=0.0)
    assert host_bound_note(eng, 1, gpu_bound) == ""
    # half the step on the host: the note, with the host's part of the step
    half = StepTime(total=0.060, memory=0.010, compute=0.01, fixed=0.060 * HOST_BOUND_SHARE, comm=0.0)
    assert "30.0 ms of each 60.0 ms step is kernel launches" in host_bound_note(eng, 1, half)
    # the GPU's work hidden under the host's (an overlapping engine): the whole step is the host's
    whole = StepTime(total=0.035, memory=0.005, compute=0.001, fixed=0.035, comm=0.0)
    assert "each 35.0 ms step is kernel launches" in host_bound_note(eng, 1, whole)


def test_graph_engine_beyond_its_graphs_names_the_captured_sizes() -> None:
    eng = resolve_engine("tgi")  # TGI 2.x-3.x: --cuda-graphs 1..32, larger decode batches run eager
    assert eng.cuda_graphs and eng.graph_max_batch
    step = StepTime(total=0.040, memory=0.004, compute=0.004, fixed=0.039, comm=0.0)
    note = host_bound_note(eng, eng.graph_max_batch + 1, step)
    assert f"cover decode batches up to {eng.graph_max_batch}" in note
    assert host_bound_note(eng, eng.graph_max_batch, step) == ""  # inside the graphs: GPU-side gaps
