"""gpuhunt sources, offline: catalogs are CSVs made here and read through GPUHUNT_CATALOG_DIR."""

from __future__ import annotations

import csv
import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

import pytest

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources import gpuhunt_source
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.gpuhunt_source import GpuhuntSource, gpuhunt_sources
from gpuscout.catalog.sources.gpuhunt_worker import WorkerFailed
from tests.catalog.sources.loopback import loopback
from tests.catalog.sources.samples import by_type, fetch

# The columns of gpuhunt's v2 catalog CSV (gpuhunt/_internal/storage.py CATALOG_V2_FIELDS).
COLUMNS = ["instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "gpu_memory",
           "spot", "disk_size", "gpu_vendor", "flags", "cpu_arch", "provider_data"]  # fmt: skip


def row(instance: str, location: str, price: float, cpu: int, memory: float, count: int, gpu: str,
        gpu_memory: float | str, spot: bool = False, disk: str = "") -> dict[str, Any]:  # fmt: skip
    return {
        "instance_name": instance, "location": location, "price": price, "cpu": cpu, "memory": memory,
        "gpu_count": count, "gpu_name": gpu, "gpu_memory": gpu_memory, "spot": spot, "disk_size": disk,
        "gpu_vendor": "nvidia" if count else "", "flags": "", "cpu_arch": "x86",
        "provider_data": json.dumps({}),
    }  # fmt: skip


def write(directory: Path, provider: str, rows: list[dict[str, Any]]) -> None:
    with (directory / f"{provider}.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def catalog_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, "aws", [
        row("p4d.24xlarge", "us-east-1", 32.7726, 96, 1152, 8, "A100", 40, disk="8000"),
        row("p4d.24xlarge", "us-east-1", 12.5, 96, 1152, 8, "A100", 40, spot=True, disk="8000"),
        row("g5.xlarge", "us-east-1", 1.006, 4, 16, 1, "A10G", 24),
        row("m5.large", "us-east-1", 0.096, 2, 8, 0, "", ""),
        row("x9.quantum", "us-east-1", 9.0, 8, 64, 1, "QuantumFlux", 48),
    ])  # fmt: skip
    write(tmp_path, "azure", [row("Standard_NC24ads_A100_v4", "eastus", 3.673, 24, 220, 1, "A100", 80)])
    write(tmp_path, "lambdalabs", [
        row("gpu_1x_a100", "us-east-1", 1.29, 30, 200, 1, "A100", 40),
        row("gpu_8x_a100", "us-east-1", 10.32, 124, 1800, 8, "A100", 40),
    ])  # fmt: skip
    write(tmp_path, "gcp", [row("a2-highgpu-1g", "us-central1-a", 3.673385, 12, 85, 1, "A100", 40)])
    monkeypatch.setenv("GPUHUNT_CATALOG_DIR", str(tmp_path))
    return tmp_path


def test_aws_items_become_offers_with_spot_merged(catalog_dir: Path) -> None:
    src = GpuhuntSource("aws")
    offers = by_type(fetch(src))
    assert sorted(offers) == ["g5.xlarge", "p4d.24xlarge"]
    p4d = offers["p4d.24xlarge"]
    assert (p4d.provider, p4d.region, p4d.accelerator, p4d.gpu_count) == (
        "aws",
        "us-east-1",
        "A100-SXM4-40GB",
        8,
    )
    assert p4d.price_usd_per_hour == pytest.approx(32.7726)
    assert p4d.spot_price_usd_per_hour == pytest.approx(12.5)
    assert (p4d.vcpus, p4d.ram_gb, p4d.disk_gb) == (96, 1152, 8000)
    assert p4d.interconnect is Interconnect.NVLINK
    assert p4d.availability is Availability.UNKNOWN
    assert p4d.source == f"gpuhunt:aws:{catalog_dir / 'aws.csv'}"
    assert p4d.observed_at is not None
    assert "assumed" not in p4d.notes and "variant" not in p4d.extra  # an HGX shape: SXM4 stated by AWS
    # the documented inter-node fabric and its figure (Gbit/s per instance, as AWS states it)
    assert (p4d.internode, p4d.extra["internode_gbps"]) == ("efa", "400")
    g5 = offers["g5.xlarge"]
    assert (g5.accelerator, g5.gpu_memory_gb, g5.spot_price_usd_per_hour) == ("A10G", 24, None)
    assert [(d.row, d.reason) for d in src.dropped] == [("x9.quantum us-east-1", "unknown GPU 'QuantumFlux'")]


def test_instance_hints_pin_the_variant(catalog_dir: Path) -> None:
    (azure,) = fetch(GpuhuntSource("azure"))
    assert azure.accelerator == "A100-PCIe-80GB"  # NC A100 v4 is PCIe, not gpuhunt's bare "A100"
    lam = by_type(fetch(GpuhuntSource("lambdalabs")))
    assert (lam["gpu_1x_a100"].provider, lam["gpu_1x_a100"].accelerator) == ("lambda", "A100-PCIe-40GB")
    # Lambda's 8x A100 40GB is the SXM4 part on an NVLink baseboard, not eight of its 1x PCIe cards
    eight = lam["gpu_8x_a100"]
    assert (eight.accelerator, eight.interconnect) == ("A100-SXM4-40GB", Interconnect.NVLINK)
    assert GpuhuntSource("lambdalabs").name == "gpuhunt:lambda"


def test_gcp_zone_and_region(catalog_dir: Path) -> None:
    (o,) = fetch(GpuhuntSource("gcp"))
    assert (o.region, o.zone) == ("us-central1", "us-central1-a")
    assert o.price_usd_per_hour == pytest.approx(3.673385)  # gpuhunt composes host + GPU


def test_one_missing_catalog_fails_alone(catalog_dir: Path) -> None:
    with pytest.raises(SourceError, match=r"gpuhunt:runpod: no runpod.csv"):
        fetch(GpuhuntSource("runpod"))
    assert fetch(GpuhuntSource("aws"))  # others unaffected


def test_malformed_csv_rows_are_skipped_by_gpuhunt(catalog_dir: Path) -> None:
    (catalog_dir / "oci.csv").write_text(",".join(COLUMNS) + "\nBM.GPU4.8,eu,not-a-price,,,,,,,,,,,\n")
    assert fetch(GpuhuntSource("oci")) == []


def test_empty_catalog(catalog_dir: Path) -> None:
    write(catalog_dir, "nebius", [])
    assert fetch(GpuhuntSource("nebius")) == []


FAKES = "tests.catalog.sources.gpuhunt_fakes"


def test_online_provider_failure_is_a_source_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DAYTONA_API_KEY", "k")
    monkeypatch.setattr(GpuhuntSource, "online_target", f"{FAKES}:connection_error")
    with pytest.raises(SourceError, match="gpuhunt daytona failed: ConnectionError: lium API down"):
        fetch(GpuhuntSource("daytona"))


def test_missing_credentials_found_by_gpuhunt_skip_the_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEEWEB_API_TOKEN", "k")
    monkeypatch.setattr(GpuhuntSource, "online_target", f"{FAKES}:missing_credentials")
    with pytest.raises(CredentialsMissingError):
        fetch(GpuhuntSource("seeweb"))


def test_online_provider_needs_its_credentials() -> None:
    src = GpuhuntSource("seeweb")
    assert src.needs_credentials == ("SEEWEB_API_TOKEN",)
    assert not src.credentials_present()
    with pytest.raises(CredentialsMissingError):
        fetch(src)


def test_download_failure_is_reported_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPUHUNT_CATALOG_DIR", raising=False)
    shared = gpuhunt_source._SharedCatalog()
    shared.target = f"{FAKES}:only_aws"  # run in the real worker process
    monkeypatch.setattr(gpuhunt_source, "SHARED_CATALOG", shared)
    with pytest.raises(SourceError, match="could not download the gcp catalog"):
        fetch(GpuhuntSource("gcp"))
    assert fetch(GpuhuntSource("aws")) == []


def test_catalog_version_is_the_observation_time() -> None:
    assert gpuhunt_source._version_time("20260101").isoformat() == "2026-01-01T00:00:00+00:00"
    assert gpuhunt_source._version_time("latest") is None


def test_one_source_per_provider() -> None:
    names = [s.name for s in gpuhunt_sources()]
    assert "gpuhunt:aws" in names and "gpuhunt:lambda" in names and "gpuhunt:daytona" in names
    assert len(names) == len(set(names))
    for direct in ("vastai", "lium", "jarvislabs"):  # the direct adapters read the same APIs
        assert f"gpuhunt:{direct}" not in names


def test_failed_download_is_shared_and_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPUHUNT_CATALOG_DIR", raising=False)
    monkeypatch.setattr(gpuhunt_source, "SHARED_CATALOG", gpuhunt_source._SharedCatalog())
    calls = []

    def run_worker(target: str, args: tuple[Any, ...], timeout_s: float, what: str) -> Any:
        calls.append(args)
        raise WorkerFailed("GPUHuntError", "GPUHuntError: Failed to load (cause: OSError: no route to host)")

    monkeypatch.setattr(gpuhunt_source, "run_worker", run_worker)
    for provider in ("aws", "gcp"):
        with pytest.raises(SourceError, match=r"GPUHuntError: .* \(cause: OSError: no route to host\)"):
            fetch(GpuhuntSource(provider))
    assert calls == [(None,)]  # the second source reused the recorded failure


# ---- deadlines: gpuhunt's urllib downloads have no timeout; the worker process is killed -------


@pytest.mark.parametrize("mode", ["hang", "trickle"])
def test_a_hanging_catalog_download_is_stopped_at_the_deadline(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPUHUNT_CATALOG_DIR", raising=False)
    monkeypatch.setattr(gpuhunt_source, "SHARED_CATALOG", gpuhunt_source._SharedCatalog())
    with loopback(mode) as server:
        monkeypatch.setenv("GPUHUNT_CATALOG_URL", server.url)  # read by gpuhunt inside the worker
        source = GpuhuntSource("aws")
        source.deadline = time.monotonic() + 3
        with pytest.raises(
            SourceError, match=r"did not finish within [\d.]+s; its worker process was stopped"
        ):
            fetch(source)
        assert server.connections >= 1  # gpuhunt did reach the server and was stuck on it
    assert multiprocessing.active_children() == []  # the worker is gone, not left running


def test_a_worker_busy_forever_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRUSOE_ACCESS_KEY", "a")
    monkeypatch.setenv("CRUSOE_SECRET_KEY", "b")
    monkeypatch.setenv("CRUSOE_PROJECT_ID", "c")
    monkeypatch.setattr(GpuhuntSource, "online_target", f"{FAKES}:busy_forever")
    source = GpuhuntSource("crusoe")
    source.deadline = time.monotonic() + 2
    with pytest.raises(SourceError, match=r"did not finish within [\d.]+s"):
        fetch(source)
    assert multiprocessing.active_children() == []


def test_the_catalog_download_runs_in_the_worker_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gpuhunt's own download code, in the worker process, against a local catalog server: one
    provider published (version + catalog.zip), the others answer 404 and fail alone."""
    import functools
    import http.server
    import threading
    import zipfile

    site = tmp_path / "site"
    (site / "aws" / "20260115").mkdir(parents=True)
    (site / "aws" / "version").write_text("20260115\n")
    write(tmp_path, "aws", [row("g5.xlarge", "us-east-1", 1.006, 4, 16, 1, "A10G", 24)])
    with zipfile.ZipFile(site / "aws" / "20260115" / "catalog.zip", "w") as z:
        z.write(tmp_path / "aws.csv", "aws.csv")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.delenv("GPUHUNT_CATALOG_DIR", raising=False)
        monkeypatch.setenv("GPUHUNT_CATALOG_URL", f"http://127.0.0.1:{server.server_address[1]}")
        monkeypatch.setattr(gpuhunt_source, "SHARED_CATALOG", gpuhunt_source._SharedCatalog())
        (offer,) = fetch(GpuhuntSource("aws"))
        with pytest.raises(SourceError, match="could not download the gcp catalog"):
            fetch(GpuhuntSource("gcp"))  # the shared download is reused: no second worker
    finally:
        server.shutdown()
    assert (offer.instance_type, offer.accelerator, offer.price_usd_per_hour) == ("g5.xlarge", "A10G", 1.006)
    assert offer.source.endswith("/aws/20260115") and offer.observed_at is not None
    assert offer.observed_at.date().isoformat() == "2026-01-15"  # the catalog version's date
