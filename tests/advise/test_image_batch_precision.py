"""`recommend batch` of an image model runs it in the precision and engine asked for.

The image evaluator used to pass only the size and steps to the image estimator: an FP8 FLUX batch was
sized and timed in bf16 (no 24 GB card could hold it) and an LLM precision or engine was accepted and
ignored.
"""

from __future__ import annotations

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.inference_configs import CPU_OFFLOAD_WARNING
from gpuscout.advise.workload import BatchWorkload
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.diffusion import estimate_images
from tests.advise.helpers import NOW, offer


def _row(precision: str | None, gpu: str = "H100-SXM"):
    w = BatchWorkload(model="flux.1-dev", images_total=1_000, precision=precision)
    answer = advise(w, [offer("cloud", gpu, 1, 2.0)], top=1, now=NOW)
    return answer.rows[0] if answer.rows else None


def test_an_fp8_image_batch_is_timed_and_sized_in_fp8() -> None:
    bf16, fp8 = _row(None), _row("fp8")
    assert bf16 is not None and fp8 is not None
    assert bf16.estimate is not None and fp8.estimate is not None
    assert (bf16.estimate.precision, fp8.estimate.precision) == ("bf16", "fp8")
    # the row's speed is the image estimator's at that precision (1,000 images over the row's H100s: the
    # instances its billing gives at no extra cost, rank.billing_sized)
    want = estimate_images("flux.1-dev", "H100-SXM", precision="fp8").seconds_per_image * 1_000
    assert fp8.time_s == pytest.approx(want / fp8.config.instances)
    assert fp8.time_s < bf16.time_s
    assert fp8.estimate.memory_per_gpu_gb < bf16.estimate.memory_per_gpu_gb
    assert any("(diffusers, fp8)" in r for r in fp8.reasons)
    assert any("image speed is not calibrated" in x for x in fp8.warnings)


def test_fp8_flux_fits_a_24_gb_card_that_bf16_does_not() -> None:
    # 36 GB in bf16: held only by swapping its components in and out (CPU offload, said on the row)
    bf16 = _row(None, "RTX4090")
    assert bf16 is not None and CPU_OFFLOAD_WARNING in bf16.warnings
    fits = _row("fp8", "RTX4090")
    assert fits is not None and fits.config.gpus_per_instance == 1
    assert CPU_OFFLOAD_WARNING not in fits.warnings


@pytest.mark.parametrize(("field", "value"), [("precision", "int4"), ("engine", "vllm")])
def test_an_llm_precision_or_engine_for_an_image_model_is_an_input_error(field: str, value: str) -> None:
    w = BatchWorkload(model="flux.1-dev", images_total=1_000, **{field: value})
    with pytest.raises(InvalidInputError) as err:
        advise(w, [offer("cloud", "H100-SXM", 1, 2.0)], top=1, now=NOW)
    assert err.value.field == field
