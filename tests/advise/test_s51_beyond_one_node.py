"""A model whose weights alone exceed what the engine uses of a full node (DeepSeek-R1's ~627 GiB in FP8 on
8 x H100, ~573 GiB usable) is rejected saying so: at least two such nodes, and serving across nodes is
not modelled. It said "does not fit: weights", which sent the renter looking for a larger split of the
same node."""

from __future__ import annotations

from gpuscout.advise.rank import rank
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from tests.advise.helpers import NOW, offer

NODE = "exceed what the engine uses of the 8 GPUs"


def _why(workload: object, gpus: int, gpu: str = "H100-SXM", memory: float = 80.0) -> str | None:
    (row,) = rank(workload, [offer("cloud", gpu, gpus, 20.0, memory=memory)], now=NOW, include_rejected=True)  # type: ignore[arg-type]
    return row.rejected


def test_a_full_node_too_small_for_the_weights_says_how_many_nodes() -> None:
    for workload in (
        ServeWorkload(model="deepseek-r1", concurrency=8),
        BatchWorkload(model="deepseek-r1", output_tokens_total=1e7),
    ):
        why = _why(workload, 8)
        assert why is not None and why.startswith("does not fit: weights (the weights alone, "), why
        assert NODE in why and "at least 2 such nodes" in why and "not modelled" in why


def test_a_smaller_instance_or_a_node_that_holds_it_says_nothing_of_nodes() -> None:
    serve = ServeWorkload(model="deepseek-r1", concurrency=8)
    assert _why(serve, 4) == "does not fit: weights"  # a larger instance of the same GPU is the remedy
    assert _why(serve, 8, "H200-SXM", 141.0) is None  # 8 x H200 holds it
