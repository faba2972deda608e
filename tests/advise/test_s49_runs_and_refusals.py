"""What an answer says its rows run, and why a named engine is refused (renter review, session 49).

- The title names the engine and format the rows run as asked; a row that runs something else names it
  on the row (its configuration cell, kept at every width): a V100 under "(vllm, bf16)" runs llama.cpp.
- Where no row runs as asked (``--engine tgi`` for gpt-oss's MXFP4), the title still names the engine
  asked and what runs in place of the format asked; the answer carries what was asked (``asked_run``).
- A named engine refused by its platform row (TensorRT-LLM on AMD: no precision runs there) is said so,
  not as if another precision would run.
"""

from __future__ import annotations

from dataclasses import replace

from gpuscout.advise.answer import RunsHeading, names_its_run, runs_heading
from gpuscout.advise.api import advise
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer


def _gpt_oss_offers() -> list:
    return [
        offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100"),
        offer("lambda", "H100-SXM", 2, 5.0, instance="2xh100"),
        offer("runpod", "A100-SXM4-80GB", 2, 3.0, instance="2xa100"),
    ]


def test_where_every_row_runs_another_format_the_title_names_the_engine_asked_and_what_runs() -> None:
    w = ServeWorkload(model="gpt-oss-120b", concurrency=8, engine="tgi")
    answer = advise(w, _gpt_oss_offers(), now=NOW)
    assert answer.rows and all(r.substitution for r in answer.rows)
    assert answer.asked_run == "tgi, mxfp4-moe"
    heading = runs_heading(answer.rows, answer.asked_run)
    assert heading == RunsHeading("tgi, int4 in place of mxfp4-moe", "tgi, int4")
    # every row runs what the title names: none repeats it on its row
    assert not any(names_its_run(r, heading) for r in answer.rows)


def test_a_row_that_runs_something_else_than_the_title_names_it() -> None:
    # llama-3.1-8b on vLLM; the V100 runs llama.cpp (vLLM 0.34 has no Volta kernels)
    offers = [
        offer("runpod", "V100-SXM2-16GB", 1, 0.3, memory=16, instance="1xv100"),
        offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100"),
    ]
    answer = advise(ServeWorkload(model="llama-3.1-8b", concurrency=1), offers, now=NOW)
    heading = runs_heading(answer.rows, answer.asked_run)
    assert heading.text == "vllm, bf16"
    by_gpu = {r.offer.accelerator: r for r in answer.rows}
    v100, h100 = by_gpu["V100-SXM2-16GB"], by_gpu["H100-SXM"]
    assert names_its_run(v100, heading) and v100.run_label == "llama.cpp gguf-f16"
    assert not names_its_run(h100, heading)
    assert answer.asked_run == "vllm, bf16"
    # the advisor decides it once, for every face: the rows carry it, the answer its title's words
    assert answer.runs == heading.text
    assert v100.names_run and not h100.names_run


def test_the_run_label_is_the_rows_engine_and_format() -> None:
    offers = [offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100")]
    (rec,) = advise(ServeWorkload(model="llama-3.1-8b", concurrency=1), offers, now=NOW).rows
    assert _row(rec, "llama.cpp", "gguf-f16", True).run_label == "llama.cpp gguf-f16"
    # built from the fields, not by editing the title's words ("a, b" -> "a b")
    assert _row(rec, "my, engine", "bf16", True).run_label == "my, engine bf16"


def test_a_named_engine_only_refused_is_no_run_asked_in_place_of_another() -> None:
    # TensorRT-LLM runs on the H100 as asked and nothing on the MI300X: nothing ran in its place
    offers = [*_mi300x(), offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100")]
    w = ServeWorkload(model="llama-3.1-8b", concurrency=1, engine="trtllm")
    answer = advise(w, offers, now=NOW, include_rejected=True)
    assert [r.offer.accelerator for r in answer.rows] == ["H100-SXM"]
    assert [r.offer.accelerator for r in answer.rejected] == ["MI300X"]
    assert not any(r.substitution for r in answer.rows)
    assert answer.asked_run == ""
    assert answer.runs.startswith("tensorrt-llm, ") and "in place of" not in answer.runs


def _row(rec: Recommendation, engine: str, precision: str, substituted: bool) -> Recommendation:
    assert rec.estimate is not None
    est = replace(rec.estimate, engine=engine, precision=precision)
    return replace(rec, estimate=est, substitution="changed" if substituted else None)


def test_rows_that_run_several_other_things_each_name_theirs() -> None:
    offers = [offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100")]
    (rec,) = advise(ServeWorkload(model="llama-3.1-8b", concurrency=1), offers, now=NOW).rows
    a = _row(rec, "llama.cpp", "gguf-f16", True)
    b = _row(rec, "sglang", "fp16", True)
    heading = runs_heading([a, b], "vllm, bf16")
    assert heading == RunsHeading("in place of vllm, bf16: each row names what it runs", "")
    assert names_its_run(a, heading) and names_its_run(b, heading)
    # another engine in place of the one asked: both are named
    assert runs_heading([a], "vllm, bf16").text == "llama.cpp, gguf-f16 in place of vllm, bf16"


def _mi300x() -> list:
    return [offer("oracle", "MI300X", 8, 30.0, memory=192, instance="bm.mi300x.8")]


def test_an_engine_its_platform_refuses_is_said_to_run_in_no_precision() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=1, engine="trtllm")
    answer = advise(w, _mi300x(), now=NOW, include_rejected=True)
    assert answer.rows == ()
    why = answer.binding or ""
    assert why.startswith("--engine trtllm runs on none of these offers' GPUs, whatever the precision"), why
    assert "on MI300X, TensorRT-LLM runs on NVIDIA GPUs only" in why
    assert "the checkpoint's own format" not in why  # as if another precision would run
    (row,) = answer.rejected
    assert "TensorRT-LLM does not run on MI300X (gfx942) at all, whatever the precision" in (
        row.rejected or ""
    )


def test_a_precision_refused_on_some_gpu_keeps_the_precisions_words() -> None:
    # TensorRT-LLM runs no GGUF file on the H100 (the precision's rule), nothing on the MI300X (its
    # platform's): another precision would run on one of them, so the format is what is named
    offers = [*_mi300x(), offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100")]
    w = ServeWorkload(model="llama-3.1-8b", concurrency=1, engine="tensorrt-llm", precision="q4_k_m")
    why = advise(w, offers, now=NOW).binding or ""
    assert why.startswith("--engine tensorrt-llm cannot run --precision q4_k_m on any GPU"), why
