"""Under SGLang's data-parallel attention every GPU holds the whole attention: the row's reasons and
its download count the model's weights once (what the checkpoint holds), and say what each GPU holds."""

from __future__ import annotations

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import gpu_weight_bytes, weights_bytes_total
from gpuscout.estimate.precision import resolve_precision
from gpuscout.knowledge.models import resolve_model
from tests.advise.helpers import NOW, offer

H200_BOX = offer(
    "example",
    "H200-SXM",
    8,
    24.0,
    memory=141.0,
    interconnect=Interconnect.NVLINK,
    availability=Availability.AVAILABLE,
)


def _row(engine: str):  # type: ignore[no-untyped-def]
    w = ServeWorkload(
        model="deepseek-v3", engine=engine, concurrency=8, prompt_tokens=2000, output_tokens=500
    )
    answer = advise(w, [H200_BOX], top=5, now=NOW)
    assert answer.rows, answer.binding
    return answer.rows[0]


def test_the_weights_are_counted_once_and_each_gpu_share_is_named() -> None:
    spec, fmt = resolve_model("deepseek-v3"), resolve_precision("fp8-block")
    whole = weights_bytes_total(spec, fmt) / 1e9  # ~690 GB: the checkpoint
    each = gpu_weight_bytes(spec, fmt, resolve_engine("sglang --enable-dp-attention"), gpus=8) / 1e9
    # 7 more copies of the attention, embedding and head (15.1 GB): 13.2 GB more on each of 8 GPUs
    assert 8 * each - whole == pytest.approx(8 * 13.2, rel=0.02)
    r = _row("sglang --enable-dp-attention")
    assert r.config.tp == 8
    fit = next(x for x in r.reasons if x.startswith("fits 8x"))
    gib = 1e9 / 2**30  # the reasons give memory in GiB, the unit GPU memory is sold in
    assert f"weights {whole * gib:.0f} GiB + KV" in fit
    assert f"{each * gib:.0f} GiB of weights on each, the attention whole" in fit
    assert r.estimate is not None and r.estimate.model_weights_gb == pytest.approx(whole)


def test_the_stored_download_is_the_checkpoint_whatever_each_gpu_holds() -> None:
    dp, tp = _row("sglang --enable-dp-attention"), _row("sglang")
    assert dp.config.instances == tp.config.instances == 1
    assert dp.cost is not None and tp.cost is not None and tp.cost.storage > 0
    # one checkpoint either way (8x what one GPU holds would store ~13 % more under DP attention)
    assert dp.cost.storage == pytest.approx(tp.cost.storage)


def test_plain_tensor_parallelism_shards_everything_and_says_nothing_more() -> None:
    r = _row("sglang")
    fit = next(x for x in r.reasons if x.startswith("fits 8x"))
    # the weights sharded, none named on each GPU (MLA's latent cache is whole on each under plain TP:
    # that is said, "KV 1.2 GiB on each GPU", stop 63)
    assert "of weights on each" not in fit and "GiB on each GPU)" in fit
    assert r.estimate is not None
    assert r.estimate.model_weights_gb == pytest.approx(8 * r.estimate.weights_gb, rel=1e-6)


def test_a_row_whose_speed_rests_on_few_rows_warns_so() -> None:
    r = _row("sglang")
    assert any(x.startswith("speed rests on few rows: SGLang's block-FP8") for x in r.warnings)
    assert r.estimate is not None and r.estimate.calibration_basis is not None
    # vLLM's figures for the same model carry no such note
    v = _row("vllm")
    assert not any("rests on few rows" in x for x in v.warnings)
