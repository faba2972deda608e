"""``num_requests`` without a load to run them at is an input error naming what it needs (stop 62):
``gpuscout estimate --num-requests 10`` answered one request in flight, the run length dropped without a
word. A burst is ``request_rate=inf`` with it (``--request-rate inf``, as vLLM's benchmark takes it); with
a concurrency, a rate or a batch size it is a finite run, as before."""

from __future__ import annotations

import math

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate


def test_a_run_length_alone_is_refused_naming_the_loads_it_needs() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100-SXM", num_requests=10)
    said = str(err.value)
    assert err.value.field == "num_requests"
    assert all(name in said for name in ("concurrency", "request_rate", "batch", "inf"))
    assert set(err.value.names) >= {"concurrency", "request_rate", "batch"}


def test_with_a_load_it_is_a_run_and_inf_a_burst() -> None:
    burst = estimate("llama-3.1-8b", "H100-SXM", num_requests=10, request_rate=math.inf)
    assert burst.supported and burst.concurrency == 10
    assert estimate("llama-3.1-8b", "H100-SXM", num_requests=10, batch=1).supported
