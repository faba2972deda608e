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
