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
