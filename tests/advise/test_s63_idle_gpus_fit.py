"""A box whose GPUs tensor parallelism cannot all use says why it does not fit (stop 63).

``recommend serve llama-3.1-70b --gpu A4000 --show-rejected`` said "does not fit: weights" of the
10x A4000 box and nothing more, while the 8x box of the same GPU said why. Tensor-parallel degrees are
powers of two (``configs.tp_degrees``): 10 GPUs run TP8 and leave 2 idle, so the 10-GPU box holds no
more of the model than the 8-GPU one. The rejection now says so, with the per-GPU figures the fit was
judged on.
"""

from __future__ import annotations

import re

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.configs import tp_degrees
from tests.advise.web_helpers import web_offer

WORKLOADS = {
    "serve": {"kind": "serve", "model": "llama-3.1-70b", "concurrency": 8},
    "batch": {"kind": "batch", "model": "llama-3.1-70b", "output_tokens_total": 1e6},
}


@pytest.mark.parametrize("kind", sorted(WORKLOADS))
def test_the_idle_gpus_of_a_ten_gpu_box_are_said(kind: str) -> None:
    assert tp_degrees(10)[-1] == 8  # the rule the text says
    offers = [
        web_offer("a4000x8", "A4000", 16, 1.6, gpus=8),
        web_offer("a4000x10", "A4000", 16, 2.0, gpus=10),
        web_offer("a4000x4", "A4000", 16, 0.8, gpus=4),
    ]
    answer = advise(WORKLOADS[kind], offers, include_rejected=True)
    why = {r.offer.gpu_count: r.rejected or "" for r in answer.rejected}
    ten = why[10]
    assert ten.startswith("does not fit: weights (tensor parallel is tried on at most 8 of its 10 GPUs, ")
    assert "the other 2 idle" in ten
    figures = re.search(
        r"split 8 ways, ([\d.]+) GiB of weights \+ ([\d.]+) GiB of overhead on each GPU "
        r"exceed the ([\d.]+) GiB the engine uses",
        ten,
    )
    assert figures is not None, ten
    weights, overhead, usable = (float(x) for x in figures.groups())
    assert weights + overhead > usable  # the fit rule (MemoryModel.binding_constraint), in the figures said
    # the 8-GPU box keeps its own reason (the weights exceed the whole node), a 4-GPU one none added
    assert "at least 2 such nodes" in why[8] and "idle" not in why[8]
    assert why[4] == "does not fit: weights"
