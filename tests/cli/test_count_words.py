"""The CLI's titles and lines agree with their counts ("1 of 1 offer", "removed 1 snapshot",
"1 row left out", "1 step", "1 model"), and a gpuhunt or file offer's source reads as the source's
name in the wide offers table ("gpuhunt:aws", "file:offers.csv"), not "gpuhunt aws:https:"."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.cli import app
from gpuscout.cli.knowledge_cmds import select_gpus
from gpuscout.cli.offers_view import short_source
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.knowledge.models import all_models

runner = CliRunner()


def _offer(instance: str, accelerator: str, gpus: int, memory: float, source: str) -> Offer:
    return Offer(
        provider="aws",
        instance_type=instance,
        region="us-east-1",
        accelerator=accelerator,
        gpu_count=gpus,
        gpu_memory_gb=memory,
        price_usd_per_hour=3.0 * gpus,
        spot_price_usd_per_hour=None,
        source=source,
        observed_at=datetime.now(UTC) - timedelta(hours=1),
    )


def _store(tmp_path: Path, snapshots: dict[str, list[Offer]]) -> str:
    """A store with these live snapshots (by source name) and the bundled snapshot loaded, empty."""
    url = f"sqlite:///{tmp_path / 'words.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    for name, offers in snapshots.items():
        store.write_snapshot(name, offers)
    store.close()
    return url


def _out(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


GPUHUNT_URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3/aws/v20260101"


@pytest.mark.parametrize(
    ("source", "label"),
    [
        (f"gpuhunt:aws:{GPUHUNT_URL}", "gpuhunt:aws"),
        ("gpuhunt:aws:/home/me/gpuhunt/aws.csv", "gpuhunt:aws"),  # GPUHUNT_CATALOG_DIR
        ("gpuhunt:vultr:gpuhunt.providers.vultr (online API)", "gpuhunt:vultr"),
        ("file:/home/me/contracts/offers.csv", "file:offers.csv"),
        ("file:C:\\Users\\me\\offers.yaml", "file:offers.yaml"),
        ("vastai:https://console.vast.ai/api/v0/bundles/", "vastai console.vast.ai"),  # as before
    ],
)
def test_a_gpuhunt_or_file_source_is_named_by_its_provider_or_file(source: str, label: str) -> None:
    assert short_source(source) == label


def test_the_offers_table_names_a_gpuhunt_and_a_file_source(tmp_path: Path) -> None:
    url = _store(
        tmp_path,
        {
            "gpuhunt:aws": [_offer("p5.48xlarge", "H100-SXM", 8, 80.0, f"gpuhunt:aws:{GPUHUNT_URL}")],
            "file:/tmp/x/offers.csv": [_offer("mine", "H100-SXM", 1, 80.0, "file:/tmp/x/offers.csv")],
        },
    )
    out = _out("offers", "--db", url)  # a pipe: every column, the source as short_source
    assert "gpuhunt:aws" in out and "file:offers.csv" in out
    assert "https:" not in out and "/tmp/x" not in out
    sources = {o["source"] for o in json.loads(_out("offers", "--db", url, "--json"))}
    assert sources == {f"gpuhunt:aws:{GPUHUNT_URL}", "file:/tmp/x/offers.csv"}  # the full source kept


def test_a_store_of_one_offer_titles_its_table_one_of_one_offer(tmp_path: Path) -> None:
    url = _store(tmp_path, {"test": [_offer("p5.48xlarge", "H100-SXM", 8, 80.0, "test:x")]})
    assert "1 of 1 offer, sorted by" in _out("offers", "--db", url)


def test_pruning_one_snapshot_says_one_snapshot(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'prune.db'}"
    store = Store(url)
    old = datetime.now(UTC) - timedelta(days=60)
    store.write_snapshot("test", [_offer("a", "H100-SXM", 1, 80.0, "test:x")], started_at=old)
    store.write_snapshot("test", [_offer("a", "H100-SXM", 1, 80.0, "test:x")])
    store.close()
    assert _out("prune", "--older-than-days", "30", "--db", url).endswith("removed 1 snapshot")
    assert _out("prune", "--older-than-days", "30", "--db", url).endswith("removed 0 snapshots")


def test_one_row_left_out_is_titled_one_row(tmp_path: Path) -> None:
    fits = _offer("p5.48xlarge", "H100-SXM", 8, 80.0, "test:x")
    small = _offer("g4dn.xlarge", "T4", 1, 16.0, "test:x")
    url = _store(tmp_path, {"test": [fits, small]})
    args = ["recommend", "serve", "llama-3.1-70b", "-c", "2", "--db", url, "--show-rejected"]
    rejected = json.loads(_out(*args, "--json"))["rejected"]
    assert [r["offer"]["instance_type"] for r in rejected] == ["g4dn.xlarge"]
    assert "1 row left out" in _out(*args)  # rows: an offer's on-demand and spot rows are two


def test_one_denoising_step_is_one_step() -> None:
    assert "1024x1024, 1 step, batch 1" in _out("images", "flux.1-dev", "--gpu", "H100", "--steps", "1")


def test_a_registry_listing_of_one_model_or_gpu_says_one() -> None:
    families = [m.family for m in all_models()]
    single = next(f for f in families if sum(g.lower().startswith(f.lower()) for g in families) == 1)
    assert "1 model — parameters computed" in _out("models", "show", "--family", single)
    # a vendor's accelerators with at least some one's memory, or with FP8: one of these leaves one
    filters = [
        (a.vendor, memory, fp8)
        for a in all_accelerators()
        for memory, fp8 in ((a.memory_gb, False), (None, True))
    ]
    vendor, memory, fp8 = next(
        (v, m, f)
        for v, m, f in filters
        if len(select_gpus(vendor=v, min_memory=m, kind=None, fp8=f, sort="memory")) == 1
    )
    args = ["--vendor", vendor, *(["--fp8"] if fp8 else ["--min-memory", f"{memory:g}"])]
    assert "1 accelerator — dense tensor rates" in _out("gpus", *args)
