"""The compute-optimal global batch of a pre-training run: the most tokens per optimizer step a run
should take before a wider batch only buys speed with tokens.

Past the critical batch size the tokens needed to reach a given loss grow with the batch (McCandlish et
al. 2018, "An Empirical Model of Large-Batch Training"): a layout that spreads a small model over
hundreds of GPUs at a wide micro-batch finishes its token budget sooner, but not with the model a
narrower run would give. DeepSeek LLM (DeepSeek-AI 2024, arXiv:2401.02954, section 3.1, eq. 1) fits the
near-optimal batch on its grid searches as a power law of the training compute:

    B_opt = 0.2920 x C^0.3271 tokens per optimizer step, C = M x D FLOPs

with D the training tokens and M the non-embedding FLOPs per token (section 3.2):
``72 n_layer d_model^2 + 12 n_layer d_model l_seq`` for its architecture, which is ``6 x`` its
non-embedding parameters plus the attention scores' ``12 n_layer d_model l_seq``. Here M is computed
from the model's own shape the same way: ``6 x`` the matmul parameters a token passes through (MoE: the
active experts; embedding and LM head left out) plus the non-causal attention FLOPs of the estimator's
MFU convention (``training_speed.attention_flops_per_token``, ``12 n_layer q_dim l_seq``, sliding
windows at their width). The coefficients and the definition of C are recalled from the paper (not
re-read here). For scale: Llama 3.2 1B over 20B tokens at 4,096-token sequences, ~1.16M tokens per step;
Llama 3.1 8B over 1T, ~7.7M; Llama 3.1 70B over 2T, ~20M (1B-class recipes train at 1-4M: Pythia-1B 2M,
OLMo-1B 4M, TinyLlama 2M, recalled).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.wording import token_count

#: DeepSeek LLM's fit of the optimal batch (tokens per step) on the training compute C (FLOPs):
#: ``B_opt = BATCH_COEFFICIENT x C ** BATCH_EXPONENT`` (arXiv:2401.02954, section 3.1, eq. 1; recalled)
BATCH_COEFFICIENT = 0.2920
BATCH_EXPONENT = 0.3271
#: where the fit comes from, as a row or a warning cites it
BATCH_SOURCE = "DeepSeek LLM (arXiv:2401.02954, section 3.1, eq. 1)"
#: what past it costs, as a warning says it
PAST_OPTIMAL = (
    "past it the tokens needed for the same loss grow with the batch (McCandlish et al. 2018), so the "
    "time is not that of the model a narrower run would train"
)


@dataclass(frozen=True, slots=True)
class OptimalBatch:
    """A pre-training run's compute-optimal global batch (:func:`optimal_batch`)."""

    tokens: float  # B_opt, tokens per optimizer step
    compute_flops: float  # C = M x D
    flops_per_token: float  # M, non-embedding FLOPs per token

    def words(self) -> str:
        """'the compute-optimal batch B_opt = 0.2920 x C^0.3271 of DeepSeek LLM (arXiv:2401.02954,
        section 3.1, eq. 1) for C = 7.45 GFLOP per token (non-embedding) x 20B tokens = 1.49e20 FLOPs'."""
        tokens = self.compute_flops / self.flops_per_token if self.flops_per_token > 0 else 0.0
        return (
            f"the compute-optimal batch B_opt = {BATCH_COEFFICIENT:.4f} x C^{BATCH_EXPONENT:.4f} of "
            f"{BATCH_SOURCE} for C = {self.flops_per_token / 1e9:,.3g} GFLOP per token (non-embedding) x "
            f"{token_count(tokens)} tokens = {flops_text(self.compute_flops)} FLOPs"
        )


def flops_text(flops: float) -> str:
    """A FLOP count as papers write it: 1.49e20."""
    return f"{flops:.3g}".replace("e+", "e")


def optimal_batch_tokens(compute_flops: float) -> float:
    """DeepSeek LLM's compute-optimal global batch, tokens per optimizer step, for ``compute_flops``."""
    return BATCH_COEFFICIENT * compute_flops**BATCH_EXPONENT if compute_flops > 0 else 0.0


def non_embedding_flops_per_token(spec: ModelSpec, seq_len: int) -> float:
    """M: the training FLOPs per token (forward and backward) of the model's matmuls, embedding and LM
    head left out, plus its attention scores over ``seq_len`` (non-causal, as DeepSeek LLM and the
    estimator's MFU count them)."""
    from gpuscout.estimate.training_speed import attention_flops_per_token
    from gpuscout.knowledge.layout import model_layout

    matmuls = model_layout(spec).linear_active_params
    return 6.0 * matmuls + 3.0 * attention_flops_per_token(spec, seq_len, causal=False)


def optimal_batch(spec: ModelSpec, seq_len: int, tokens: float) -> OptimalBatch:
    """The compute-optimal global batch of pre-training ``spec`` over ``tokens`` at ``seq_len``."""
    per_token = non_embedding_flops_per_token(spec, seq_len)
    compute = per_token * tokens
    return OptimalBatch(optimal_batch_tokens(compute), compute, per_token)


def narrower_words(micro_batch: int | None = None, grad_accum: int = 1) -> str:
    """What keeps a global batch past its limit within it, as a warning says it: "fewer GPUs, fewer
    accumulated micro-batches or a smaller micro-batch keep it within"; a micro-batch of 1 (or no
    accumulation) leaves that remedy out (``micro_batch`` None: not known, named)."""
    ways = ["fewer GPUs"]
    if grad_accum > 1:
        ways.append("fewer accumulated micro-batches")
    if micro_batch is None or micro_batch > 1:
        ways.append("a smaller micro-batch")
    said = ways[0] if len(ways) == 1 else f"{', '.join(ways[:-1])} or {ways[-1]}"
    return f"{said} keep{'s' if len(ways) == 1 else ''} it within"


def past_optimal_warning(
    tokens_per_step: float, optimal: OptimalBatch, micro_batch: int | None = None, grad_accum: int = 1
) -> str:
    """What a pre-training run whose global batch exceeds ``optimal`` is told ("" where it does not), at
    ``micro_batch`` sequences per GPU (None: not known) and ``grad_accum`` micro-batches per step."""
    if tokens_per_step <= optimal.tokens:
        return ""
    return (
        f"a global batch of {tokens_per_step:,.0f} tokens per optimizer step is "
        f"{tokens_per_step / optimal.tokens:.1f}x {token_count(optimal.tokens)}, {optimal.words()}: "
        f"{PAST_OPTIMAL}; {narrower_words(micro_batch, grad_accum)}"
    )
