"""benchmarks/gpu_measure.py (the GPU measurement script for the calibration set) without a GPU: the configs
it builds come from gpuscout's own model table, and the rows it writes append to the calibration CSV as
they are and read back as the benchmark's cases."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO, load_benchmark


@pytest.fixture(scope="module")
def gm() -> ModuleType:
    return load_benchmark("gpu_measure")


def test_the_configs_are_the_model_tables(gm: ModuleType) -> None:
    kind, llama = gm.config_kwargs(gm.model_row("llama-3.1-8b"))
    assert kind == "llama"
    assert (llama["hidden_size"], llama["num_hidden_layers"], llama["num_key_value_heads"]) == (4096, 32, 8)
    assert llama["vocab_size"] == 128256 and "num_experts" not in llama
    kind, qwen = gm.config_kwargs(gm.model_row("qwen3-30b-a3b"))
    assert kind == "qwen3_moe"
    assert (qwen["num_experts"], qwen["num_experts_per_tok"], qwen["moe_intermediate_size"]) == (128, 8, 768)
    assert qwen["head_dim"] == 128 and qwen["num_hidden_layers"] == 48
    _, tiny = gm.config_kwargs(gm.model_row("qwen3-30b-a3b"), tiny=True)
    assert tiny["num_hidden_layers"] == 2 and tiny["num_experts"] == 8


def test_an_unknown_model_or_family_stops_with_a_message(gm: ModuleType) -> None:
    with pytest.raises(SystemExit, match="not in"):
        gm.model_row("no-such-model")
    with pytest.raises(SystemExit, match="no transformers model type"):
        gm.config_kwargs({**gm.model_row("llama-3.1-8b"), "family": "mamba"})


def test_rows_append_to_the_calibration_set_and_read_back_as_cases(gm: ModuleType, tmp_path: Path) -> None:
    ctx = {
        "framework": "HF transformers 5.17.0 (eager PyTorch 2.11.0, sdpa)",
        "gpu": "H200 SXM 141GB",
        "source": "gpuscout benchmarks/gpu_measure.py (2026-12-02)",
        "stamp": "gpuscout benchmarks/gpu_measure.py, 2026-12-02 21:00 UTC",
        "env": "torch 2.11.0, transformers 5.17.0, sdpa attention, NVIDIA H200",
    }
    rec = gm.Recorder(tmp_path, ctx)
    common = {"model": "Qwen3-30B-A3B", "params_b": "30.5", "arch_notes": "MoE"}
    for metric, context_in, context_out, value in (
        ("decode_tokens_per_s", 128, 160, "25.0"),
        ("prefill_tokens_per_s", 2048, 0, "9000"),
    ):
        rec.row(
            **common,
            task="inference",
            batch=1,
            context_in=context_in,
            context_out=context_out,
            metric=metric,
            value=value,
            unit="tokens/s",
            notes="decode only" if context_out else "one pass",
        )
    with pytest.raises(ValueError, match="not a calibration column"):
        rec.row(**common, speed=1)
    with (tmp_path / "measured_rows.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    with (REPO / "benchmarks" / "data" / "measurements.csv").open(newline="") as fh:
        assert list(rows[0]) == next(csv.reader(fh))
    assert all(r["notes"].startswith("MEASURED here (gpuscout benchmarks/gpu_measure.py") for r in rows)
    accuracy = load_benchmark("accuracy")
    cases = accuracy.build_cases([(i + 2, r) for i, r in enumerate(rows)])
    assert [(c.metric, c.engine, c.skip) for c in cases] == [
        ("decode_b1", "hf-transformers", ""),
        ("prefill", "hf-transformers", ""),
    ]
    assert not cases[0].includes_prefill  # decode only, as the notes say
    assert resolve_era(cases[0]) == ""  # transformers 5.x: today's release


def resolve_era(case: object) -> str:
    from gpuscout.estimate.engines import resolve_engine

    return resolve_engine(case.engine_text).era  # type: ignore[attr-defined]


def test_without_pytorch_it_says_what_it_needs(gm: ModuleType, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("PyTorch is installed here: the missing-library path cannot be taken")
    assert gm.main([str(tmp_path)]) == 2
    assert "needs PyTorch, transformers and PEFT" in capsys.readouterr().err


def _script_rows() -> list[dict[str, str]]:
    with (REPO / "benchmarks" / "data" / "measurements.csv").open(newline="", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if r["source"].startswith("gpuscout benchmarks/gpu_measure.py")]


def test_the_h200_runs_are_in_the_calibration_set_and_every_row_is_read() -> None:
    """The runs of 2026-12-04 on the device machine (one NVIDIA H200; four runs on three machines): 46 rows,
    each marked as measured here with the library versions, and each read by a benchmark (none skipped,
    none left unread)."""
    rows = _script_rows()
    assert len(rows) == 46
    assert {r["gpu"] for r in rows} == {"H200 SXM 141GB"}
    assert all(
        r["notes"].startswith("MEASURED here (gpuscout benchmarks/gpu_measure.py, 2026-12-04") for r in rows
    )
    assert all("transformers 5.17.0" in r["notes"] and "NVIDIA H200" in r["notes"] for r in rows)
    numbered = [(i + 2, r) for i, r in enumerate(rows)]
    serving = [c for c in load_benchmark("accuracy").build_cases(numbered) if c.row["task"] == "inference"]
    training = load_benchmark("accuracy_training").build_cases(numbered)
    assert len(serving) + len(training) == len(rows) and len(serving) == 28
    assert [c.skip for c in serving if c.skip] == [] and [c.skip for c in training if c.skip] == []
    assert {c.metric for c in serving} == {"decode_b1", "decode_batched", "prefill"}
    assert {c.method for c in training} == {"lora", "full"}


def test_the_training_benchmark_reads_the_scripts_settings() -> None:
    """What the script ran is what the training benchmark estimates: micro-batch, checkpointing as the notes
    say, PEFT's rank 16 on every linear layer (attention only on an MoE), pure-bf16 AdamW for full
    fine-tuning, SDPA's FlashAttention-2 kernel and the allocator's peak; every run is one source."""
    at = load_benchmark("accuracy_training")
    cases = at.build_cases([(i + 2, r) for i, r in enumerate(_script_rows())])
    assert {c.source for c in cases} == {"gpuscout/gpu_measure.py"}
    by = {(c.row["model"], c.method, c.row["batch"], c.metric): c for c in cases}
    lora = by[("Llama-3.1-8B", "lora", "2", "tokens_per_s")].kwargs
    assert (lora["micro_batch"], lora["checkpointing"], lora["lora_rank"], lora["lora_targets"]) == (
        2,
        False,
        16,
        "all-linear",
    )
    assert lora["attention_kernel"] == "fa2" and "optimizer" not in lora
    assert by[("Llama-3.1-8B", "lora", "4", "tokens_per_s")].kwargs["checkpointing"] is True
    assert by[("Qwen3-30B-A3B", "lora", "1", "tokens_per_s")].kwargs["lora_targets"] == "attn"
    full = by[("Llama-3.2-3B", "full", "2", "peak_memory")]
    assert full.kwargs["optimizer"] == "bf16" and full.memory_view == "allocated"
