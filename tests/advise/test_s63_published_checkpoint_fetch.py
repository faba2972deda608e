"""A fine-tune fetches the checkpoint as published, not a bf16 copy of it (stop 63).

``recommend finetune deepseek-v3 --dataset-tokens 10M`` priced a warm-up of 57 min on its 8x H100 pick
($6.55 of a $13.98 run): every fine-tune was taken to download and load 2 bytes per parameter, 1,342 GB,
where DeepSeek-V3 is published in FP8 (673 GB of files, dequantized on load); gpt-oss-120b, published
with MXFP4 experts (65 GB), was fetched as 234 GB. A spot reclaim of a LoRA run fetched that again. The
download and the load are now of the published checkpoint; a full fine-tune still leaves bf16 weights.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.backends import default_backends
from gpuscout.advise.workload import FinetuneWorkload
from gpuscout.catalog.api import current_offers
from gpuscout.catalog.offer import Offer


def _p5() -> Offer:
    found = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5en.48xlarge"]
    assert found
    return dataclasses.replace(found[0], spot_price_usd_per_hour=None)


def _row(w: FinetuneWorkload) -> object:
    answer = advise(w, [_p5()])
    assert answer.rows, answer.binding
    return answer.rows[0]


def test_the_published_sizes_are_the_checkpoints_own_format() -> None:
    be = default_backends()
    assert be.published_weights_gb is not None
    assert be.published_weights_gb("deepseek-v3") == pytest.approx(673, rel=0.01)  # FP8 (block scales)
    assert be.published_weights_gb("gpt-oss-120b") == pytest.approx(65.2, rel=0.01)  # MXFP4 experts
    assert be.published_weights_gb("llama-3.1-8b") == pytest.approx(16.06, rel=0.001)  # bf16, as before


def test_a_lora_of_an_fp8_model_downloads_and_loads_its_fp8_files() -> None:
    row = _row(FinetuneWorkload(model="deepseek-v3", method="lora", dataset_tokens=1e7))
    warm_s = row.cost.warmup / row.price_usd_per_hour * 3600.0  # one node, on demand
    # boot 90 s + 673 GB at 0.5 GB/s + 673 GB at 2 GB/s = 1,772 s (was 3,445 s: 1,342 GB each way)
    assert warm_s == pytest.approx(90 + 673 / 0.5 + 673 / 2.0, rel=0.02)


def test_a_full_fine_tune_of_an_mxfp4_model_still_keeps_bf16_weights() -> None:
    w = FinetuneWorkload(model="gpt-oss-20b", method="full", dataset_tokens=1e6, storage_retention_days=30)
    row = _row(w)
    warm_s = row.cost.warmup / row.price_usd_per_hour * 3600.0
    assert warm_s == pytest.approx(90 + 13.75 / 0.5 + 13.75 / 2.0, rel=0.02)
    # what stays stored for the month: the trained weights in bf16 (2 bytes per parameter, 41.8 GB)
    assert any("41.8 GB" in r for r in row.reasons), row.reasons


def test_a_lora_spot_reclaim_names_the_base_it_fetches_again() -> None:
    # "a reclaim reloads the last checkpoint (2.07 GB) and the data: 6 min" hid the 141 GB base it fetches
    offer = dataclasses.replace(_p5(), spot_price_usd_per_hour=5.0)
    w = FinetuneWorkload(model="llama-3.3-70b", method="qlora", dataset_tokens=1e7)
    row = advise(w, [offer]).rows[0]
    said = next(r for r in row.reasons if "a reclaim reloads" in r)
    assert "a reclaim reloads the frozen base weights (141 GB), the last checkpoint (2.07 GB)" in said, said
    full = advise(FinetuneWorkload(model="llama-3.1-8b", method="full", dataset_tokens=1e8), [offer]).rows[0]
    said = next(r for r in full.reasons if "a reclaim reloads" in r)
    assert "frozen base" not in said and "a reclaim reloads the last checkpoint (112 GB)" in said, said


def test_a_precision_the_name_states_is_the_published_format() -> None:
    """The name "Llama-3.1-70B-Instruct-FP8" states an FP8 checkpoint (72.7 GB: the embeddings and head in
    bf16), which the model's own format (bf16) hid: it was fetched as 141 GB."""
    be = default_backends()
    assert be.published_weights_gb is not None
    assert be.native_precision is not None and be.native_precision("Llama-3.1-70B-Instruct-FP8") == "fp8"
    assert be.published_weights_gb("Llama-3.1-70B-Instruct-FP8") == pytest.approx(72.66, rel=0.001)
    assert be.published_weights_gb("llama-3.1-70b") == pytest.approx(141.1, rel=0.001)  # bf16, as before


def test_a_lora_of_a_named_fp8_checkpoint_fetches_its_fp8_files() -> None:
    row = _row(FinetuneWorkload(model="Llama-3.1-70B-Instruct-FP8", method="lora", dataset_tokens=1e7))
    warm_s = row.cost.warmup / row.price_usd_per_hour * 3600.0  # one node, on demand
    # boot 90 s + 72.7 GB at 0.5 GB/s + 72.7 GB at 2 GB/s = 272 s (was 443 s: 141 GB each way)
    assert warm_s == pytest.approx(90 + 72.66 / 0.5 + 72.66 / 2.0, rel=0.02)
