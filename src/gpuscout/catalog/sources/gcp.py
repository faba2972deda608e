"""Google Cloud (Compute Engine) from the Cloud Billing Catalog, composing host + GPU prices.

``GET https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?key=GCP_API_KEY``,
5,000 SKUs a page, followed through ``nextPageToken``. GCP prices accelerator-optimized VMs in
parts: the GPUs per GPU-hour ("Nvidia Tesla A100 GPU running in Americas") and the host per
vCPU-hour and per GiB-hour of its family ("A2 Instance Core running in Americas", "A2 Instance
Ram ..."). A GPU SKU alone is **never** shown as an instance price: an offer exists only where
the GPU, the family's core and its RAM SKUs are all priced in the same region, and its price is
``vcpus x core + ram_gb x ram + gpus x gpu`` (:func:`~gpuscout.catalog.normalize.
compose_gcp_instance_price`). Spot ("Spot Preemptible ...", usageType Preemptible) is composed
the same way from the spot SKUs. "Commitment v1:" SKUs are skipped.

Machine shapes come from :data:`GCP_MACHINES` (GCP's accelerator-optimized machine docs,
https://cloud.google.com/compute/docs/accelerator-optimized-machines, as remembered: recalled,
not re-read), as do the SKU description prefixes of each family; a family whose SKUs are not
found yields no offer (reported in ``warnings``), never a GPU-only price. Sources gpuscout
cannot compose this way (A3 Mega/Ultra, A4, TPUs) are left to ``gpuhunt:gcp``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import httpx

from gpuscout.catalog.normalize import (
    Excluded,
    Unmatched,
    compose_gcp_instance_price,
    is_gcp_commitment,
    match_gpu,
    units_nanos,
)
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.http import HttpSource, paginate, token_next_page
from gpuscout.catalog.sources.payload import MissingField, envelope, field, now_utc, parse_rows

SKUS_URL = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus"
UNIT_PRICE = "skus[].pricingInfo[0].pricingExpression.tieredRates[].unitPrice"


@dataclass(frozen=True, slots=True)
class Family:
    gpu_sku: str  # GPU SKU description prefix, e.g. "Nvidia Tesla A100"
    gpu: str  # a name the knowledge table resolves exactly
    host_sku: str  # host SKU prefix: "<X> Instance Core" / "<X> Instance Ram"


@dataclass(frozen=True, slots=True)
class Machine:
    family: Family
    vcpus: int
    ram_gb: float
    gpus: int


A2 = Family("Nvidia Tesla A100", "A100 SXM4 40GB", "A2")
A2_ULTRA = Family("Nvidia A100 80GB", "A100 SXM4 80GB", "A2")
G2 = Family("Nvidia L4", "L4", "G2")
A3 = Family("Nvidia H100 80GB", "H100 SXM", "A3")

GCP_MACHINES: dict[str, Machine] = {
    "a2-highgpu-1g": Machine(A2, 12, 85, 1),
    "a2-highgpu-2g": Machine(A2, 24, 170, 2),
    "a2-highgpu-4g": Machine(A2, 48, 340, 4),
    "a2-highgpu-8g": Machine(A2, 96, 680, 8),
    "a2-megagpu-16g": Machine(A2, 96, 1360, 16),
    "a2-ultragpu-1g": Machine(A2_ULTRA, 12, 170, 1),
    "a2-ultragpu-2g": Machine(A2_ULTRA, 24, 340, 2),
    "a2-ultragpu-4g": Machine(A2_ULTRA, 48, 680, 4),
    "a2-ultragpu-8g": Machine(A2_ULTRA, 96, 1360, 8),
    "g2-standard-4": Machine(G2, 4, 16, 1),
    "g2-standard-8": Machine(G2, 8, 32, 1),
    "g2-standard-12": Machine(G2, 12, 48, 1),
    "g2-standard-16": Machine(G2, 16, 64, 1),
    "g2-standard-24": Machine(G2, 24, 96, 2),
    "g2-standard-32": Machine(G2, 32, 128, 1),
    "g2-standard-48": Machine(G2, 48, 192, 4),
    "g2-standard-96": Machine(G2, 96, 384, 8),
    "a3-highgpu-8g": Machine(A3, 208, 1872, 8),
}

# (kind, family key, spot) -> region -> USD per unit-hour
Rates = dict[tuple[str, str, bool], dict[str, float]]


class GcpSource(HttpSource):
    name = "gcp"
    provider = "gcp"
    endpoint = SKUS_URL
    needs_credentials = ("GCP_API_KEY",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        params = {"key": self.credential("GCP_API_KEY"), "pageSize": 5000}
        rates: Rates = defaultdict(dict)
        async for page in paginate(
            self.http(client), SKUS_URL, params=params, next_page=token_next_page(SKUS_URL, params)
        ):
            skus = envelope(page, "skus", self.name)
            parse_rows(
                self,
                skus,
                lambda sku: self._collect(sku, rates),
                lambda sku: str(sku.get("skuId")),
                collects=True,
            )
        return self._compose(rates)

    def _collect(self, sku: dict[str, Any], rates: Rates) -> list[Offer]:
        description = str(field(sku, "description", "skus[]", str))
        category = field(sku, "category", "skus[]", dict)
        group = category.get("resourceGroup")
        if is_gcp_commitment(sku):
            if group == "GPU":
                raise Excluded("committed-use SKU, not on-demand")
            return []
        spot = category.get("usageType") == "Preemptible"
        base = description.removeprefix("Spot Preemptible ").removeprefix("Preemptible ")
        key: tuple[str, str, bool] | None = None
        if group == "GPU":
            gpu = next(
                (f.gpu_sku for f in (A2, A2_ULTRA, G2, A3) if base.startswith(f.gpu_sku + " GPU")), None
            )
            if gpu is None:  # T4, V100, H200...: priced by gpuhunt:gcp, whose catalog is composed
                raise Excluded("GPU SKU of a family the gcp source does not compose (see gpuhunt:gcp)")
            key = ("gpu", gpu, spot)
        else:
            for fam in {f.host_sku for f in (A2, G2, A3)}:
                if base.startswith(f"{fam} Instance Core"):
                    key = ("core", fam, spot)
                elif base.startswith(f"{fam} Instance Ram"):
                    key = ("ram", fam, spot)
        if key is None:
            return []  # a SKU gpuscout does not compose (other families, disks, network...)
        price = _unit_price(sku)
        if price <= 0:  # a part priced 0 (or less) is a catalog gap, never a free part
            raise Unmatched("no positive unitPrice", "no positive price")
        for region in field(sku, "serviceRegions", "skus[]", list):
            rates[key][str(region)] = price
        return []

    def _compose(self, rates: Rates) -> list[Offer]:
        observed = now_utc()
        offers: list[Offer] = []
        missing_families: set[str] = set()
        for name, m in GCP_MACHINES.items():
            fam = m.family
            gpu = match_gpu(fam.gpu, allow_assumed=False)

            def price(spot: bool, region: str, m: Machine = m, fam: Family = fam) -> float | None:
                parts = [rates.get((k, f, spot), {}).get(region) for k, f in
                         (("gpu", fam.gpu_sku), ("core", fam.host_sku), ("ram", fam.host_sku))]  # fmt: skip
                if any(p is None for p in parts):
                    return None
                gpu_rate, core, ram = (float(p) for p in parts if p is not None)
                host = m.vcpus * core + m.ram_gb * ram
                if host <= 0 or gpu_rate <= 0:  # a part priced 0 is a catalog gap, not free
                    return None
                return compose_gcp_instance_price(host, gpu_rate, m.gpus)

            regions = set(rates.get(("gpu", fam.gpu_sku, False), {})) | set(
                rates.get(("gpu", fam.gpu_sku, True), {})
            )
            composed = 0
            for region in sorted(regions):
                on_demand, spot = price(False, region), price(True, region)
                if on_demand is None and spot is None:
                    continue
                composed += 1
                offers.append(
                    self.gpu_offer(
                        gpu,
                        instance_type=name,
                        region=region,
                        gpu_count=m.gpus,
                        price_usd_per_hour=on_demand,
                        spot_price_usd_per_hour=spot,
                        observed_at=observed,
                        vcpus=float(m.vcpus),
                        ram_gb=m.ram_gb,
                        notes=f"host ({m.vcpus} vCPU, {m.ram_gb:g} GB) + {m.gpus} x GPU, composed from SKUs",
                    )
                )
            if regions and not composed:
                missing_families.add(f"{fam.host_sku} host for {fam.gpu_sku}")
        for what in sorted(missing_families):
            self.warnings.append(f"no offer composed: {what} not priced in any region with the GPU")
        return offers


def _unit_price(sku: dict[str, Any]) -> float:
    try:
        rates = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"]
        money = rates[-1]["unitPrice"]
        return units_nanos(money.get("units"), money.get("nanos"))
    except (KeyError, IndexError, TypeError, AttributeError):
        raise MissingField(UNIT_PRICE) from None
    except (ValueError, OverflowError):
        raise MissingField(UNIT_PRICE, "is not a number", "not a number") from None
