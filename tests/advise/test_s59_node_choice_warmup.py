"""A training row's node choice counts the warm-up as the row does (stop 59, renter pass): its text
said "(faster, 2 nodes: 7 min, ...)" where 2 nodes show 10 min (7 min of training + 2 min warm-up), and
its deadline test left the warm-up out while the ranking holds the row to warm-up + training."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from gpuscout.advise.training_configs import NodeBilling, _choose, _node_choice, _timed, _Trained

WARM = 120.0  # s


def _timed_runs(minutes: dict[int, float]) -> list[Any]:
    runs = [(n, SimpleNamespace(time_s=m * 60.0), _Trained(None, "", "", "")) for n, m in minutes.items()]
    return _timed(runs, None)


def test_the_other_node_count_is_quoted_with_its_warm_up() -> None:
    timed = _timed_runs({1: 15.0, 2: 7.0})
    chosen = _choose(timed, WARM, None, NodeBilling())
    assert chosen is not None and chosen[0][0] == 1  # per hour billing: 2 nodes bill twice the hours
    text = _node_choice(timed, chosen, WARM, None, NodeBilling())
    assert "2 nodes: 9 min" in text  # 7 min + 2 min warm-up, as that row reads


def test_the_deadline_counts_the_warm_up() -> None:
    # 11 min of training meets a 12 min deadline only without its 2 min warm-up: 2 nodes (6 + 2) do
    timed = _timed_runs({1: 11.0, 2: 6.0})
    chosen = _choose(timed, WARM, 12 * 60.0, NodeBilling())
    assert chosen is not None and chosen[0][0] == 2
