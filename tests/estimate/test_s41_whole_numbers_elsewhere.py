"""Whole-float counts in the training, diagnose and speech entry points (patch in others.patch)."""

from __future__ import annotations

import pytest

import gpuscout
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.diagnose import diagnose


def test_training_counts_given_as_whole_floats_are_ints_in_the_result() -> None:
    kw = {"gpus": 2, "seq_len": 2048, "micro_batch": 2, "lora_rank": 16, "grad_accum": 2}
    as_ints = gpuscout.estimate_training("llama-3.1-8b", "H100", **kw)
    given = gpuscout.estimate_training("llama-3.1-8b", "H100", **{k: float(v) for k, v in kw.items()})
    assert given == as_ints
    assert "micro-batch 2 x 2048 tokens" in given.assumptions["activations"]
    with pytest.raises(InvalidInputError, match=r"^seq_len: must be a whole number, got 2048\.5"):
        gpuscout.estimate_training("llama-3.1-8b", "H100", seq_len=2048.5)


def test_diagnose_echoes_int_counts() -> None:
    d = diagnose("llama-3.1-8b", "L4", measured_tps=10.0, batch=2.0, gpus=1.0, context=1024.0)
    assert (d.gpus, type(d.gpus)) == (1, int)
    assert d == diagnose("llama-3.1-8b", "L4", measured_tps=10.0, batch=2, gpus=1, context=1024)


def test_transcription_takes_a_whole_float_batch() -> None:
    est = gpuscout.estimate_transcription("whisper-large-v3", "L4", batch=2.0)
    assert est == gpuscout.estimate_transcription("whisper-large-v3", "L4", batch=2)
    with pytest.raises(InvalidInputError, match=r"^batch: must be a whole number, got 2\.5"):
        gpuscout.estimate_transcription("whisper-large-v3", "L4", batch=2.5)
