"""The compute-optimal global batch of a pre-training run (DeepSeek LLM, arXiv:2401.02954, section 3.1,
eq. 1: B_opt = 0.2920 x C^0.3271, C = M x D), M computed from the model's shape (stop 61: a 1B model
on 16 nodes took 8,388,608 tokens per step, 7x that batch, and its time read as the run's)."""

from __future__ import annotations

import math

import pytest

from gpuscout.estimate.pretrain_batch import (
    non_embedding_flops_per_token,
    optimal_batch,
    optimal_batch_tokens,
    past_optimal_warning,
)
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.model_registry import ModelRegistry


def test_the_fit_by_hand() -> None:
    # 0.2920 x (1e20)^0.3271: 20 x 0.3271 = 6.542, 10^6.542 = 3.4834e6, x 0.292 = 1.0171e6
    assert optimal_batch_tokens(1e20) == pytest.approx(1.0171e6, rel=1e-4)
    # 1e17: 17 x 0.3271 = 5.5607, 10^5.5607 = 363,660, x 0.292 = 106,190
    assert optimal_batch_tokens(1e17) == pytest.approx(106_190, rel=1e-4)
    assert optimal_batch_tokens(0) == 0.0


@pytest.mark.parametrize(
    ("model", "per_token", "tokens", "expected"),
    [
        # Llama 3.2 1B: 16 layers of d 2048, q/o 2048^2, k/v 2048 x 512, MLP 3 x 2048 x 8192 = 60.8M each:
        # 6 x 973,078,528 + 12 x 16 x 2048 x 4096 = 7,449,083,904; C = 1.4898e20 -> 1.1588M
        ("llama-3.2-1b", 7_449_083_904, 20e9, 1.1588e6),
        # Llama 3.1 8B: 32 x (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336) = 6,979,321,856;
        # M = 41,875,931,136 + 12 x 32 x 4096 x 4096 = 48,318,382,080; C = 4.832e22 -> 7.68M
        ("llama-3.1-8b", 48_318_382_080, 1e12, 7.680e6),
        # Llama 3.1 70B: 80 x (2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672) = 68,451,041,280;
        # M = 410,706,247,680 + 12 x 80 x 8192 x 4096 = 442,918,502,400; C = 8.858e23 -> 19.9M
        ("llama-3.1-70b", 442_918_502_400, 2e12, 19.89e6),
    ],
)
def test_b_opt_from_the_models_shape(model: str, per_token: int, tokens: float, expected: float) -> None:
    spec = ModelRegistry().resolve(model)
    assert non_embedding_flops_per_token(spec, 4096) == per_token
    found = optimal_batch(spec, 4096, tokens)
    assert found.compute_flops == per_token * tokens
    assert found.tokens == pytest.approx(expected, rel=1e-3)
    assert math.isclose(found.tokens, 0.2920 * (per_token * tokens) ** 0.3271)


def test_the_words_give_the_fit_and_its_inputs() -> None:
    found = optimal_batch(ModelRegistry().resolve("llama-3.2-1b"), 4096, 20e9)
    assert found.words() == (
        "the compute-optimal batch B_opt = 0.2920 x C^0.3271 of DeepSeek LLM (arXiv:2401.02954, section "
        "3.1, eq. 1) for C = 7.45 GFLOP per token (non-embedding) x 20B tokens = 1.49e20 FLOPs"
    )
    assert past_optimal_warning(found.tokens, found) == ""
    assert past_optimal_warning(8_388_608, found).startswith(
        "a global batch of 8,388,608 tokens per optimizer step is 7.2x 1.16M, the compute-optimal batch"
    )
    # the remedies the run has room for: no smaller micro-batch than 1, fewer micro-batches if accumulated
    assert past_optimal_warning(8_388_608, found).endswith(
        "; fewer GPUs or a smaller micro-batch keep it within"
    )
    assert past_optimal_warning(8_388_608, found, micro_batch=1).endswith("; fewer GPUs keeps it within")
    assert past_optimal_warning(8_388_608, found, micro_batch=4, grad_accum=8).endswith(
        "; fewer GPUs, fewer accumulated micro-batches or a smaller micro-batch keep it within"
    )


def test_the_estimator_warns_of_a_global_batch_past_it() -> None:
    kw = {"method": "pretrain", "seq_len": 4096, "micro_batch": 16, "tokens": 2e10, "sharding": "fsdp"}
    wide = estimate_training("llama-3.2-1b", "MI300X", gpus=8, nodes=16, **kw)  # type: ignore[arg-type]
    assert wide.tokens_per_step == 8_388_608
    (said,) = [w for w in wide.warnings if "compute-optimal" in w]
    assert "is 7.2x 1.16M" in said and "McCandlish" in said
    assert wide.assumptions["global_batch"].startswith(
        "8,388,608 tokens per optimizer step (2,384 steps); 1.16M is the compute-optimal batch B_opt"
    )
    one = estimate_training("llama-3.2-1b", "MI300X", gpus=8, **kw)  # type: ignore[arg-type]
    assert one.tokens_per_step == 524_288 and not [w for w in one.warnings if "compute-optimal" in w]
    tune = estimate_training("llama-3.2-1b", "MI300X", gpus=8, nodes=16, **{**kw, "method": "full"})  # type: ignore[arg-type]
    assert "global_batch" not in tune.assumptions  # fine-tuning: the batch is its owner's
