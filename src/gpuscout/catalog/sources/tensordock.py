"""TensorDock marketplace (legacy v0, public): ``GET .../api/v0/client/deploy/hostnodes``.

``hostnodes`` is a dict keyed by host id; each host's ``specs`` prices components per hour
(``gpu.<model>.price`` per GPU, ``cpu.price`` per vCPU, ``ram.price`` per GB, ``storage.price``
per GB-hour) and ``amount`` is the *free* capacity. An offer is a configuration gpuscout
chooses, documented: 1 GPU and all free GPUs of a model, with :data:`VCPU_PER_GPU` vCPUs and
:data:`RAM_GB_PER_GPU` GB RAM per GPU and :data:`DISK_GB` GB disk. It is available when the
host has that much free, else unavailable. TensorDock has moved to a v2 dashboard API that
needs a key (providers.md "Drift"); this legacy endpoint may stop answering.
"""

from __future__ import annotations

from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import envelope, field, now_utc, number, parse_rows, positive

HOSTNODES_URL = "https://marketplace.tensordock.com/api/v0/client/deploy/hostnodes"
VCPU_PER_GPU = 8
RAM_GB_PER_GPU = 32
DISK_GB = 100


class TensorDockSource(HttpSource):
    name = "tensordock"
    provider = "tensordock"
    endpoint = HOSTNODES_URL
    needs_credentials = ()

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        payload = await self.http(client).get_json(HOSTNODES_URL)
        hosts = envelope(payload, "hostnodes", self.name, dict)
        observed = now_utc()
        rows = [(host_id, host, model, gpu) for host_id, host in hosts.items() for model, gpu in _gpus(host)]
        return parse_rows(
            self, rows, lambda r: self._offers(*r, observed=observed), lambda r: f"{r[0]}/{r[2]}"
        )

    def _offers(
        self, host_id: str, host: dict[str, Any], model: str, gpu_spec: Any, *, observed: Any
    ) -> list[Offer]:
        specs = field(host, "specs", "hostnodes{}", dict)
        where = "hostnodes{}.specs"
        gpu_rate = price_or_none(field(gpu_spec, "price", f"{where}.gpu{{}}"))
        if gpu_rate is None:
            raise Unmatched("no positive GPU price")
        free_gpus = int(number(gpu_spec, "amount", f"{where}.gpu{{}}"))
        cpu = field(specs, "cpu", where, dict)
        ram = field(specs, "ram", where, dict)
        storage = field(specs, "storage", where, dict)
        cpu_rate = number(cpu, "price", f"{where}.cpu")
        ram_rate = number(ram, "price", f"{where}.ram")
        disk_rate = number(storage, "price", f"{where}.storage")
        gpu = match_gpu(model.replace("-", " "), positive(gpu_spec.get("vram")))
        location = host.get("location") or {}
        region = ", ".join(str(location[k]) for k in ("city", "country") if location.get(k)) or "unknown"
        offers = []
        for count in sorted({1, max(1, free_gpus)}):
            vcpus, ram_gb = count * VCPU_PER_GPU, count * RAM_GB_PER_GPU
            price = count * gpu_rate + vcpus * cpu_rate + ram_gb * ram_rate + DISK_GB * disk_rate
            fits = (
                count <= free_gpus
                and vcpus <= float(cpu.get("amount") or 0)
                and ram_gb <= float(ram.get("amount") or 0)
                and float(storage.get("amount") or 0) >= DISK_GB
            )
            offers.append(
                self.gpu_offer(
                    gpu,
                    instance_type=f"{host_id}:{count}x{model}",
                    region=region,
                    gpu_count=count,
                    price_usd_per_hour=round(price, 6),
                    spot_price_usd_per_hour=None,
                    observed_at=observed,
                    vcpus=float(vcpus),
                    ram_gb=float(ram_gb),
                    disk_gb=float(DISK_GB),
                    availability=Availability.AVAILABLE if fits else Availability.UNAVAILABLE,
                    available_count=free_gpus // count if fits else 0,
                    storage_usd_per_gb_month=round(disk_rate * 730, 4),
                    notes=_notes(vcpus, ram_gb, gpu.note),
                    extra={"host": host_id, "cpu_type": str(cpu.get("type") or "")},
                )
            )
        return offers


def _notes(vcpus: int, ram_gb: int, gpu_note: str) -> str:
    config = f"component-priced configuration chosen by gpuscout: {vcpus} vCPU, {ram_gb} GB RAM"
    return "; ".join(x for x in (f"{config}, {DISK_GB} GB disk", gpu_note) if x)


def _gpus(host: Any) -> list[tuple[str, Any]]:
    specs = host.get("specs") if isinstance(host, dict) else None
    gpus = specs.get("gpu") if isinstance(specs, dict) else None
    if not isinstance(gpus, dict):
        return [("?", None)]  # let the parser name the missing field
    return list(gpus.items())
