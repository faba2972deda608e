"""Hand-built offers, terms and accelerators for advisor tests (no estimator, no catalog)."""

from __future__ import annotations

from datetime import UTC, datetime

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.provider_types import ProviderTerms


def terms(
    name: str = "p",
    *,
    kind: str = "gpu-cloud",
    increment: int | None = 1,
    minimum: int | None = None,
    egress: float | None = 0.0,
    free_gb: float | None = None,
    storage: float | None = 0.1,
    spot: bool = True,
) -> ProviderTerms:
    return ProviderTerms(
        name=name,
        display_name=name.title(),
        kind=kind,
        billing_increment_s=increment,
        minimum_charge_s=minimum,
        egress_usd_per_gb=egress,
        egress_free_gb_per_month=free_gb,
        storage_usd_per_gb_month=storage,
        spot_available=spot,
        spot_interruption_notice_s=30,
        source_url="https://example.test/terms",
        verified_at=None,
        confidence="unverified",
    )


def offer(
    provider: str = "p",
    accelerator: str = "H100-SXM",
    gpus: int = 1,
    price: float | None = 2.0,
    spot: float | None = None,
    *,
    memory: float = 80.0,
    region: str = "us-east-1",
    interconnect: Interconnect = Interconnect.UNKNOWN,
    internode: str | None = None,
    availability: Availability = Availability.UNKNOWN,
    observed_at: datetime | None = None,
    stale: bool = False,
    instance: str | None = None,
) -> Offer:
    return Offer(
        provider=provider,
        instance_type=instance or f"{gpus}x{accelerator}",
        region=region,
        accelerator=accelerator,
        gpu_count=gpus,
        gpu_memory_gb=memory,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=spot,
        source=f"test:{provider}",
        observed_at=observed_at,
        interconnect=interconnect,
        internode=internode,
        availability=availability,
        billing_terms=provider,
        stale=stale,
    )


def accelerator(
    name: str = "H100-SXM",
    *,
    memory: float = 80.0,
    bandwidth: float = 3350.0,
    bf16: float = 989.0,
    fp8: bool = True,
    interconnect: str | None = "NVLink 4",
    kind: str = "datacenter",
) -> Accelerator:
    return Accelerator(
        name=name,
        vendor="NVIDIA",
        memory_gb=memory,
        memory_type="HBM3",
        bandwidth_gbps=bandwidth,
        fp32_tflops=bf16 / 15,
        tf32_tflops=bf16 / 2,
        bf16_tflops=bf16,
        fp16_tflops=bf16,
        fp8_tflops=bf16 * 2 if fp8 else None,
        int8_tops=bf16 * 2,
        fp4_tflops=None,
        fp8_supported=fp8,
        fp4_supported=False,
        interconnect=interconnect,
        interconnect_gbps=900.0 if interconnect else None,
        tdp_w=700.0,
        architecture="Hopper",
        compute_capability="9.0" if fp8 else "8.0",
        form_factor="SXM",
        release_year=2023,
        kind=kind,
        source="test",
        confidence="verified",
    )


NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
