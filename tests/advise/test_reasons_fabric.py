"""A row whose GPUs' interconnect the source does not state says so once: the advisor's warning that it is
costed over PCIe replaces the estimate's generic one, which a box listed as PCIe keeps."""

from __future__ import annotations

from datetime import UTC, datetime

from gpuscout.advise.api import advise
from gpuscout.advise.workload import FinetuneWorkload
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from tests.advise.helpers import offer

NOW = datetime(2026, 11, 29, tzinfo=UTC)
LORA = FinetuneWorkload(model="llama-3.1-8b", method="lora", dataset_tokens=2e7, seq_len=2048)


def _four_l40s(interconnect: Interconnect) -> Offer:
    return offer(
        "example",
        "L40S",
        4,
        4.0,
        memory=48.0,
        region="eu-1",
        interconnect=interconnect,
        availability=Availability.AVAILABLE,
        observed_at=NOW,
    )


def test_an_unstated_fabric_under_training_is_said_once() -> None:
    row = advise(LORA, [_four_l40s(Interconnect.UNKNOWN)], top=3, now=NOW).rows[0]
    pcie = [x for x in row.warnings if "PCIe" in x]
    assert len(pcie) == 1 and pcie[0].startswith("interconnect not stated by the source"), pcie


def test_a_box_listed_as_pcie_keeps_the_estimates_warning() -> None:
    row = advise(LORA, [_four_l40s(Interconnect.PCIE)], top=3, now=NOW).rows[0]
    assert any(x.startswith("GPUs talk over PCIe") for x in row.warnings), row.warnings
    assert not any(x.startswith("interconnect not stated") for x in row.warnings)


def test_an_nvlink_part_without_its_fabric_talks_over_its_own_pcie_generation() -> None:
    # a V100 host has PCIe Gen3 (16 GB/s a direction), an A100 host Gen4, an H100 / B200 host Gen5
    from gpuscout.advise.configs import fabric_accelerator
    from gpuscout.estimate.parallel import gpu_link
    from gpuscout.knowledge.accelerators import resolve_gpu

    links = {
        name: gpu_link(fabric_accelerator(resolve_gpu(name), Interconnect.UNKNOWN.value), 8)
        for name in ("V100-SXM2-16GB", "A100-SXM4-80GB", "H100-SXM", "B200")
    }
    assert [link.label.split(" (")[0] for link in links.values()] == [
        "PCIe Gen3 x16",
        "PCIe Gen4 x16",
        "PCIe Gen5 x16",
        "PCIe Gen5 x16",
    ]
    assert all(link.kind == "pcie" and not link.assumed for link in links.values())
    assert links["H100-SXM"].gbps == 2 * links["A100-SXM4-80GB"].gbps == 4 * links["V100-SXM2-16GB"].gbps
    # stated NVLink keeps the part as it is
    h100 = resolve_gpu("H100-SXM")
    assert fabric_accelerator(h100, Interconnect.NVLINK.value) is h100
