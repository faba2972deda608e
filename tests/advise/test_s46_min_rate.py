"""A request rate so small that its share per replica rounds to nothing is refused at the workload's
own field (it reached the estimator as 0.0 and was refused as ``request_rate``)."""

from __future__ import annotations

import pytest

from gpuscout.advise.workload import MIN_REQUESTS_PER_S, ServeWorkload
from gpuscout.errors import InvalidInputError


@pytest.mark.parametrize("rate", [5e-324, 1e-300, MIN_REQUESTS_PER_S / 2])
def test_a_vanishing_rate_is_refused_at_its_field(rate: float) -> None:
    with pytest.raises((InvalidInputError, ValueError)) as err:
        ServeWorkload(model="llama-3.1-8b", requests_per_s=rate)
    assert "requests_per_s" in str(err.value)


def test_the_slowest_accepted_rate_is_one_request_in_about_twelve_days() -> None:
    w = ServeWorkload(model="llama-3.1-8b", requests_per_s=MIN_REQUESTS_PER_S)
    assert w.requests_per_s == MIN_REQUESTS_PER_S
    assert 11 < 1 / MIN_REQUESTS_PER_S / 86400 < 12
