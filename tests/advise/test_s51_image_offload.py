"""An image batch on a card that cannot hold the whole pipeline runs with diffusers' model CPU offload (one
component on the GPU at a time, copied in each batch), as ``gpuscout images --cpu-offload`` times it, and
the row says so; FLUX.1-dev in bf16 on RTX 4090s and 5090s was rejected outright ("does not fit") though
its denoiser alone fits there, which left out the cards most often rented for it."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.inference_configs import CPU_OFFLOAD_WARNING
from gpuscout.advise.workload import BatchWorkload
from gpuscout.estimate.diffusion import estimate_images
from tests.advise.helpers import NOW, offer


def _row(gpu: str, memory: float):  # type: ignore[no-untyped-def]
    w = BatchWorkload(model="flux.1-dev", images_total=1_000)
    # one instance listed free: billing does not spread the batch (``rank.billing_sized``), so the row's
    # time is the whole job's on one card
    listed = dataclasses.replace(offer("aws", gpu, 1, 1.0, memory=memory), available_count=1)
    answer = advise(w, [listed], top=1, now=NOW)
    return answer.rows[0] if answer.rows else None


def test_a_4090_runs_flux_with_cpu_offload_timed_with_the_copies() -> None:
    assert not estimate_images("flux.1-dev", "RTX4090").fits
    offloaded = estimate_images("flux.1-dev", "RTX4090", cpu_offload=True)
    assert offloaded.fits
    row = _row("RTX4090", 24.0)
    assert row is not None and row.config.instances == 1
    assert CPU_OFFLOAD_WARNING in row.warnings
    assert row.time_s == pytest.approx(offloaded.seconds_per_image * 1_000)


def test_a_card_that_holds_the_pipeline_runs_without_offload() -> None:
    row = _row("H100-SXM", 80.0)
    assert row is not None and CPU_OFFLOAD_WARNING not in row.warnings
    assert row.time_s == pytest.approx(estimate_images("flux.1-dev", "H100-SXM").seconds_per_image * 1_000)


def test_a_card_too_small_even_for_the_denoiser_is_still_left_out() -> None:
    assert not estimate_images("flux.1-dev", "L4", cpu_offload=True).fits
    assert _row("L4", 24.0) is None


def test_an_offloaded_row_downloads_and_loads_the_whole_pipeline() -> None:
    from gpuscout.advise.assumptions import Assumptions
    from gpuscout.advise.backends import default_backends
    from gpuscout.advise.inference_configs import BatchImagesEvaluator

    w = BatchWorkload(model="flux.1-dev", images_total=1_000)
    ev = BatchImagesEvaluator(w, default_backends(), Assumptions()).evaluate(
        offer("cloud", "RTX4090", 1, 1.0, memory=24.0)
    )
    assert ev.rejected is None
    whole = estimate_images("flux.1-dev", "RTX4090").memory.weights_gb  # every component's weights
    on_gpu = estimate_images("flux.1-dev", "RTX4090", cpu_offload=True).memory.weights_gb  # the largest one
    assert on_gpu < whole
    assert ev.load_gb == pytest.approx(whole) and ev.download_gb_per_instance == pytest.approx(whole)
