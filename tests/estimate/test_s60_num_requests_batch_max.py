"""``num_requests`` with ``batch="max"`` is an input error naming it (stop 60, faces pass): "max" is a full
batch's steady state, and the run length was dropped without a word (``gpuscout estimate --batch max
--num-requests 10`` answered as without it). With a concurrency, a rate or a batch size it is a finite
run, as before."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate


def test_batch_max_with_a_run_length_is_refused_naming_num_requests() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", batch="max", num_requests=10)
    assert err.value.field == "num_requests" and "batch max" in str(err.value)


@pytest.mark.parametrize("load", [{"batch": 4}, {"concurrency": 4}, {"request_rate": 2.0}])
def test_a_finite_run_at_a_load_is_still_taken(load: dict[str, object]) -> None:
    est = estimate("llama-3.1-8b", "H100", num_requests=10, **load)  # type: ignore[arg-type]
    assert est.supported and est.requests_per_s
