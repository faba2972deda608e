"""H100 NVL is sold as two cards joined by NVLink bridges (600 GB/s): a pair's tensor-parallel all-reduces
were timed over PCIe Gen5 (stop 57). A pair now uses the bridges (stated as assumed installed); more GPUs
than the pair ring over PCIe, and cards whose bridge is only an option keep PCIe."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.parallel import gpu_link, sold_as_bridged_pair
from gpuscout.knowledge.accelerators import resolve_gpu


def test_a_bridged_pair_talks_over_its_bridges() -> None:
    nvl = resolve_gpu("H100-NVL")
    assert sold_as_bridged_pair(nvl)
    pair = gpu_link(nvl, 2)
    assert pair.kind == "nvlink"
    # 300 GB/s per direction: a pair's NCCL share, 0.66 for large messages (198 GB/s), 0.22 for small (66)
    assert pair.gbps == pytest.approx(198.0) and pair.ll_gbps == pytest.approx(66.0)
    assert "assumed installed" in pair.label
    assert gpu_link(nvl, 4).kind == "pcie"  # two pairs: the ring crosses PCIe


@pytest.mark.parametrize("name", ["H100-PCIe", "RTX3090", "H200-NVL", "A100-PCIe-80GB"])
def test_an_optional_bridge_is_not_assumed(name: str) -> None:
    acc = resolve_gpu(name)
    assert not sold_as_bridged_pair(acc)
    assert gpu_link(acc, 2).kind == "pcie"


def test_a_tp2_decode_step_pays_less_for_its_all_reduces_on_the_pair() -> None:
    e = estimate("llama-3.1-70b", "H100-NVL", gpus=2, batch=8)
    assert "NVLink 4 bridge" in e.assumptions["parallel"]
    pcie = estimate("llama-3.1-70b", "H100-NVL", gpus=4, batch=8)
    assert "PCIe" in pcie.assumptions["parallel"]
    # 160 all-reduces of 8 x 8192 x 2 bytes: ~1.4 ms over the bridges (they were ~4.5 over PCIe Gen5)
    assert e.step_ms["interconnect"] < 2.0


def test_the_advisor_says_the_pair_uses_its_bridges() -> None:
    """Its row said "2x PCIe: tensor-parallel decode slowed by the all-reduce over PCIe"."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from gpuscout.catalog.api import current_offers

    offers = [o for o in current_offers() if o.accelerator == "H100-NVL" and o.gpu_count == 2]
    assert offers
    w = Workload.from_dict({"kind": "serve", "model": "llama-3.1-70b", "concurrency": 8})
    rows = advise(w, offers, top=3).rows
    assert rows and rows[0].config.tp == 2
    assert any("pair's NVLink bridges" in x for x in rows[0].warnings)
    assert not any("PCIe: tensor-parallel decode" in x for x in rows[0].warnings)


def test_an_offer_that_states_no_interconnect_is_not_said_to_be_costed_over_pcie() -> None:
    """Timed over the bridges whatever the offer states; the row said "TP2 costed over PCIe" (review)."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from tests.advise.helpers import NOW, offer

    row = offer("x", "H100-NVL", 2, 5.0, memory=94, instance="2xh100nvl")
    w = Workload.from_dict({"kind": "serve", "model": "llama-3.1-70b", "concurrency": 8})
    rows = advise(w, [row], top=1, now=NOW).rows
    assert rows and rows[0].config.tp == 2
    assert any("pair's NVLink bridges" in x for x in rows[0].warnings), rows[0].warnings
    assert not any("costed over PCIe" in x for x in rows[0].warnings)


def test_training_on_the_pair_says_its_exchange_uses_the_bridges() -> None:
    """2x H100 NVL training is timed over the bridges; its row said nothing, or "costed over PCIe" where the
    offer states no interconnect (review)."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from tests.advise.helpers import NOW, offer

    row = offer("x", "H100-NVL", 2, 5.0, memory=94, instance="2xh100nvl")
    w = Workload.from_dict(
        {"kind": "finetune", "model": "llama-3.1-8b", "method": "lora", "dataset_tokens": 50_000_000}
    )
    rows = advise(w, [row], top=1, now=NOW).rows
    assert rows
    said = rows[0].warnings
    assert any("pair's gradient exchange goes over its NVLink bridges" in x for x in said), said
    assert not any("costed over PCIe" in x for x in said)
