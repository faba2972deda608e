"""An engine the user names (``--engine``, the workload's ``engine``) runs on every row: an offer whose GPU
it cannot run the precision on (the support rules) is left out with the rule, never given another engine
or precision; only the default engine (``engine`` not given) is replaced there by what the rules say runs.

Found by a renter review: ``recommend serve llama-3.1-8b --engine trtllm`` headed "(tensorrt-llm, bf16)"
and ranked first a V100 running llama.cpp; ``gpt-oss-120b --engine tgi`` ran every row on vLLM;
``--precision q4_k_m --engine vllm`` mixed llama.cpp Q4_K_M (V100) with vLLM int4 (H100).
"""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import default_backends
from gpuscout.advise.inference_configs import ServeEvaluator, engine_named
from gpuscout.advise.types import Advice, Recommendation
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Offer
from tests.advise.helpers import NOW, offer


def _offers() -> list[Offer]:
    return [
        offer("runpod", "V100-SXM2-16GB", 1, 0.3, memory=16, instance="1xv100"),
        offer("runpod", "T4", 1, 0.35, memory=16, instance="1xt4"),
        offer("lambda", "L40S", 1, 1.0, memory=48, instance="1xl40s"),
        offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100"),
    ]


def _answer(w: ServeWorkload | BatchWorkload) -> Advice:
    return advise(w, _offers(), now=NOW, include_rejected=True)


def _engines(a: Advice) -> set[str]:
    return {r.estimate.engine for r in a.rows if r.estimate is not None}


def _refused(a: Advice, gpu: str) -> str:
    (why,) = {r.rejected or "" for r in a.rejected if r.offer.accelerator == gpu}
    return why


def test_a_named_engine_runs_every_row_and_leaves_out_the_gpus_it_cannot_run_on() -> None:
    named = _answer(ServeWorkload(model="llama-3.1-8b", concurrency=8, engine="trtllm"))
    assert named.rows and _engines(named) == {"tensorrt-llm"}
    assert all(r.substitution is None for r in named.rows)
    shown = {r.offer.accelerator for r in named.rows}
    assert "V100-SXM2-16GB" not in shown and "T4" not in shown
    why = _refused(named, "V100-SXM2-16GB")
    # the engine as people name it, the GPU and its compute capability, then the rule: its platform row
    # (no precision runs there, session 49)
    said = "TensorRT-LLM does not run on V100-SXM2-16GB (CC 7.0) at all, whatever the precision: Volta"
    assert said in why, why
    assert "here would run: llama.cpp" in why  # what would, said (not used)
    assert "(CC 7.5)" in _refused(named, "T4")
    # the default engine (none given) still gets what runs there, said on the row
    default = _answer(ServeWorkload(model="llama-3.1-8b", concurrency=8))
    v100 = next(r for r in default.rows if r.offer.accelerator == "V100-SXM2-16GB")
    assert v100.estimate is not None and v100.estimate.engine != "vllm" and v100.substitution


def test_a_named_engine_and_a_named_precision_are_never_replaced() -> None:
    # vLLM runs no GGUF file (an out-of-tree plugin): every GPU is refused, none given llama.cpp Q4_K_M
    # (V100) nor vLLM int4 (H100) as before
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, precision="q4_k_m", engine="vllm")
    named = _answer(w)
    assert named.rows == ()
    # (on the V100 vLLM runs no precision at all: its platform row says so, session 49)
    assert all(
        "vLLM does not run gguf on" in (r.rejected or "")
        or (
            r.offer.accelerator == "V100-SXM2-16GB"
            and "vLLM does not run on V100-SXM2-16GB (CC 7.0) at all" in (r.rejected or "")
        )
        for r in named.rejected
    ), named.rejected
    # without --engine the default for a GGUF precision runs it (llama.cpp), as it did
    default = _answer(w.model_copy(update={"engine": None}))
    assert default.rows and _engines(default) == {"llama.cpp"}


def test_a_named_engine_without_a_precision_runs_the_nearest_precision_it_runs() -> None:
    # gpt-oss-120b's MXFP4 experts: TGI has no MXFP4 path. The engine was named, the precision was not:
    # TGI stays and runs the nearest precision it has there (a 4-bit conversion), said on the row; the
    # default engine runs the checkpoint's MXFP4 on vLLM
    w = ServeWorkload(model="gpt-oss-120b", concurrency=4, engine="tgi")
    named = _answer(w)
    assert named.rows and _engines(named) == {"tgi"}
    h100 = next(r for r in named.rows if r.offer.accelerator == "H100-SXM")
    assert h100.substitution and "no MXFP4 path found in TGI" in h100.substitution
    assert "runs tgi with int4" in h100.substitution
    default = _answer(w.model_copy(update={"engine": None}))
    h100 = next(r for r in default.rows if r.offer.accelerator == "H100-SXM")
    assert h100.estimate is not None and h100.estimate.engine == "vllm"
    # a precision named with the engine is never replaced
    asked = _answer(w.model_copy(update={"precision": "mxfp4-moe"}))
    assert asked.rows == () and "mxfp4" in _refused(asked, "H100-SXM")


def test_a_batch_job_keeps_the_named_engine_too() -> None:
    w = BatchWorkload(model="llama-3.1-8b", output_tokens_total=1e7, engine="tensorrt-llm")
    named = _answer(w)
    assert named.rows and _engines(named) == {"tensorrt-llm"}
    assert "TensorRT-LLM does not run on V100-SXM2-16GB (CC 7.0) at all" in _refused(named, "V100-SXM2-16GB")


def test_a_blank_engine_is_the_default_and_the_evaluator_says_what_the_named_one_runs_instead() -> None:
    # the web form's "auto" is a blank engine: the default, substituted where it cannot run
    assert not engine_named(ServeWorkload(model="llama-3.1-8b", engine=""))
    assert engine_named(ServeWorkload(model="llama-3.1-8b", engine="vllm"))  # named even when the default
    blank = _answer(ServeWorkload(model="llama-3.1-8b", concurrency=8, engine=""))
    assert any(r.offer.accelerator == "V100-SXM2-16GB" and r.substitution for r in blank.rows)
    # the precisions the named engine runs where it was refused (nearest first): what an answer may offer
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, precision="q4_k_m", engine="vllm")
    ev = ServeEvaluator(w, default_backends(), Assumptions())
    for o in _offers():
        assert ev.evaluate(o).reject_kind == "unsupported"
    assert "int4" in ev.named_engine_precisions


def test_a_named_engine_keeps_its_launch_flags_where_it_runs_another_precision() -> None:
    # gpt-oss-20b on T4s (no MXFP4 path there): vLLM named with --max-num-seqs 4 runs int4, still capped at 4
    from gpuscout.catalog.api import current_offers

    w = ServeWorkload(
        model="gpt-oss-20b", concurrency=16, engine="vllm --max-num-seqs 4", latency_targets="none",
        accelerators=("T4",),
    )  # fmt: skip
    rows = advise(w, tuple(current_offers()), now=NOW).rows
    assert rows and all(r.substitution and "runs vllm with int4" in r.substitution for r in rows)

    def per_replica(r: Recommendation) -> float:
        assert r.estimate is not None and r.estimate.capacity_users is not None
        return r.estimate.capacity_users / (r.config.replicas_per_instance * r.config.instances)

    assert all(per_replica(r) <= 4 for r in rows)  # the flag's cap, each replica
    free = advise(w.model_copy(update={"engine": "vllm"}), tuple(current_offers()), now=NOW).rows
    assert all(per_replica(r) > 4 for r in free)  # without it the cap is vLLM's own 256


def test_a_blank_precision_is_the_checkpoints_own_as_a_missing_one() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=4, engine="vllm")
    missing = _answer(w)
    blank = _answer(w.model_copy(update={"precision": "  "}))
    assert missing.rows and [r.offer for r in blank.rows] == [r.offer for r in missing.rows]
