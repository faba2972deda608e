"""The 'no offer meets the latency targets' hint quotes the best latency among the offers the filters let
through: a B200 the renter left out (--gpu H100) is not named as reaching a TTFT no H100 reaches."""

from __future__ import annotations

from gpuscout.advise.rank import Ranker
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer


def test_the_hint_names_only_the_gpus_asked_for() -> None:
    w = ServeWorkload(
        model="llama-3.1-70b", concurrency=4, prompt_tokens=64_000, output_tokens=500,
        accelerators=("H100-SXM",), ttft_ms_max=200.0,
    )  # fmt: skip
    offers = [
        offer("persec", "H100-SXM", gpus=8, price=20.0),
        offer("persec", "B200", gpus=8, price=40.0, memory=180.0),
    ]
    advice = Ranker(w, now=NOW).advise(offers, "cost")
    assert not advice.rows
    assert advice.binding is not None and "H100-SXM" in advice.binding
    assert "B200" not in advice.binding, advice.binding
