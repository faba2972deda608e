"""The stop-61 catalog pass: copies and regions.

- Spheron listed Sesterce's New York 1x V100 32GB twice (``V100_32G_<host>`` and ``V100_<host>``: the
  same host, region, shape and $3.0888/h); it is one offer, kept once (rule sesterce-v100-copy). The
  scan below finds no other pair in the bundled snapshot.
- OCI's rows list the regions the reference read of SkyPilot's OCI file, which copies Oracle's price
  list (one price per shape for every commercial region, no per-region stock): the row read "4 regions"
  as if stocked there. It now reads "price list (4 regions)" and says so in its notes; the rows and
  their regions stay (collapse.all_listed.oci).
- DigitalOcean's 8x H100 is in tor1 in the reference (the v6 file, both its H100 sizes there) and is no
  copy of another row; its price comes from DigitalOcean's /v2/sizes answer, which lists the size in
  nyc1 only. The row said nothing of that: its note now names both regions and where each comes from.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from gpuscout.catalog.offer import Availability
from gpuscout.catalog.snapshot_build import REFERENCE_CSV, SnapshotBuildError, build, read_reference
from gpuscout.catalog.sources.snapshot import SnapshotSource
from tests.catalog.sources.samples import sample
from tests.catalog.test_snapshot import _bundled, _changes

V100_HOST = "668d6762247d03149a4c946f_newyork-usa-1"

# everything that says what a renter gets and pays, and where
_OFFER_COLUMNS = (
    "provider",
    "region",
    "regions",
    "accelerator",
    "gpu_name",
    "gpu_count",
    "gpu_memory_gb",
    "vcpus",
    "ram_gb",
    "price_per_hour_usd",
    "spot_price_per_hour_usd",
    "price_is_interruptible",
    "source",
)


def _copies(rows: list[dict[str, str]]) -> dict[tuple[str, ...], list[str]]:
    """Rows equal in every offer column, region and prices included, under other instance types."""
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for row in rows:
        for region in row["regions"].split(";") if row["regions"] else [row["region"]]:
            key = tuple(row[c] for c in _OFFER_COLUMNS if c not in ("region", "regions"))
            groups[(region, *key)].append(row["instance_type"])
    return {k: v for k, v in groups.items() if len(v) > 1}


def test_no_offer_is_listed_twice_under_two_instance_types() -> None:
    assert _copies(_bundled()) == {}


def test_no_offer_is_listed_twice_in_a_region() -> None:
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    for row in _bundled():
        for region in row["regions"].split(";") if row["regions"] else [row["region"]]:
            seen[(row["provider"], row["instance_type"], region)] += 1
    assert [k for k, n in seen.items() if n > 1] == []


def test_the_sesterce_v100_copy_is_kept_once_under_the_name_that_states_its_memory() -> None:
    v100 = {r["instance_type"]: r for r in _bundled() if r["instance_type"].startswith("sesterce:V100")}
    assert sorted(v100) == [
        f"sesterce:V100_32G_{V100_HOST}",
        f"sesterce:V100_32Gx2_{V100_HOST}",
        f"sesterce:V100_32Gx4_{V100_HOST}",
    ]
    kept = v100[f"sesterce:V100_32G_{V100_HOST}"]
    assert (kept["gpu_count"], kept["gpu_memory_gb"], kept["price_per_hour_usd"]) == ("1", "32", "3.0888")
    [drop] = [c for c in _changes() if c["rule"] == "sesterce-v100-copy"]
    assert (drop["action"], drop["instance_type"]) == ("drop", f"sesterce:V100_{V100_HOST}")
    assert "V100_32G_" in drop["detail"] and "price_snapshot.csv" in drop["source"]


def test_a_v100_row_at_another_price_is_not_a_copy(tmp_path: Path) -> None:
    old = f"spheron,sesterce:V100_{V100_HOST},newyork-usa-1,V100-32GB,1,32,8,30,3.0888,"
    text = REFERENCE_CSV.read_text("utf-8")
    assert text.count(old) == 1
    ref = tmp_path / "ref.csv"
    ref.write_text(text.replace(old, old.replace("3.0888", "2.5")), encoding="utf-8")
    # the rule then matches no row, and the build says so, naming it
    with pytest.raises(SnapshotBuildError, match="sesterce-v100-copy: matches no row"):
        build(reference=ref)


def test_oci_regions_are_shown_as_a_price_list_not_as_stock() -> None:
    oci = [o for o in SnapshotSource().offers() if o.provider == "oci"]
    assert len(oci) == 21  # none dropped
    for offer in oci:
        assert offer.region == f"price list ({len(offer.regions)} regions)", offer.instance_type
        assert "not a stock list" in offer.notes and "not where the shape is in stock" in offer.notes
        assert offer.availability is Availability.UNKNOWN
    h100 = next(o for o in oci if o.instance_type == "BM.GPU.H100.8")
    assert set(h100.regions) == {"af-casablanca-1", "af-johannesburg-1", "us-phoenix-1", "us-sanjose-1"}
    merged = [c for c in _changes() if c["provider"] == "oci" and c["action"] == "merge"]
    assert merged and {c["rule"] for c in merged} == {"collapse-oci"}
    assert all("price list" in c["after"] and "providers.md" in c["source"] for c in merged)
    # Lambda's fixed region list keeps its own wording
    lam = next(o for o in SnapshotSource().offers() if o.provider == "lambda")
    assert lam.region.startswith("all listed (") and "says nothing about where it is in stock" in lam.notes


def test_digitaloceans_8x_h100_says_which_source_gives_which_region() -> None:
    [size] = [s for s in sample("digitalocean")["response"]["sizes"] if s["slug"] == "gpu-h100x8-640gb"]
    reference = [r for r in read_reference() if r["instance_type"] == "gpu-h100x8-640gb"]
    assert [r["region"] for r in reference] == ["tor1"] and size["regions"] == ["nyc1"]
    [row] = [r for r in _bundled() if r["instance_type"] == "gpu-h100x8-640gb"]
    assert (row["region"], row["price_per_hour_usd"]) == ("tor1", str(size["price_hourly"]))
    assert json.loads(row["extra"])["regions_in_price_source"] == "nyc1"
    assert "tor1 is the older file's" in row["notes"] and "in nyc1 only" in row["notes"]
