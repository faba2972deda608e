"""When the engine the user named (``--engine``) runs on none of the offers' GPUs (support rules), the
"no offer" answer says so, with what would run it: the default engine (no --engine), and the named
engine in a precision it runs there."""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.offer import Offer
from tests.advise.helpers import NOW, offer


def _offers() -> list[Offer]:
    return [
        offer("runpod", "V100-SXM2-16GB", 1, 0.3, memory=16, instance="1xv100"),
        offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100"),
    ]


def test_an_engine_that_runs_nowhere_is_said_with_what_would() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, precision="q4_k_m", engine="vllm")
    answer = advise(w, _offers(), now=NOW)
    assert answer.rows == ()
    why = answer.binding or ""
    assert why.startswith("--engine vllm cannot run --precision q4_k_m on any GPU of these offers"), why
    assert "without --engine the cheapest is 1x V100-SXM2-16GB" in why and "(on llama.cpp)" in why
    assert "--engine vllm runs --precision int4: the cheapest is 1x H100-SXM" in why


def test_an_engine_its_platform_refuses_is_said_to_run_no_precision_there() -> None:
    # TensorRT-LLM runs on neither a V100 nor a T4 (Volta and Turing are outside its support matrix): its
    # platform row refuses them, whatever the precision, so the checkpoint's own format is not what is
    # named (session 49: "cannot run the checkpoint's own format (bf16)" read as if another would run)
    offers = [
        offer("runpod", "V100-SXM2-16GB", 1, 0.3, memory=16, instance="1xv100"),
        offer("x", "T4", 1, 0.2, memory=16, instance="1xt4"),
    ]
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, engine="tensorrt-llm")
    why = advise(w, offers, now=NOW).binding or ""
    assert why.startswith(
        "--engine tensorrt-llm runs on none of these offers' GPUs, whatever the precision"
    ), why
    assert "on V100-SXM2-16GB and T4, Volta and Turing are community support only" in why, why
    assert "without --engine the cheapest is 1x" in why and "(on llama.cpp)" in why


def test_an_engine_refused_on_some_gpus_only_is_a_hint_after_the_binding_constraint() -> None:
    # TensorRT-LLM runs on the H100 but not the V100; the 405B fits neither: the memory binds first
    w = ServeWorkload(model="llama-3.1-405b", concurrency=1, engine="tensorrt-llm")
    why = advise(w, _offers(), now=NOW).binding or ""
    assert why.startswith("no offer can run it"), why
    assert why.endswith("; --engine tensorrt-llm cannot run on 1 of them"), why  # no engine fits it


def test_the_cheapest_row_without_the_engine_names_its_own_engine_first() -> None:
    """Stop 57: "(on llama.cpp, vllm)" of a V100 row that runs llama.cpp (vLLM runs no MXFP4 on Volta) read as
    if vLLM ran there; the cheapest row's engine is said, the other rows' after it."""
    w = ServeWorkload(model="gpt-oss-20b", concurrency=4, engine="sglang 0.4.6")
    why = advise(w, _offers(), now=NOW).binding or ""
    assert "without --engine the cheapest is 1x V100-SXM2-16GB" in why, why
    assert "(on llama.cpp; other rows on vllm)" in why, why
