"""A host<->device copy runs at the GPU's own host link: 25 GB/s on PCIe Gen4 x16 (the figure every copy
took before), the same share of a Gen3 link (~12.5 GB/s: V100, T4, Quadro RTX 6000) or a Gen5 one (~50:
H100). CPU-offloaded image pipelines, offloaded training state and diagnose's host-memory bound use it."""

from __future__ import annotations

import pytest

from gpuscout.estimate.diffusion import estimate_images
from gpuscout.estimate.parallel import HOST_LINK_GBPS, host_link_gbps
from gpuscout.knowledge.accelerators import resolve_gpu


@pytest.mark.parametrize(
    ("gpu", "gbps"), [("T4", 12.5), ("RTX4090", 25.0), ("L40S", 25.0), ("H100-SXM", 50.0)]
)
def test_the_host_link_by_pcie_generation(gpu: str, gbps: float) -> None:
    assert host_link_gbps(resolve_gpu(gpu)) == pytest.approx(gbps)
    assert HOST_LINK_GBPS == 25.0  # the Gen4 figure the others scale from


def test_an_offloaded_pipeline_on_a_gen3_card_copies_at_half_the_gen4_rate() -> None:
    # FLUX.1-dev under model CPU offload moves its whole pipeline (~34 GB) over PCIe every batch
    r = estimate_images("flux.1-dev", "Quadro-RTX6000", cpu_offload=True)
    assert "at 12.5 GB/s" in r.assumptions["cpu_offload"]
    moved = float(r.assumptions["cpu_offload"].split(" GB copied per batch")[0].rsplit("; ", 1)[-1])
    plain = estimate_images("flux.1-dev", "Quadro-RTX6000", cpu_offload=True, batch=1)
    assert plain.seconds_per_image > moved / 12.5  # the copies alone take moved / 12.5 s per image
