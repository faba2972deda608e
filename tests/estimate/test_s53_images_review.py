"""Three defects a renter review found in the image (diffusion) estimate.

1. An image speed rests on no measurement (the calibration set's image rows would need more than the
   RTX 4090's peak; none is fitted), yet ``estimate_images`` said so only by "(prior)" in an assumption,
   with empty ``warnings``, while ``recommend batch`` on the same model warned "image speed is not
   calibrated". The estimate now carries that warning, in the advisor's words.
2. A pipeline that does not fit the GPU still got a speed (FLUX.1-dev bf16 on an RTX 4090: "fits: no"
   and 32 s per image). It now gets none (``None``), with what would fit instead; CPU offload that fits
   keeps its speed.
3. An unknown image model was answered with the registry's closest name by spelling ("sd3": "closest
   known: sdxl", a UNet where SD3 is an MMDiT). The error now says the name is not in the image-model
   registry, lists the image models known, and gives a near spelling as another model.
"""

from __future__ import annotations

import ast
import dataclasses
import re

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import BatchWorkload
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.estimate.diffusion import PROFILES, estimate_images, profile_for
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.knowledge.models import resolve_model
from tests.advise.helpers import NOW, offer

NOT_CALIBRATED = "image speed is not calibrated"


def _prior(warnings: list[str] | tuple[str, ...]) -> list[str]:
    return [w for w in warnings if w.startswith(NOT_CALIBRATED)]


# ---- 1. the speed says it is not calibrated ---------------------------------------------------------


def test_sdxl_on_a_4090_warns_that_its_speed_is_a_prior() -> None:
    est = estimate_images("sdxl", "RTX4090")
    assert est.fits and est.seconds_per_image is not None
    assert len(_prior(est.warnings)) == 1, est.warnings
    assert est.speed_calibrated is False


@pytest.mark.parametrize(
    "gpu", ["H100-SXM", "A100-SXM4-80GB", "L40S", "L4", "B200", "MI300X", "V100-SXM2-16GB"]
)
@pytest.mark.parametrize("model", ["sdxl", "flux.1-dev"])
def test_every_speed_given_carries_the_warning(model: str, gpu: str) -> None:
    est = estimate_images(model, gpu, cpu_offload=not estimate_images(model, gpu).fits)
    if est.seconds_per_image is None:  # no speed, nothing to qualify
        assert not _prior(est.warnings)
        return
    assert len(_prior(est.warnings)) == 1, est.warnings


@pytest.mark.parametrize(("model", "gpu"), [("sdxl", "H100-SXM"), ("flux.1-dev", "L40S")])
def test_the_warning_is_the_one_recommend_batch_gives(model: str, gpu: str) -> None:
    est = estimate_images(model, gpu)
    answer = advise(
        BatchWorkload(model=model, images_total=1_000), [offer("cloud", gpu, 1, 2.0)], top=1, now=NOW
    )
    row = answer.rows[0]
    # the same words on both faces, said once on the advisor's row
    assert _prior(row.warnings) == _prior(est.warnings)


# ---- 2. no speed where the pipeline does not fit ----------------------------------------------------


def test_flux_bf16_on_a_4090_gets_no_speed() -> None:
    est = estimate_images("flux.1-dev", "RTX4090")
    assert not est.fits and est.binding_constraint == "weights"
    assert est.seconds_per_image is None and est.images_per_s is None and est.bound is None
    (said,) = [w for w in est.warnings if w.startswith("does not fit")]
    assert "no speed is given" in said and "would fit: " in said
    # what the renter can do instead: an FP8 denoiser, or CPU offload
    assert "--precision fp8" in said and "--cpu-offload" in said
    assert est.memory_gb > est.memory.usable_gb  # the memory it needs is still given


def test_cpu_offload_that_fits_keeps_its_speed_said_as_a_prior() -> None:
    est = estimate_images("flux.1-dev", "RTX4090", cpu_offload=True)
    assert est.fits and est.seconds_per_image is not None and est.seconds_per_image > 0
    assert est.images_per_s == pytest.approx(1 / est.seconds_per_image)
    assert est.bound in ("compute", "memory")
    assert len(_prior(est.warnings)) == 1, est.warnings  # a speed given: said to be a prior


def test_cpu_offload_that_does_not_fit_gets_no_speed_either() -> None:
    est = estimate_images("flux.1-dev", "L4", cpu_offload=True, batch=64)
    assert not est.fits and est.seconds_per_image is None and est.images_per_s is None
    assert any(w.startswith("does not fit with CPU offload") for w in est.warnings)


def _options(est_would_fit: str) -> list[tuple[dict[str, object], float]]:
    """Each would-fit option's Python arguments and the peak it states, GiB."""
    found = []
    for option in est_would_fit.split("; "):
        m = re.search(r"\(([^`]*), `gpuscout images [^`]*`\): ([\d.]+) GiB$", option)
        assert m, option
        kwargs = {k: ast.literal_eval(v) for k, v in (p.split("=") for p in m.group(1).split(", "))}
        found.append((kwargs, float(m.group(2))))
    return found


@pytest.mark.parametrize(
    ("model", "gpu", "kwargs"),
    [
        ("flux.1-dev", "RTX4090", {}),
        ("flux.1-dev", "T4", {}),
        ("flux.1-dev", "L4", {"cpu_offload": True, "batch": 64}),
        ("flux.1-dev", "A100-SXM4-40GB", {"precision": "fp32", "batch": 16}),
        ("sdxl", "T4", {"batch": 64}),
    ],
)
def test_each_would_fit_option_fits_when_followed(model: str, gpu: str, kwargs: dict[str, object]) -> None:
    est = estimate_images(model, gpu, **kwargs)  # type: ignore[arg-type]
    assert not est.fits and est.seconds_per_image is None
    options = _options(est.assumptions["would_fit"])
    assert options
    for change, peak_gib in options:
        followed = estimate_images(model, gpu, **{**kwargs, **change})  # type: ignore[arg-type]
        assert followed.fits and followed.seconds_per_image is not None, (change, followed.warnings)
        assert followed.memory_gb * 1e9 / 2**30 == pytest.approx(peak_gib, abs=0.05)


def test_a_pipeline_nothing_holds_says_so() -> None:
    est = estimate_images("flux.1-dev", "RTX3060", precision="fp8", cpu_offload=True)
    assert not est.fits and est.seconds_per_image is None
    assert est.assumptions["would_fit"] == "nothing on this GPU"


# ---- 3. an unknown image model ----------------------------------------------------------------------


def test_sd3_is_not_answered_with_sdxl_as_if_it_were_the_same_model() -> None:
    with pytest.raises(UnknownNameError) as info:
        estimate_images("sd3", "L4")
    exc = info.value
    assert exc.field == "model" and isinstance(exc, InvalidInputError)
    text = str(exc)
    assert text.startswith("model: ")
    assert "not in the image-model registry" in text
    assert f"known image models: {', '.join(PROFILES)}" in text
    assert "closest known: sdxl" not in text  # a near spelling is not the model
    assert "sdxl (a different model" in text


def test_a_far_name_lists_the_image_models_only() -> None:
    with pytest.raises(UnknownNameError) as info:
        estimate_images("qwerty-image-9", "L4")
    text = str(info.value)
    assert "no image model is close by spelling" in text and "known image models: sdxl, flux.1-dev" in text
    # suggestions are image models, never a language model close in spelling
    assert all(s in PROFILES for s in info.value.suggestions)


def test_a_diffusion_model_without_a_pipeline_profile_is_said_as_such() -> None:
    mine = dataclasses.replace(resolve_model("sdxl"), name="my-sd-finetune")
    with pytest.raises(InvalidInputError) as info:
        profile_for(mine)
    text = str(info.value)
    assert info.value.field == "model" and "not in the image-model registry" in text
    assert "closest known:" not in text and "known image models: sdxl, flux.1-dev" in text


def test_every_registry_gpu_gives_a_speed_or_says_why_not() -> None:
    for acc in all_accelerators():
        est = estimate_images("flux.1-dev", acc)
        assert (est.seconds_per_image is not None) is est.fits, acc.name
        assert (est.images_per_s is not None) is est.fits, acc.name
