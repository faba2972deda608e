"""CLI: gpuscout vram / estimate / diagnose (human and --json output, errors)."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from gpuscout.cli import app
from tests.conftest import REFERENCE

runner = CliRunner()
# the README's llama.cpp example
Q4_ON_4090 = ["estimate", "llama-3-8b", "--gpu", "RTX 4090", "--precision", "q4_k_m", "--engine", "llama.cpp"]


def test_estimate_readme_example_llama_cpp_on_4090() -> None:
    res = runner.invoke(app, [*Q4_ON_4090, "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["fits"] is True
    assert data["precision"] == "gguf-q4_k_m"
    # llama.cpp Q4_K_M Llama 3 8B on a 4090: published llama-bench tg runs are ~120-140 tokens/s
    assert 90 < data["decode_tokens_per_s"] < 170
    assert data["bound"] == "memory"
    assert "bandwidth_efficiency" in data["assumptions"]


def test_estimate_human_output_has_units() -> None:
    res = runner.invoke(app, Q4_ON_4090)
    assert res.exit_code == 0, res.output
    assert "tokens/s" in res.stdout and "GB" in res.stdout and "ms" in res.stdout
    # where a decode step's time goes, beside the limit it names
    assert "decode step (parts overlap)" in res.stdout and "reads" in res.stdout
    as_json = runner.invoke(app, [*Q4_ON_4090, "--json"])
    step = json.loads(as_json.stdout)["step_ms"]
    assert step["total"] >= step["memory"] > 0 and step["interconnect"] == 0


def test_vram_readme_example_70b_int4_32k() -> None:
    res = runner.invoke(app, ["vram", "llama-3.1-70b", "--precision", "int4", "--context", "32768", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    mem = data["memory"]
    # 70.6B params at 4.25 bits (+ fp16 embeddings/lm_head) ~40.6 GB; KV 320 KiB x 32768 ~10.7 GB
    assert 39 < mem["weights_gb"] < 42
    assert 10.5 < mem["kv_cache_gb"] < 11.0
    names = {(r["gpu"], r["gpus"]) for r in data["fits_on"]}
    assert ("H100-SXM", 1) in names
    assert not any(r["gpu"] == "RTX4090" and r["gpus"] == 1 for r in data["fits_on"])


def test_vram_counts_the_whole_batch_and_lists_only_cards_that_hold_it() -> None:
    # 64 sequences of 32k tokens of Llama-3.1-8B: 64 x 32,768 x 128 KiB = 275 GB of cache. The breakdown
    # used to be an estimate's, which caps the batch at what fits (here one sequence), so it read 4.3 GB
    # and listed single 24 GB cards as holding the batch
    args = ["vram", "llama-3.1-8b", "--batch", "64", "--context", "32768", "--gpu", "L4", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["fits"] is False
    assert abs(data["memory"]["kv_cache_gb"] - 64 * 32768 * 131072 / 1e9) < 0.01
    assert data["fits_on"] and all(r["gpus"] >= 2 for r in data["fits_on"])
    assert all(r["per_gpu_gb"] <= r["usable_gb"] for r in data["fits_on"])


def test_vram_batch_max_sizes_as_many_sequences_as_fit() -> None:
    res = runner.invoke(app, ["vram", "llama-3.1-8b", "--batch", "max", "--context", "8192", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    mem = data["memory"]
    assert data["fits"] is True
    per_sequence = 8192 * 131072 / 1e9
    # H100 (the default card): tens of 8k-token sequences, the cache filling what the weights leave
    assert mem["kv_cache_gb"] > 40 * per_sequence
    total = mem["weights_gb"] + mem["kv_cache_gb"] + mem["activations_gb"] + mem["overhead_gb"]
    assert total <= mem["usable_gb"]


def test_vram_human_output() -> None:
    res = runner.invoke(app, ["vram", "llama-3.1-70b", "--precision", "int4", "--context", "32768"])
    assert res.exit_code == 0, res.output
    assert "KV cache" in res.stdout and "Fits on" in res.stdout


def test_vram_from_config_file() -> None:
    configs = sorted((REFERENCE / "hf_configs").glob("*.json"))
    assert configs
    res = runner.invoke(app, ["vram", "ignored", "--config", str(configs[0]), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["memory"]["weights_gb"] > 0


def test_vram_training_task_uses_training_estimator() -> None:
    res = runner.invoke(
        app,
        [
            "vram",
            "llama-3.1-8b",
            "--task",
            "qlora",
            "--context",
            "2048",
            "--gpu",
            "RTX 4090",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["fits"] is True
    assert data["task"] == "qlora"


def test_vram_training_on_several_gpus_is_sized_sharded_and_says_so() -> None:
    # data parallel would hold a whole replica per GPU: several GPUs share a training job only when sharded
    def vram(gpus: int) -> dict:  # type: ignore[type-arg]
        args = ["vram", "llama-3.1-70b", "--task", "full", "--gpus", str(gpus), "--json"]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)  # type: ignore[no-any-return]

    one, eight = vram(1), vram(8)
    assert one["layout"].startswith("one GPU;") and eight["layout"].startswith("FSDP across 8 GPUs")
    # 16 B/param over 8 GPUs: ~141 GB of weights, gradients and optimizer per GPU instead of ~1,130
    per_gpu = (
        eight["memory"]["weights_gb"] + eight["memory"]["gradients_gb"] + eight["memory"]["optimizer_gb"]
    )
    assert per_gpu < 0.15 * (
        one["memory"]["weights_gb"] + one["memory"]["gradients_gb"] + one["memory"]["optimizer_gb"]
    )
    assert any(row["gpu"] == "B200" and row["gpus"] == 8 for row in eight["fits_on"])
    assert "layout" not in json.loads(runner.invoke(app, ["vram", "llama-3.1-8b", "--json"]).stdout)


def test_diagnose_json() -> None:
    res = runner.invoke(
        app, ["diagnose", "llama-3-8b", "--gpu", "RTX 4090", "--measured-tps", "45", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["bound"] == "memory"
    assert data["suggestions"]


def test_diagnose_human() -> None:
    res = runner.invoke(app, ["diagnose", "llama-3-8b", "--gpu", "RTX 4090", "--measured-tps", "45"])
    assert res.exit_code == 0, res.output
    assert "GB/s" in res.stdout


def test_errors_are_one_line_with_exit_2() -> None:
    res = runner.invoke(app, ["estimate", "llama-3-8b", "--gpu", "RTX 9999"])
    assert res.exit_code == 2
    assert "closest" in res.output or "unknown" in res.output
    res = runner.invoke(app, ["estimate", "llama-3-8b", "--gpu", "H100", "--batch", "lots"])
    assert res.exit_code == 2 and "--batch" in res.output
    res = runner.invoke(app, ["vram", "llama-3-8b", "--task", "dance"])
    assert res.exit_code == 2 and "--task" in res.output


def test_estimate_unsupported_says_the_reason_once_with_what_would_run_and_the_sources() -> None:
    res = runner.invoke(
        app, ["estimate", "llama-3.1-8b", "--gpu", "V100", "--precision", "fp8", "--engine", "vllm"]
    )
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("llama-3.1-8b on 1 x V100")
    assert res.stdout.count("is not supported") == 1
    assert "not supported: vllm: fp8 on V100" in res.stdout
    assert "would run:" in res.stdout
    assert "sources: [1], [2]" in res.stdout and "\n[1] https://" in res.stdout  # each address whole
    assert "┃" not in res.stdout  # no table of one row


def test_estimate_title_names_the_model_asked_for_and_the_architecture_it_was_sized_as() -> None:
    """DeepSeek-R1 is sized as the DeepSeek-V3 entry (same architecture): the title says both; a name
    that is the entry's own (or its HF id) is not repeated."""
    res = runner.invoke(app, ["estimate", "deepseek-r1", "--gpu", "H200", "--gpus", "8"])
    assert res.exit_code == 0, res.output
    assert "deepseek-r1 (as deepseek-v3) on 8 x H200" in " ".join(res.stdout.split())
    res = runner.invoke(app, ["estimate", "meta-llama/Llama-3.1-8B", "--gpu", "H100"])
    assert res.exit_code == 0, res.output
    assert "llama-3.1-8b on 1 x H100" in res.stdout and "(as " not in res.stdout


def test_estimate_splits_by_the_engines_own_multi_gpu_mode() -> None:
    """Without --parallel, HF transformers and llama.cpp split by layers (device_map="auto",
    --split-mode layer), the servers by tensor parallel."""
    for engine, parallel in (("hf-transformers", "layer"), ("llama.cpp", "layer"), ("vllm", "tensor")):
        res = runner.invoke(
            app, ["estimate", "qwen2.5-14b", "--gpu", "L4", "--gpus", "2", "--engine", engine, "--json"]
        )
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["parallel"] == parallel, engine


def test_vram_and_estimate_size_a_model_in_the_format_its_name_or_checkpoint_says() -> None:
    """Without --precision: DeepSeek-R1 is published in FP8 (~671 GB of weights, not ~1,342 in bf16),
    gpt-oss in MXFP4, and "Qwen3-14B-AWQ" is the int4 checkpoint of qwen3-14b."""
    res = runner.invoke(app, ["vram", "deepseek-r1", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["assumptions"]["precision"].startswith("FP8")
    res = runner.invoke(app, ["vram", "gpt-oss-120b", "--json"])
    assert json.loads(res.stdout)["assumptions"]["precision"].startswith("MXFP4")
    res = runner.invoke(app, ["estimate", "Qwen3-14B-AWQ", "--gpu", "H100", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["precision"] == "int4"
    res = runner.invoke(app, ["vram", "deepseek-r1", "--precision", "bf16", "--json"])
    assert json.loads(res.stdout)["assumptions"]["precision"].startswith("BF16")


def test_estimate_takes_recommends_load_spellings_too() -> None:
    """-c / --prompt / --output mean in `estimate` what they mean in `recommend serve`."""
    base = ["estimate", "llama-3.1-8b", "--gpu", "H100", "--json"]
    long = runner.invoke(app, [*base, "--concurrency", "8", "--context-in", "3000", "--context-out", "300"])
    short = runner.invoke(app, [*base, "-c", "8", "--prompt", "3000", "--output", "300"])
    assert long.exit_code == short.exit_code == 0, short.output
    a, b = json.loads(long.output), json.loads(short.output)
    assert (b["context_in"], b["context_out"], b["concurrency"]) == (3000, 300, 8.0)
    assert a == b


def test_estimate_refuses_a_tensor_split_the_heads_do_not_divide_as_it_shows_other_unsupported_cases() -> (
    None
):
    res = runner.invoke(app, ["estimate", "llama-3.1-70b", "--gpu", "H100", "--gpus", "3"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert (
        "not supported: vllm: llama-3.1-70b's 64 attention heads do not divide by tensor parallel size 3"
        in out
    )
    assert (
        "would run: tensor parallel over 2 x H100-SXM" in out and "pipeline parallel over 3 x H100-SXM" in out
    )
    assert "sources: vllm/config/model.py" in out
    assert "┃" not in res.stdout and "supported │" not in res.stdout  # no table, no "supported: yes"
    data = json.loads(
        runner.invoke(app, ["estimate", "llama-3.1-70b", "--gpu", "H100", "--gpus", "3", "--json"]).stdout
    )
    assert data["supported"] is False and data["decode_tokens_per_s"] == 0


def test_vram_says_a_refused_split_is_not_supported_and_what_would_run() -> None:
    res = runner.invoke(app, ["vram", "llama-3.1-70b", "--gpus", "3", "--gpu", "H100"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert "3 x H100-SXM: not supported: vllm: llama-3.1-70b's 64 attention heads" in out
    assert "would run: tensor parallel over 2 x H100-SXM" in out and ": fits" not in out
    data = json.loads(
        runner.invoke(app, ["vram", "llama-3.1-70b", "--gpus", "3", "--gpu", "H100", "--json"]).stdout
    )
    assert data["supported"] is False and data["fits"] is False


def test_estimate_errors_for_a_context_past_the_window_and_a_kv_dtype_the_engine_lacks() -> None:
    res = runner.invoke(
        app, ["estimate", "llama-3.1-8b", "--gpu", "H100", "--context-in", "200000", "--context-out", "100"]
    )
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit | None)  # an error, not a crash
    assert "--context-in:" in res.stderr
    assert "(accepted: --context-in + --context-out <= 131072)" in res.stderr
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["vram", "llama-3.1-8b", "--gpu", "H100", "--context", "200000"])
    assert res.exit_code == 2 and "--context:" in res.stderr and "131072" in res.stderr
    res = runner.invoke(
        app, ["estimate", "llama-3.1-8b", "--gpu", "H100", "--kv-dtype", "q4_0", "--batch", "max"]
    )
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "--kv-dtype:" in res.stderr and "(accepted: fp32, bf16, fp16, fp8)" in res.stderr
    res = runner.invoke(app, ["vram", "llama-3.1-8b", "--gpu", "H100", "--kv-dtype", "q4_0"])
    assert res.exit_code == 2 and "--kv-dtype:" in res.stderr


def test_diagnose_says_a_speed_above_the_roofline_is_not_possible() -> None:
    res = runner.invoke(app, ["diagnose", "llama-3-8b", "--gpu", "A10G", "--measured-tps", "500"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert "above the roofline: not possible" in out and "memory bandwidth it would take" in out
    assert "Above the roofline: 500 tokens/s per sequence" in out and "Memory-bound" not in out
    assert "Faster memory" not in out and "Total throughput of a batch?" in out
    data = json.loads(
        runner.invoke(
            app, ["diagnose", "llama-3-8b", "--gpu", "A10G", "--measured-tps", "500", "--json"]
        ).stdout
    )
    assert data["bound"] == "above-roofline" and data["measured_tps"] > data["roofline_tps"]


def test_the_kv_bytes_per_token_of_a_split_say_they_are_the_whole_models() -> None:
    # under "memory per GPU", a TP4 70B read "(320.0 KiB/token)": each GPU holds 80 of them
    split = runner.invoke(app, ["estimate", "llama-3.1-70b", "--gpu", "H100", "--gpus", "4"])
    assert split.exit_code == 0, split.output
    cells = re.sub(r"[\s│]+", " ", split.output)  # a cell wrapped over table lines, read as one
    assert "GiB per GPU (320.0 KiB/token for the whole model)" in cells
    one = runner.invoke(app, ["estimate", "llama-3.1-8b", "--gpu", "H100"])
    assert "128.0 KiB/token)" in one.output and "whole model" not in one.output


def test_a_layer_splits_kv_cache_is_the_fullest_gpus_share() -> None:
    # "KV cache 0.15 GiB (320.0 KiB/token, whole model)" read as the whole model's cache: it is the
    # fullest GPU's share; the KiB/token is the whole model's
    args = ["estimate", "llama-3.1-70b", "--gpu", "RTX-4090", "--gpus", "6", "--engine", "llama.cpp"]
    split = runner.invoke(app, args)
    assert split.exit_code == 0, split.output
    flat = re.sub(r"[\s│]+", " ", split.output)  # a cell wrapped over table lines, read as one
    share = r"KV cache [\d.]+ GiB on the fullest GPU \(320\.0 KiB/token for the whole model\)"
    assert re.search(share, flat), flat


def test_the_kv_capacity_is_not_called_the_engines_concurrency() -> None:
    # gpt-oss-20b on an A100: the KV cache holds ~2,100 sequences, vLLM runs at most 256 (its scheduler
    # cap, said on the load row); "max concurrent sequences 2,108" read as what the engine would run
    res = runner.invoke(app, ["estimate", "gpt-oss-20b", "--gpu", "A100-SXM4-80GB", "-c", "300"])
    assert res.exit_code == 0, res.output
    assert "max concurrent sequences" not in res.output and "sequences memory holds" in res.output
    assert "256 running" in res.output
