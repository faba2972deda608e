"""Stop 49 renter review: every ``--json`` of the advisor commands is strict JSON (a rejected row's infinite
score was written ``Infinity``, which ``JSON.parse`` refuses), and a layer split's explained row says
hand-offs, not all-reduces."""

from __future__ import annotations

import json
import math
import re

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.cli.json_out import finite

runner = CliRunner()


def _strict(constant: str) -> object:
    raise ValueError(f"not JSON: {constant}")


def test_finite_makes_every_non_finite_number_null() -> None:
    given = {"a": math.inf, "b": [1.5, -math.inf, (math.nan, 2)], "c": {"d": "inf", "e": 0.0}}
    assert finite(given) == {"a": None, "b": [1.5, None, [None, 2]], "c": {"d": "inf", "e": 0.0}}


def test_recommend_json_with_rejected_rows_is_strict_json() -> None:
    args = ["recommend", "serve", "llama-3.1-70b", "--engine", "tensorrt-llm", "--gpu", "MI300X"]
    args += ["--gpu", "H100-SXM", "-c", "8", "--show-rejected", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout, parse_constant=_strict)  # raised on "score": Infinity
    assert data["rejected"] and all(r["score"] is None for r in data["rejected"])
    assert all(isinstance(r["score"], float) for r in data["recommendations"])  # a ranked row keeps it
    amd = [r["rejected"] for r in data["rejected"] if r["offer"]["accelerator"] == "MI300X"]
    assert amd and all("(gfx942)" in why and "CC gfx" not in why for why in amd)


def test_estimate_json_stays_strict_where_the_queue_is_unbounded() -> None:
    args = ["estimate", "llama-3.1-8b", "--gpu", "L4", "--request-rate", "1000", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout, parse_constant=_strict)
    assert data["ttft_ms"] is None  # unbounded: null, not Infinity


def test_an_explained_layer_split_row_says_hand_offs() -> None:
    args = ["recommend", "serve", "llama-3.1-70b", "--engine", "llama.cpp", "--gpu", "RTX-4090", "-c", "1"]
    result = runner.invoke(app, [*args, "--latency-targets", "none", "-x", "1"])
    assert result.exit_code == 0, result.output
    flat = re.sub(r"[\s│]+", " ", result.output)  # a cell wrapped over table lines, read as one
    found = re.search(r"decode step \(parts overlap\) (.*?) memory per GPU", flat)
    assert found, flat
    step = found[1]
    assert "layer split" in result.output
    assert "hand-offs between GPUs" in step and "all-reduce" not in step, step
