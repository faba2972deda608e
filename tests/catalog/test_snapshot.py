"""The bundled snapshot: built from the pinned reference by the rules, every change logged, dated
honestly, loaded on first use."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from pathlib import Path

import pytest

from gpuscout.catalog import api, snapshot_build
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.snapshot_build import (
    CHANGE_COLUMNS,
    CHANGES_CSV,
    REFERENCE_COLUMNS,
    REFERENCE_CSV,
    RULES_YAML,
    SNAPSHOT_COLUMNS,
    SnapshotBuildError,
    build,
    csv_text,
    read_reference,
)
from gpuscout.catalog.sources.snapshot import SnapshotSource, bundled_snapshot_text
from gpuscout.catalog.store import Store
from gpuscout.catalog.validate import validate_offers
from gpuscout.knowledge.accelerators import accelerator_names
from tests.catalog.helpers import make_offer


def _bundled() -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(bundled_snapshot_text())))


def _changes() -> list[dict[str, str]]:
    with CHANGES_CSV.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_bundled_file_and_change_log_are_up_to_date_with_the_builder() -> None:
    """Rebuild with `python -m gpuscout.catalog.snapshot_build` when this fails."""
    result = build()
    assert result.rows == _bundled()
    assert csv_text(result.rows, SNAPSHOT_COLUMNS) == bundled_snapshot_text()
    assert csv_text((c.as_row() for c in result.changes), CHANGE_COLUMNS) == CHANGES_CSV.read_text("utf-8")
    assert list(_bundled()[0]) == list(SNAPSHOT_COLUMNS)
    assert snapshot_build.main(["--check"]) == 0


def test_the_package_does_not_ship_or_read_the_builder_inputs() -> None:
    package = Path(snapshot_build.__file__).resolve().parents[1]
    assert not any(package.rglob("price_snapshot.csv")) and not any(package.rglob("rules.yaml"))
    assert REFERENCE_CSV.is_file() and RULES_YAML.is_file()  # the repository keeps them
    loader = (package / "catalog" / "sources" / "snapshot.py").read_text("utf-8")
    imports = [line for line in loader.splitlines() if line.startswith(("import ", "from "))]
    assert not [line for line in imports if "snapshot_build" in line]
    assert not re.search(r"price_snapshot|rules\.yaml", loader)


def test_every_reference_row_is_in_the_snapshot_or_in_the_change_log() -> None:
    """Nothing is lost silently: a reference row is an output row (perhaps merged with its copies in
    other regions, under its canonical region) or the change log says why it went."""
    reference = read_reference()
    assert len(reference) == 1533
    changes = _changes()
    gone = {(c["provider"], c["instance_type"], c["region"]) for c in changes if c["action"] == "drop"}
    merged = {
        (c["provider"], c["instance_type"], c["region"])
        for c in changes
        if c["rule"].startswith("aggregator-")
    }
    canonical = {
        (c["provider"], c["instance_type"], c["region"]): c["after"]
        for c in changes
        if c["rule"] == "region-canonical"
    }
    listed: set[tuple[str, str, str]] = set()
    for row in _bundled():
        for region in row["regions"].split(";") if row["regions"] else [row["region"]]:
            listed.add((row["provider"], row["instance_type"], region))
    for ref in reference:
        ident = (ref["provider"], ref["instance_type"], ref["region"])
        if ident in gone or ident in merged:
            assert ident not in listed
            continue
        region = canonical.get(ident, ref["region"])
        assert (ref["provider"], ref["instance_type"], region) in listed, ident


def test_changed_cells_are_exactly_the_logged_ones() -> None:
    """Outside the logged changes every cell is the reference's (prices, counts, memory, sources)."""
    changes = _changes()
    logged: dict[tuple[str, str, str], dict[str, str]] = {}
    canonical: dict[tuple[str, str, str], str] = {}
    for c in changes:
        ident = (c["provider"], c["instance_type"], c["region"])
        if c["rule"] == "region-canonical":
            canonical[ident] = c["after"]
        elif c["action"] in ("set", "clear_spot"):
            logged.setdefault(ident, {})[c["field"]] = c["after"]
    rows: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in _bundled():
        for region in row["regions"].split(";") if row["regions"] else [row["region"]]:
            rows[(row["provider"], row["instance_type"], region)] = row
    checked = 0
    for ref in read_reference():
        ident = (ref["provider"], ref["instance_type"], ref["region"])
        row = rows.get((*ident[:2], canonical.get(ident, ref["region"])))
        if row is None:
            continue  # dropped or merged into a first-party row: the test above
        expected = {c: ref[c] for c in REFERENCE_COLUMNS if c != "region"}
        expected.update(logged.get(ident, {}))
        assert {c: row[c] for c in expected} == expected, ident
        checked += 1
    # Cudo, retired Azure, bigroot copies, the Sesterce V100 copy, merged resales
    assert checked == 1533 - 156 - 50 - 9 - 1 - 20


# What the rules did, by rule (README "Where the numbers come from" states these counts)
RULE_COUNTS = {
    ("provider-defunct", "drop"): 156,  # Cudo, shut down 2026-03-31
    ("azure-retired-nc-k80", "drop"): 16,
    ("azure-retired-nv-m60", "drop"): 6,
    ("azure-retired-ncv3-v100", "drop"): 28,
    ("runpod-spot-is-on-demand", "clear_spot"): 75,
    ("spot-not-below-on-demand", "clear_spot"): 16,  # Azure H100 v5 11, AWS 5
    ("aws-large-gpu-spot-implausible", "clear_spot"): 6,
    ("mithril-auction-price", "mark_interruptible"): 4,
    ("vast-group-median", "note"): 67,
    ("lambda-a100-40gb-is-pcie", "set"): 51,
    ("lambda-a100-40gb-sxm4-stated", "set"): 34,
    ("sxm-stated-in-the-instance-name", "set"): 4,  # Vast A100_SXM4 groups (one in 2 regions)
    ("h200-sxm-stated-in-the-instance-name", "set"): 12,  # Mithril 2, Nebius 6, Verda 4
    ("spheron-massed-compute-a100-sxm4", "set"): 1,
    ("spheron-massed-compute-dgx-a100-sxm4", "set"): 1,
    ("lium-rtx-pro-6000-workstation", "set"): 1,
    ("vast-rtx-pro-6000-server", "set"): 1,
    ("aggregator-primeintellect", "merge"): 20,  # its Hyperstack rows, at Hyperstack's prices
    ("aggregator-spheron", "merge"): 0,  # data-crunch and spheron-ai rows are dearer than the first party
    ("resale-priced-apart", "note"): 43,  # Prime Intellect 25, Spheron data-crunch 4, spheron-ai 14
    ("spheron-bigroot-copy", "drop"): 9,
    ("sesterce-v100-copy", "drop"): 1,
    ("sesterce-new-york-price-doubtful", "note"): 13,  # audit 4.3 (14 rows, one a copy)
    ("collapse-lambda", "merge"): 374,
    # Prime Intellect's DataCrunch H200 boxes (3 types x FI, IS), its Nebius H200 (1x: 3 regions, 8x:
    # 2) and its Lambda A100 40GB (1x PCIe: 2 regions, 8x SXM4: 3)
    ("resold-variant", "relabel"): 16,
    ("hgx-h200-instance-types", "set"): 15,  # AWS p5en 11, OCI BM.GPU.H200.8 4
    ("hgx-a100-40gb-instance-types", "set"): 17,  # AWS p4d 12, Azure ND96asr_v4 3, OCI BM.GPU4.8 2
    ("hgx-v100-32gb-instance-types", "set"): 7,  # AWS p3dn 4, Azure ND40rs_v2 3
}


def test_each_rule_changed_the_rows_the_audit_names() -> None:
    counts = Counter((c["rule"], c["action"]) for c in _changes())
    assert {k: counts[k] for k in RULE_COUNTS} == RULE_COUNTS
    assert all(c["source"] and c["detail"] for c in _changes())
    assert len(_bundled()) == 749
    providers = Counter(r["provider_id"] for r in _bundled())
    assert "cudo" not in providers and len(providers) == 21
    assert providers["lambda"] == 22  # 22 types, one row each ("all listed")


def test_stale_flag_marks_exactly_the_v6_files() -> None:
    rows = _bundled()
    stale = Counter(r["provider"] for r in rows if r["stale"] == "true")
    # Azure: 165 reference rows less 50 retired sizes, region copies merged
    assert stale == {"azure": 77, "paperspace": 14, "digitalocean": 2}
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


def test_unstated_form_factor_and_edition_are_flagged() -> None:
    rows = _bundled()
    plain = [r for r in rows if r["gpu_name"] in ("H100", "A100-80GB", "RTXPRO6000")]
    assert plain and all(
        r["variant_exact"] == "false" and "not stated" in r["accelerator_note"] for r in plain
    )
    stated = [
        r for r in rows if r["gpu_name"] in ("H100-SXM", "H100-PCIe", "A100-80GB-SXM", "A100-40GB-PCIe")
    ]
    assert stated and all(r["variant_exact"] == "true" for r in stated)


def test_lambda_a100_40gb_is_pcie_and_its_sxm4_types_stay_sxm4() -> None:
    lam = {r["instance_type"]: r for r in _bundled() if r["provider"] == "lambda"}
    for name in ("gpu_1x_a100", "gpu_2x_a100", "gpu_4x_a100"):
        assert (lam[name]["accelerator"], lam[name]["variant_exact"]) == ("A100-PCIe-40GB", "true")
    for name in ("gpu_1x_a100_sxm4", "gpu_8x_a100"):
        assert (lam[name]["accelerator"], lam[name]["variant_exact"]) == ("A100-SXM4-40GB", "true")
    spheron = {r["instance_type"]: r for r in _bundled() if r["provider"] == "spheron"}
    assert spheron["massed-compute:gpu_1x_a100_SXM4_us-central-3"]["accelerator"] == "A100-SXM4-80GB"


def test_offers_have_no_invented_date_and_carry_flags() -> None:
    source = SnapshotSource()
    offers = source.offers()
    assert len(offers) + len(source.dropped) == 749
    assert [d.row for d in source.dropped] == ["vast/1x-RTX_4090-32-65536/country:HK"]  # modded 48 GB
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
    lam = next(o for o in offers if o.instance_type == "gpu_8x_h100_sxm5")
    assert lam.region == "all listed (17 regions)" and len(lam.regions) == 17 and "us-east-1" in lam.regions
    assert lam.also_listed_by == () and "all listed" in lam.notes  # resold for less: its own row
    hyperstack = next(o for o in offers if o.instance_type == "n3-H100x1")
    assert hyperstack.also_listed_by == ("primeintellect",)  # resold at the same $1.90
    assert all(o.price_is_interruptible == (o.provider == "mithril") for o in offers)


def test_every_loaded_offer_passes_the_validation_gate() -> None:
    offers = SnapshotSource().offers()
    report = validate_offers("snapshot", offers)
    assert report.ok and report.invalid == 0, report.drop_reasons
    learnt = Counter(o.accelerator for o in offers if o.accelerator in ADDED_ACCELERATORS)
    assert learnt == ADDED_ACCELERATORS


# Offers of the accelerators added to the knowledge table for this snapshot (rows per accelerator,
# after the rules: Cudo's 13 A800 rows went with Cudo, region copies are one row)
ADDED_ACCELERATORS = {
    "RTX2000-Ada": 2,
    "Quadro-RTX6000": 2,
    "B300": 7,
    "MI25": 2,
    "GB300": 1,
    "A2000-6GB": 3,
    "P4000": 2,
    "M4000": 1,
    "RTX3060-12GB": 1,
    "RTX3060Ti": 1,
    "RTX4060Ti-16GB": 1,
    "RTX4070Ti-Super": 1,
    "RTXPRO6000-Server": 28,
    "RTXPRO6000-WS": 1,
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
    assert len(quadro) == 2 and {o.accelerator for o in quadro} == {"Quadro-RTX6000"}
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
    assert api.count_offers() > 700
    assert (tmp_path / "d" / "catalog.sqlite3").exists()


def test_live_source_supersedes_snapshot_rows_of_its_provider(tmp_path: Path) -> None:
    with api.open_store(f"sqlite:///{tmp_path / 's.sqlite3'}") as store:
        before = store.count_offers(OfferQuery(providers=("lambda",)))
        assert before == 22
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


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _rules(tmp_path: Path, rule: str) -> Path:
    """A rules file with one rule and the real sections."""
    text = RULES_YAML.read_text("utf-8")
    head, _, rest = text.partition("\nrules:\n")
    _, _, tail = rest.partition("\n# Aggregators")
    return _write(tmp_path / "rules.yaml", f"{head}\nrules:\n{rule}\n# Aggregators{tail}")


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (
            "  - {id: x, action: explode, match: {provider: aws}, reason: r, source: s}",
            "x.action: one of",
        ),
        (
            "  - {id: x, action: drop, match: {provider: nobody}, reason: r, source: s}",
            "x: matches no row",
        ),
        (
            "  - {id: x, action: drop, match: {colour: red}, reason: r, source: s}",
            "x.match: unknown keys",
        ),
        ("  - {id: x, action: drop, match: {provider: aws}, source: s}", "x.reason: expected text"),
        (
            "  - {id: x, action: set, set: {price_per_hour_usd: '0'}, match: {provider: aws},"
            " reason: r, source: s}",
            "x.set: only",
        ),
    ],
)
def test_malformed_rules_are_refused_naming_the_rule(tmp_path: Path, rule: str, message: str) -> None:
    with pytest.raises(SnapshotBuildError, match=re.escape(message)):
        build(rules=_rules(tmp_path, rule))


def test_a_region_with_no_canonical_form_stops_the_build(tmp_path: Path) -> None:
    text = REFERENCE_CSV.read_text("utf-8").replace(",Bavaria, DE, EU,", ",somewhere in Bavaria,", 1)
    text = text.replace('"Bavaria, DE, EU"', '"somewhere in Bavaria"', 1)
    with pytest.raises(SnapshotBuildError, match="somewhere in Bavaria"):
        build(reference=_write(tmp_path / "ref.csv", text))


def test_check_mode_reports_an_out_of_date_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = _write(tmp_path / "snapshot.csv", "provider\n")
    changes = tmp_path / "changes.csv"
    assert snapshot_build.main(["--check", "--target", str(target), "--changes", str(changes)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert snapshot_build.main(["--target", str(target), "--changes", str(changes)]) == 0
    assert target.read_text("utf-8") == bundled_snapshot_text()
    assert snapshot_build.main(["--check", "--target", str(target), "--changes", str(changes)]) == 0


def test_the_bundled_load_names_its_dropped_rows_in_plain_words(tmp_path: Path) -> None:
    """The shipped file holds one row whose GPU the table does not know (a 48 GB RTX 4090): the load's
    reason counts it in the singular."""
    source = SnapshotSource()
    source.offers()
    dropped = len(source.dropped)
    store = Store(f"sqlite:///{tmp_path / 'catalog.sqlite3'}")
    try:
        result = api.load_bundled_snapshot(store)
        assert result is not None and result.ok
        [status] = store.sources_status()
        assert dropped == 1
        assert status.last_reason == "1 row with GPUs not in the accelerator table"
    finally:
        store.close()


def test_a_resold_box_takes_the_variant_its_first_party_lists() -> None:
    # Prime Intellect's "datacrunch__8xH200..." says "H200"; Verda, whose box it is, lists its H200s
    # as SXM only: the row is H200-SXM (NVLink), with a note saying why; it was costed over PCIe
    rows = {(r["instance_type"], r["region"]): r for r in _bundled() if r["provider"] == "primeintellect"}
    row = rows[("datacrunch__8xH200_141GB__176__1450", "country:FI")]
    assert (row["accelerator"], row["variant_exact"]) == ("H200-SXM", "true")
    assert "verda" in row["accelerator_note"] and "not stated" in row["accelerator_note"]
    offer = next(
        o
        for o in SnapshotSource().offers()
        if o.provider == "primeintellect" and o.instance_type == row["instance_type"]
    )
    assert offer.interconnect.value == "nvlink" and "verda" in offer.notes
    # a first party of other variants (or none stated) leaves the reseller's row assumed
    v100 = [r for r in rows.values() if r["gpu_name"] == "V100" and "verda" in r["extra"]]
    assert v100 and all(r["variant_exact"] == "false" for r in v100)  # Verda's own V100 is assumed too


def test_a_first_party_listing_two_variants_leaves_the_resold_row_assumed(tmp_path: Path) -> None:
    text = REFERENCE_CSV.read_text("utf-8")
    extra = (
        "verda,1H200NVL.141N.32V,FIN-02,H200-NVL,1,141,32,180,3.0,,"
        "https://example.invalid/verda-nvl,unknown\n"
    )
    result = build(reference=_write(tmp_path / "ref.csv", text.rstrip("\n") + "\n" + extra))
    row = next(r for r in result.rows if r["instance_type"] == "datacrunch__8xH200_141GB__176__1450")
    assert row["variant_exact"] == "false" and "assumed" in row["accelerator_note"]
    assert not any(
        c.rule == "resold-variant" and c.instance_type == "datacrunch__8xH200_141GB__176__1450"
        for c in result.changes
    )


def test_documented_hgx_instance_types_are_sxm_and_nvlink() -> None:
    # p5en said "H200", p4d "A100-40GB", p3dn "V100-32GB": assumed variants, so their eight GPUs were
    # costed over PCIe; the providers' pages state HGX / NVLink boards
    offers = {(o.provider, o.instance_type): o for o in SnapshotSource().offers()}
    for key, name in [
        (("aws", "p5en.48xlarge"), "H200-SXM"),
        (("aws", "p4d.24xlarge"), "A100-SXM4-40GB"),
        (("aws", "p3dn.24xlarge"), "V100-SXM2-32GB"),
        (("oci", "BM.GPU.H200.8"), "H200-SXM"),
        (("azure", "Standard_ND96asr_v4"), "A100-SXM4-40GB"),
    ]:
        o = offers[key]
        assert o.accelerator == name and o.interconnect.value == "nvlink", key
        assert o.extra.get("variant") != "assumed", key
