"""The accuracy benchmark runs on the calibration CSV: every applicable row evaluates, skips say why,
fits/OOM rows are all right (not a timing test, and not a copy of the benchmark's error figures)."""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import CALIBRATION, load_benchmark


@pytest.fixture(scope="module")
def accuracy() -> ModuleType:
    return load_benchmark("accuracy")


@pytest.fixture(scope="module")
def summary(accuracy: ModuleType) -> dict[str, object]:
    cases = accuracy.build_cases(accuracy.load(Path(CALIBRATION)))
    results = accuracy.evaluate(cases)
    return {"cases": cases, "results": results, "summary": accuracy.summarise(results)}


def test_every_applicable_row_evaluates(summary: dict[str, object]) -> None:
    s = summary["summary"]
    assert not s["errors"], s["errors"]  # type: ignore[index]
    results = summary["results"]
    assert all(math.isfinite(r.predicted) and r.predicted >= 0 for r in results)  # type: ignore[attr-defined]
    metrics = s["metrics"]  # type: ignore[index]
    for family in ("decode_b1", "prefill", "serving", "requests", "tpot", "ttft_load", "peak_memory"):
        assert metrics[family]["n"] > 0, family
        assert math.isfinite(metrics[family]["mape"])


def test_every_inference_engine_has_rows(summary: dict[str, object]) -> None:
    engines = {r.case.engine for r in summary["results"]}  # type: ignore[attr-defined]
    assert {"vllm", "sglang", "tgi", "hf-transformers", "tensorrt-llm", "llama.cpp", "gpt-fast"} <= engines


def test_moe_and_tensor_parallel_rows_are_scored(summary: dict[str, object]) -> None:
    groups = summary["summary"]["groups"]  # type: ignore[index]
    assert groups["moe serving"]["n"] >= 20
    assert groups["tp>=2 serving"]["n"] >= 50


def test_multi_gpu_transformers_and_llama_cpp_rows_are_layer_splits(summary: dict[str, object]) -> None:
    # HF transformers spreads a model over GPUs with accelerate's device_map="auto" (whole layers per
    # GPU, run one after the other), llama.cpp with --split-mode layer: neither is tensor parallel
    split = [
        c
        for c in summary["cases"]  # type: ignore[attr-defined]
        if not c.skip and c.engine in ("hf-transformers", "llama.cpp") and c.kwargs.get("gpus", 1) > 1
    ]
    assert any(c.engine == "hf-transformers" for c in split)
    assert all(c.kwargs["parallel"] == "layer" and c.tp == 1 for c in split)


def test_rows_skipped_only_with_a_reason(summary: dict[str, object]) -> None:
    for case in summary["cases"]:  # type: ignore[attr-defined]
        if case.skip:
            assert len(case.skip) > 10, case.label
    skipped = [c for c in summary["cases"] if c.skip]  # type: ignore[attr-defined]
    reasons = " ".join(c.skip for c in skipped)
    assert "multi-node" in reasons  # PD disaggregation over several nodes is out of single-node scope
    assert "cannot be represented" in reasons  # Step-3.5-Flash, Nemotron-3-Nano


def test_fits_and_oom_rows_all_right(summary: dict[str, object]) -> None:
    fits = summary["summary"]["fits"]  # type: ignore[index]
    assert fits["rows"] >= 20
    assert fits["right"] == fits["rows"]
    implied = summary["summary"]["implied_fits"]  # type: ignore[index]
    # a measured speed means it fitted: every such row is sized to fit, but for runs the sizing puts within
    # 2 % over the card (the runtime reserves it adds are known to a few hundred MB), which the benchmark
    # names; a layer split is sized on its fullest GPU (stop 49), which put llama.cpp's 2024 70B F16 runs on
    # 6 x RTX 3090 (14 of 80 layers, 1.1 GB of attention scores without flash attention) 1.4 % over
    borderline = implied["borderline"]
    assert implied["right"] + len(borderline) == implied["rows"]
    assert len(borderline) <= 2 and all(1.0 < b["over_usable"] <= 1.02 for b in borderline)


def test_suspect_rows_reported_not_aggregated(summary: dict[str, object]) -> None:
    s = summary["summary"]
    suspect_lines = {x["line"] for x in s["suspect_excluded"]}  # type: ignore[index]
    assert suspect_lines
    results = summary["results"]
    assert all(r.case.suspect for r in results if r.case.line in suspect_lines)  # type: ignore[attr-defined]


def test_weights_rows_match_llama_cpp_file_sizes(summary: dict[str, object]) -> None:
    weights = summary["summary"]["metrics"]["weights"]  # type: ignore[index]
    assert weights["n"] >= 10
    assert weights["mape"] < 0.02


def test_loso_refits_without_the_held_out_source(accuracy: ModuleType) -> None:
    """The leave-one-source-out machinery really refits: on a small source, the constants fitted without
    it differ from the shipped ones, and none of its rows is in the training set."""
    cases = accuracy.build_cases(accuracy.load(Path(CALIBRATION)))
    src = next(c.source for c in cases if "gpt-fast" in c.source and not c.skip)
    train = [c for c in cases if c.source != src]
    assert not any(c.source == src for c in accuracy._usable("gpt-fast", train, accuracy._DECODE))
    start = accuracy.prior_profile("gpt-fast")
    fitted = accuracy.fit_engine("gpt-fast", train, start=start)
    assert fitted.bandwidth_efficiency == start.bandwidth_efficiency  # no gpt-fast rows left: priors kept


def test_ttft_under_load_fits_only_the_per_request_cost(accuracy: ModuleType) -> None:
    """TTFT under load carries queueing and the client's arrival pattern: fitted on its own it moves the
    per-request cost and nothing else (no efficiency, no step cost), however far off the rows are."""
    cases = accuracy.build_cases(accuracy.load(Path(CALIBRATION)))
    ttft = [c for c in cases if c.engine == "tensorrt-llm" and c.metric == "ttft_load" and not c.skip]
    assert ttft
    start = accuracy.prior_profile("tensorrt-llm")
    fitted = accuracy.fit_engine("tensorrt-llm", ttft, start=start)
    assert fitted.request_overhead_us != start.request_overhead_us
    assert fitted.bandwidth_efficiency == start.bandwidth_efficiency
    assert fitted.compute_efficiency == start.compute_efficiency
    assert (fitted.moe_efficiency, fitted.moe_compute_efficiency, fitted.step_overhead_us) == (
        start.moe_efficiency,
        start.moe_compute_efficiency,
        start.step_overhead_us,
    )
    for engine, families in accuracy.FIT_PARAMS.items():
        for metrics, params in families:
            if "ttft_load" in metrics and engine != "hf-transformers":
                assert params == [("attr", "request_overhead_us")], engine


def test_shared_step_cost_comes_from_the_other_engine_when_a_source_is_held_out(
    accuracy: ModuleType,
) -> None:
    """The Python-scheduler step cost is one constant for vLLM V0 and SGLang 0.4: without the source of
    every SGLang 0.4 batch-1 row (Qwen3 speed benchmark) it is fitted on vLLM V0's rows, not left at
    its prior, and both engines carry the same value."""
    cases = accuracy.build_cases(accuracy.load(Path(CALIBRATION)))
    qwen3 = next(c.source for c in cases if c.engine == "sglang" and "0.4.6" in c.engine_text)
    train = [c for c in cases if c.source != qwen3]
    profs = {e: accuracy.resolve_engine(e) for e in ("vllm", "sglang")}
    fitted = accuracy._fit_shared("python_scheduler_step_us", profs, train)
    v0 = accuracy.get_param(fitted["vllm"], ("era:v0:step_overhead_us", ""))
    assert fitted["sglang"].step_overhead_us == pytest.approx(v0)
    assert v0 != pytest.approx(accuracy.SHARED_PRIORS["python_scheduler_step_us"], rel=0.05)
    # an era override is not the base attribute: SGLang 0.3 rows keep their own step cost
    members = accuracy.SHARED_PARAMS["python_scheduler_step_us"]
    sglang_03 = [c for c in train if c.engine == "sglang" and "0.3" in c.engine_text]
    assert sglang_03
    assert not any(accuracy._shared_exercised(c, members) for c in sglang_03)


def test_sharegpt_runs_vary_their_output_lengths_unless_fixed(accuracy: ModuleType) -> None:
    # benchmark_serving / bench_serving take ShareGPT output lengths from the replies, unless
    # --sharegpt-output-len fixes them; random datasets have fixed lengths
    assert accuracy._varied_output("ShareGPT via vLLM benchmarks/benchmark_serving.py (num-prompts 1000)")
    assert not accuracy._varied_output("--dataset-name sharegpt --sharegpt-output-len 256")
    assert not accuracy._varied_output("--dataset-name random --random-input 3200 --random-output 800")
    cases = accuracy.build_cases(accuracy.load(Path(CALIBRATION)))
    varied = [c for c in cases if c.kwargs.get("varied_output")]
    assert varied
    assert all(c.kwargs.get("num_requests") and "sharegpt" in c.row["notes"].lower() for c in varied)


def test_block_fp8_rows_are_read_and_fitted_as_block_fp8(accuracy: ModuleType) -> None:
    """DeepSeek-R1 and Qwen3 FP8 rows run the publishers' block-scaled checkpoints: they are estimated as
    ``fp8-block`` and fit SGLang's block-FP8 figures (the class a fit counts as exercised is the
    format's kernel family, not only its compute class); Llama FP8 rows stay per-tensor."""
    cases = [c for c in accuracy.build_cases(accuracy.load(Path(CALIBRATION))) if not c.skip]
    fp8 = [c for c in cases if "fp8" in str(c.kwargs.get("precision"))]
    by_model = {(c.kwargs["model"].split("-")[0], c.kwargs["precision"]) for c in fp8}
    assert ("DeepSeek", "fp8-block") in by_model and ("Qwen3", "fp8-block") in by_model
    assert not any(
        c.kwargs["precision"] == "fp8" and c.kwargs["model"].startswith(("Qwen3", "DeepSeek")) for c in fp8
    )
    assert any(c.kwargs["precision"] == "fp8" and "Llama" in c.kwargs["model"] for c in fp8)
    block = [c for c in fp8 if c.engine == "sglang" and c.metric == "decode_b1"]
    assert block and {accuracy._eff_class(c) for c in block} == {"fp8-block"}
    start = accuracy.prior_profile("sglang")
    fitted = accuracy.fit_engine("sglang", block, start=start)
    assert fitted.bandwidth_eff("fp8-block") != start.bandwidth_eff("fp8-block")
    assert fitted.bandwidth_eff("fp8") == start.bandwidth_eff("fp8")  # per-tensor: no row, not moved
    # an engine whose FP8 figure block-FP8 rows fall back to fits that figure on them
    assert accuracy._exercised(("comp", "fp8"), {"fp8-block"}, set())


def test_llama_cpp_rows_are_timed_as_the_build_of_their_date(accuracy: ModuleType) -> None:
    """A llama-bench table runs the build of its day: rows dated 2023-2024 (and the rest of their
    source), or posted in a llama.cpp pull request of that time, are timed as the engine's "2024" era;
    undated rows of today's pull requests and other sources as today's engine."""

    def row(source: str, notes: str = "", framework: str = "llama.cpp (llama-bench)") -> dict[str, str]:
        return {"framework": framework, "source": source, "notes": notes}

    rows = [
        row("https://example.org/tables", "RunPod, CUDA 12.1.1, May 2024"),
        row("https://example.org/tables", "OOM in overview table"),  # undated, same source
        row("https://github.com/ggml-org/llama.cpp/pull/4766"),
        row("https://github.com/ggml-org/llama.cpp/pull/19053", "'t/s master' column"),
        row("https://github.com/geerlingguy/ai-benchmarks/issues/46", "fa=1"),
        row("https://example.org/vllm", "2024 run", framework="vLLM 0.6.3"),
    ]
    dated = accuracy.llama_cpp_2024_sources(rows)
    assert dated == {"https://example.org/tables", "https://github.com/ggml-org/llama.cpp/pull/4766"}

    from gpuscout.estimate.engines import resolve_engine

    cases = {c.line: c for c in accuracy.build_cases(accuracy.load(Path(CALIBRATION)))}
    eras = {(c.source, resolve_engine(c.engine_text).era) for c in cases.values() if c.engine == "llama.cpp"}
    by_source = dict(eras)
    assert len(by_source) == len(eras)  # one era per source
    assert by_source["https://github.com/ggml-org/llama.cpp/pull/19053"] == ""
    assert by_source["https://github.com/ggml-org/llama.cpp/pull/4766"] == "2024"
    assert sum(era == "2024" for era in by_source.values()) >= 3


def test_early_sglang_moe_rows_fit_their_era_not_todays_engine(accuracy: ModuleType) -> None:
    """The DeepSeek-R1 rows of SGLang 0.4.2-0.4.3 are timed as that era, the Qwen3 rows of 0.4.6 as the
    0.4.4-0.4.x era; today's engine takes its MoE figures from its kernel tables, not from a fit. Without
    the Qwen3 source no row of the 0.4.4-0.4.x era is an MoE run, so its MoE constants stay at their
    priors instead of taking the early era's per-layer cost."""
    from gpuscout.estimate.engines import resolve_engine

    cases = [c for c in accuracy.build_cases(accuracy.load(Path(CALIBRATION))) if not c.skip]
    sglang_moe = [c for c in cases if c.engine == "sglang" and c.moe]
    eras = {("DeepSeek" in c.kwargs["model"], resolve_engine(c.engine_text).era) for c in sglang_moe}
    assert {era.split("+")[0] for deepseek, era in eras if deepseek} == {"0.4.0-0.4.3"}
    assert {era for deepseek, era in eras if not deepseek} == {"0.4.4-0.4.x"}
    qwen3 = next(c.source for c in sglang_moe if "0.4.6" in c.engine_text)
    fitted = accuracy.fit_engines({"sglang"}, [c for c in cases if c.source != qwen3])["sglang"]
    param = ("era:0.4.4-0.4.x:moe_layer_overhead_us", "")
    prior = accuracy._prior("sglang", param)
    assert accuracy.get_param(fitted, param) == pytest.approx(prior)
    assert fitted.moe_layer_overhead_us == resolve_engine("sglang").moe_layer_overhead_us  # not fitted
    early = accuracy.get_param(fitted, ("era:0.4.0-0.4.3:moe_layer_overhead_us", ""))
    assert early > 2 * prior


def test_autoawq_benchmark_rows_time_bare_forward_calls(accuracy: ModuleType) -> None:
    """AutoAWQ's examples/benchmark.py times model(...) calls, not generate(): its rows pay the forward's
    own fixed cost instead of generate()'s per-step host work; other transformers rows keep the latter."""
    from gpuscout.estimate.engines import resolve_engine

    cases = [c for c in accuracy.build_cases(accuracy.load(Path(CALIBRATION))) if not c.skip]
    awq = [c for c in cases if "AutoAWQ" in c.row["framework"] and "benchmark.py" in c.row["notes"]]
    others = [c for c in cases if c.engine == "hf-transformers" and c not in awq]
    assert awq and others
    for c in awq:
        settings = accuracy._engine_settings(c.row["notes"], resolve_engine(c.engine_text))
        assert settings["step_overhead_us"] == accuracy.BARE_FORWARD_STEP_US
    for c in others:
        settings = accuracy._engine_settings(c.row["notes"], resolve_engine(c.engine_text))
        assert "step_overhead_us" not in settings
    assert resolve_engine("hf-transformers").step_overhead_us > 5 * accuracy.BARE_FORWARD_STEP_US


@pytest.mark.parametrize("kind", ["16bit", "weight-only"])
def test_sglang_takes_its_weight_streams_from_vllms_fit(accuracy: ModuleType, kind: str) -> None:
    """SGLang's 16-bit linear layers are vLLM's cuBLAS GEMMs and its AWQ/GPTQ ones vLLM's Marlin GEMM:
    those streaming figures are not fitted on its own rows (batch-1 decode on the H20 is compute-bound
    and cannot fix them) but taken from vLLM's fit, whichever engines a fold asks for."""
    assert ("bw", kind) not in [p for _, params in accuracy.FIT_PARAMS["sglang"] for p in params]
    cases = [c for c in accuracy.build_cases(accuracy.load(Path(CALIBRATION))) if not c.skip]
    small = [c for c in cases if c.engine in ("sglang", "vllm") and c.metric == "decode_b1"]
    fitted = accuracy.fit_engines({"sglang"}, small)
    stream = fitted["vllm"].bandwidth_eff(kind)
    assert fitted["sglang"].bandwidth_eff(kind) == stream
    assert stream != accuracy._prior("vllm", ("bw", kind))
    # and the shipped profiles carry the one figure
    shipped = {e: accuracy.resolve_engine(e).bandwidth_eff(kind) for e in ("sglang", "vllm")}
    assert shipped["sglang"] == shipped["vllm"]


def test_an_eras_kernel_scale_is_fitted_only_on_that_kernel_family(accuracy: ModuleType) -> None:
    p = ("era:0.4.0-0.4.3:kscale", "fp8-block")
    assert accuracy._exercised(p, {"fp8-block"}, {"0.4.0-0.4.3+dp-attention"})
    assert not accuracy._exercised(p, {"16bit"}, {"0.4.0-0.4.3"})
    assert not accuracy._exercised(p, {"fp8-block"}, {""})
    prof = accuracy.set_param(accuracy.prior_profile("sglang"), p, 0.5)
    assert accuracy.get_param(prof, p) == 0.5


def test_the_attribution_of_each_target_adds_up_to_its_mape(
    accuracy: ModuleType, summary: dict[str, object]
) -> None:
    """Every source's share of a target's error, summed, is the target's MAPE; the largest comes first and
    its over- and under-predicted rows count all its rows (a row on the mark is neither)."""
    results = summary["results"]
    stats = {**summary["summary"]["metrics"], **summary["summary"]["groups"]}  # type: ignore[index]
    shares = accuracy.attribution(results, top=1000)
    for key in accuracy.TARGETS:
        total = sum(d["points"] for d in shares[key])
        assert total == pytest.approx(stats[key]["mape"], rel=1e-9), key
        points = [d["points"] for d in shares[key]]
        assert points == sorted(points, reverse=True)
        assert all(d["over"] + d["under"] <= d["n"] for d in shares[key])
    assert len(accuracy.attribution(results)["serving"]) == 3


def test_a_source_is_named_by_its_repository_and_file(accuracy: ModuleType) -> None:
    short = accuracy.short_source
    url = "https://github.com/dstackai/benchmarks/blob/7f37e6697725e58dd09b9ef190b62ce19f01d45e/Deepseek-R1/raw_data/online_results.csv"
    assert short(url) == "dstackai/benchmarks/.../raw_data/online_results.csv"
    assert short("https://github.com/ggml-org/llama.cpp/pull/19053") == "ggml-org/llama.cpp/pull/19053"
    assert short("https://ai.wmx.dev/benchmarks") == "ai.wmx.dev/benchmarks"


def test_loso_in_processes_gives_the_same_figures(accuracy: ModuleType) -> None:
    """``--jobs``: the folds run in worker processes and the figures are those of one process."""
    cases = accuracy.build_cases(accuracy.load(Path(CALIBRATION)))
    sources = sorted({c.source for c in cases if "gpt-fast" in c.source or "AutoAWQ" in c.source})
    assert len(sources) >= 2
    small = [c for c in cases if c.source in sources]
    one = accuracy.loso(small)
    two = accuracy.loso(small, jobs=2)
    assert one["metrics"] == two["metrics"]
    assert one["per_source"] == two["per_source"]
    assert set(one["per_source"]) == set(sources)
