"""An offer that lists no host RAM is taken to have what the median host has, 2.15x its GPU memory
(``Assumptions.unlisted_host_ram_per_gpu_memory``), not whatever an offload layout needs (stop 60, renter
pass): the cheapest full fine-tune of Llama-3.1-70B was a Vast.ai 8x V100 16 GB box whose layout kept
~1,282 GB of training state in host RAM, a warning asking the renter to check for it. 8 x 16 GB of GPU
memory comes with about 275 GB; the row is now weighed as on a box with that RAM (no layout fits without
offload: rejected, saying the RAM was assumed)."""

from __future__ import annotations

import dataclasses

from gpuscout.advise.api import recommend
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.workload import FinetuneWorkload
from gpuscout.catalog.offer import Interconnect, Offer
from tests.advise.helpers import NOW, offer

FULL_70B = FinetuneWorkload(model="llama-3.1-70b", method="full", dataset_tokens=2e7)


def _box(gpu: str, count: int, memory: float, ram: float | None, price: float) -> Offer:
    return dataclasses.replace(
        offer("vastai", gpu, count, price, memory=memory, instance=f"{count}x{gpu}-{ram}"), ram_gb=ram
    )


def test_an_unlisted_ram_far_below_the_offload_need_rejects_the_row_saying_it_was_assumed() -> None:
    v100 = _box("V100-SXM2-16GB", 8, 16, None, 0.85)
    assert recommend(FULL_70B, [v100], now=NOW) == []
    (rec,) = recommend(FULL_70B, [v100], now=NOW, include_rejected=True)
    why = " ".join((rec.rejected or "").split())
    assert "~1,282 GB of host RAM per node" in why
    assert "the offer lists no RAM" in why and "about 275 GB (2.15x it)" in why  # 8 x 16 x 2.15


def test_the_same_box_listing_enough_ram_keeps_its_offload_layout() -> None:
    (rec,) = recommend(FULL_70B, [_box("V100-SXM2-16GB", 8, 16, 1536.0, 0.85)], now=NOW)
    assert rec.rank == 1 and "optimizer and parameters in host RAM" in rec.config.training
    assert not any("not listed" in w for w in rec.warnings)


def test_an_unlisted_ram_the_median_host_has_keeps_the_layout_with_its_warning() -> None:
    # 8 x 80 GB x 2.15 = 1,376 GB >= ~1,282 GB: an 8x H100 node (a DGX has 2 TB) is not turned away
    node = dataclasses.replace(
        offer("aws", "H100-SXM", 8, 98.0, interconnect=Interconnect.NVLINK), ram_gb=None
    )
    (rec,) = recommend(FULL_70B, [node], now=NOW)
    assert rec.rank == 1 and "optimizer and parameters in host RAM" in rec.config.training
    assert any("host RAM not listed" in w and "~1,282 GB per node" in w for w in rec.warnings)


def test_the_assumption_is_stated_and_overridable() -> None:
    v100 = _box("V100-SXM2-16GB", 8, 16, None, 0.85)
    roomy = Assumptions(unlisted_host_ram_per_gpu_memory=12.0)  # 1,536 GB
    (rec,) = recommend(FULL_70B, [v100], now=NOW, assumptions=roomy)
    assert rec.rank == 1 and "optimizer and parameters in host RAM" in rec.config.training
    assert Assumptions().as_dict()["host RAM not listed"].startswith("~2.15x the GPU memory")
