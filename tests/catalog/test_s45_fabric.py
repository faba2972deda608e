"""A GPU's board and its fabric are one assumption (review s45 item 1): an offer whose source says only
"H200" is timed as an H200-SXM, so it sits on that part's NVLink baseboard too, never SXM compute with
its all-reduces over PCIe (TTFT 260 ms against 123 ms for the same box listed as SXM). Every SXM / OAM
part alike (H100, H200, A100, V100, B200; an AMD OAM module's fabric is Infinity Fabric); the offer's
notes say the fabric came with the assumed board. A fabric the source states (a PCIe H100, Vast.ai's
measured NVLink bandwidth) and a vGPU slice keep theirs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.normalize import assumed_fabric_note, interconnect_for, match_gpu
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.catalog.sources.base import VARIANT_ASSUMED, VARIANT_KEY, Source
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu

NOW = datetime(2026, 12, 4, tzinfo=UTC)
_BASEBOARD = ("sxm", "oam", "hgx")


class _Feed(Source):
    """A live source of one row, as adapters build them (``gpu_offer``)."""

    name = "s45feed"
    provider = "s45feed"

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:  # pragma: no cover - not fetched
        return []

    def row(self, gpu: str, memory_gb: float, count: int = 8, **fields: Any) -> Offer:
        match = match_gpu(gpu, memory_gb, allow_fractional=True)
        return self.gpu_offer(
            match, instance_type=f"{count}x-{gpu}", region="r", gpu_count=count, price_usd_per_hour=10.0,
            spot_price_usd_per_hour=None, observed_at=NOW,
            notes=match.note, **fields,
        )  # fmt: skip


@pytest.fixture(scope="module")
def snapshot() -> list[Offer]:
    return SnapshotSource().offers()


def _baseboard_parts() -> Iterator[str]:
    for acc in all_accelerators():
        if any(k in acc.form_factor.lower() for k in _BASEBOARD):
            yield acc.name


@pytest.mark.parametrize(
    ("name", "memory", "part"),
    [
        ("H200", 141, "H200-SXM"),
        ("H100", 80, "H100-SXM"),
        ("A100", 80, "A100-SXM4-80GB"),
        ("A100", 40, "A100-SXM4-40GB"),
        ("V100", 16, "V100-SXM2-16GB"),
    ],
)
def test_a_live_row_of_an_assumed_sxm_board_has_its_nvlink(name: str, memory: float, part: str) -> None:
    offer = _Feed().row(name, memory)
    assert offer.accelerator == part and offer.extra[VARIANT_KEY] == VARIANT_ASSUMED
    assert offer.interconnect is Interconnect.NVLINK, offer
    assert f"NVLink assumed with the {part}" in offer.notes and "baseboard" in offer.notes
    assert f"assumed {part}" in offer.notes  # the board's own assumption stays said first


def test_a_stated_fabric_a_stated_pcie_card_and_a_slice_keep_theirs() -> None:
    feed = _Feed()
    stated = feed.row("H200", 141, interconnect=Interconnect.PCIE)  # Vast.ai: bw_nvlink 0
    assert stated.interconnect is Interconnect.PCIE and "NVLink assumed" not in stated.notes
    pcie = feed.row("H100 PCIe", 80)  # a provider that documents PCIe H100s: H100-PCIe, not SXM
    assert (pcie.accelerator, pcie.interconnect) == ("H100-PCIe", Interconnect.PCIE)
    assert VARIANT_KEY not in pcie.extra and "assumed" not in pcie.notes
    sxm = feed.row("H100 SXM", 80)  # stated: NVLink, no assumption said
    assert sxm.interconnect is Interconnect.NVLINK and "assumed" not in sxm.notes
    slice_ = feed.row("A100", 4, count=1)  # a vGPU share of one card is joined to no other GPU
    assert slice_.fractional and slice_.interconnect is Interconnect.UNKNOWN
    assert "NVLink assumed" not in slice_.notes


@pytest.mark.parametrize("part", list(_baseboard_parts()))
def test_every_baseboard_part_says_its_vendors_fabric(part: str) -> None:
    acc = resolve_gpu(part)
    assert interconnect_for(acc) is Interconnect.NVLINK
    words = {"NVIDIA": "NVLink", "AMD": "Infinity Fabric"}.get(acc.vendor)
    if words is not None:
        assert assumed_fabric_note(acc).startswith(f"{words} assumed with the {part} (")
    assert "baseboard" in assumed_fabric_note(acc)


def test_an_amd_oam_module_sits_on_infinity_fabric() -> None:
    note = assumed_fabric_note(resolve_gpu("MI300X"))
    assert note == "Infinity Fabric assumed with the MI300X (OAM modules sit on an Infinity Fabric baseboard)"


def test_the_bundled_snapshot_gives_each_assumed_board_its_fabric(snapshot: list[Offer]) -> None:
    assumed = [o for o in snapshot if o.extra.get(VARIANT_KEY) == VARIANT_ASSUMED]
    assert len(assumed) > 100
    for o in assumed:
        acc = resolve_gpu(o.accelerator)
        assert o.interconnect is interconnect_for(acc), (o.provider, o.instance_type, o.accelerator)
        assert assumed_fabric_note(acc) in o.notes, (o.provider, o.instance_type)
    boards = {o.accelerator for o in assumed if o.interconnect is Interconnect.NVLINK}
    assert {"H200-SXM", "H100-SXM", "A100-SXM4-80GB", "A100-SXM4-40GB", "V100-SXM2-16GB"} <= boards
    h200 = {
        (o.provider, o.instance_type) for o in assumed if o.accelerator == "H200-SXM" and o.gpu_count == 8
    }
    assert {("vastai", "8x-H200-32-65536"), ("seeweb", "ECS8GPU10")} <= h200
    assert ("primeintellect", "dc_wildebeest__8xH200_141GB__128__1600") in h200


def test_an_assumed_h200_box_is_timed_as_the_same_box_listed_as_sxm(snapshot: list[Offer]) -> None:
    """The review's rows: Vast.ai's "8x H200" and Prime Intellect's DataCrunch 8x H200-SXM, the same
    work at the same speed once both are the SXM board on its NVLink."""
    wanted = {
        ("vastai", "8x-H200-32-65536"): None,
        ("primeintellect", "datacrunch__8xH200_141GB__176__1450"): None,
    }
    rows = [o for o in snapshot if (o.provider, o.instance_type) in wanted]
    picked = {(o.provider, o.instance_type): o for o in rows}
    assert set(picked) == set(wanted)
    work = ServeWorkload(model="llama-3.1-70b", concurrency=16, prompt_tokens=2000, output_tokens=500)
    result = advise(work, list(picked.values()), top=5, now=NOW)
    by = {r.offer.provider: r for r in result.rows}
    vast, verda = by["vastai"], by["primeintellect"]
    assert vast.config.tp > 1 and vast.config.tp == verda.config.tp
    assert vast.estimate is not None and verda.estimate is not None
    assert vast.estimate.ttft_ms == pytest.approx(verda.estimate.ttft_ms, rel=1e-6)
    assert vast.estimate.tpot_ms == pytest.approx(verda.estimate.tpot_ms, rel=1e-6)
    assert not any("interconnect not stated" in w for w in vast.warnings), vast.warnings
