"""The comparison table of ``/``: reading its filters (errors at the field), its columns (those unknown
on every shown row fold into the banner), and what to relax when nothing matches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from gpuscout.catalog.provider_ids import NoOffersFrom, provider_ids
from gpuscout.catalog.query import OfferQuery, ProviderShutDown, region_known, shut_down
from gpuscout.errors import UnknownNameError
from gpuscout.web.filters import FIELD_LABELS, OfferFilters
from gpuscout.web.form_errors import (
    FieldError,
    FormErrors,
    gpuscout_error,
    shown_name,
    strip_optional,
    validation_errors,
)
from gpuscout.web.numbers import ungrouped
from gpuscout.web.offer_view import OfferRow

if TYPE_CHECKING:
    from gpuscout.catalog.reader import OfferReader
    from gpuscout.web.services import WebServices


def _ungrouped_number(name: str, raw: str) -> str:
    """``raw`` without digit group separators where ``name`` is a numeric filter (``max_price=1,000``)."""
    info = OfferFilters.model_fields.get(name)
    if info is None or strip_optional(info.annotation) not in (int, float):
        return raw
    return ungrouped(raw)


def parse_filters(raw: Mapping[str, str], services: WebServices) -> tuple[OfferFilters | None, FormErrors]:
    """The filters of the query string, or every error at its field (``None`` then)."""
    try:  # a number with digit groups (1,000) read as the advisor's form reads it
        filters = OfferFilters.model_validate({k: _ungrouped_number(k, v) for k, v in raw.items()})
    except ValidationError as exc:
        return None, validation_errors(exc, OfferFilters, FIELD_LABELS)
    errors = FormErrors()
    from gpuscout.web.services import resolve_gpu_filter

    for name in filters.gpu_names():
        try:
            resolve_gpu_filter(name)
        except UnknownNameError as exc:
            found = gpuscout_error(exc, FIELD_LABELS, {"accelerator": "gpu"})
            if isinstance(found, FieldError):
                errors.add(FieldError("gpu", found.message, found.suggestions))
            break
    try:
        filters = with_provider_ids(filters, services)
    except ProviderShutDown as exc:
        errors.add(FieldError("provider", f"{FIELD_LABELS['provider']}: {exc.message}"))
    except NoOffersFrom as exc:
        errors.add(
            FieldError(
                "provider",
                f"{FIELD_LABELS['provider']}: no current offer is from “{shown_name(exc.name)}”"
                + ("; did you mean one of these?" if exc.suggestions else ""),
                tuple(exc.suggestions),
            )
        )
    return (None if errors else filters), errors


def with_provider_ids(
    filters: OfferFilters, services: WebServices, reader: OfferReader | None = None
) -> OfferFilters:
    """``filters`` with its providers written as the ids offers carry ("Vast.ai" -> vastai); a provider
    no current offer is from raises :class:`~gpuscout.catalog.provider_ids.NoOffersFrom` with the
    closest that have offers (the check of ``gpuscout offers --provider``). Each named provider is
    looked up by ``reader`` (default: the services' reader; an indexed count); the current providers
    are listed only for the error, and not on the event loop (``reader`` given: ``lean_offers`` hands
    an error to the route, which lists them). Its regions are split as the catalog reads a typed list
    (a region whose name holds a comma, "Texas, US", is one region: ``query.region_terms``)."""
    read = reader or services.reader
    filters = filters.with_known_regions(region_known(read.count_offers))
    names = filters.provider_names()
    if not names:
        return filters
    try:
        ids = provider_ids(
            names,
            lambda p: read.count_offers(OfferQuery(providers=(p,))) > 0,
            lambda: () if reader is not None else {o.provider for o in services.all_offers()},
        )
    except NoOffersFrom as exc:  # one that shut down is said so (ProviderShutDown), with when and where
        raise shut_down(exc) from None
    return filters.model_copy(update={"provider": ",".join(ids)})


@dataclass(frozen=True, slots=True)
class Column:
    key: str  # the sort key (a SORT_COLUMNS entry) or, for a column that cannot be sorted, its name
    label: str
    sortable: bool = True
    numeric: bool = False


def columns(filters: OfferFilters, rows: Sequence[OfferRow]) -> tuple[list[Column], list[str]]:
    """The table's columns for these rows, and the names of those left out because every shown row
    has them unknown (said once, in the banner)."""
    spot = filters.pricing == "spot"
    all_columns = [
        Column("provider", "Provider"),
        Column("instance", "Instance"),
        Column("gpu", "GPU × count"),
        Column("vram", "Memory / GPU", numeric=True),
        Column("host", "vCPU · RAM", sortable=False, numeric=True),
        Column("interconnect", "Interconnect"),
        Column("region", "Region"),
        Column("price", "On-demand $/h", numeric=True),
        Column("spot_price", "Spot $/h", numeric=True),
        Column("price_per_gpu", "Spot $/GPU-h" if spot else "$/GPU-h", numeric=True),
        Column("availability", "Availability"),
        Column("age", "Price age"),
        Column("source", "Source"),
    ]
    unknown_everywhere = {
        "host": all(r.offer.vcpus is None and r.offer.ram_gb is None for r in rows),
        "interconnect": all(r.offer.interconnect.value == "unknown" for r in rows),
        "availability": all(r.offer.availability.value == "unknown" for r in rows),
        "age": all(r.age is None for r in rows),
    }
    folded = [c for c in all_columns if rows and unknown_everywhere.get(c.key, False)]
    shown = [c for c in all_columns if c not in folded]
    names = {"host": "vCPU and RAM", "age": "price age"}
    return shown, [names.get(c.key, c.label.lower()) for c in folded]


@dataclass(frozen=True, slots=True)
class Relaxation:
    """What dropping one filter would give: "without Max $/h: 12 offers"."""

    label: str
    count: int
    params: dict[str, str]


def relaxations(filters: OfferFilters, services: WebServices) -> list[Relaxation]:
    """For an empty view, the count of offers with each active filter dropped (one at a time)."""
    out: list[Relaxation] = []
    defaults = OfferFilters()
    for name in (
        "gpu",
        "min_vram",
        "gpus",
        "provider",
        "region",
        "pricing",
        "available",
        "interconnect",
        "max_price",
    ):
        if getattr(filters, name) == getattr(defaults, name):
            continue
        relaxed = filters.model_copy(update={name: getattr(defaults, name), "page": 1})
        total = services.offer_page(relaxed.model_copy(update={"per_page": 1})).total
        if total:
            out.append(Relaxation(FIELD_LABELS[name], total, relaxed.query_params()))
    return out
