"""An image row says its model fits one GPU, as an LLM row does (stop 63).

``recommend batch sdxl --images 100k`` read "fits 8x RTX6000-Ada: 34 of 48 GiB per GPU" beside "model fits
one GPU: 8 replicas, not split": the first reads as a model that needs eight GPUs. Each GPU runs its own
replica; the row now says "fits 1x RTX6000-Ada: 8.9 of 48 GiB", as ``recommend batch llama-3.1-8b``
says of its replicas. Training rows, whose every GPU holds a share, are unchanged.
"""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload
from tests.advise.helpers import offer


def test_an_image_model_on_an_eight_gpu_box_fits_one_gpu() -> None:
    box = offer("aws", "H100-SXM", gpus=8, price=30.0, instance="p5.48xlarge")
    row = advise(BatchWorkload(model="sdxl", images_total=100_000), [box]).rows[0]
    assert row.config.tp == 1 and row.config.replicas_per_instance == 8
    fit = next(r for r in row.reasons if r.startswith("fits "))
    assert fit.startswith("fits 1x H100-SXM: ") and "per GPU" not in fit, row.reasons


def test_a_training_row_still_counts_every_gpu_it_shards_over() -> None:
    box = offer("aws", "H100-SXM", gpus=8, price=30.0, instance="p5.48xlarge")
    w = FinetuneWorkload(model="llama-3.1-8b", method="full", dataset_tokens=1e8)
    row = advise(w, [box]).rows[0]
    fit = next(r for r in row.reasons if r.startswith("fits "))
    assert fit.startswith("fits 8x H100-SXM: ") and fit.endswith("GiB per GPU"), row.reasons
