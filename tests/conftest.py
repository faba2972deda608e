"""Shared fixtures. Tests are offline: provider payloads and reference tables live in tests/fixtures."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
# Copies of the project's reference data (see tests/fixtures/README.md for where each file came from).
REFERENCE = REPO / "tests" / "fixtures" / "reference"
PROVIDER_SAMPLES = REFERENCE / "provider_samples"
# The calibration set the accuracy benchmark reads (benchmarks/data/SOURCES-2026-12.md names its sources).
CALIBRATION = REPO / "benchmarks" / "data" / "measurements.csv"


def load_benchmark(stem: str) -> ModuleType:
    """``benchmarks/<stem>.py`` as a module (the benchmarks are scripts, not a package), loaded once and
    kept under the name the benchmarks themselves use for each other (``gpuscout_bench_<stem>``)."""
    name = f"gpuscout_bench_{stem}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{stem}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the user's real data dir or a real store, never read real credentials."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("GPUSCOUT_DATA_DIR", str(home / "data"))
    monkeypatch.delenv("GPUSCOUT_DB", raising=False)
    for var in (
        "LAMBDA_API_KEY",
        "RUNPOD_API_KEY",
        "VASTAI_API_KEY",
        "SHADEFORM_API_KEY",
        "DIGITAL_OCEAN_TOKEN",
        "DIGITALOCEAN_TOKEN",
        "VULTR_API_KEY",
        "TENSORDOCK_API_KEY",
        "CUDO_API_KEY",
        "GPUSCOUT_ADMIN_TOKEN",
        "GCP_API_KEY",
        "VERDA_CLIENT_ID",
        "VERDA_CLIENT_SECRET",
        "DATACRUNCH_CLIENT_ID",
        "DATACRUNCH_CLIENT_SECRET",
        "GPUSCOUT_OFFER_FILES",
    ):
        monkeypatch.delenv(var, raising=False)


def pg_url() -> str | None:
    """URL of the PostgreSQL server for store tests; .ci/run sets it. In CI its absence is an error."""
    url = os.environ.get("GPUSCOUT_TEST_PG_URL")
    if not url and os.environ.get("CI") == "true":
        raise RuntimeError("GPUSCOUT_TEST_PG_URL must be set in CI (see .ci/run)")
    return url
