"""Expected cost of spot interruptions: rework since the last checkpoint plus the restart.

A reclaim loses, on average, half a checkpoint interval of work (reclaims arrive uniformly between
checkpoints), then the instance must be re-acquired and booted (``restart_s``) and the weights fetched
and loaded again (the local disk went with the instance). With the work interrupted ``rate`` times
an hour over ``hours`` of work, the expected number of reclaims is ``rate x hours`` (first order: the
extra time spent redoing work is itself small and is not compounded). ``rate`` is an instance's reclaim
rate, or for a training run whose n nodes step together (a reclaim of any stops all) n times it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SpotRisk:
    """Expected reclaims per instance over the work and the instance-seconds each one wastes."""

    rate_per_hour: float
    expected_interruptions: float  # per instance
    lost_s_per_interruption: float
    rework_s_per_interruption: float

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
) -> SpotRisk:
    """Risk for ``work_s`` seconds of work per instance.

    ``checkpoint_interval_s=None`` means no state to lose (a stateless endpoint): only the restart
    and reload are wasted.
    """
    rework = 0.0 if checkpoint_interval_s is None else checkpoint_interval_s / 2.0
    expected = rate_per_hour * work_s / 3600.0
    return SpotRisk(
        rate_per_hour=rate_per_hour,
        expected_interruptions=expected,
        lost_s_per_interruption=rework + restart_s + reload_s,
        rework_s_per_interruption=rework,
    )
