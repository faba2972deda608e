"""Offers, rows and answers for the tests of the picks whose speed is uncalibrated (the advisor's, the
CLI's and the web's share them)."""

from __future__ import annotations

from datetime import UTC, datetime

from gpuscout.advise.types import Advice, Config, EstimateSummary, Recommendation, UncalibratedPick
from gpuscout.catalog.offer import Interconnect, Offer


def eight_gpu_offer(provider: str, accelerator: str, price: float, memory: float) -> Offer:
    """An 8-GPU NVLink machine of ``provider``, on demand, with no observation time."""
    return Offer(
        provider=provider,
        instance_type=f"{provider}.{accelerator}",
        region="us-east-1",
        accelerator=accelerator,
        gpu_count=8,
        gpu_memory_gb=memory,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=None,
        source="test:x",
        observed_at=None,
        interconnect=Interconnect.NVLINK,
    )


def pick_row(
    rank: int,
    provider: str,
    name: str,
    accelerator: str,
    picks: tuple[str, ...] = (),
    *,
    estimate: EstimateSummary | None = None,
    source: str = "test:x",
    time_to_result_s: float | None = None,
) -> Recommendation:
    """A fitting row ranked ``rank``: 8 ``accelerator`` GPUs (192 GB) of ``provider`` (shown as
    ``name``) at $2/h, 3,000 s to finish, naming ``picks``."""
    offer = Offer(
        provider=provider,
        instance_type=f"gpu.{rank}",
        region="us-east-1",
        accelerator=accelerator,
        gpu_count=8,
        gpu_memory_gb=192.0,
        price_usd_per_hour=2.0,
        spot_price_usd_per_hour=None,
        source=source,
        observed_at=datetime(2025, 1, 1, tzinfo=UTC),
    )
    return Recommendation(
        offer=offer,
        config=Config(4, 8, 1, 1, 32, 4, False),
        fits=True,
        estimate=estimate,
        time_s=3000.0,
        cost=None,
        unit_costs=None,
        price_usd_per_hour=2.0,
        reasons=("fits",),
        warnings=(),
        rank=rank,
        score=float(rank),
        pareto=True,
        picks=picks,
        provider_name=name,
        time_to_result_s=time_to_result_s,
    )


def picks_advice(
    rows: tuple[Recommendation, ...],
    caveats: tuple[UncalibratedPick, ...],
    *,
    considered: int = 4,
    passing: int = 4,
    picks_rule: str = "",
) -> Advice:
    """A cost-ranked answer of ``rows`` (of ``considered`` offers, ``passing`` the filters): cheapest and
    balanced #1, fastest #2, with ``caveats``."""
    return Advice(
        objective="cost",
        rows=rows,
        rejected=(),
        front_size=2,
        picks={"cheapest": 1, "balanced": 1, "fastest": 2},
        targets=(),
        notes=(),
        binding=None,
        time_axis="time to finish",
        considered=considered,
        passing=passing,
        picks_rule=picks_rule,
        uncalibrated_picks=caveats,
    )
