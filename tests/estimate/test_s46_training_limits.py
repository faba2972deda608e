"""``estimate_training`` takes the limits a training workload takes (``gpuscout.estimate.arguments``).

Regressions: ``estimate_training`` took 10,000 epochs and 10^16 dataset tokens where a fine-tuning
workload takes 1,000 and 10^15, and its 100,000 nodes were a number of its own."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.arguments import MAX_EPOCHS, MAX_NODES, MAX_TOKENS
from gpuscout.estimate.training import estimate_training


@pytest.mark.parametrize(
    ("kwargs", "field", "accepted"),
    [
        ({"epochs": MAX_EPOCHS * 2}, "epochs", f"> 0, <= {MAX_EPOCHS:g}"),  # was taken up to 10,000
        ({"tokens": MAX_TOKENS * 2}, "tokens", f"> 0, <= {MAX_TOKENS:g}"),  # was taken up to 1e16
        ({"nodes": MAX_NODES + 1}, "nodes", f"1..{MAX_NODES}"),
    ],
)
def test_the_estimator_refuses_what_the_workload_refuses(
    kwargs: dict[str, float], field: str, accepted: str
) -> None:
    with pytest.raises(InvalidInputError) as info:
        estimate_training("llama-3.1-8b", "H100", **kwargs)  # type: ignore[arg-type]
    assert (info.value.field, info.value.accepted) == (field, accepted)
