"""How a batch's instance count meets its billing step (``rank.billing_sized``).

A batch spread over ``N`` instances has each instance run ``1/N`` of the work plus its own warm-up (and,
on spot, its own reclaims), billed per session in the provider's increment. The estimate of that time is
uncertain, and a coarse increment turns a small overrun into a whole step: eight instances that each end
2.997 h into a 3 h step are billed 4 h each (+33 %) if they run 0.1 % slower than estimated. So the
ranking compares instance counts by their *expected* billed hours under the estimate's time error
(:func:`expected_billed_h`), and spreads a batch over the most instances whose expected cost is within the
front's ``COST_TOLERANCE`` of the cheapest count's; the row still shows the nominal cost (the estimate).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from statistics import NormalDist

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.billing import billed_seconds
from gpuscout.advise.configs import ConfigEval
from gpuscout.advise.cost import CostModel, cost_model
from gpuscout.advise.pareto import COST_TOLERANCE
from gpuscout.advise.workload import AnyWorkload
from gpuscout.knowledge.provider_types import ProviderTerms

#: The error of a batch's estimated time: the leave-one-source-out MAPE of "serving output tokens/s"
#: (29.4 %), the metric a batch's throughput at saturation is estimated as, from the accuracy table of
#: README.md ("The figure that counts is leave-one-source-out", stop 61, 2026-12-06). The code states no
#: uncertainty of its own for a batch's time (``pareto.TIME_TOLERANCE`` is how finely two rows' times
#: are told apart, not how far one estimate may be off). Image batches have no figure of their own in
#: that table; this one is used for them too.
BATCH_TIME_ERROR = 0.294

#: The spread of the time's log: the true time is taken as the estimate times a lognormal factor whose
#: median is 1 and whose sigma is ln(1 + BATCH_TIME_ERROR) (a 29.4 % error, one sigma either way).
TIME_LOG_SIGMA = math.log1p(BATCH_TIME_ERROR)


#: How many equally likely time factors the expectation averages over (:data:`TIME_FACTORS`)
TIME_POINTS = 16


def _quantile_midpoints(k: int) -> tuple[float, ...]:
    """The standard normal's quantiles at the middle of ``k`` equally likely slices, (i + 0.5) / k.

    Not a Gauss-Hermite rule: its odd rules put their heaviest node (8/15 of the weight for 5 nodes) at
    the estimate itself, so a session ending 0.5 % short of a coarse step is billed as if it never ran
    over in more than half the weight, and one ending 0.5 % past it as if it always did: Gauss-Hermite is
    exact for smooth costs, and a billing step is not one. Equal slices weigh every factor alike (1/16
    each), so a step near the estimate moves the expectation by about its true share."""
    dist = NormalDist()
    return tuple(dist.inv_cdf((i + 0.5) / k) for i in range(k))


#: (time factor, weight): the estimate's time is multiplied by each factor, the billed hours averaged
#: with the weights (deterministic: no sampling)
TIME_FACTORS: tuple[tuple[float, float], ...] = tuple(
    (math.exp(TIME_LOG_SIGMA * z), 1.0 / TIME_POINTS) for z in _quantile_midpoints(TIME_POINTS)
)


def expected_billed_h(
    ev: ConfigEval, w: AnyWorkload, terms: ProviderTerms, spot: bool, a: Assumptions
) -> float:
    """The instance-hours ``ev`` is expected to be billed when its time is off by the estimate's error:
    the cost model (billing rounding, minimum charges, warm-ups, on a spot row the reclaims of the longer
    or shorter run) at the estimated time times each of ``TIME_FACTORS``, averaged by their weights. On
    per-second billing this is the nominal hours times about the mean factor (1.03) for every instance count
    alike; near a coarse billing step it is the nominal plus the chance of the next step."""
    return sum(
        wt * cost_model(dataclasses.replace(ev, time_s=ev.time_s * x), w, terms, spot, a).billed_h
        for x, wt in TIME_FACTORS
    )


@dataclass(frozen=True, slots=True)
class BillingStep:
    """One instance's billing session against the step it is billed to."""

    session_s: float  # the session's seconds: its share of the work, warm-up and (spot) reclaims
    billed_s: float  # what it is billed (the increment's rounding, the minimum charge)
    next_s: float  # what it is billed once it runs past ``billed_s``

    @property
    def room(self) -> float:
        """How much longer (a share of the session) it may run before the next step is billed."""
        return self.billed_s / self.session_s - 1.0 if self.session_s > 0 else float("inf")


def billing_step(ev: ConfigEval, cm: CostModel) -> BillingStep | None:
    """The billing step one instance of a batch ``ev`` (costed as ``cm``) ends in, where running past it
    costs more than ``COST_TOLERANCE`` of the session's bill (a coarse step: per hour, an unknown increment
    assumed per hour); None where the next step costs no more than that (per-second or per-minute billing
    of all but the shortest sessions) or there is no session."""
    n = max(1, ev.instances)
    session = ev.time_s + cm.warmup_s_per_start + cm.interruption_h * 3600.0 / n
    if session <= 0:
        return None
    billed = billed_seconds(session, cm.increment_s, cm.minimum_s)
    after = billed_seconds(billed * (1.0 + 1e-9) + 1e-3, cm.increment_s, cm.minimum_s)
    if after - billed <= COST_TOLERANCE * billed:
        return None
    return BillingStep(session, billed, after)
