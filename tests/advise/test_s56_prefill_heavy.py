"""A prefill-heavy endpoint (32k-token prompts, 100 output tokens) says what sets its speed and what a
request costs (stop 56: its row read "(memory-bound)" while other requests' prompts took ~70 % of each
token's time, and its only unit was $/M output tokens, 320 prompt tokens per output token)."""

from __future__ import annotations

import re

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.reasons import PROMPT_HEAVY
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers


def _rows(prompt: int, output: int):  # type: ignore[no-untyped-def]
    offers = [o for o in current_offers() if o.accelerator == "H100-SXM" and o.gpu_count == 1][:3]
    w = Workload.from_dict(
        {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 10}
        | {"prompt_tokens": prompt, "output_tokens": output, "latency_targets": "none"}
    )
    return w, advise(w, offers, top=1).rows


def test_prompts_that_take_most_of_each_tokens_time_are_said_to_bind() -> None:
    _, (row, *_) = _rows(32_000, 100)
    s = row.estimate
    assert s is not None and s.prefill_share is not None and s.prefill_share >= 0.5
    # the share is the decode step's complement in the time per output token
    step = float(re.match(r"([\d.,]+) ms", s.decode_step or "").group(1))  # type: ignore[union-attr]
    assert s.prefill_share == pytest.approx(1 - step / s.tpot_ms, abs=0.01)  # type: ignore[operator]
    (speed,) = [r for r in row.reasons if "tok/s per user" in r]
    assert f"(prefill-bound: prompts take {s.prefill_share:.0%} of each token's time; decode" in speed
    # a chat request's prompts take little of it: the decode's bound, as before
    _, (chat, *_) = _rows(1024, 256)
    assert chat.estimate is not None and (chat.estimate.prefill_share or 0) < 0.5
    assert not any("prefill-bound" in r for r in chat.reasons)


def test_a_prefill_heavy_row_states_its_price_per_thousand_requests() -> None:
    w, (row, *_) = _rows(32_000, 100)
    u = row.unit_costs
    assert u is not None and u.per_1k_requests is not None and u.per_month is not None
    requests_a_month = u.per_month / u.per_million_output_tokens * 1e6 / w.output_tokens  # type: ignore[operator]
    assert u.per_1k_requests == pytest.approx(u.per_month / requests_a_month * 1000, rel=1e-9)
    assert w.prompt_tokens >= PROMPT_HEAVY * w.output_tokens
    assert any("/M output tokens, $" in r and "per 1k requests" in r for r in row.reasons)
    _, (chat, *_) = _rows(1024, 256)  # not prefill-heavy: the row's words are as before; the figure is kept
    assert chat.unit_costs is not None and chat.unit_costs.per_1k_requests is not None
    assert not any("per 1k requests" in r for r in chat.reasons)


def test_a_prefill_heavy_batch_says_so_and_prices_its_requests() -> None:
    """A batch of 32k-token prompts and 100-token answers: its row said nothing of the prompts (the JSON
    'bound' memory, the web 'Bound by memory'), its only unit $/M output tokens."""
    offers = [o for o in current_offers() if o.accelerator == "H100-SXM" and o.gpu_count == 1][:3]
    w = Workload.from_dict(
        {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e8}
        | {"prompt_tokens": 32_000, "output_tokens": 100, "spot_allowed": False}
    )
    (row, *_) = advise(w, offers, top=1).rows
    s, u = row.estimate, row.unit_costs
    assert s is not None and s.prefill_share is not None and s.prefill_share >= 0.5
    assert s.bound_words.startswith("prefill-bound: prompts take")
    assert any("tok/s (prefill-bound: prompts take" in r for r in row.reasons)
    assert u is not None and u.per_run is not None and u.per_1k_requests is not None
    assert u.per_1k_requests == pytest.approx(u.per_run / (w.output_tokens_total / w.output_tokens / 1000))
    assert any("per 1k requests" in r for r in row.reasons)


def test_the_csv_carries_the_prefill_share_and_the_checkpoint_interval() -> None:
    from gpuscout.cli.advise_output import _rec_record

    _, (row, *_) = _rows(32_000, 100)
    record = _rec_record(row)
    assert row.estimate is not None and record["prefill_share"] == row.estimate.prefill_share
    assert record["checkpoint_every_s"] is None and "usd_per_1k_requests" in record
