"""A setup that cannot hold one sequence gets no speed (as an unsupported one gets none), the memory it
needs, and what would hold it: more GPUs of the kind, or a narrower format the engine runs there."""

from __future__ import annotations

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import estimate


def test_no_speed_when_the_weights_do_not_fit() -> None:
    # Qwen3-30B-A3B in bf16: 61 GB of weights against the L40S's 43.5 GB budget (0.9 of 48 GiB, less
    # the CUDA context and the engine's reserve). It used to come with a TTFT of ~5 minutes at 32 users
    est = estimate("qwen3-30b-a3b", "L40S", concurrency=32)
    assert not est.fits and est.binding_constraint == "weights" and est.binding_limit == "memory"
    speeds = (est.ttft_ms, est.tpot_ms, est.decode_tokens_per_s, est.output_tokens_per_s_total)
    assert speeds == (0.0, 0.0, 0.0, 0.0) and est.requests_per_s == 0.0 and est.batch == 0
    assert est.memory.weights_gb > est.memory.usable_gb
    assert any(w.startswith("does not fit") and "no speed" in w for w in est.warnings)
    # two L40S hold it tensor-parallel (half the weights each); FP8 halves them on one
    would = est.assumptions["would_fit"]
    assert "bf16 on 2 x L40S (tensor parallel" in would and "fp8 on 1 x L40S" in would
    assert estimate("qwen3-30b-a3b", "L40S", gpus=2).fits
    assert estimate("qwen3-30b-a3b", "L40S", precision="fp8").fits


def test_a_long_prompt_that_overflows_the_cache_names_the_cache() -> None:
    est = estimate("llama-3.1-8b", "L4", context_in=32000)
    assert not est.fits and est.binding_constraint == "kv_cache" and est.tpot_ms == 0.0


def test_narrower_formats_are_only_those_the_engine_runs_there() -> None:
    # 70B on one RTX 4090: nothing narrower fits one card (fp8 73 GB, int4 41 GB); eight hold bf16
    est = estimate("llama-3.1-70b", "RTX 4090")
    assert est.assumptions["would_fit"].startswith("bf16 on 8 x RTX4090")
    assert "int4" not in est.assumptions["would_fit"]
    # llama.cpp suggests its own GGUF types
    gguf = estimate("llama-3.1-70b", "RTX 4090", gpus=2, engine="llama.cpp", precision="q8_0")
    assert not gguf.fits and "gguf-q4_k_m on 2 x RTX4090" in gguf.assumptions["would_fit"]


def test_the_cli_prints_the_need_and_the_way_out_not_a_speed() -> None:
    res = CliRunner().invoke(app, ["estimate", "qwen3-30b-a3b", "--gpu", "L40S", "--concurrency", "32"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    # 61.1 GB of weights + a 2048-token step's activations (vLLM's budget on 48 GB) + context and reserve:
    # 62.97e9 bytes, said in GiB as GPU memory is sold (62.97e9 / 2**30 = 58.6)
    assert "does not fit: needs 58.6 GiB per GPU" in out and "would fit: bf16 on 2 x L40S" in out
    assert "time to first token" not in out and "tokens/s" not in out
