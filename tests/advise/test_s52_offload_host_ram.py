"""An image batch run with CPU offload keeps the whole pipeline in host RAM (diffusers'
enable_model_cpu_offload moves each component to the GPU in turn): an offer that lists less RAM than its
GPUs' pipelines is left out saying both figures, one that lists none is told how much to check for, and a
card that holds the pipeline does not care."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.inference_configs import CPU_OFFLOAD_WARNING
from gpuscout.advise.workload import BatchWorkload
from gpuscout.estimate.diffusion import estimate_images
from tests.advise.helpers import NOW, offer

W = BatchWorkload(model="flux.1-dev", images_total=1_000)


def _with_ram(o, ram):  # type: ignore[no-untyped-def]
    return dataclasses.replace(o, ram_gb=ram, instance_type=f"{o.instance_type}-{ram}")


def _pipeline_gb() -> float:
    return estimate_images("flux.1-dev", "RTX4090").memory.weights_gb  # every component's weights


def test_the_premise_flux_bf16_is_about_34_gb_of_weights() -> None:
    # FLUX.1-dev: a 12B transformer (24 GB bf16), T5-XXL's encoder (~9.5 GB), CLIP-L and the VAE
    assert 30.0 < _pipeline_gb() < 38.0


def test_an_offloaded_4090_with_too_little_ram_is_left_out_naming_both_figures() -> None:
    small = _with_ram(offer("market", "RTX4090", 1, 0.30, memory=24.0), 16.0)
    big = _with_ram(offer("market", "RTX4090", 1, 0.35, memory=24.0), 64.0)
    answer = advise(W, [small, big], top=5, include_rejected=True, now=NOW)
    assert [r.offer.ram_gb for r in answer.rows] == [64.0]  # the cheaper box cannot hold the pipeline
    assert CPU_OFFLOAD_WARNING in answer.rows[0].warnings
    left = [r for r in answer.rejected if r.offer.ram_gb == 16.0]
    assert len(left) == 1
    why = left[0].rejected or ""
    assert "host RAM" in why and "16 GB" in why and f"~{_pipeline_gb():,.0f} GB" in why


def test_the_need_counts_one_pipeline_per_gpu() -> None:
    # 4 GPUs, each its own pipeline copy under offload: 4 x ~34 GB does not fit 64 GB of RAM
    four = _with_ram(offer("market", "RTX4090", 4, 1.2, memory=24.0), 64.0)
    ev_rows = advise(W, [four], top=5, include_rejected=True, now=NOW)
    assert not ev_rows.rows
    assert ev_rows.rejected and "host RAM" in (ev_rows.rejected[0].rejected or "")


def test_an_offer_without_a_ram_figure_is_kept_and_told_what_to_check() -> None:
    answer = advise(W, [offer("market", "RTX4090", 1, 0.30, memory=24.0)], top=5, now=NOW)
    assert len(answer.rows) == 1
    notes = [w for w in answer.rows[0].warnings if "host RAM not listed" in w]
    assert len(notes) == 1 and f"~{_pipeline_gb():,.0f} GB" in notes[0]


def test_a_card_that_holds_the_pipeline_ignores_the_ram() -> None:
    # one listed free: billing does not spread the batch (rank.billing_sized), the time is one card's
    h100 = dataclasses.replace(
        _with_ram(offer("aws", "H100-SXM", 1, 2.0, memory=80.0), 16.0), available_count=1
    )
    answer = advise(W, [h100], top=5, now=NOW)
    assert len(answer.rows) == 1
    assert not any("host RAM" in w for w in answer.rows[0].warnings)
    assert answer.rows[0].time_s == pytest.approx(
        estimate_images("flux.1-dev", "H100-SXM").seconds_per_image * 1_000
    )
