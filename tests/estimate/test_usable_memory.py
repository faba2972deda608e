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
