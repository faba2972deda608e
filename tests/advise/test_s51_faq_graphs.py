"""Where the fixed cost of each step sets a decode's pace, the FAQ advises CUDA graphs only to an engine that
does not replay them already: DeepSeek-R1 on 8x H200 under vLLM (graphs on) was told "or an engine that
replays CUDA graphs"; its fixed cost is the GPU's many small kernels a layer (routing, block-FP8
quantisation), not Python launching them."""

from __future__ import annotations

from gpuscout import estimate
from gpuscout.advise.faq import _slow_cause, faq
from tests.advise.helpers import NOW, offer


def test_the_estimate_says_whether_its_steps_replay_cuda_graphs() -> None:
    assert estimate("llama-3.1-8b", "H100-SXM", engine="vllm").cuda_graphs
    assert not estimate("llama-3.1-8b", "H100-SXM", engine="vllm --enforce-eager").cuda_graphs
    assert not estimate("llama-3.1-8b", "H100-SXM", engine="hf").cuda_graphs


def test_graphs_are_advised_only_to_an_eager_engine() -> None:
    cause, helps = _slow_cause("overhead", 1, graphs=True)
    assert "CUDA graphs" not in helps and "small kernels" in cause
    cause, helps = _slow_cause("overhead", 1, graphs=False)
    assert "replays CUDA graphs" in helps and "kernel launches" in cause


def test_deepseek_on_h200_is_not_told_to_use_cuda_graphs() -> None:
    offers = [offer("cloud", "H200-SXM", 8, 30.0, memory=141.0)]
    slow = faq("deepseek-r1", offers, users=1, gpu="H200-SXM", now=NOW).answers[-1]
    assert slow.key == "slow_generation"
    assert "fixed cost of each step" in slow.answer, slow.answer
    assert "CUDA graphs" not in slow.answer
