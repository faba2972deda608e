"""Expected cost of spot interruptions: rework since the last checkpoint plus the restart.

A reclaim loses, on average, half a checkpoint interval of work (reclaims arrive uniformly between
checkpoints), then the instance must be re-acquired and booted (``restart_s``) and the weights fetched
and loaded again (the local disk went with the instance). With the work interrupted ``rate`` times
an hour over ``hours`` of work, the expected number of reclaims is ``rate x hours`` (first order: the
extra time spent redoing work is itself small and is not compounded). ``rate`` is an instance's reclaim
rate, or for a training run whose n nodes step together (a reclaim of any stops all) n times it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: A spot run whose expected recovery (reclaims an hour x what each loses: rework, restart, reload) takes
#: this share of its time or more is left out: the first-order model above holds only while reclaims are
#: rare next to a recovery, and as the two approach each other a run's expected time to finish grows
#: without bound (J. T. Daly, "A higher order estimate of the optimum checkpoint interval", 2006): 2,048
#: spot nodes at 0.02 reclaims/h each stop every 1.5 min against a 5 min restart, and never finish.
RECOVERY_SHARE_LIMIT = 0.5

#: The shortest checkpoint interval :func:`young_interval_s` proposes: a save every minute is already
#: more than any training loop is set to (a checkpoint of a few MB would otherwise be saved every few s).
MIN_CHECKPOINT_INTERVAL_S = 60.0


@dataclass(frozen=True, slots=True)
class SpotRisk:
    """Expected reclaims per instance over the work and the instance-seconds each one wastes."""

    rate_per_hour: float
    expected_interruptions: float  # per instance
    lost_s_per_interruption: float
    rework_s_per_interruption: float
    checkpoint_interval_s: float | None = None  # the interval the rework is counted at (None: no state)
    failures_per_hour: float = 0.0  # of ``rate_per_hour``: GPU and host failures (training), not reclaims

    @property
    def recovering_share(self) -> float:
        """Seconds lost to recovery per second of work (first order): rate x loss per reclaim."""
        return self.rate_per_hour * self.lost_s_per_interruption / 3600.0

    @property
    def lost_s(self) -> float:
        """Expected instance-seconds wasted per instance."""
        return self.expected_interruptions * self.lost_s_per_interruption


def spot_risk(
    *,
    work_s: float,
    rate_per_hour: float,
    checkpoint_interval_s: float | None,
    restart_s: float,
    reload_s: float,
    failures_per_hour: float = 0.0,
) -> SpotRisk:
    """Risk for ``work_s`` seconds of work per instance.

    ``checkpoint_interval_s=None`` means no state to lose (a stateless endpoint): only the restart
    and reload are wasted. ``failures_per_hour``: the share of ``rate_per_hour`` that is GPU and host
    failures (a training run stops on them on on-demand capacity too), said apart from the reclaims.
    """
    # half an interval on average; a run shorter than its interval loses half of itself on average
    rework = 0.0 if checkpoint_interval_s is None else min(checkpoint_interval_s, work_s) / 2.0
    expected = rate_per_hour * work_s / 3600.0
    return SpotRisk(
        rate_per_hour=rate_per_hour,
        expected_interruptions=expected,
        lost_s_per_interruption=rework + restart_s + reload_s,
        rework_s_per_interruption=rework,
        checkpoint_interval_s=checkpoint_interval_s,
        failures_per_hour=failures_per_hour,
    )


def young_interval_s(save_s: float, failures_per_hour: float) -> float:
    """The checkpoint interval that loses least to saves and rework together: sqrt(2 x save x MTBF)
    (J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974),
    for one save of ``save_s`` seconds and a run interrupted ``failures_per_hour`` times an hour (a spot
    reclaim of any node, a GPU or host failure). At least :data:`MIN_CHECKPOINT_INTERVAL_S`; inf where
    nothing interrupts the run (then it saves only its output)."""
    if failures_per_hour <= 0:
        return math.inf
    return max(MIN_CHECKPOINT_INTERVAL_S, math.sqrt(2.0 * max(save_s, 0.0) * 3600.0 / failures_per_hour))


#: A spot row under a deadline states its chance of missing it (:func:`deadline_miss`) from this share up
#: (below it the chance is within the rounding of the estimate itself).
DEADLINE_MISS_SAID = 0.03

#: Reclaims up to which the rework they lose is summed exactly (:func:`_rework_cdf`); beyond, the sum of
#: that many uniform reworks is taken as normal (its CDF is then within 1e-3 of the exact one).
_EXACT_RECLAIMS = 40

#: Expected reclaims from which a job's whole loss to them is taken as normal (:func:`_on_time_normal`)
#: rather than summed reclaim count by reclaim count (:func:`_on_time_sum`, whose terms grow with the
#: square root of the mean). The loss is a compound Poisson sum; its skewness is at most ~1.3 / sqrt(mu),
#: so the normal CDF is within ~0.003 of it here (the first Edgeworth term, skewness / (6 sqrt(2 pi))).
_NORMAL_RECLAIMS = 1000.0


def deadline_miss(risk: SpotRisk, slack_s: float, instances: int = 1) -> float:
    """The chance that a spot job misses its deadline, with ``slack_s`` seconds between the deadline and
    its time without interruptions (work, warm-up, saves), on ``instances`` instances each interrupted
    as ``risk`` says (a training run's risk is the run's: ``instances`` 1).

    The same model as the expected time (module docstring): an instance is interrupted ``N`` times,
    ``N`` Poisson with mean ``risk.expected_interruptions``; each interruption costs the restart and
    reload (``c``, fixed) and the work since the last checkpoint, uniform over ``[0, I]`` (``I`` the
    interval the rework is counted at: twice the mean rework). It is late where
    ``N c + I (U_1 + ... + U_N) > slack``: P(late) = 1 - sum_j P(N = j) F_j((slack - j c) / I), with
    ``F_j`` the CDF of a sum of ``j`` uniforms (Irwin-Hall). A batch's instances work apart: the job is
    late where any is, 1 - P(on time)^instances. 1 where the slack is negative (late without a
    reclaim); 0 where nothing interrupts it."""
    if slack_s < 0:
        return 1.0
    mu = risk.expected_interruptions
    if mu <= 0:
        return 0.0
    interval = 2.0 * risk.rework_s_per_interruption
    fixed = risk.lost_s_per_interruption - risk.rework_s_per_interruption
    if mu > _NORMAL_RECLAIMS:
        on_time = _on_time_normal(mu, fixed, interval, slack_s)
    else:
        on_time = _on_time_sum(mu, fixed, interval, slack_s)
    on_time = min(1.0, max(0.0, on_time))
    return 1.0 - on_time ** max(1, instances)


def poisson_span(mu: float) -> tuple[int, int]:
    """The reclaim counts worth summing for a Poisson mean ``mu``: P(N = j) is below 1e-16 of the total
    outside mu -/+ (12 sd + 30) (a Poisson tail bound)."""
    reach = 12.0 * math.sqrt(mu) + 30.0
    return max(0, int(mu - reach)), int(mu + reach)


def _on_time_sum(mu: float, fixed: float, interval: float, slack_s: float) -> float:
    """P(the reclaims' loss fits ``slack_s``), summed over the reclaim counts that carry any probability
    (:func:`poisson_span`), each ``j`` with its rework CDF; every ``j`` with ``j * fixed > slack`` is late
    for sure."""
    bottom, top = poisson_span(mu)
    if fixed > 0:
        top = min(top, int(slack_s / fixed))
    on_time = 0.0
    log_mu = math.log(mu)
    for j in range(bottom, top + 1):
        p = math.exp(-mu + j * log_mu - math.lgamma(j + 1.0))
        if p == 0.0:
            continue
        left = slack_s - j * fixed
        if interval <= 0 or j * interval <= left:
            on_time += p
        else:
            on_time += p * _rework_cdf(j, left / interval)
    return on_time


def _on_time_normal(mu: float, fixed: float, interval: float, slack_s: float) -> float:
    """:func:`_on_time_sum` for a large ``mu`` (:data:`_NORMAL_RECLAIMS`): the loss ``N`` reclaims cost,
    each ``fixed + interval * U``, is a compound Poisson sum of mean ``mu E[X]`` and variance
    ``mu E[X^2]`` (E[X^2] = fixed^2 + fixed interval + interval^2 / 3), taken as normal."""
    mean = mu * (fixed + interval / 2.0)
    sd = math.sqrt(mu * (fixed * fixed + fixed * interval + interval * interval / 3.0))
    if sd <= 0:
        return 1.0 if slack_s >= mean else 0.0
    return 0.5 * (1.0 + math.erf((slack_s - mean) / (sd * math.sqrt(2.0))))


def _rework_cdf(j: int, x: float) -> float:
    """P(U_1 + ... + U_j <= x) for ``j`` independent uniforms on [0, 1] (Irwin-Hall). Exactly up to
    :data:`_EXACT_RECLAIMS`, by the recursion F_j(x) = (x F_{j-1}(x) + (j - x) F_{j-1}(x - 1)) / j
    (F_0 a step at 0), whose weights are never negative on [0, j] (the alternating closed form loses
    every digit to cancellation past ~20 terms); beyond, the normal CDF of mean j/2 and variance j/12."""
    if x <= 0:
        return 0.0
    if x >= j:
        return 1.0
    if j > _EXACT_RECLAIMS:
        return 0.5 * (1.0 + math.erf((x - j / 2.0) / math.sqrt(j / 6.0)))
    # level i holds F_i(x - k) for k = 0 .. j - i
    level = [1.0 if x - k >= 0 else 0.0 for k in range(j + 1)]
    for i in range(1, j + 1):
        level = [
            ((x - k) * level[k] + (i - (x - k)) * level[k + 1]) / i
            if 0.0 < x - k < i
            else (1.0 if x - k >= i else 0.0)
            for k in range(j - i + 1)
        ]
    return min(1.0, max(0.0, level[0]))


def on_time_slack(risk: SpotRisk, chance: float, instances: int = 1) -> float:
    """The least slack (seconds beyond the time without interruptions) at which a spot job misses its
    deadline with at most ``chance`` (:func:`deadline_miss`, which falls as the slack grows), to a
    millisecond: the tightest deadline it may be held to is its time without interruptions plus this."""
    if deadline_miss(risk, 0.0, instances) <= chance:
        return 0.0
    mu = risk.expected_interruptions
    most = risk.lost_s_per_interruption + risk.rework_s_per_interruption  # restart, reload, a whole interval
    lo, hi = 0.0, most * (mu + 12.0 * math.sqrt(mu) + 31.0)  # past every reclaim count that can happen
    while hi - lo > 1e-3:
        mid = (lo + hi) / 2.0
        if deadline_miss(risk, mid, instances) <= chance:
            hi = mid
        else:
            lo = mid
    return hi
