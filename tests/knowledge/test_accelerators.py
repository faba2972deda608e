"""The accelerator table and the GPU name resolver."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import (
    accelerator_names,
    all_accelerators,
    resolve_gpu,
    resolve_gpu_detail,
)
from tests.conftest import CALIBRATION, REFERENCE

# name as written by users / providers / benchmark tables -> canonical name
EXACT = {
    "H100 SXM 80GB": "H100-SXM",
    "NVIDIA H100 80GB HBM3": "H100-SXM",
    "h100-sxm5": "H100-SXM",
    "H100_SXM5_80GB": "H100-SXM",
    "H100 PCIe 80GB": "H100-PCIe",
    "H100 NVL": "H100-NVL",
    "A100-SXM4-80GB": "A100-SXM4-80GB",
    "a100 80gb pcie": "A100-PCIe-80GB",
    "A100 PCIe 80GB": "A100-PCIe-80GB",
    "A100 SXM 80GB": "A100-SXM4-80GB",
    "A100-80GB-SXM": "A100-SXM4-80GB",
    "A100-80GB-PCIe": "A100-PCIe-80GB",
    "RTX 4090 24GB": "RTX4090",
    "4090": "RTX4090",
    "NVIDIA GeForce RTX 4090": "RTX4090",
    "L40S 48GB": "L40S",
    "RTX 6000 Ada 48GB": "RTX6000-Ada",
    "RTX6000-Ada": "RTX6000-Ada",
    "RTX A6000 48GB": "A6000",
    "A6000": "A6000",
    "A10G": "A10G",
    "A10": "A10",
    "MI300X": "MI300X",
    "AMD MI300X": "MI300X",
    "tpu-v5e": "TPU-v5e",
    "TPU v5e": "TPU-v5e",
    "RTX 3090 24GB": "RTX3090",
    "RTX 3090 Ti": "RTX3090Ti",
    "RTX 4000 Ada 20GB": "RTX4000-Ada",
    "RTX 5000 Ada 32GB": "RTX5000-Ada",
    "RTX 3070 8GB": "RTX3070",
    "RTX 3080 10GB": "RTX3080",
    "RTX 4070 Ti 12GB": "RTX4070Ti",
    "Tesla P40": "P40",
    "RTX 2080 Ti": "RTX2080Ti",
    "B200": "B200",
    "GB200": "GB200",
    "RTX5090": "RTX5090",
    "RTXPRO6000": "RTXPRO6000",
    "RTX PRO 6000": "RTXPRO6000",
    "T4": "T4",
    "T4G": "T4",
    "L4": "L4",
    "H100-NVL": "H100-NVL",
    "H100-PCIe": "H100-PCIe",
    "H100-SXM": "H100-SXM",
    "H200 NVL": "H200-NVL",
    "GH200 144GB": "GH200-144GB",
    "Gaudi 3": "Gaudi3",
    "trn2": "Trainium2",
    "A100 SXM 80GB (330W cap)": "A100-SXM4-80GB",
    "GB200 (NVL72 rack)": "GB200",
    "AMD MI250X (one GCD)": "MI250X-GCD",
    # GPU counts in provider labels and instance names are ignored
    "gpu_1x_h100_sxm5": "H100-SXM",
    "H100_sxm5x8": "H100-SXM",
    "A10Gx1": "A10G",
    "AMD MI300X - 8X": "MI300X",
    "2x RTX A6000 48GB": "A6000",
    # the rows added for the price snapshot's GPUs, as the snapshot and providers write them
    "B300": "B300",
    "HGX B300": "B300",
    "GB300 NVL72": "GB300",
    "A800-80GB-PCIe": "A800-PCIe-80GB",
    "A800 PCIe 80GB": "A800-PCIe-80GB",
    "RTX2000-Ada": "RTX2000-Ada",
    "RTX 2000 Ada Generation": "RTX2000-Ada",
    "RTX3060 12GB": "RTX3060-12GB",
    "RTX 3060 Ti": "RTX3060Ti",
    "RTX4060Ti 16GB": "RTX4060Ti-16GB",
    "RTX4070Ti-Super": "RTX4070Ti-Super",
    "RTX_4070S_Ti": "RTX4070Ti-Super",  # Vast.ai's label
    "GeForce RTX 4070 Ti SUPER": "RTX4070Ti-Super",
    "RTX A2000 6GB": "A2000-6GB",
    "Quadro M4000": "M4000",
    "P4000": "P4000",
    "Radeon-MI25": "MI25",
    "AMD Radeon Instinct MI25": "MI25",
    "Quadro RTX 6000": "Quadro-RTX6000",
    "quadro_rtx_6000": "Quadro-RTX6000",
    "RTX6000 24GB": "Quadro-RTX6000",
}

# bare family names: resolve to the documented default, flagged inexact
DEFAULTED = {
    "H100": "H100-SXM",
    "H100 80GB": "H100-SXM",
    "H200": "H200-SXM",
    "A100": "A100-SXM4-80GB",
    "A100 80GB": "A100-SXM4-80GB",
    "A100-40GB": "A100-SXM4-40GB",
    "A100 40GB": "A100-SXM4-40GB",
    "A100 PCIe": "A100-PCIe-80GB",
    "V100": "V100-SXM2-16GB",
    "V100-32GB": "V100-SXM2-32GB",
    "GH200": "GH200-96GB",
    # parts whose siblings are not in the table: the name must say which
    "A800": "A800-PCIe-80GB",
    "A800 80GB": "A800-PCIe-80GB",
    "A800 PCIe": "A800-PCIe-80GB",
    "RTX 3060": "RTX3060-12GB",
    "RTX 4060 Ti": "RTX4060Ti-16GB",
    "RTX A2000": "A2000-6GB",
}


@pytest.mark.parametrize(("name", "canonical"), sorted(EXACT.items()))
def test_resolves_exactly(name: str, canonical: str) -> None:
    res = resolve_gpu_detail(name)
    assert res.accelerator.name == canonical
    assert res.exact, res.note


@pytest.mark.parametrize(("name", "canonical"), sorted(DEFAULTED.items()))
def test_bare_family_resolves_to_default_and_says_so(name: str, canonical: str) -> None:
    res = resolve_gpu_detail(name)
    assert res.accelerator.name == canonical
    assert not res.exact
    assert "not stated" in res.note and canonical in res.note
    assert resolve_gpu(name).name == canonical


def test_every_canonical_name_and_alias_resolves_to_itself() -> None:
    for acc in all_accelerators():
        assert resolve_gpu(acc.name) is acc
        assert resolve_gpu(acc.full_name) is acc
        for alias in acc.aliases:
            assert resolve_gpu(alias) is acc, alias


def test_stated_memory_is_never_overridden() -> None:
    assert resolve_gpu("A100 40GB").memory_gb == 40
    assert resolve_gpu("A100 PCIe 40GB").memory_gb == 40
    assert resolve_gpu("A100 80 GB").memory_gb == 80
    assert resolve_gpu("V100 32G").memory_gb == 32


@pytest.mark.parametrize(
    "name", ["RTX 4090 48GB", "H100 SXM 94GB", "A100 48GB", "RTX 3080 12GB", "RTX 3060 8GB", "A800 40GB"]
)
def test_memory_that_matches_no_variant_is_an_error_listing_the_variants(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu(name)
    family = name.split()[0] if not name.startswith("RTX") else "RTX" + name.split()[1]
    assert any(s.startswith(family) for s in info.value.suggestions)


def test_variants_that_differ_stay_apart() -> None:
    assert resolve_gpu("H100 SXM").bandwidth_gbps > resolve_gpu("H100 PCIe").bandwidth_gbps
    assert resolve_gpu("H100 NVL").memory_gb == 94
    assert resolve_gpu("A10").name != resolve_gpu("A10G").name
    assert resolve_gpu("L40").name != resolve_gpu("L40S").name


@pytest.mark.parametrize("name", ["H800-80GB-PCIe", "B400", "Radeon MI50", "n/a", "", "   ", "80GB"])
def test_unknown_names_raise_with_suggestions(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu(name)
    assert info.value.field == "gpu"
    assert not info.value.ambiguous
    assert all(s in accelerator_names() for s in info.value.suggestions)


def test_unknown_name_suggests_nearby_parts() -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu("H800-80GB-PCIe", field="--gpu")
    assert info.value.field == "--gpu"
    assert "A100-PCIe-80GB" in info.value.suggestions[:3]
    assert "H100-PCIe" in info.value.suggestions
    assert "A100-PCIe-80GB" in str(info.value)


@pytest.mark.parametrize("name", ["A800 SXM4 80GB", "A800 40GB", "RTX 4060 Ti 8GB", "RTX A2000 12GB"])
def test_a_sibling_missing_from_the_table_is_refused_not_mapped(name: str) -> None:
    # the table has only A800 PCIe 80GB, RTX 4060 Ti 16GB, RTX A2000 6GB: their siblings differ in memory
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu(name)
    assert not info.value.ambiguous
    assert info.value.suggestions[0] in {"A800-PCIe-80GB", "RTX4060Ti-16GB", "A2000-6GB"}


@pytest.mark.parametrize("name", ["RTX6000", "RTX 6000", "6000"])
def test_rtx_6000_is_ambiguous(name: str) -> None:
    # Quadro RTX 6000 (Turing, 24 GB), RTX 6000 Ada (48 GB), RTX PRO 6000 Blackwell (96 GB)
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu(name)
    assert info.value.ambiguous
    assert {"Quadro-RTX6000", "RTX6000-Ada", "RTXPRO6000"} <= set(info.value.suggestions)


def test_memory_or_quadro_picks_the_rtx_6000() -> None:
    # Lambda and Seeweb list the 24 GB Quadro RTX 6000 as "RTX6000": never the 48 GB Ada card
    assert resolve_gpu("RTX6000 24GB").name == "Quadro-RTX6000"
    assert resolve_gpu("RTX6000", memory_gb=24).name == "Quadro-RTX6000"
    assert resolve_gpu("NVIDIA Quadro RTX 6000").name == "Quadro-RTX6000"
    assert resolve_gpu("RTX 6000 48GB").name == "RTX6000-Ada"
    assert resolve_gpu("RTX 6000", memory_gb=96).name == "RTXPRO6000"
    assert resolve_gpu("Quadro P4000").name == "P4000"  # "Quadro" elsewhere is still a vendor word
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu("RTX 6000 32GB")
    assert not info.value.ambiguous


def test_table_keeps_every_reference_row() -> None:
    with open(REFERENCE / "accelerators.csv", newline="") as fh:
        ref = list(csv.DictReader(fh))
    assert len(ref) == 64
    by_full = {a.full_name: a for a in all_accelerators()}
    for row in ref:
        acc = by_full[row["name"]]
        assert acc.memory_gb == float(row["memory_gb"])
        assert acc.bandwidth_gbps == float(row["memory_bandwidth_gbps"])
        assert acc.bf16_tflops == (float(row["bf16_tflops_dense"]) if row["bf16_tflops_dense"] else None)
        assert acc.fp8_tflops == (float(row["fp8_tflops_dense"]) if row["fp8_tflops_dense"] else None)
        assert acc.source == row["source"]
    # one derived row (MI250X as software sees it, one GCD of two) and 13 rows added for GPUs the
    # price snapshot lists (B300, GB300, A800, RTX 2000 Ada, Quadro RTX 6000...; see docs/knowledge-data.md)
    assert len(all_accelerators()) == 78


def test_table_fields_are_sane() -> None:
    names = accelerator_names()
    assert len(names) == len(set(names))
    for acc in all_accelerators():
        assert acc.memory_gb > 0 and acc.bandwidth_gbps > 0
        assert acc.kind in {"datacenter", "workstation", "consumer", "tpu", "asic"}
        assert acc.confidence in {"verified", "partly-verified", "recalled"}
        assert acc.source
        if acc.fp8_tflops is not None:
            assert acc.fp8_supported
        if acc.fp4_tflops is not None:
            assert acc.fp4_supported
        for rate in (acc.fp32_tflops, acc.bf16_tflops, acc.fp8_tflops, acc.int8_tops):
            assert rate is None or rate > 0


def test_hand_checked_specs() -> None:
    h100 = resolve_gpu("H100 SXM")
    assert (h100.memory_gb, h100.bandwidth_gbps, h100.bf16_tflops, h100.fp8_tflops) == (80, 3350, 989.5, 1979)
    assert h100.fp8_supported and not h100.fp4_supported
    a100 = resolve_gpu("A100 SXM 80GB")
    assert not a100.fp8_supported and a100.fp8_tflops is None
    assert resolve_gpu("B200").fp4_supported
    gcd = resolve_gpu("MI250X GCD")
    whole = resolve_gpu("MI250X")
    assert gcd.memory_gb * 2 == whole.memory_gb and gcd.bandwidth_gbps * 2 == whole.bandwidth_gbps


def test_tflops_by_precision_class() -> None:
    h100 = resolve_gpu("H100 SXM")
    assert h100.tflops("bf16") == 989.5
    assert h100.tflops("FP8") == 1979
    assert h100.tflops("fp4") is None
    v100 = resolve_gpu("V100")
    assert v100.tflops("bf16") is None  # Volta has no bf16 tensor cores
    assert v100.tflops("fp16") == 125
    gaudi = resolve_gpu("Gaudi3")
    assert gaudi.tflops("fp16") == gaudi.tflops("bf16")
    with pytest.raises(InvalidInputError) as info:
        h100.tflops("fp12")
    assert info.value.field == "precision_class"


# Calibration names that name no single accelerator in the table, and why.
CALIBRATION_SKIP = {
    "n/a": "file-size / VRAM tables with no GPU",
}


def test_every_calibration_gpu_resolves() -> None:
    with open(CALIBRATION, newline="") as fh:
        names = {row["gpu"] for row in csv.DictReader(fh)}
    for name in sorted(names - set(CALIBRATION_SKIP)):
        resolve_gpu(name)
    for name in CALIBRATION_SKIP:
        with pytest.raises(UnknownNameError):
            resolve_gpu(name)


# Snapshot (name, memory) pairs that name no part in the table (refused rather than mapped to a neighbour).
SNAPSHOT_NOT_IN_TABLE = {
    ("RTX4090", 48.0),  # a modded 48 GB card (Vast, Hong Kong): not the 24 GB RTX 4090
}


def test_every_price_snapshot_gpu_in_the_table_resolves_with_its_listed_memory() -> None:
    with open(REFERENCE / "price_snapshot.csv", newline="") as fh:
        pairs = {(row["gpu_name"], float(row["gpu_memory_gb"])) for row in csv.DictReader(fh)}
    resolved = 0
    for name, memory in sorted(pairs):
        if (name, memory) in SNAPSHOT_NOT_IN_TABLE:
            with pytest.raises(UnknownNameError):
                resolve_gpu(name, memory_gb=memory)
            continue
        found = resolve_gpu_detail(name, memory_gb=memory)
        assert abs(found.accelerator.memory_gb - memory) <= 1, (name, found.accelerator.name)
        if name in SNAPSHOT_ADDED:
            assert (found.accelerator.name, found.exact) == (SNAPSHOT_ADDED[name], True), name
        resolved += 1
    assert resolved == 52


# Snapshot names the table learnt in the added rows -> the part (every one variant-exact with its memory)
SNAPSHOT_ADDED = {
    "A2000": "A2000-6GB",
    "A800-80GB-PCIe": "A800-PCIe-80GB",
    "B300": "B300",
    "GB300": "GB300",
    "M4000": "M4000",
    "P4000": "P4000",
    "Radeon-MI25": "MI25",
    "RTX2000-Ada": "RTX2000-Ada",
    "RTX3060": "RTX3060-12GB",
    "RTX3060Ti": "RTX3060Ti",
    "RTX4060Ti": "RTX4060Ti-16GB",
    "RTX4070Ti-Super": "RTX4070Ti-Super",
    "RTX6000": "Quadro-RTX6000",
}


def test_added_rows_are_marked_recalled_with_a_vendor_source() -> None:
    for name in SNAPSHOT_ADDED.values():
        acc = resolve_gpu(name)
        assert acc.confidence == "recalled", name
        assert acc.source.startswith("https://www.nvidia.") or acc.source.startswith("https://www.amd.com/")
        assert "not re-read" in acc.notes, name


def test_added_rows_hand_checked_specs() -> None:
    # Blackwell Ultra: same dense BF16/FP8 as Blackwell, FP4 dense from the datasheet (1.5x B200's)
    b300, gb300, b200 = resolve_gpu("B300"), resolve_gpu("GB300"), resolve_gpu("B200")
    assert (b300.memory_gb, b300.bf16_tflops, b300.fp8_tflops) == (288, b200.bf16_tflops, b200.fp8_tflops)
    assert b300.fp4_tflops == 1.5 * (b200.fp4_tflops or 0) and gb300.fp4_tflops == 15000
    assert b300.int8_tops is None and b300.fp32_tflops is None  # not recalled with confidence: blank
    # A800 = A100 PCIe 80GB compute and memory with NVLink capped at 400 GB/s
    a800, a100 = resolve_gpu("A800 PCIe 80GB"), resolve_gpu("A100 PCIe 80GB")
    assert (a800.memory_gb, a800.bandwidth_gbps, a800.bf16_tflops) == (
        a100.memory_gb,
        a100.bandwidth_gbps,
        a100.bf16_tflops,
    )
    assert a800.interconnect_gbps == 400 and not a800.fp8_supported
    quadro = resolve_gpu("Quadro RTX 6000")  # Turing: fp16 tensor cores, no bf16
    assert (quadro.memory_gb, quadro.bf16_tflops, quadro.tflops("fp16")) == (24, None, 130.5)
    assert resolve_gpu("RTX 2000 Ada").fp8_tflops == 191.9 / 2  # datasheet's sparse FP8, halved
    assert resolve_gpu("MI25").bf16_tflops is None


def test_listed_memory_picks_the_variant() -> None:
    assert resolve_gpu("A100", memory_gb=40).name == "A100-SXM4-40GB"
    assert resolve_gpu("V100", memory_gb=32).name == "V100-SXM2-32GB"
    assert resolve_gpu("GH200", memory_gb=144).name == "GH200-144GB"
    assert resolve_gpu("RTX4090", memory_gb=24).name == "RTX4090"
    with pytest.raises(UnknownNameError):
        resolve_gpu("RTX4090", memory_gb=48)
    assert resolve_gpu("RTX 4060 Ti", memory_gb=16).name == "RTX4060Ti-16GB"
    with pytest.raises(UnknownNameError):
        resolve_gpu("RTX 4060 Ti", memory_gb=8)
    with pytest.raises(UnknownNameError):
        resolve_gpu("A100 40GB", memory_gb=80)


def test_accelerator_passes_through() -> None:
    h100 = resolve_gpu("H100 SXM")
    assert resolve_gpu(h100) is h100


_SEPARATORS = st.sampled_from([" ", "-", "_", "  ", " - "])


@settings(max_examples=200, deadline=None)
@given(acc=st.sampled_from(all_accelerators()), sep=_SEPARATORS, data=st.data())
def test_case_and_separators_do_not_matter(acc: Accelerator, sep: str, data: st.DataObject) -> None:
    label = data.draw(st.sampled_from((acc.name, *acc.aliases)))
    flags = data.draw(st.lists(st.booleans(), min_size=len(label), max_size=len(label)))
    mangled = "".join(c.upper() if f else c.lower() for c, f in zip(label, flags, strict=True))
    mangled = mangled.replace("-", sep).replace(" ", sep)
    assert resolve_gpu(mangled) is acc
    assert resolve_gpu(f"NVIDIA {mangled}" if acc.vendor == "NVIDIA" else mangled) is acc


def test_fabric_classification_reads_pcie_only_and_bridges_as_pcie() -> None:
    from gpuscout.knowledge.accelerators import resolve_gpu

    assert resolve_gpu("H100 SXM").has_nvlink_class_fabric
    assert resolve_gpu("MI300X").has_nvlink_class_fabric
    assert not resolve_gpu("RTX 4090").has_nvlink_class_fabric  # "PCIe Gen4 x16 (no NVLink)"
    assert not resolve_gpu("A6000").has_nvlink_class_fabric  # 2-GPU bridge only
    assert not resolve_gpu("H100 PCIe").has_nvlink_class_fabric
    assert not resolve_gpu("L40S").has_nvlink_class_fabric


def test_every_accelerator_states_its_architecture_and_nvidia_parts_their_compute_capability() -> None:
    from gpuscout.knowledge.accelerators import all_accelerators

    for acc in all_accelerators():
        assert acc.architecture, acc.name
        if acc.vendor == "NVIDIA":
            assert acc.nvidia_cc is not None, acc.name
    assert resolve_gpu("V100").nvidia_cc == (7, 0)
    assert resolve_gpu("H100").nvidia_cc == (9, 0)
    assert resolve_gpu("RTX 5090").nvidia_cc == (12, 0)
    assert resolve_gpu("MI300X").compute_capability == "gfx942"
    assert resolve_gpu("MI300X").nvidia_cc is None
