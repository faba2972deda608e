"""How wide a pre-training run's global batch (tokens per optimizer step: micro-batch x data-parallel GPUs
x sequence) may be, for the training evaluator (:mod:`gpuscout.advise.training_configs`): the step floor
(the token budget in ``estimate.training.PRETRAIN_MIN_STEPS`` steps, Llama 2's warm-up) and the run's
compute-optimal batch (``estimate.pretrain_batch``: DeepSeek LLM's B_opt) or the workload's
``global_batch_tokens``, whichever is smaller (:func:`batch_limit`); the micro-batch a node count may take
within it (:func:`micro_batch_cap`), the row's words for its batch and the warnings of a batch the workload
fixed past it. Fine-tuning has no such limit: an SFT run's batch is its owner's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from gpuscout.advise.backends import TrainingResult
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload
from gpuscout.wording import token_count

if TYPE_CHECKING:
    from gpuscout.estimate.pretrain_batch import OptimalBatch


class BatchLimit(NamedTuple):
    """The widest global batch (tokens per optimizer step: micro-batch x data-parallel GPUs x sequence) a
    pre-training layout the advisor chooses may take (:func:`batch_limit`), and why."""

    tokens: float
    kind: str  # "steps": the step floor; "optimal": the compute-optimal batch; "given": global_batch_tokens
    words: str  # what the limit is and where it comes from, as a row's text says it
    short: str  # the limit named again in the same text


def batch_limit(w: FinetuneWorkload | PretrainWorkload, optimal: OptimalBatch | None) -> BatchLimit | None:
    """The widest global batch of a pre-training run: the smaller of the step floor's (the token budget
    in ``estimate.training.PRETRAIN_MIN_STEPS`` steps) and the workload's ``global_batch_tokens``, else
    ``optimal`` (the run's compute-optimal batch, ``estimate.pretrain_batch``; None: not known). None for
    a fine-tune: an SFT run's batch is its owner's (a few hundred steps are usual)."""
    if not isinstance(w, PretrainWorkload):
        return None
    from gpuscout.estimate.training import PRETRAIN_MIN_STEPS

    per_step = token_count(w.token_budget / PRETRAIN_MIN_STEPS)
    floor = BatchLimit(
        w.token_budget / PRETRAIN_MIN_STEPS,
        "steps",
        f"{per_step} tokens per step, {PRETRAIN_MIN_STEPS:,} optimizer steps of the "
        f"{token_count(w.token_budget)}-token budget (the learning-rate warm-up alone takes that many: "
        "Llama 2)",
        f"{per_step} tokens per step ({PRETRAIN_MIN_STEPS:,} steps)",
    )
    wide: BatchLimit | None = None
    if w.global_batch_tokens is not None:
        given = f"{w.global_batch_tokens:,} tokens per step"
        wide = BatchLimit(
            float(w.global_batch_tokens),
            "given",
            f"{given}, the workload's global_batch_tokens",
            f"{given} (global_batch_tokens)",
        )
    elif optimal is not None and optimal.tokens > 0:
        best = f"{token_count(optimal.tokens)} tokens per step"
        wide = BatchLimit(optimal.tokens, "optimal", f"{best}, {optimal.words()}", f"{best} (B_opt)")
    return wide if wide is not None and wide.tokens < floor.tokens else floor


def micro_batch_cap(
    w: FinetuneWorkload | PretrainWorkload, limit: BatchLimit | None, ranks: int
) -> int | None:
    """The most sequences per GPU a pre-training run on ``ranks`` data-parallel GPUs may take within
    ``limit`` (0: not even one); None for a fine-tune, no limit, or a micro-batch the workload fixed (its
    choice: the row then warns)."""
    if limit is None or w.micro_batch is not None:
        return None
    return int(limit.tokens // (ranks * w.seq_len))


def grad_accum(
    w: FinetuneWorkload | PretrainWorkload, limit: BatchLimit | None, ranks: int, micro_batch: int
) -> int:
    """The micro-batches a pre-training run on ``ranks`` data-parallel GPUs at ``micro_batch`` sequences
    per GPU accumulates per optimizer step: as many as keep its global batch (micro-batch x ranks x
    accumulation x sequence) within ``limit``, at least one (a micro-batch the workload fixed too: it sets
    the micro-step, not the step). Pre-training runs accumulate up to about the compute-optimal batch rather
    than take millions of steps of a few sequences (the optimizer step and the gradient sync are paid once
    per step). 1 for a fine-tune (its batch is its owner's) or no limit. At most the estimator's
    ``MAX_GRAD_ACCUM`` (a million): the limit is a ceiling, and a budget of 1e15 tokens on one node would
    otherwise ask for tens of millions (the whole answer failed on that one field)."""
    if limit is None or not isinstance(w, PretrainWorkload):
        return 1
    from gpuscout.estimate.training_memory import MAX_GRAD_ACCUM

    return min(MAX_GRAD_ACCUM, max(1, int(limit.tokens // (micro_batch * ranks * w.seq_len))))


def _tokens_per_step(r: TrainingResult) -> float:
    """A layout's global batch, tokens per optimizer step (0 where the estimator gives none)."""
    per_step = getattr(r, "tokens_per_step", 0) or 0  # the real estimator's; a stand-in may lack it
    return float(per_step) if isinstance(per_step, int | float) else 0.0


def past_limit(limit: BatchLimit | None, r: TrainingResult) -> bool:
    """Whether a run laid out as ``r`` takes a global batch past ``limit`` (a micro-batch the workload
    fixed: the advisor's own choices keep within it)."""
    per_step = _tokens_per_step(r)
    return limit is not None and per_step > 0 and per_step > limit.tokens


def _too_few_steps(w: FinetuneWorkload | PretrainWorkload, r: TrainingResult) -> bool:
    """Whether a pre-training run laid out as ``r`` takes fewer optimizer steps than a pre-training run
    needs (``estimate.training.PRETRAIN_MIN_STEPS``): its global batch too wide for the token budget.
    A fine-tune is never refused for it (a few hundred steps of SFT are usual)."""
    from gpuscout.estimate.training import PRETRAIN_MIN_STEPS, pretrain_steps

    per_step = _tokens_per_step(r)
    if not isinstance(w, PretrainWorkload) or per_step <= 0:
        return False
    return pretrain_steps(w.token_budget, per_step) < PRETRAIN_MIN_STEPS


def budget_too_small(w: FinetuneWorkload | PretrainWorkload) -> tuple[str, ...]:
    """Where a pre-training token budget is too small for ``estimate.training.PRETRAIN_MIN_STEPS`` steps
    of even one sequence on one GPU, what every row says (the same words: the answer says them once above
    its rows); () otherwise."""
    if not isinstance(w, PretrainWorkload):
        return ()
    from gpuscout.estimate.training import PRETRAIN_MIN_STEPS

    if w.token_budget / PRETRAIN_MIN_STEPS >= w.seq_len:
        return ()
    return (
        f"the {token_count(w.token_budget)}-token budget is too small for {PRETRAIN_MIN_STEPS:,} optimizer "
        f"steps of even one {w.seq_len:,}-token sequence on one GPU ({w.seq_len * PRETRAIN_MIN_STEPS:,} "
        "tokens): every layout trains in fewer steps than the learning-rate warm-up alone takes (Llama 2); "
        "a larger token budget or shorter sequences give it room",
    )


def batch_warnings(
    w: FinetuneWorkload | PretrainWorkload,
    optimal: OptimalBatch | None,
    r: TrainingResult,
    micro_batch: int | None = None,
    accum: int = 1,
) -> tuple[str, ...]:
    """The row's warnings where its pre-training run's global batch is too wide (GPUs, nodes or a
    micro-batch the workload fixed: the advisor widens no run that far by itself): too few optimizer
    steps for the token budget, and a batch past the workload's ``global_batch_tokens`` or else the
    compute-optimal one; at ``micro_batch`` sequences per GPU (None: not known) and ``accum``
    micro-batches per step (a remedy the run has no room for is not named)."""
    if not isinstance(w, PretrainWorkload):
        return ()
    from gpuscout.estimate.pretrain_batch import PAST_OPTIMAL, narrower_words, past_optimal_warning
    from gpuscout.estimate.training import few_steps_warning

    per_step = _tokens_per_step(r)
    out: list[str] = [*budget_too_small(w)]
    if _too_few_steps(w, r):
        out.append(few_steps_warning(w.token_budget, per_step))
    if w.global_batch_tokens is not None:
        if per_step > w.global_batch_tokens:
            out.append(
                f"a global batch of {per_step:,.0f} tokens per optimizer step is past the "
                f"{w.global_batch_tokens:,} asked (global_batch_tokens): {PAST_OPTIMAL}; "
                f"{narrower_words(micro_batch, accum)}"
            )
    elif optimal is not None:
        past = past_optimal_warning(per_step, optimal, micro_batch, accum)
        if past:
            out.append(past)
    return tuple(out)


def global_batch_words(
    w: FinetuneWorkload | PretrainWorkload, limit: BatchLimit | None, r: TrainingResult, accum: int = 1
) -> str:
    """What a pre-training row's ``training`` text says of its global batch: tokens per optimizer step,
    the steps its token budget makes, the micro-batches it accumulates (``accum``: :func:`grad_accum`) and
    the limit it was chosen within and its source; "" for a fine-tune or where the estimator gives no
    batch."""
    per_step = _tokens_per_step(r)
    if not isinstance(w, PretrainWorkload) or per_step <= 0:
        return ""
    from gpuscout.estimate.training import pretrain_steps

    steps = pretrain_steps(w.token_budget, per_step)
    text = f"global batch: {steps:,.0f} optimizer steps of {per_step:,.0f} tokens"
    if limit is None:
        return text
    asked = "the micro-batch asked" if w.micro_batch is not None else ""
    if per_step > limit.tokens:  # the workload's micro-batch, or one sequence per GPU on its GPUs
        fixed = w.gpus is not None or w.nodes is not None
        gpus = "the GPUs asked" if fixed else f"the instance's {_ranks(r)} GPUs"
        why = asked or f"one sequence per GPU on {gpus}"
        return f"{text} ({why}: past {limit.words})"
    if accum > 1:
        asked += "; " if asked else ""
        asked += f"gradients accumulated over {accum} micro-batches to reach it"
    return f"{text} ({asked + '; ' if asked else ''}a layout the advisor chooses takes at most {limit.words})"


def _ranks(r: TrainingResult) -> str:
    """The GPUs a row's run spreads over, as its words say them ("8", "2 x 8")."""
    gpus, nodes = getattr(r, "gpus", 0), getattr(r, "nodes", 1)
    if not isinstance(gpus, int) or not isinstance(nodes, int) or gpus <= 0:
        return "several"
    return f"{nodes} x {gpus}" if nodes > 1 else f"{gpus}"


#: How a row's ``training`` text says which node counts the step floor left untried; the answer's dead
#: end reads it to say why no more nodes were added (:func:`untried_why`).
UNTRIED_NODES = "not tried: they would train in"
#: ... and the node counts a global batch past the compute-optimal one (or global_batch_tokens) left untried
UNTRIED_WIDE = "not tried: their global batch would be past"


def _few_steps_words() -> str:
    from gpuscout.estimate.training import PRETRAIN_MIN_STEPS

    return (
        f"fewer than {PRETRAIN_MIN_STEPS:,} optimizer steps (a global batch too wide for the token budget: "
        "the learning-rate warm-up alone takes that many)"
    )


def untried_words(limit: BatchLimit, nodes: int) -> tuple[str, str]:
    """Why ``nodes`` nodes or more were not tried, bound by ``limit``: (the words a deadline's refusal adds,
    with the limit's source; the row's ``training`` text, whose global batch words give the source)."""
    if limit.kind == "steps":
        return (
            f"{nodes} nodes or more would train in {_few_steps_words()}",
            f"{nodes} nodes or more {UNTRIED_NODES} {_few_steps_words()}",
        )
    return (
        f"{nodes} nodes or more would take a global batch past {limit.words}",
        f"{nodes} nodes or more {UNTRIED_WIDE} {limit.short}",
    )


def untried_why(training: str) -> str:
    """Why a row's run added no more nodes, read from its ``training`` text (:func:`untried_words`): "more
    nodes would train in too few optimizer steps for the token budget", "... take a global batch past the
    compute-optimal one"; "" where no node count was left untried."""
    if UNTRIED_NODES in training:
        return "more nodes would train in too few optimizer steps for the token budget"
    if UNTRIED_WIDE in training:
        given = "global_batch_tokens" in training.split(UNTRIED_WIDE, 1)[1]
        return "more nodes would take a global batch past " + (
            "global_batch_tokens" if given else "the compute-optimal one"
        )
    return ""
