"""The CLI's indented JSON is exactly ``json.dumps(value, indent=2, default=str)``."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest

from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.cli.json_text import dumps_indented
from gpuscout.cli.output import to_jsonable


class _Text(str):
    """A text subclass (keys and values of it are text to json.dumps too)."""


EDGES: list[Any] = [
    {}, [], [{}], [[[]]], {"a": []}, "x", 3, None, True, "", [""], {"e": ""},
    {"a": {"b": [1, 2.5, None, True, False, "é\u2028\n\"x\\", "\x00"]}},
    [float("nan"), float("inf"), -float("inf"), 1e300, 5e-324, -0.0, 10**30, -(2**70)],
    {"k": (1, "two")}, {1: 2}, {"d": object()}, {"when": datetime(2026, 1, 1, tzinfo=UTC)}, {"ü": "ß"},
    {True: 1, None: 2, 1.5: 3}, {_Text("sub"): _Text("class")}, [_Text("x"), {"y": _Text("z")}],
]  # fmt: skip


@pytest.mark.parametrize("value", EDGES)
def test_edge_values(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, default=str)


def test_random_nested_values() -> None:
    rnd = random.Random(12)

    def value(depth: int = 0) -> Any:
        r = rnd.random()
        if depth > 3 or r < 0.4:
            return rnd.choice(["s", "ä\t", 1, -7, 0.1, 1.5e10, None, True, False, "", "\U0001f600"])
        if r < 0.7:
            return [value(depth + 1) for _ in range(rnd.randint(0, 3))]
        return {f"k{i}": value(depth + 1) for i in range(rnd.randint(0, 3))}

    for _ in range(2000):
        v = value()
        assert dumps_indented(v) == json.dumps(v, indent=2, default=str)


def test_the_offers_of_the_bundled_snapshot() -> None:
    offers = to_jsonable(SnapshotSource().offers())
    assert dumps_indented(offers) == json.dumps(offers, indent=2, default=str)
