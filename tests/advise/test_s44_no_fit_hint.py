"""When no offer holds the workload in memory and a narrower precision would, the answer says which and
where: "no offer of RTX4090 can run it (...; 9 do not fit); --precision fp8 would fit: the cheapest is 8x
RTX4090 8 replicas at ... at $..." (it said only where else the workload runs). Any workload with a
precision (images, serving, LLM batch), any GPU; every other constraint kept.

FLUX.1-dev in bf16 was the image case on RTX 4090s; those now hold it by CPU offload (its denoiser alone
fits 24 GiB), so the case is an L4, whose ECC-reserved 22 GiB hold the bf16 denoiser neither way and the
fp8 one with offload."""

from __future__ import annotations

import re

from gpuscout.advise.api import advise
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, ServeWorkload
from gpuscout.catalog.sources.snapshot import SnapshotSource

OFFERS = SnapshotSource().offers()
FIX = re.compile(r"--precision (\S+) would fit: the cheapest is (.+?) at \$[\d,.]+")


def test_flux_on_l4_names_fp8() -> None:
    w = BatchWorkload(model="flux.1-dev", images_total=10_000, accelerators=("L4",))
    answer = advise(w, OFFERS, top=5)
    assert not answer.rows and answer.binding is not None
    assert "do not fit" in answer.binding
    fix = FIX.search(answer.binding)
    assert fix is not None, answer.binding
    assert fix.group(1) == "fp8" and "L4" in fix.group(2)
    assert "elsewhere the cheapest" in answer.binding  # still said, after the fix on the GPUs asked
    # the fix holds: at fp8 the same question has rows on RTX4090s, the cheapest the one named
    fp8 = advise(w.model_copy(update={"precision": "fp8"}), OFFERS, top=5)
    assert fp8.rows and {r.offer.accelerator for r in fp8.rows} == {"L4"}
    assert fp8.rows[0].config.describe(fp8.rows[0].offer.accelerator) in fix.group(2)


def test_a_language_model_gets_the_widest_format_that_fits() -> None:
    # 405B on L40S: bf16 (810 GB) and fp8 (~410 GB) exceed 8 x 48 GB, 4-bit fits
    w = ServeWorkload(model="llama-3.1-405b", accelerators=("L40S",), latency_targets="none")
    answer = advise(w, OFFERS, top=5)
    assert not answer.rows and answer.binding is not None
    fix = FIX.search(answer.binding)
    assert fix is not None and fix.group(1) == "int4", answer.binding
    assert "L40S" in fix.group(2)


def test_without_a_gpu_asked_the_fix_leads_the_hints() -> None:
    only_l4 = [o for o in OFFERS if o.accelerator == "L4"]
    w = BatchWorkload(model="flux.1-dev", images_total=10_000)
    answer = advise(w, only_l4, top=5)
    assert not answer.rows and answer.binding is not None
    assert answer.binding.startswith("no offer can run it (")
    assert re.search(r"\); --precision fp8 would fit: the cheapest is (\d+ x )?\d+x L4", answer.binding), (
        answer.binding
    )


def test_no_fix_is_named_where_none_fits_or_the_workload_has_no_precision_lever() -> None:
    # already at fp8, nothing narrower for an image model: no fix named
    w = BatchWorkload(model="flux.1-dev", images_total=10_000, precision="fp8", accelerators=("RTX3060",))
    answer = advise(w, OFFERS, top=5)
    assert answer.binding is not None and "--precision" not in answer.binding
    # training names its own levers (QLoRA, micro-batch), not a precision
    ft = FinetuneWorkload(
        model="llama-3.1-405b", method="full", dataset_tokens=1e7, accelerators=("RTX3060",)
    )
    trained = advise(ft, OFFERS, top=5)
    assert trained.binding is not None and "--precision" not in trained.binding
