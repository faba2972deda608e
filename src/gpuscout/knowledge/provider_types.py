"""The one ``ProviderTerms`` type: billing, egress and storage terms of a provider, its status and
its price page."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProviderTerms:
    """How a provider bills. ``None`` means unknown (never silently zero)."""

    name: str  # canonical provider id, as in Offer.provider ("aws", "runpod", "vastai"...)
    display_name: str
    kind: str  # "hyperscaler", "gpu-cloud", "marketplace", "aggregator", "private"
    billing_increment_s: int | None  # 1 = per-second, 60 = per-minute, 3600 = per-hour
    minimum_charge_s: int | None
    egress_usd_per_gb: float | None
    egress_free_gb_per_month: float | None
    storage_usd_per_gb_month: float | None
    spot_available: bool
    spot_interruption_notice_s: int | None
    source_url: str
    verified_at: str | None  # ISO date, or None when unverified
    confidence: str  # "confirmed", "secondary", "unverified"
    notes: str = ""
    pricing_url: str = ""  # the provider's own price page, for people ("" when unknown)
    status: str = "active"  # "active" or "defunct" (see PROVIDER_STATUSES)
    status_since: str | None = None  # ISO date the status took effect (a defunct provider's shut-down)
    status_source: str = ""  # URL saying so

    @property
    def defunct(self) -> bool:
        """True when the provider no longer sells capacity: its offers are not listed or
        recommended (stored history keeps them)."""
        return self.status == "defunct"


PROVIDER_STATUSES: tuple[str, ...] = ("active", "defunct")
