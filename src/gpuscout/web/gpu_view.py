"""How the GPU pages order accelerators, name the variants behind a family name, and show one GPU's
prices (the headline's cheapest on-demand offer and the price chart)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuscout.catalog.offer import Offer
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.knowledge.accelerators import gpu_family_members as gpu_family_members  # its home
from gpuscout.web.charts import Chart, price_history_chart
from gpuscout.web.offer_view import OfferRow
from gpuscout.web.providers_view import provider_label

if TYPE_CHECKING:
    from gpuscout.web.services import WebServices

VENDOR_ORDER = ("NVIDIA", "AMD", "Intel", "Google", "AWS")
KIND_ORDER = ("datacenter", "workstation", "consumer", "tpu", "asic")


def gpu_order(acc: Accelerator) -> tuple[object, ...]:
    """Sort key of the GPU list: vendor, class, then the fastest memory first."""
    vendor = VENDOR_ORDER.index(acc.vendor) if acc.vendor in VENDOR_ORDER else len(VENDOR_ORDER)
    kind = KIND_ORDER.index(acc.kind) if acc.kind in KIND_ORDER else len(KIND_ORDER)
    return (vendor, kind, -acc.bandwidth_gbps, acc.name)


def _stem(name: str) -> str:
    return name.split("-")[0]


def sibling_variants(acc: Accelerator) -> list[Accelerator]:
    """The other variants of an accelerator's family (H100-SXM -> H100-PCIe, H100-NVL)."""
    return [a for a in all_accelerators() if _stem(a.name) == _stem(acc.name) and a.name != acc.name]


def family_page(acc: Accelerator) -> str | None:
    """The family name whose page compares ``acc`` with its variants ("H100-SXM" -> "H100", "TPU-v5p" ->
    "TPU"); None where the stem has no such page: "RTX4080" is a card of its own (its page is not a
    comparison)."""
    stem = _stem(acc.name)
    members = gpu_family_members(stem)
    return stem if members and any(m.name == acc.name for m in members) else None


# ---- a GPU page's prices: the headline's cheapest on-demand offer, the provider count, the chart ---
@dataclass(frozen=True, slots=True)
class GpuPrices:
    """What a GPU page says of prices. The headline, the provider count and the chart count the same
    offers: current and not stale; the chart plots on-demand prices (``Offer.firm_on_demand``) and its
    summary names each counted provider it has no price of, and why."""

    cheapest: OfferRow | None  # the cheapest on-demand offer one can rent without being outbid
    providers: int  # providers with a current offer (stale ones left out)
    chart: Chart | None


def gpu_prices(services: WebServices, accelerator: str) -> GpuPrices:
    """The prices of one accelerator's page (a canonical name). The chart draws no defunct provider's
    prices (the store keeps them as history; they are no one's price to rent at)."""
    from gpuscout.knowledge.providers import defunct_providers

    cheapest = cheapest_on_demand_row(services, accelerator)
    current = [o for o in services.all_offers() if not o.stale]
    offers = [o for o in current if o.accelerator == accelerator]
    gone = defunct_providers()
    points = [p for p in services.history_points([accelerator], None, None) if p.provider not in gone]
    chart = None
    if points:
        # the chart says which providers of its points it leaves out and why (no dated price, past the
        # lines drawn); this, those of the current offers it has no point of
        in_points = {p.provider for p in points}
        # a price's age is told against the catalog's newest live price, as its staleness rule reads it
        newest = max((o.observed_at for o in current if o.observed_at), default=None)
        chart = price_history_chart(points, accelerator, not_charted(offers, in_points), newest=newest)
    return GpuPrices(cheapest, len({o.provider for o in offers}), chart)


def not_charted(offers: Iterable[Offer], charted: Collection[str]) -> list[str]:
    """Each provider of ``offers`` that has no stored price the chart could draw (``charted``: the
    providers of its points, dated or not), and why ("Mithril (auction price, interruptible like
    spot)"), in name order."""
    by_provider: dict[str, list[Offer]] = {}
    for o in offers:
        if o.provider not in charted:
            by_provider.setdefault(o.provider, []).append(o)
    out: list[str] = []
    for provider, its in sorted(by_provider.items(), key=lambda kv: provider_label(kv[0]).short_name.lower()):
        if any(o.interruptible_on_demand for o in its):
            why = "auction price, interruptible like spot"
        elif all(o.price_usd_per_hour is None for o in its):
            why = "spot price only"
        else:
            why = "no stored on-demand price"
        out.append(f"{provider_label(provider).short_name} ({why})")
    return out


def variant_prices(services: WebServices, accelerator: str) -> tuple[list[OfferRow], int]:
    """A family page's row of one variant: its cheapest on-demand offer one can rent without being
    outbid (none, an empty list) and how many current offers it has."""
    cheapest = cheapest_on_demand_row(services, accelerator)
    return ([cheapest] if cheapest else []), services.offers_for_gpu(accelerator, limit=1)[1]


def cheapest_on_demand_row(services: WebServices, accelerator: str) -> OfferRow | None:
    """The cheapest current on-demand offer per GPU one can rent without being outbid: the first row of
    the table's on-demand view (``/?gpu=<name>&pricing=on-demand``; an auction price is left out) that is
    whole GPUs (a vGPU slice is read past: it is a share of one card)."""
    from gpuscout.web.filters import OfferFilters

    return services.first_whole_gpu_row(
        OfferFilters(gpu=accelerator, pricing="on-demand", sort="price_per_gpu")
    )
