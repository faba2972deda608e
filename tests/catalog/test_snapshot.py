"""The bundled snapshot: built faithfully from the reference, dated honestly, loaded on first use."""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import pytest

from gpuscout.catalog import api
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.sources.snapshot import (
    ADDED_COLUMNS,
    SOURCE_COLUMNS,
    SnapshotSource,
    build_snapshot_rows,
    bundled_snapshot_text,
)
from gpuscout.catalog.store import Store
from gpuscout.catalog.validate import validate_offers
from gpuscout.knowledge.accelerators import accelerator_names
from tests.catalog.helpers import make_offer
from tests.conftest import REFERENCE

REFERENCE_CSV = REFERENCE / "price_snapshot.csv"


def _bundled() -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(bundled_snapshot_text())))


def test_bundled_file_is_the_reference_plus_added_columns() -> None:
    bundled = _bundled()
    with REFERENCE_CSV.open(newline="", encoding="utf-8") as fh:
        reference = list(csv.DictReader(fh))
    assert len(bundled) == len(reference) == 1533
    for mine, ref in zip(bundled, reference, strict=True):
        assert {c: mine[c] for c in SOURCE_COLUMNS} == {c: ref[c] for c in SOURCE_COLUMNS}
    assert list(bundled[0]) == [*SOURCE_COLUMNS, *ADDED_COLUMNS]


def test_bundled_file_is_up_to_date_with_the_builder() -> None:
    """Rebuild with `python -m gpuscout.catalog.sources.snapshot REF TARGET` when this fails."""
    assert build_snapshot_rows(REFERENCE_CSV) == _bundled()


def test_stale_flag_marks_exactly_the_v6_files() -> None:
    rows = _bundled()
    stale = Counter(r["provider"] for r in rows if r["stale"] == "true")
    assert stale == {"azure": 165, "paperspace": 14, "digitalocean": 2}
    assert all(("/catalogs/v6/" in r["source"]) == (r["stale"] == "true") for r in rows)


def test_every_row_keeps_its_source_and_unknown_date() -> None:
    for row in _bundled():
        assert row["source"].startswith("https://github.com/skypilot-org/skypilot-catalog/blob/")
        assert row["as_of"] == "unknown"


def test_accelerators_are_canonical_and_memory_consistent() -> None:
    names = set(accelerator_names())
    from gpuscout.knowledge.accelerators import resolve_gpu

    for row in _bundled():
        if row["accelerator"]:
            assert row["accelerator"] in names
            assert abs(resolve_gpu(row["accelerator"]).memory_gb - float(row["gpu_memory_gb"])) <= 1.0
        else:
            assert row["accelerator_note"]
    by_name = {(r["gpu_name"], r["accelerator"]) for r in _bundled()}
    # a 24 GB Quadro RTX 6000 must never become the 48 GB RTX 6000 Ada, nor a modded 48 GB 4090 a 4090
    assert ("RTX6000", "Quadro-RTX6000") in by_name and ("RTX6000", "RTX6000-Ada") not in by_name
    unresolved = [(r["gpu_name"], r["gpu_memory_gb"]) for r in _bundled() if not r["accelerator"]]
    assert unresolved == [("RTX4090", "48")]
    assert ("H100-NVL", "H100-NVL") in by_name and ("A100-80GB-PCIe", "A100-PCIe-80GB") in by_name


def test_unstated_form_factor_is_flagged() -> None:
    rows = _bundled()
    plain = [r for r in rows if r["gpu_name"] in ("H100", "A100-80GB")]
    assert plain and all(
        r["variant_exact"] == "false" and "not stated" in r["accelerator_note"] for r in plain
    )
    stated = [r for r in rows if r["gpu_name"] in ("H100-SXM", "H100-PCIe", "A100-80GB-SXM")]
    assert stated and all(r["variant_exact"] == "true" for r in stated)


def test_offers_have_no_invented_date_and_carry_flags() -> None:
    source = SnapshotSource()
    offers = source.offers()
    assert len(offers) + len(source.dropped) == 1533
    assert [d.row for d in source.dropped] == ["vast/1x-RTX_4090-32-65536/Hong Kong, HK, AS"]  # modded 48 GB
    assert all(o.observed_at is None for o in offers)
    assert all(o.source.startswith("snapshot:https://github.com/") for o in offers)
    assert {o.provider for o in offers if o.stale} == {"azure", "paperspace", "digitalocean"}
    assert "vast" not in {o.provider for o in offers} and "vastai" in {o.provider for o in offers}
    plain = [o for o in offers if o.extra["gpu_name_source"] == "H100"]
    assert plain and all(o.extra.get("variant") == "assumed" and "assumed H100-SXM" in o.notes for o in plain)
    aws_p4d = next(o for o in offers if o.instance_type == "p4d.24xlarge" and o.region == "us-east-1")
    assert (aws_p4d.gpu_count, aws_p4d.price_usd_per_hour, aws_p4d.spot_price_usd_per_hour) == (
        8,
        21.957642,
        6.5323,
    )


def test_every_loaded_offer_passes_the_validation_gate() -> None:
    offers = SnapshotSource().offers()
    report = validate_offers("snapshot", offers)
    assert report.ok and report.invalid == 0, report.drop_reasons
    learnt = Counter(o.accelerator for o in offers if o.accelerator in ADDED_ACCELERATORS)
    assert learnt == ADDED_ACCELERATORS


# Offers of the accelerators added to the knowledge table for this snapshot (rows per accelerator)
ADDED_ACCELERATORS = {
    "RTX2000-Ada": 28,
    "Quadro-RTX6000": 18,
    "A800-PCIe-80GB": 13,
    "B300": 10,
    "MI25": 6,
    "GB300": 4,
    "A2000-6GB": 3,
    "P4000": 2,
    "M4000": 1,
    "RTX3060-12GB": 1,
    "RTX3060Ti": 1,
    "RTX4060Ti-16GB": 1,
    "RTX4070Ti-Super": 1,
}


def test_reloading_an_old_build_re_resolves_rows_the_table_has_learnt() -> None:
    rows = _bundled()
    for row in rows:  # as the file was built before the table knew the Quadro RTX 6000
        if row["gpu_name"] == "RTX6000":
            row.update(accelerator="", variant_exact="false", accelerator_note="is not in the table")
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    offers = SnapshotSource(buf.getvalue()).offers()
    quadro = [o for o in offers if o.extra["gpu_name_source"] == "RTX6000"]
    assert len(quadro) == 18 and {o.accelerator for o in quadro} == {"Quadro-RTX6000"}
    assert all("variant" not in o.extra for o in quadro)


def test_fresh_store_loads_the_snapshot_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite3'}"
    offers = api.current_offers(OfferQuery(gpus=api.gpu_family("H100"), sort="price_per_gpu"), db=url)
    assert offers and all(o.accelerator.startswith("H100") for o in offers)
    prices = [o.price_usd_per_gpu_hour for o in offers]
    assert prices == sorted(prices)
    with api.open_store(url) as store:
        [status] = store.sources_status()
        assert status.source == "snapshot" and status.fallback
        assert status.age_s is None and status.data_observed_at is None
        assert status.stale_rows > 0
        assert len(store.snapshots("snapshot")) == 1  # opened again: not reloaded


def test_default_store_lives_in_the_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GPUSCOUT_DATA_DIR", str(tmp_path / "d"))
    assert api.count_offers() > 1000
    assert (tmp_path / "d" / "catalog.sqlite3").exists()


def test_live_source_supersedes_snapshot_rows_of_its_provider(tmp_path: Path) -> None:
    with api.open_store(f"sqlite:///{tmp_path / 's.sqlite3'}") as store:
        before = store.count_offers(OfferQuery(providers=("lambda",)))
        assert before > 100
        store.write_snapshot("lambda", [make_offer(provider="lambda")])
        assert store.count_offers(OfferQuery(providers=("lambda",))) == 1
        assert store.count_offers(OfferQuery(providers=("aws",))) > 0


def test_gpu_family() -> None:
    assert set(api.gpu_family("H100")) == {"H100-SXM", "H100-PCIe", "H100-NVL"}
    assert set(api.gpu_family("A100-80GB")) == {"A100-SXM4-80GB", "A100-PCIe-80GB"}
    assert api.gpu_family("H100 SXM") == ("H100-SXM",)
    assert api.expand_gpus(["H100-SXM", "H100"])[0] == "H100-SXM"


def test_snapshot_store_type() -> None:
    assert isinstance(api.open_store("sqlite://"), Store)
