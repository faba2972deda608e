"""A spot training row chooses its node count with the reclaims its nodes add (stop 60, renter pass).

Pre-training Llama-3.1-8B on 200B tokens on p5.48xlarge spot took 64 nodes, "the fastest node count
within 5% of the cheapest's cost (the cheapest, 32 nodes: 20.0 h ...)": node-time alone (on demand, 32
and 64 nodes cost the same). But a spot run's nodes step together, so a reclaim of any stops all and
64 nodes are stopped 64 times as often: with the rework, restarts and reloads the cost model counts, 64
nodes cost ~8 % more than 8, beyond the rule's 5 %, and the 32 nodes it quoted take 21.8 h on spot,
not 20.0 h. The on-demand row keeps its own choice."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gpuscout.advise.api import recommend
from gpuscout.advise.workload import PretrainWorkload
from gpuscout.catalog.offer import Interconnect, Offer
from tests.advise.helpers import NOW, offer

PRETRAIN = PretrainWorkload(model="llama-3.1-8b", token_budget=2e11, spot_allowed=True)
SOURCE = "https://aws.amazon.com/ec2/instance-types/p5/"


def _p5(provider: str = "aws", price: float = 55.04, spot: float | None = 9.37) -> Offer:
    base = offer(provider, "H100-SXM", 8, price, spot, interconnect=Interconnect.NVLINK, internode="efa")
    return dataclasses.replace(base, extra={"internode_gbps": "3200", "internode_source": SOURCE})


def _row(spot: bool, nodes: int | None = None, box: Offer | None = None) -> tuple[int, float, float, str]:
    w = PRETRAIN if nodes is None else PRETRAIN.model_copy(update={"nodes": nodes})
    rows = [r for r in recommend(w, [box or _p5()], now=NOW) if r.config.spot == spot]
    (row,) = rows
    assert row.cost is not None and row.time_to_result_s is not None
    return row.config.instances, row.cost.total, row.time_to_result_s, row.config.training


# p5 spot, billed per second; and a box billed per hour (vultr), whose reclaims each leave half an
# hour of a node's increment unused
BOXES = [_p5(), _p5("vultr", 20.0, 6.0)]


@pytest.mark.parametrize("box", BOXES, ids=["per-second", "per-hour"])
def test_the_spot_row_takes_the_fastest_count_within_five_percent_of_the_cheapest_spot_count(
    box: Offer,
) -> None:
    nodes, total, _, _ = _row(spot=True, box=box)
    fixed = {n: _row(spot=True, nodes=n, box=box)[1:3] for n in (1, 2, 4, 8, 16, 32, 64)}
    cheapest = min(cost for cost, _ in fixed.values())
    within = [n for n, (cost, _) in fixed.items() if cost <= cheapest * 1.05]
    assert nodes == min(within, key=lambda n: fixed[n][1])  # the rule, on the costs ranked
    assert total == pytest.approx(fixed[nodes][0])
    assert fixed[64][0] > cheapest * 1.05  # what it took before: out of the rule on spot


def test_the_spot_row_quotes_its_alternatives_with_their_spot_times() -> None:
    _, _, _, text = _row(spot=True)
    quoted = re.search(r"the cheapest, (\d+) nodes?: ([\d.]+ (?:h|days))", text)  # "1 node" since s61
    assert quoted is not None, text
    cheapest_nodes = int(quoted.group(1))
    _, _, seconds, _ = _row(spot=True, nodes=cheapest_nodes)
    hours = seconds / 3600.0
    shown = quoted.group(2)
    value = float(shown.split()[0]) * (24.0 if shown.endswith("days") else 1.0)
    assert abs(value - hours) <= 0.05 * hours  # that row's own time, reclaims in, as it reads


def test_the_on_demand_row_keeps_the_choice_made_on_node_time() -> None:
    on_demand, _, _, text = _row(spot=False)
    assert on_demand == 64 and "64 nodes: the fastest node count" in text
