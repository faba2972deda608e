"""Cudo Compute: ``GET https://rest.compute.cudo.org/v1/vms/machine-types`` (no key, as gpuhunt called it).

Cudo prices components per hour (GPU, vCPU, GiB RAM, GiB storage, IPv4), so an offer is a
configuration gpuscout chooses, priced by summing components. The configuration, documented:

* GPU counts 1, 2, 4 and 8 up to ``maxGpuFree`` (the most free on one host); at least 1.
* vCPUs per GPU: :data:`VCPU_PER_GPU`, clamped to the type's ``minVcpuPerGpu``..``maxVcpuPerGpu``.
* RAM: :data:`RAM_GIB_PER_VCPU` GiB per vCPU, clamped to the type's vCPU/GiB ratio limits.
* Disk :data:`DISK_GIB` GiB at ``minStorageGibPriceHr`` and one IPv4 address.

Availability from the live free counts: a count within ``maxGpuFree`` (and vCPUs within
``maxVcpuFree``) is available, else unavailable; ``available_count`` is ``totalGpuFree`` //
count, an upper bound on how many such VMs the data centre could start. gpuhunt dropped Cudo in
064e1d6, so whether this endpoint still answers is uncertain (providers.md).
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import MissingField, envelope, field, now_utc, parse_rows

MACHINE_TYPES_URL = "https://rest.compute.cudo.org/v1/vms/machine-types"
VCPU_PER_GPU = 8
RAM_GIB_PER_VCPU = 4
DISK_GIB = 100
GPU_COUNTS = (1, 2, 4, 8)


def _rate(row: dict[str, Any], key: str) -> float:
    block = field(row, key, "machineTypes[]", dict)
    if "value" not in block:
        raise MissingField(f"machineTypes[].{key}.value")
    try:
        return float(block["value"])
    except (TypeError, ValueError):
        raise MissingField(
            f"machineTypes[].{key}.value", f"is {block['value']!r}, expected a number"
        ) from None


def _clamp(value: float, low: Any, high: Any) -> float:
    if isinstance(low, int | float) and low > 0:
        value = max(value, float(low))
    if isinstance(high, int | float) and high > 0:
        value = min(value, float(high))
    return value


class CudoSource(HttpSource):
    name = "cudo"
    provider = "cudo"
    endpoint = MACHINE_TYPES_URL
    needs_credentials = ()  # CUDO_API_KEY optional

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        key = os.environ.get("CUDO_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else None
        payload = await self.http(client).get_json(MACHINE_TYPES_URL, headers=headers)
        rows = envelope(payload, "machineTypes", self.name)
        observed = now_utc()
        return parse_rows(self, rows, lambda r: self._offers(r, observed), _ident)

    def _offers(self, row: dict[str, Any], observed: Any) -> list[Offer]:
        where = "machineTypes[]"
        dc = str(field(row, "dataCenterId", where, str))
        machine = str(field(row, "machineType", where, str))
        gpu_model = row.get("gpuModel")
        if not gpu_model:
            return []  # CPU-only machine type
        gpu = match_gpu(str(gpu_model))
        gpu_rate = price_or_none(_rate(row, "gpuPriceHr"))
        if gpu_rate is None:
            raise Unmatched("no positive gpuPriceHr")
        vcpu_rate = _rate(row, "vcpuPriceHr")
        mem_rate = _rate(row, "memoryGibPriceHr")
        disk_rate = _rate(row, "minStorageGibPriceHr")
        ip_rate = _rate(row, "ipv4PriceHr") if row.get("ipv4PriceHr") else 0.0
        max_free = int(row.get("maxGpuFree") or 0)
        total_free = int(row.get("totalGpuFree") or 0)
        counts = [c for c in GPU_COUNTS if c <= max(1, max_free)]
        offers = []
        for count in counts:
            vcpus = count * _clamp(VCPU_PER_GPU, row.get("minVcpuPerGpu"), row.get("maxVcpuPerGpu"))
            # minVcpuPerMemoryGib..maxVcpuPerMemoryGib bound vCPU/GiB; RAM = vcpus / ratio.
            ratio = _clamp(
                1 / RAM_GIB_PER_VCPU, row.get("minVcpuPerMemoryGib"), row.get("maxVcpuPerMemoryGib")
            )
            ram = vcpus / ratio
            price = count * gpu_rate + vcpus * vcpu_rate + ram * mem_rate + DISK_GIB * disk_rate + ip_rate
            fits = count <= max_free and vcpus <= float(row.get("maxVcpuFree") or vcpus)
            offers.append(
                self.gpu_offer(
                    gpu,
                    instance_type=f"{machine}:{count}x{gpu.accelerator.name}",
                    region=dc,
                    gpu_count=count,
                    price_usd_per_hour=round(price, 6),
                    spot_price_usd_per_hour=None,
                    observed_at=observed,
                    vcpus=vcpus,
                    ram_gb=ram,
                    disk_gb=float(DISK_GIB),
                    availability=Availability.AVAILABLE if fits else Availability.UNAVAILABLE,
                    available_count=total_free // count if fits else 0,
                    storage_usd_per_gb_month=round(disk_rate * 730, 4),
                    notes=_notes(vcpus, ram, gpu.note),
                    extra={"gpu_price_hr": str(gpu_rate), "max_gpu_free": str(max_free)},
                )
            )
        return offers


def _notes(vcpus: float, ram: float, gpu_note: str) -> str:
    config = f"component-priced configuration chosen by gpuscout: {vcpus:g} vCPU, {ram:g} GiB RAM"
    return "; ".join(x for x in (f"{config}, {DISK_GIB} GiB disk, 1 IPv4", gpu_note) if x)


def _ident(row: Any) -> str:
    return f"{row.get('dataCenterId')}/{row.get('machineType')}/{row.get('gpuModel')}"
