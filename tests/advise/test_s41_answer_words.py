"""The diagnosis counts offers in words that agree with the count ("1 is stale", "2 are stale"), and the
targets line states the memory headroom the ranking was held to, not always the default."""

from __future__ import annotations

from gpuscout.advise.answer import _kind_text, targets_applied
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.workload import FinetuneWorkload


def test_one_offer_reads_in_the_singular() -> None:
    assert _kind_text("stale", 1) == "is stale" and _kind_text("stale", 3) == "are stale"
    assert _kind_text("fit", 1) == "does not fit" and _kind_text("fit", 2) == "do not fit"
    assert _kind_text("gpu", 1) == "has other GPUs"
    assert _kind_text("instances", 1) == "would need too many instances"


def test_the_targets_state_the_headroom_used() -> None:
    w = FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e7)
    assert "training memory: at least 5 % of each GPU left free" in targets_applied(w)
    held = targets_applied(w, Assumptions(min_training_headroom=0.2))
    assert "training memory: at least 20 % of each GPU left free" in held


def test_a_monthly_volume_is_stated_with_what_the_unit_cost_is_over() -> None:
    """$/M output tokens is the month's cost over the stated volume: the header says the volume (stop 56:
    '--monthly-tokens 10M' changed every row's $/M and the header never named it)."""
    from gpuscout.advise.workload import ServeWorkload

    w = ServeWorkload(model="llama-3.1-8b", concurrency=10, monthly_output_tokens=1e7)
    assert "volume: 10M output tokens a month ($/M output tokens is the month's cost over them)" in (
        targets_applied(w)
    )
    assert not any(t.startswith("volume:") for t in targets_applied(ServeWorkload(model="llama-3.1-8b")))
