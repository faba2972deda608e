"""The chance a spot job misses its deadline is computed with bounded work whatever the job's length
(stop 67).

``spot.deadline_miss`` summed P(N = j) for every reclaim count j from 0 to mu + 12 sd: O(mu) terms. A batch
of extreme but accepted values (the largest output total with a 10-year deadline, spot allowed) has ~5e8
expected reclaims on each instance, and the advisor's bisection for the tightest deadline
(``on_time_slack``) calls it ~50 times: the property test of extreme workloads
(``test_workload_bounds``) spun for minutes, and the CLI or a web request would have too. It now sums only
the counts that carry probability (mu -/+ 12 sd), and from 1,000 expected reclaims takes the loss as the
normal law of its compound Poisson sum (skewness <= ~1.3 / sqrt(mu): within ~0.003 of it, the first
Edgeworth term).
"""

from __future__ import annotations

import math

import pytest

from gpuscout.advise import spot
from gpuscout.advise.spot import SpotRisk, deadline_miss, on_time_slack, poisson_span


def _risk(mu: float, lost_s: float = 360.0, rework_s: float = 60.0) -> SpotRisk:
    """A risk of ``mu`` reclaims expected per instance, each losing ``lost_s`` (a restart and reload of
    300 s, and ``rework_s`` of rework on average: uniform over an interval of twice that)."""
    return SpotRisk(
        rate_per_hour=0.1,
        expected_interruptions=mu,
        lost_s_per_interruption=lost_s,
        rework_s_per_interruption=rework_s,
    )


def test_the_summed_counts_are_the_poisson_mass_only() -> None:
    assert poisson_span(5.0) == (0, int(5 + 12 * math.sqrt(5) + 30))
    low, high = poisson_span(1e6)
    assert low == int(1e6 - 12_030) and high == int(1e6 + 12_030)
    # the mass outside is negligible: at mu = 900, the sum over the span is 1 to 1e-12
    low, high = poisson_span(900.0)
    mass = sum(math.exp(-900.0 + j * math.log(900.0) - math.lgamma(j + 1.0)) for j in range(low, high + 1))
    assert mass == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("z", [-2.0, -1.0, 0.0, 1.0, 2.0])
def test_the_normal_law_agrees_with_the_sum_where_it_takes_over(z: float) -> None:
    mu, fixed, interval = 1000.0, 300.0, 120.0
    mean = mu * (fixed + interval / 2.0)
    sd = math.sqrt(mu * (fixed**2 + fixed * interval + interval**2 / 3.0))
    slack = mean + z * sd
    summed = spot._on_time_sum(mu, fixed, interval, slack)
    normal = spot._on_time_normal(mu, fixed, interval, slack)
    assert normal == pytest.approx(summed, abs=0.005)  # the Edgeworth bound above: ~0.003


def test_a_job_of_half_a_billion_expected_reclaims_is_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    # the case the property test found: ~5.05e8 reclaims expected, 64 instances, a 10-year deadline
    calls = 0
    real = math.lgamma

    def counted(x: float) -> float:
        nonlocal calls
        calls += 1
        return real(x)

    monkeypatch.setattr(spot.math, "lgamma", counted)
    risk = _risk(505_059_478.48)
    miss = deadline_miss(risk, 1.666929e11, 64)
    assert 0.0 <= miss <= 1.0
    slack = on_time_slack(risk, 0.1, 64)
    assert math.isfinite(slack) and slack > 0
    assert calls == 0  # the normal law: no count-by-count sum
    # the slack it finds sits where the law says: mean + z sd, z for (0.9)^(1/64) on time per instance
    mean = risk.expected_interruptions * 360.0
    sd = math.sqrt(risk.expected_interruptions * (300.0**2 + 300.0 * 120.0 + 120.0**2 / 3.0))
    assert deadline_miss(risk, slack, 64) == pytest.approx(0.1, abs=1e-6)
    assert mean < slack < mean + 4 * sd


def test_a_short_job_is_still_summed_exactly() -> None:
    risk = _risk(0.5)
    # no slack for a whole reclaim's fixed cost: late whenever one happens, P = 1 - e^-0.5
    assert deadline_miss(risk, 10.0) == pytest.approx(1.0 - math.exp(-0.5))
