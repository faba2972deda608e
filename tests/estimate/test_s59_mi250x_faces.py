"""An MI250X offer is configured as the two GPUs per module software sees (stop 59, a review): the
advisor counted modules while its estimates were per GCD, so an 8B on one MI250X read "7.5 GiB more in
host memory"; images and speech, which run on one GPU, were timed on the whole module."""

from __future__ import annotations

import dataclasses

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers
from gpuscout.estimate.diffusion import estimate_images
from gpuscout.estimate.transcription import estimate_transcription


def test_an_mi250x_offer_is_configured_as_its_gcds() -> None:
    base = next(o for o in current_offers() if o.accelerator == "MI300X" and o.gpu_count == 8)
    offer = dataclasses.replace(base, accelerator="MI250X", gpu_count=4, gpu_memory_gb=128)
    w = Workload.from_dict({"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8})
    (row,) = advise(w, [offer], top=1).rows
    assert row.config.gpus_per_instance == 8
    assert any(r.startswith("fits ") and "MI250X-GCD" in r for r in row.reasons)
    assert not any("host memory" in r for r in row.reasons)


def test_one_gpu_workloads_run_on_one_gcd() -> None:
    image = estimate_images("sdxl", "MI250X")
    speech = estimate_transcription("whisper-large-v3", "MI250X")
    assert image.gpu == speech.gpu == "MI250X-GCD"
    assert "timed on one of them" in image.warnings[0] and "timed on one of them" in speech.warnings[0]
