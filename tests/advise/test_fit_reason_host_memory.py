"""The fit reason counts the weights the GPU holds, as the row's memory table does.

llama.cpp keeps the token embedding table in host memory: on one V100 the row's table said 14.0 GiB of
weights per GPU while the reason said "weights 15 GiB" (the whole model).
"""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.estimate.memory import gib
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params
from tests.advise.helpers import NOW, offer


def test_a_llama_cpp_row_says_what_the_gpu_holds_and_what_stays_in_host_memory() -> None:
    w = ServeWorkload(model="llama-3.1-8b", engine="llama.cpp", precision="gguf-f16", concurrency=1)
    (row, *_) = advise(w, [offer("cloud", "V100-SXM2-16GB", 1, 0.5)], top=1, now=NOW).rows
    assert row.estimate is not None
    fit = next(r for r in row.reasons if r.startswith("fits 1x"))
    on_gpu = gib(row.estimate.weights_gb)
    embedding = gib(2 * count_params(resolve_model("llama-3.1-8b")).embedding / 1e9)  # f16: 2 bytes a weight
    assert f"weights {on_gpu:.0f} GiB, {embedding:.1f} GiB more in host memory" in fit


def test_an_engine_that_holds_every_weight_says_nothing_of_host_memory() -> None:
    w = ServeWorkload(model="llama-3.1-8b", engine="vllm", precision="fp16", concurrency=1)
    (row, *_) = advise(w, [offer("cloud", "H100-SXM", 1, 2.0)], top=1, now=NOW).rows
    fit = next(r for r in row.reasons if r.startswith("fits 1x"))
    assert "host memory" not in fit


def test_a_layer_split_over_two_gpus_says_the_same() -> None:
    # 2x 12 GB: llama.cpp splits the layers; the reason said "weights 15 GiB" of what the GPUs hold 14
    w = ServeWorkload(model="llama-3.1-8b", engine="llama.cpp", precision="gguf-f16", concurrency=1)
    (row, *_) = advise(w, [offer("cloud", "RTX3060-12GB", 2, 0.5)], top=1, now=NOW).rows
    assert row.estimate is not None and row.config.tp == 2
    fit = next(r for r in row.reasons if r.startswith("fits 2x"))
    # the two GPUs hold unequal shares (17 layers / 15 + the output head): what they hold together is the
    # model less the embedding table, not twice the fuller one's
    embedding = gib(2 * count_params(resolve_model("llama-3.1-8b")).embedding / 1e9)
    held = gib(row.estimate.model_weights_gb or 0.0) - embedding
    assert held < gib(2 * row.estimate.weights_gb)
    assert f"(weights {held:.0f} GiB + KV" in fit and f"; {embedding:.1f} GiB more in host memory)" in fit


def test_only_a_training_row_lists_the_training_memory_headroom() -> None:
    # every serving and batch row's assumptions listed "training memory headroom: >= 5% of each GPU free"
    from gpuscout.advise.workload import FinetuneWorkload

    serve = ServeWorkload(model="llama-3.1-8b", concurrency=1)
    (row, *_) = advise(serve, [offer("cloud", "H100-SXM", 1, 2.0)], top=1, now=NOW).rows
    assert "training memory headroom" not in row.assumptions and "download" in row.assumptions
    tune = FinetuneWorkload(model="llama-3.1-8b", method="lora", dataset_tokens=1e6)
    (row, *_) = advise(tune, [offer("cloud", "H100-SXM", 1, 2.0)], top=1, now=NOW).rows
    assert row.assumptions["training memory headroom"].startswith(">= 5%")
