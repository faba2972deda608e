"""A row on a marketplace host (provider kind "marketplace") says what renting someone's machine means: an
on-demand endpoint there has no uptime commitment (with the host's listed reliability when the feed gives
it), and a listing whose longest rental is shorter than the month or the job says it would move hosts."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from gpuscout.advise.api import advise
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability, Offer
from tests.advise.helpers import offer

NOW = datetime(2026, 12, 4, tzinfo=UTC)
SERVE = ServeWorkload(model="llama-3.1-8b", concurrency=4)
BATCH = BatchWorkload(model="llama-3.1-8b", output_tokens_total=2e8)


def _h100(provider: str, **extra: str) -> Offer:
    row = offer(provider, "H100-SXM", 1, 2.0, availability=Availability.AVAILABLE, observed_at=NOW)
    return replace(row, extra=dict(extra))


def _warnings(workload: ServeWorkload | BatchWorkload, row: Offer) -> tuple[str, ...]:
    return advise(workload, [row], top=3, now=NOW).rows[0].warnings


def test_an_endpoint_on_a_marketplace_host_names_its_missing_commitment_and_listed_reliability() -> None:
    said = [w for w in _warnings(SERVE, _h100("vastai", reliability2="0.9937")) if "marketplace host" in w]
    assert said == [
        "marketplace host: no uptime commitment from the provider, host reliability 99.37% (listed); an "
        "endpoint that must stay up wants a replica on a second host"
    ]
    unlisted = _warnings(SERVE, _h100("lium"))
    assert any("host reliability not listed" in w for w in unlisted), unlisted


def test_a_cloud_row_and_a_marketplace_batch_row_say_nothing_of_uptime() -> None:
    assert not any("marketplace host" in w for w in _warnings(SERVE, _h100("lambda")))
    assert not any("marketplace host" in w for w in _warnings(BATCH, _h100("vastai", reliability2="0.9")))


def test_a_listing_shorter_than_the_month_or_the_job_says_it_would_move_hosts() -> None:
    eight_days = str(8 * 86400)
    serve = _warnings(SERVE, _h100("vastai", duration=eight_days))
    assert any(
        w.startswith("host listed for at most 8.0 days (as fetched), shorter than the month") for w in serve
    )
    batch_row = advise(BATCH, [_h100("vastai", duration="3600")], top=3, now=NOW).rows[0]
    assert batch_row.time_s > 3600  # 200M tokens on one H100 take longer than the hour the host is listed
    assert any(
        w.startswith("host listed for at most 60 min (as fetched), shorter than the ")
        for w in batch_row.warnings
    )
    long_listing = advise(BATCH, [_h100("vastai", duration=str(365 * 86400))], top=3, now=NOW).rows[0]
    assert not any(w.startswith("host listed for at most") for w in long_listing.warnings)
