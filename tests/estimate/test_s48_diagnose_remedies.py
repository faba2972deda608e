"""diagnose prices its remedies as it times the measured speed: a plain decode step at the batch named.
It priced "batch 32" from a served load of one-token requests (at most 7 ran at once) times 32: 4,088
tok/s for Llama-3.1-8B on an H100, where a decode step of 32 sequences gives ~3,400."""

from __future__ import annotations

import re

import pytest

from gpuscout.estimate.diagnose import diagnose


def _figure(text: str, pattern: str) -> float:
    found = re.search(pattern, text)
    assert found, text
    return float(found.group(1).replace(",", ""))


@pytest.mark.parametrize("model", ["llama-3.1-8b", "qwen3-30b-a3b"])
def test_a_batch_remedy_is_the_diagnosis_of_that_batch(model: str) -> None:
    d = diagnose(model, "H100", measured_tps=30.0)
    (line,) = [s for s in d.suggestions if s.startswith("Batch 32 requests together")]
    total = _figure(line, r"~([\d,]+) tokens/s generated in total")
    per_seq = _figure(line, r"\(([\d,]+) per sequence\)")
    at32 = diagnose(model, "H100", measured_tps=30.0, batch=32)
    assert abs(per_seq - at32.expected_tps) <= 0.5  # printed to the unit
    assert total == pytest.approx(32 * at32.expected_tps, rel=0.01)
    moe = model.startswith("qwen3-30b")
    assert ("the weights read serve every sequence" in line) is not moe


def test_a_remedy_never_names_the_card_measured_on() -> None:
    d = diagnose("llama-3.1-8b", "H100-SXM", measured_tps=80.0, batch=32)
    faster = [s for s in d.suggestions if s.startswith("Faster memory")]
    assert all("H100-SXM" not in s for s in faster)


def test_quantising_is_priced_against_the_same_step() -> None:
    # fp8 halves the weights read: the remedy's speed over the diagnosis's own is at most the bytes' ratio
    d = diagnose("llama-3.1-8b", "H100", measured_tps=60.0, batch=32)
    (fp8,) = [s for s in d.suggestions if s.startswith("Quantise to fp8")]
    speed = _figure(fp8, r"~([\d,]+) tokens/s per sequence")
    assert d.expected_tps < speed <= 2.0 * d.expected_tps


def test_remedies_run_the_engine_as_given_with_its_flags() -> None:
    # an eager vLLM is host-bound here: a faster card or fewer bytes would not speed it up, and the batch
    # remedy is priced eager (it was priced with today's vLLM and its CUDA graphs: 236 tok/s for fp8)
    eager = diagnose("llama-3.1-8b", "H100", measured_tps=60.0, engine="vllm --enforce-eager")
    assert not [s for s in eager.suggestions if s.startswith(("Faster memory", "Quantise"))]
    (line,) = [s for s in eager.suggestions if s.startswith("Batch 32")]
    at32 = diagnose("llama-3.1-8b", "H100", measured_tps=60.0, batch=32, engine="vllm --enforce-eager")
    assert abs(_figure(line, r"\(([\d,]+) per sequence\)") - at32.expected_tps) <= 0.5
    # a scheduler capped at 4 sequences is never told to batch 8 or 32
    capped = diagnose("llama-3.1-8b", "H100", measured_tps=60.0, engine="vllm --max-num-seqs 4")
    assert not [s for s in capped.suggestions if s.startswith("Batch")]
