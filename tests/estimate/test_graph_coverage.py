"""Which steps a CUDA-graph engine replays from its graphs, and what the others cost: TGI 2-3 captures
decode batches of 1-32 sequences (``--cuda-graphs`` default), so a prompt step or a batch of 33 runs its
eager modelling code and launches every layer's kernels from Python. Every number is worked out beside
it."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.engines import EAGER_LAYER_LAUNCH_US, resolve_engine
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.throughput import _blend, _fixed_costs, decode_step
from tests.estimate.setups import make_setup


def test_tgi_replays_graphs_for_decode_batches_up_to_32_only() -> None:
    tgi = resolve_engine("tgi")
    assert tgi.cuda_graphs and tgi.graph_max_batch == 32
    assert tgi.graphs_cover(32)
    assert not tgi.graphs_cover(33)
    # a step carrying prompt tokens runs eager whatever its size
    assert not tgi.graphs_cover(1, prefill_tokens=50)
    # TGI 1.x never had graphs; vLLM V1 and SGLang replay any decode batch and prompt chunk
    assert not resolve_engine("tgi 1.0.3").graphs_cover(1)
    for name in ("vllm", "sglang"):
        eng = resolve_engine(name)
        assert eng.graphs_cover(512, prefill_tokens=2048)


def test_a_step_outside_the_graphs_pays_the_eager_launches_of_every_layer() -> None:
    # Llama-3.1-70B (80 layers) on 8x H100 under TGI 3: a graph step keeps 80 x 5 us of GPU gaps; an
    # eager one launches 80 x 576 us = 46.1 ms of kernels from Python instead
    st = make_setup("llama-3.1-70b", "H100", "bf16", "tgi", gpus=8)
    c = model_consts(st.spec)
    gpu_fixed, launches, _ = _fixed_costs(st, c, 8, graphs=True)
    assert gpu_fixed == pytest.approx(80 * 5e-6) and launches == 0.0
    gpu_fixed_e, launches_e, cpu_e = _fixed_costs(st, c, 64, graphs=False)
    assert gpu_fixed_e == 0.0
    assert launches_e == pytest.approx(80 * EAGER_LAYER_LAUNCH_US * 1e-6)
    assert launches_e == pytest.approx(80 * 576.0e-6)
    # the launches run ahead of the GPU (async), the scheduling waits for the step as with graphs
    step = decode_step(st, 64, 100)
    without = decode_step(
        dataclasses.replace(st, engine=dataclasses.replace(st.engine, graph_max_batch=0)), 64, 100
    )
    gpu_part = without.total - cpu_e - 80 * 5e-6  # the same GPU work without the graph gaps
    assert step.total == pytest.approx(_blend(gpu_part, launches_e) + cpu_e, rel=1e-6)
    # 70B over 8 GPUs streams ~17.6 GB per GPU in ~9 ms: the launches set the eager step (> 37 ms)
    assert step.total > 0.037 > 2.5 * without.total


def test_a_gpu_bound_eager_step_hides_its_launches() -> None:
    # Llama-3.1-8B on one L4 at 64 sequences: ~16 GB per step at 300 GB/s x 0.78 is ~70 ms of GPU
    # work against 32 x 576 us = 18.4 ms of launches: the blend adds well under 1 %
    st = make_setup("llama-3.1-8b", "L4", "bf16", "tgi")
    eager = decode_step(st, 64, 100).total
    graphs = decode_step(st, 32, 100).total
    assert eager < 2.2 * graphs  # twice the sequences, not twice plus the launches
    c = model_consts(st.spec)
    _, launches, _ = _fixed_costs(st, c, 64, graphs=False)
    assert launches == pytest.approx(32 * 576.0e-6)
    gpu = eager - decode_step(st, 64, 100).fixed
    assert _blend(gpu, launches) < 1.01 * gpu


def test_an_engine_without_graphs_keeps_its_own_per_layer_cost() -> None:
    # TGI 1.x is eager throughout: its per-layer cost is its own (the same fitted constant), and its
    # host work is unchanged by the graph rules
    st = make_setup("llama-2-7b", "A10G", "fp16", "tgi 1.0.3")
    assert not st.engine.cuda_graphs
    c = model_consts(st.spec)
    _, launches, _ = _fixed_costs(st, c, 4, graphs=True)
    assert launches == pytest.approx(32 * st.engine.layer_overhead_us * 1e-6)


def test_the_estimate_says_when_its_decode_steps_run_eager() -> None:
    from gpuscout.estimate.api import estimate

    kw = {"gpus": 8, "engine": "tgi", "context_in": 500, "context_out": 200}
    small = estimate("llama-3.1-70b", "H100", concurrency=16, **kw)
    large = estimate("llama-3.1-70b", "H100", concurrency=64, **kw)
    assert small.assumptions["fixed_costs"].endswith("(CUDA graphs; prompt steps eager)")
    assert "eager: CUDA graphs cover decode batches up to 32" in large.assumptions["fixed_costs"]
    # past the captured sizes every step pays 80 layers of launches: TPOT jumps, it does not creep
    assert large.tpot_ms > 2 * small.tpot_ms
