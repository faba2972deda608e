"""A dead end names the precision its rows stand at as the renter chose it (stop 61, a review): DeepSeek-V3
on $5,000 a month said "at the precision asked, the cheapest ..." where no precision was asked (it runs
at the checkpoint's own FP8, fp8-block); and llama.cpp's memory dead end proposed "a narrower precision
(fp8, int4)", formats llama.cpp does not run, where its narrower levels are GGUF Q8_0 and Q4_K_M."""

from __future__ import annotations

from gpuscout.advise.answer import _memory_levers, _narrower_precisions
from gpuscout.advise.rank import Ranker
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW
from tests.advise.test_s61_dead_end_moves import _answer, _offers

DEEPSEEK = ServeWorkload(model="deepseek-v3", concurrency=8, latency_targets="none", budget_usd=5000)


def test_a_budget_dead_end_without_a_precision_names_the_checkpoints_own_format() -> None:
    found = _answer(DEEPSEEK)
    assert not found.rows and found.binding is not None
    assert found.binding.startswith("the budget binds ("), found.binding
    assert "; at the checkpoint's own fp8-block, the cheapest that meets everything else is " in found.binding
    assert "precision asked" not in found.binding


def test_a_budget_dead_end_with_a_precision_names_it() -> None:
    w = DEEPSEEK.model_copy(update={"precision": "fp8"})
    found = _answer(w)
    assert not found.rows and found.binding is not None
    assert "; at the precision asked (fp8), the cheapest that meets everything else is " in found.binding


def test_llama_cpps_memory_levers_are_its_gguf_levels() -> None:
    """Llama 3.3 70B on llama.cpp to 8 users, on the offers of at most 48 GiB an instance: too little
    memory on every one; the levers said are the ones llama.cpp runs (no fp8, no int4). (Stop 62: on all
    the offers within $500 this dead end blamed memory, where the latency targets and the budget bind
    together: tests/advise/test_s62_latency_and_budget.py.)"""
    w = ServeWorkload(model="llama-3.3-70b", engine="llama.cpp", concurrency=8, latency_targets="none")
    ranker = Ranker(w, now=NOW)
    small = [o for o in _offers() if o.gpu_memory_gb * o.gpu_count <= 48]
    answer = ranker.advise(small, "cost", top=5)
    assert not answer.rows and answer.binding is not None
    assert "the largest instance has 48 GiB of GPU memory: " in answer.binding
    narrower = _narrower_precisions(ranker)
    assert narrower == ("gguf-q8_0", "gguf-q4_k_m")
    assert f"a narrower precision ({', '.join(narrower)}), a shorter context" in answer.binding
    assert "fp8" not in answer.binding and "int4" not in answer.binding


def test_nothing_narrower_than_int4_is_proposed() -> None:
    """Already at int4 the memory levers name no narrower precision; at bf16 vLLM's are fp8 and int4."""
    at_int4 = Ranker(ServeWorkload(model="llama-3.1-405b", precision="int4", concurrency=8), now=NOW)
    assert _memory_levers(at_int4) == "a shorter context or fewer users per replica would need less memory"
    at_bf16 = Ranker(ServeWorkload(model="llama-3.1-405b", precision="bf16", concurrency=8), now=NOW)
    assert _memory_levers(at_bf16).startswith("a narrower precision (fp8, int4), a shorter context")
