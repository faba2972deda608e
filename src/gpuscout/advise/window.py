"""A workload's tokens past its model's context window, in the words every face says it: the ranker
refuses the workload with it, and the advisor's form says it beside the other inputs' errors in the same
submit (one round of errors, not a second one after the ranges are fixed)."""

from __future__ import annotations

from gpuscout.errors import InvalidInputError


def request_past_window(prompt: int, output: int, model: str, limit: int | None) -> InvalidInputError | None:
    """The error of a request of ``prompt`` + ``output`` tokens past ``model``'s context ``limit``
    (None or 0: none known), at the larger share's field; None when it fits."""
    if not limit or prompt + output <= limit:
        return None
    field = "output_tokens" if output > prompt else "prompt_tokens"
    return InvalidInputError(
        field,
        f"{prompt:,} prompt + {output:,} output tokens exceed {model}'s context of {limit:,} tokens",
        f"prompt_tokens + output_tokens <= {limit:,} (or a model with a longer context)",
    )


def sequence_past_window(seq_len: int, model: str, limit: int | None) -> InvalidInputError | None:
    """The error of a training sequence of ``seq_len`` tokens past ``model``'s context ``limit``."""
    if not limit or seq_len <= limit:
        return None
    return InvalidInputError(
        "seq_len",
        f"{seq_len:,} tokens exceed {model}'s context of {limit:,} tokens",
        f"seq_len <= {limit:,}",
    )
