"""The answer at a glance on ``/``: the cheapest offer now per GPU class people rent, and where the
prices come from and how old they are.

Each answer card is read through the same view code as the table and the JSON API
(:meth:`WebServices.offer_page` with the card's filters, sorted by $/GPU-h), so a card's on-demand
figure is, by construction, the first whole-GPU row of
``/api/v1/offers?gpu=<class>&pricing=on-demand&sort=price_per_gpu`` (an auction's interruptible price
is no on-demand price: ``Offer.firm_on_demand``; a vGPU slice, ``Offer.fractional``, is no whole GPU),
its spot figure the first of ``&pricing=spot``, and its count the total of
``/api/v1/offers?gpu=<class>``. Stale prices are left out, as they are from the table by default.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gpuscout.catalog.query import OfferQuery
from gpuscout.web.filters import OfferFilters
from gpuscout.web.offer_view import OfferRow
from gpuscout.web.providers_view import ProviderLabel, provider_label

if TYPE_CHECKING:
    from gpuscout.web.services import WebServices


@dataclass(frozen=True, slots=True)
class GpuClass:
    """A GPU class as renters name it, and the GPU filter that covers its variants."""

    label: str
    gpu_filter: str
    always: bool  # shown even without an offer (the classes every renter asks about)


#: The classes on the answer strip, newest and largest first within each tier.
GPU_CLASSES: tuple[GpuClass, ...] = (
    GpuClass("B300", "B300", False),
    GpuClass("B200", "B200", True),
    GpuClass("H200", "H200", True),
    GpuClass("H100", "H100", True),
    GpuClass("GH200", "GH200", False),
    GpuClass("MI300X", "MI300X", True),
    GpuClass("MI325X", "MI325X", False),
    GpuClass("A100 80GB", "A100-80GB", True),
    GpuClass("A100 40GB", "A100-40GB", True),
    GpuClass("RTX PRO 6000", "RTXPRO6000", False),
    GpuClass("L40S", "L40S", True),
    GpuClass("L4", "L4", True),
    GpuClass("RTX 5090", "RTX5090", True),
    GpuClass("RTX 4090", "RTX4090", True),
)


@dataclass(frozen=True, slots=True)
class CheapestPrice:
    """The cheapest $/GPU-h of one pricing mode in a class, and the row it comes from."""

    per_gpu_hour: float
    row: OfferRow
    provider: ProviderLabel


@dataclass(frozen=True, slots=True)
class AnswerCard:
    gpu_class: GpuClass
    offers: int  # current offers of the class (stale ones left out)
    on_demand: CheapestPrice | None
    spot: CheapestPrice | None

    @property
    def href(self) -> str:
        return f"/?gpu={self.gpu_class.gpu_filter}"


def _card_filters(gpu_filter: str, pricing: str) -> OfferFilters:
    return OfferFilters(gpu=gpu_filter, pricing=pricing, sort="price_per_gpu", per_page=1)  # type: ignore[arg-type]


def _price(row: OfferRow, pricing: str) -> CheapestPrice | None:
    offer = row.offer
    price = offer.spot_price_usd_per_gpu_hour if pricing == "spot" else offer.price_usd_per_gpu_hour
    if price is None:  # rows without this price sort last: none of the class has it
        return None
    return CheapestPrice(price, row, provider_label(offer.provider))


def answer_cards(services: WebServices) -> list[AnswerCard]:
    """One card per GPU class: cheapest on-demand and spot $/GPU-h now, with the offer count.

    The count is the class's whole view's; the on-demand and spot figures are the first rows of its
    on-demand and spot views, read without counting them. A class with no offer has neither."""
    cards: list[AnswerCard] = []
    for gpu_class in GPU_CLASSES:
        total = services.offer_page(_card_filters(gpu_class.gpu_filter, "any")).total
        if total == 0 and not gpu_class.always:
            continue
        on_demand, spot = (
            (
                _first_price(services, gpu_class.gpu_filter, "on-demand"),
                _first_price(services, gpu_class.gpu_filter, "spot"),
            )
            if total
            else (None, None)
        )
        cards.append(AnswerCard(gpu_class, total, on_demand, spot))
    return cards


def _first_price(services: WebServices, gpu_filter: str, pricing: str) -> CheapestPrice | None:
    """The first whole-GPU row of the class's view: a vGPU slice (``Offer.fractional``) is a share of
    one card, not the "1× <GPU>" the card names (and not what the GPU chart reads either:
    ``charts.cheapest_on_demand``)."""
    row = services.first_whole_gpu_row(_card_filters(gpu_filter, pricing))
    return _price(row, pricing) if row is not None else None


@dataclass(frozen=True, slots=True)
class Freshness:
    """Where the current prices come from and how old they are, for the banner over the table."""

    offers: int
    providers: int  # providers of the current (not stale) offers
    bundled_rows: int  # rows from the bundled snapshot (observation date unknown)
    live_sources: int
    newest_age_s: float | None  # freshest live source
    oldest_age_s: float | None  # oldest live source
    stale_rows: int  # current offers the table hides as stale (the catalog's rule)
    loaded_at: datetime | None  # when the bundled snapshot was loaded into this store

    @property
    def current_offers(self) -> int:
        """Offers not stale: the rows the offers table shows by default (what the banners count as
        current)."""
        return self.offers - self.stale_rows

    @property
    def bundled_only(self) -> bool:
        return self.live_sources == 0

    @property
    def when(self) -> str:
        """When the prices a heading names are from: "now" where the freshest source has an observation
        date, else "in this snapshot" (the bundled snapshot's dates are unknown: the banner says so)."""
        return "now" if self.newest_age_s is not None else "in this snapshot"


def freshness(services: WebServices, statuses: list[Any], offers: int, providers: int) -> Freshness:
    """The banner's figures: the sources and ages from the sources' status (rows of current
    snapshots only); of the ``offers`` (every current offer, stale ones too), the stale ones are those
    the offers table hides by default, counted as it counts (a query's ``exclude_stale``). A source's
    own ``stale_rows`` would also count rows that are not current offers: those of a feed another one
    supersedes (``gpuhunt:aws`` under ``aws``) and bundled rows of a provider a live feed covers.
    ``providers`` counts the providers of the ``offers``; the banner's are those of the current (not
    stale) rows, read with their count: a provider whose every offer is stale is not one prices come
    from now."""
    shown, current_providers = services.reader.offer_totals(OfferQuery(exclude_stale=True))
    loaded = [s for s in statuses if s.row_count > 0]
    live = [s for s in loaded if not s.fallback]
    ages = [s.age_s for s in live if s.age_s is not None]
    bundled = [s for s in loaded if s.fallback]
    return Freshness(
        offers=offers,
        providers=providers if shown >= offers else current_providers,
        bundled_rows=sum(s.row_count for s in bundled),
        live_sources=len(live),
        newest_age_s=min(ages) if ages else None,
        oldest_age_s=max(ages) if ages else None,
        stale_rows=max(0, offers - shown),
        loaded_at=min((s.current_loaded_at for s in bundled if s.current_loaded_at), default=None),
    )


def age_words(age_s: float | None) -> str:
    """``"3 minutes"``, ``"5 hours"``, ``"2 days"``; ``"an unknown time"`` for ``None``."""
    if age_s is None:
        return "an unknown time"
    minutes = age_s / 60
    if minutes < 2:
        return "a minute"
    if minutes < 120:
        return f"{minutes:.0f} minutes"
    hours = minutes / 60
    if hours < 48:
        return f"{hours:.0f} hours"
    return f"{hours / 24:.0f} days"


def now() -> datetime:
    return datetime.now(UTC)
