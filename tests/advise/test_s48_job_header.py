"""The answer's header repeats what a batch or training run does (a serving answer already says its load)."""

from __future__ import annotations

from gpuscout.advise.answer import targets_applied
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, PretrainWorkload, ServeWorkload


def _job(w: object) -> list[str]:
    return [t for t in targets_applied(w) if t.startswith("job: ")]  # type: ignore[arg-type]


def test_finetune_says_method_tokens_epochs_sequence_and_dtypes() -> None:
    w = FinetuneWorkload(model="llama-3.1-8b", method="qlora", dataset_tokens=1e8, epochs=3)
    assert _job(w) == [
        "job: QLoRA over 100M tokens x 3 epochs, 2,048-token sequences, NF4 base, bf16 compute, "
        "16-bit adapters"
    ]
    full = FinetuneWorkload(model="llama-3.1-8b", method="full", dataset_tokens=2e7)
    assert _job(full) == ["job: full fine-tuning over 20M tokens, 2,048-token sequences, bf16"]
    fp32 = FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1.5e9, adapter_dtype="fp32")
    assert _job(fp32) == ["job: LoRA over 1.5B tokens, 2,048-token sequences, bf16, fp32 adapters"]


def test_batch_and_pretrain_say_their_totals() -> None:
    llm = BatchWorkload(model="llama-3.1-8b", output_tokens_total=1e9)
    assert _job(llm) == ["job: 1B output tokens, 1,024 prompt + 256 output tokens per request"]
    images = BatchWorkload(model="sdxl", images_total=20_000, steps=30)
    assert _job(images) == ["job: 20,000 images at 1024x1024, 30 steps"]
    pre = PretrainWorkload(model="llama-3.1-8b", token_budget=1e12, gpus=64)
    assert _job(pre) == ["job: 1T tokens, 4,096-token sequences, bf16"]


def test_serving_has_no_job_line() -> None:
    assert _job(ServeWorkload(model="llama-3.1-8b", concurrency=8)) == []


def test_an_fp32_run_says_fp32_adapters_as_its_rows_do() -> None:
    w = FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e8, precision="fp32")
    assert _job(w) == ["job: LoRA over 100M tokens, 2,048-token sequences, fp32, fp32 adapters"]
