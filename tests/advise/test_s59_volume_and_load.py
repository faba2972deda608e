"""A monthly volume stated beside the load (stop 59, renter pass). With ``-c 1 --monthly-tokens 1e11`` the
advisor sized 3 instances for 100B tokens but timed them at one user and divided the month's cost by the
100B that one user cannot generate ($0.08/M where the row serves ~340M). The users stated must now
generate the volume (more replicas make each user faster, up to one per replica), a row where they cannot
is left out saying so, and a request rate that contradicts the volume is an input error."""

from __future__ import annotations

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers
from gpuscout.errors import InvalidInputError

MONTH_S = 30 * 24 * 3600.0


def _serve(**fields: float) -> Workload:
    return Workload.from_dict({"kind": "serve", "model": "llama-3.1-8b", **fields})


def test_one_user_cannot_generate_100b_tokens_a_month() -> None:
    answer = advise(
        _serve(concurrency=1, monthly_output_tokens=1e11), current_offers(), top=3, include_rejected=True
    )
    assert not answer.rows
    assert any(
        r.rejected and r.rejected.startswith("volume: 1 user at once generates at most")
        for r in answer.rejected
    )
    assert answer.binding is not None
    assert "1 user at once cannot generate 100B output tokens a month" in answer.binding
    assert "less memory" not in answer.binding  # memory is not what binds


def test_the_users_stated_generate_the_volume_on_every_row() -> None:
    answer = advise(_serve(concurrency=64, monthly_output_tokens=2e10), current_offers(), top=20)
    assert answer.rows
    for row in answer.rows:
        assert row.estimate is not None
        # the users' own throughput over the month covers the volume (within the estimate's rounding)
        assert row.estimate.throughput * MONTH_S >= 2e10 * 0.98, row.reasons
        assert row.unit_costs.per_million_output_tokens == pytest.approx(row.total_usd / 2e4, rel=1e-6)


def test_a_volume_below_what_the_users_generate_is_the_usage_cost_is_divided_by() -> None:
    # 16 users could generate ~4B tokens a month on an H100; 1B is what they do: $/M over the 1B
    answer = advise(_serve(concurrency=16, monthly_output_tokens=1e9), current_offers(), top=5)
    assert answer.rows
    row = answer.rows[0]
    assert row.unit_costs.per_million_output_tokens == pytest.approx(row.total_usd / 1e3, rel=1e-6)


def test_a_volume_alone_is_sustained_at_its_rate_not_one_user() -> None:
    answer = advise(_serve(monthly_output_tokens=5e11), current_offers(), top=3)
    many = [r for r in answer.rows if r.config.instances > 1]
    assert many
    for row in many:
        (reason,) = [x for x in row.reasons if "instances to sustain" in x]
        assert "the monthly volume (754 req/s)" in reason and "1 user" not in reason


def test_a_rate_that_contradicts_the_volume_is_refused_naming_both() -> None:
    with pytest.raises(InvalidInputError) as err:
        _serve(requests_per_s=10, monthly_output_tokens=1e6)
    assert err.value.field == "monthly_output_tokens"
    assert "contradicts requests_per_s 10" in str(err.value) and "6.64B" in str(err.value)
    agreeing = 10 * 256 * MONTH_S
    assert _serve(requests_per_s=10, monthly_output_tokens=agreeing * 1.02).monthly_output_tokens


def test_the_load_line_never_prints_an_exponent() -> None:
    from gpuscout.wording import rate_text

    assert rate_text(754.3) == "754" and rate_text(1.5) == "1.5" and rate_text(0.031) == "0.031"


def test_rates_and_counts_round_without_an_exponent() -> None:
    from gpuscout.wording import rate_text, token_count

    assert [rate_text(x) for x in (99.6, 9.96, 0.0015, 0.0000123)] == ["100", "10", "0.0015", "0.0000123"]
    assert token_count(999.6e6) == "1B" and token_count(999.96e9) == "1T"


def test_users_with_a_volume_are_split_as_users_alone_are() -> None:
    # 4 users on an 8-GPU box: one GPU per replica leaves GPUs idle whether or not a volume is stated
    offers = [o for o in current_offers() if o.accelerator == "H100-SXM" and o.gpu_count == 8][:2]
    with_volume = advise(_serve(concurrency=4, monthly_output_tokens=5e8), offers, top=1).rows[0]
    users_only = advise(_serve(concurrency=4), offers, top=1).rows[0]
    assert with_volume.config.tp == users_only.config.tp > 1


def test_a_split_for_the_volume_says_so() -> None:
    from gpuscout.advise.configs import split_why

    why = split_why("volume: 4 users at once generate at most 1.35B output tokens a month here ...")
    assert "monthly volume" in why and "does not fit" not in why
