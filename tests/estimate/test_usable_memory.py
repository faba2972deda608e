"""The fit check uses what a card really offers: GDDR datacenter cards with ECC on (the default)
report 1/16 less memory than they are sold with (data audit 2026-12, section 1.2)."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.memory import GIB, capacity_bytes
from gpuscout.estimate.types import Estimate
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import resolve_gpu


def test_capacity_of_an_l4_is_its_ecc_on_figure_not_24_gib() -> None:
    l4 = resolve_gpu("L4")
    assert capacity_bytes(l4) / GIB == pytest.approx(22.49, abs=0.01)  # nvidia-smi: 23,034 MiB
    assert capacity_bytes(resolve_gpu("A10G")) / GIB == pytest.approx(22.49, abs=0.01)  # 23,028 MiB
    # HBM parts, where no figure is recorded, keep nominal GiB less the driver's share
    assert capacity_bytes(resolve_gpu("H100 SXM")) / GIB == pytest.approx(79.65, abs=0.01)


@pytest.mark.parametrize("gpu", ["L4", "A10G"])
def test_llama_8b_bf16_at_32k_context_no_longer_fits_a_24_gb_card_on_vllm(gpu: str) -> None:
    """16.1 GB of bf16 weights plus a 32k-token KV cache (4 GiB) and vLLM's workspace fit in 90% of
    24 GiB but not in 90% of the 22.5 GiB the card reports with ECC on."""
    card = resolve_gpu(gpu)

    def at(acc: Accelerator, context: int) -> Estimate:
        return estimate("llama-3.1-8b", acc, engine="vllm", context_in=context, context_out=0)

    real = at(card, 32768)
    assert at(dataclasses.replace(card, usable_memory_mib=None), 32768).fits  # what the tool used to say
    assert not real.fits and real.binding_constraint == "kv_cache"
    # a shorter context still fits: the check moved by the ECC share, nothing more
    assert at(card, 16384).fits


def _gddr6_datacenter() -> list[Accelerator]:
    from gpuscout.knowledge.accelerators import all_accelerators

    return [a for a in all_accelerators() if a.kind == "datacenter" and a.memory_type == "GDDR6"]


def test_every_gddr6_datacenter_card_has_its_ecc_on_memory() -> None:
    """A16 and L20 had none, so they got nominal GiB less the driver's 0.44 % where every other ECC-on
    GDDR6 datacenter card (T4, L4, A10, A10G, A40, L40, L40S) has nvidia-smi's figure: 70B at int4 on
    4x A16 "fit" where 4x T4 of the same 16 GB did not, and an L20 held 51.3 GB against the L40S's 48.3."""
    cards = _gddr6_datacenter()
    assert {"A16", "L20", "T4", "L40S"} <= {a.name for a in cards}
    for acc in cards:
        assert acc.usable_memory_mib is not None, acc.name
        ecc_rule = acc.memory_gb * 1024 * 15 / 16
        if acc.usable_memory_derived:  # the documented rule, said as such
            assert acc.usable_memory_mib == ecc_rule and "1/16" in acc.usable_memory_source, acc.name
        else:  # the measured ones are the rule's figure, less at most 12 MiB
            assert 0 <= ecc_rule - acc.usable_memory_mib <= 12, acc.name
            assert "nvidia-smi" in acc.usable_memory_source and "derived" not in acc.usable_memory_source
    assert {a.name for a in cards if a.usable_memory_derived} == {"A16", "L20"}


def test_an_a16_holds_what_a_t4_of_the_same_16_gb_holds() -> None:
    from gpuscout.estimate.api import memory_needed

    def fits(gpu: str) -> bool:
        return memory_needed("llama-3.1-70b", gpu, gpus=4, precision="int4", context=32768).fits

    assert capacity_bytes(resolve_gpu("A16")) == capacity_bytes(resolve_gpu("T4"))
    assert not fits("T4") and not fits("A16")  # A16 was True (16 GiB less 0.44 % each)
    l20, l40s = capacity_bytes(resolve_gpu("L20")), capacity_bytes(resolve_gpu("L40S"))
    assert l20 / 1e9 == pytest.approx(48.32, abs=0.01) and l20 - l40s == 12 * 2**20  # was 51.3 GB


def test_a_training_estimate_says_a_derived_capacity_is_not_measured() -> None:
    from gpuscout.estimate.training import estimate_training

    def capacity(gpu: str) -> str:
        return estimate_training("llama-3.2-1b", gpu, method="lora", gpus=1).assumptions["capacity"]

    assert (
        capacity("A16")
        == "the card's 16 GiB: 15.0 GiB usable (less the 1/16 that ECC keeps: derived, not measured)"
    )
    assert capacity("T4").endswith("(as the device reports it)")
