"""The accuracy benchmark runs on the calibration CSV; fits/OOM rows are all right (not a timing test)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import CALIBRATION, REPO


@pytest.fixture(scope="module")
def accuracy() -> ModuleType:
    path = REPO / "benchmarks" / "accuracy.py"
    spec = importlib.util.spec_from_file_location("gpuscout_bench_accuracy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def summary(accuracy: ModuleType) -> dict[str, object]:
    cases = accuracy.build_cases(accuracy.load(Path(CALIBRATION)))
    results = accuracy.evaluate(cases)
    return {"cases": cases, "results": results, "summary": accuracy.summarise(results)}


def test_every_applicable_row_evaluates(summary: dict[str, object]) -> None:
    s = summary["summary"]
    assert not s["errors"], s["errors"]  # type: ignore[index]
    metrics = s["metrics"]  # type: ignore[index]
    for family in ("decode_b1", "prefill", "serving"):
        assert metrics[family]["n"] > 0
        assert math.isfinite(metrics[family]["mape"])


def test_fits_and_oom_rows_all_right(summary: dict[str, object]) -> None:
    fits = summary["summary"]["fits"]  # type: ignore[index]
    assert fits["rows"] >= 20
    assert fits["right"] == fits["rows"]


def test_suspect_rows_reported_not_aggregated(summary: dict[str, object]) -> None:
    s = summary["summary"]
    suspect_lines = {x["line"] for x in s["suspect_excluded"]}  # type: ignore[index]
    assert suspect_lines
    results = summary["results"]
    assert all(r.case.suspect for r in results if r.case.line in suspect_lines)  # type: ignore[attr-defined]


def test_skipped_rows_carry_a_reason(summary: dict[str, object]) -> None:
    for case in summary["cases"]:  # type: ignore[attr-defined]
        if case.skip:
            assert len(case.skip) > 10


def test_weights_rows_match_llama_cpp_file_sizes(summary: dict[str, object]) -> None:
    weights = summary["summary"]["metrics"]["weights"]  # type: ignore[index]
    assert weights["n"] >= 10
    assert weights["mape"] < 0.02
