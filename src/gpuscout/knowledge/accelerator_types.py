"""The one ``Accelerator`` type."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuscout.errors import InvalidInputError


@dataclass(frozen=True, slots=True)
class Accelerator:
    """One accelerator model, variant-exact (H100 SXM and H100 PCIe are two accelerators).

    Rates are *dense* (no 2:4 sparsity) per device. ``None`` means not supported / unknown,
    never zero.
    """

    name: str  # canonical, e.g. "H100-SXM", "A100-PCIe-80GB", "RTX4090", "MI300X", "TPU-v5e"
    vendor: str  # NVIDIA, AMD, Intel, Google, AWS
    memory_gb: float
    memory_type: str
    bandwidth_gbps: float  # GB/s
    fp32_tflops: float | None
    tf32_tflops: float | None
    bf16_tflops: float | None  # dense bf16 tensor (fp16 equal unless fp16_tflops says otherwise)
    fp16_tflops: float | None
    fp8_tflops: float | None
    int8_tops: float | None
    fp4_tflops: float | None
    fp8_supported: bool  # native FP8 tensor cores
    fp4_supported: bool
    interconnect: str | None  # "NVLink 4", "PCIe 4.0", "Infinity Fabric", "ICI"...
    interconnect_gbps: float | None  # GB/s per device, bidirectional total as quoted
    tdp_w: float | None
    # Architecture family ("Hopper", "Ampere", "CDNA 3", "TPU v5e"...) and the target engines gate on:
    # NVIDIA compute capability ("9.0", "8.6"), AMD gfx target ("gfx942"); "" where neither applies.
    # Source: developer.nvidia.com/cuda-gpus (+ legacy list), AMD ROCm GPU support matrix.
    architecture: str
    compute_capability: str
    form_factor: str
    release_year: int | None
    kind: str  # "datacenter", "workstation", "consumer", "tpu", "asic"
    source: str
    confidence: str  # "verified", "partly-verified", "recalled"
    notes: str = ""
    aliases: tuple[str, ...] = field(default_factory=tuple)
    full_name: str = ""  # the reference table's descriptive name, e.g. "NVIDIA H100 SXM"
    # What the device reports as usable (nvidia-smi ``memory.total``) where a source records it: GDDR
    # datacenter cards ship with ECC on, which keeps 1/16 of the memory (an L4 sold as 24 GB shows
    # 23,034 MiB); a V100 16GB shows 16,160 MiB, more under its 16 GiB than the driver's share the other
    # HBM parts lose. A GDDR6 datacenter card without a measured figure (A16, L20) records the 1/16 ECC
    # rule's, its source starting "derived". ``memory_gb`` stays the vendor's figure. ``None``: not recorded.
    usable_memory_mib: int | None = None
    usable_memory_source: str = ""

    @property
    def usable_memory_gib(self) -> float | None:
        """Recorded usable memory in GiB (``usable_memory_mib`` / 1024); ``None`` when not recorded."""
        return None if self.usable_memory_mib is None else self.usable_memory_mib / 1024

    @property
    def usable_memory_derived(self) -> bool:
        """Whether the recorded usable memory is derived by a rule (the 1/16 ECC share), not measured."""
        return self.usable_memory_source.startswith("derived")

    @property
    def nvidia_cc(self) -> tuple[int, int] | None:
        """NVIDIA compute capability as ``(major, minor)``; ``None`` for other vendors or when unknown."""
        if self.vendor != "NVIDIA" or not self.compute_capability:
            return None
        major, _, minor = self.compute_capability.partition(".")
        return int(major), int(minor or 0)

    def tflops(self, precision_class: str) -> float | None:
        """Dense peak rate for a precision class, in TFLOPS (TOPS for int8); ``None`` if unknown/unsupported.

        Classes: "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4". ``fp16`` falls back to the bf16
        figure when no separate fp16 figure is recorded (same tensor rate on every part that has both).
        """
        key = precision_class.strip().lower()
        if key not in PRECISION_CLASSES:
            raise InvalidInputError(
                "precision_class",
                f"unknown precision class {precision_class!r}",
                ", ".join(PRECISION_CLASSES),
            )
        if key == "fp16":
            return self.fp16_tflops if self.fp16_tflops is not None else self.bf16_tflops
        rates = {
            "fp32": self.fp32_tflops,
            "tf32": self.tf32_tflops,
            "bf16": self.bf16_tflops,
            "fp8": self.fp8_tflops,
            "int8": self.int8_tops,
            "fp4": self.fp4_tflops,
        }
        return rates[key]

    @property
    def has_nvlink_class_fabric(self) -> bool:
        """True when GPUs in one box talk over a switched NVLink / Infinity Fabric / ICI fabric.

        Two-card bridges ("NVLink 3 bridge (2 GPUs)") and PCIe-only parts ("PCIe Gen4 x16 (no
        NVLink)") are not: cloud boxes of such cards talk over PCIe.
        """
        ic = (self.interconnect or "").lower()
        if not ic or ic.startswith("pcie") or "no nvlink" in ic or "bridge" in ic:
            return False
        return any(k in ic for k in ("nvlink", "infinity", "ici", "neuronlink", "roce"))


PRECISION_CLASSES: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")
