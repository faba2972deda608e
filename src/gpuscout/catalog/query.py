"""``OfferQuery``: the filters and sort shared by the CLI, the web page and the JSON API, and the SQL
they mean.

:func:`conditions` and :func:`order_by` turn a query into SQLAlchemy clauses over the ``offers``
table; :func:`current_scope` selects the rows of the current snapshots. They are plain functions of
a query and a table, so the filter and sort semantics live here, in one place, and can be checked
without a database (compile the clauses). SQLAlchemy is imported only when they are called, so the
faces can build queries without paying for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.errors import InvalidInputError

if TYPE_CHECKING:
    import sqlalchemy as sa

SORT_KEYS = (
    "price",
    "price_per_gpu",
    "price_per_gb_vram",
    "bandwidth_per_dollar",
    "tflops_per_dollar",
    "spot_price",
    "gpu_memory",
    "provider",
    "accelerator",
    "gpu_count",
    "region",
    "age",
    "total_vram",
    "instance_type",
    "interconnect",
    "availability",
    "source",
    "on_demand_price",
    "on_demand_price_per_gpu",
)
INTERCONNECTS = (Interconnect.NVLINK.value, Interconnect.PCIE.value)

# Sort ranks of the enum columns (best first); an unknown interconnect has none, so it sorts last.
_INTERCONNECT_RANK = {Interconnect.NVLINK.value: 0, Interconnect.PCIE.value: 1}
_AVAILABILITY_RANK = {
    Availability.AVAILABLE.value: 0,
    Availability.LIMITED.value: 1,
    Availability.UNKNOWN.value: 2,
    Availability.UNAVAILABLE.value: 3,
}


@dataclass(frozen=True, slots=True)
class OfferQuery:
    """Filters over current offers. Empty tuples / ``None`` mean "no filter".

    Text filters may not contain NUL characters (PostgreSQL cannot compare them); such a query is an
    :class:`~gpuscout.errors.InvalidInputError` naming the field.
    """

    gpus: tuple[str, ...] = ()  # canonical accelerator names (resolve user names first)
    min_vram_gb: float | None = None  # per GPU
    min_total_vram_gb: float | None = None
    gpu_count: int | None = None
    providers: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()  # substring match, case-insensitive (also over Offer.regions)
    spot: bool | None = None  # True: has a spot price; False: has an on-demand price
    available_only: bool = False  # drop offers known to be unavailable
    interconnect: str | None = None  # "nvlink" | "pcie"
    max_price_usd_per_hour: float | None = None  # on the on-demand (or spot when spot=True) price
    sort: str = "price"
    descending: bool = False
    limit: int | None = None
    offset: int = 0
    exclude_stale: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            texts = value if isinstance(value, tuple) else (value,)
            if any(isinstance(v, str) and "\x00" in v for v in texts):
                raise InvalidInputError(f.name, "contains a NUL character", "text without NUL characters")


def require_text(field_name: str, value: str | None) -> None:
    """Reject text a database cannot compare (a NUL character) with an error naming the field."""
    if value is not None and "\x00" in value:
        raise InvalidInputError(field_name, "contains a NUL character", "text without NUL characters")


def check_sort(sort: str) -> None:
    if sort not in SORT_KEYS:
        raise InvalidInputError("sort", f"unknown sort {sort!r}", ", ".join(SORT_KEYS))


def conditions(query: OfferQuery, offers: sa.Table) -> list[sa.ColumnElement[bool]]:
    """The WHERE terms of ``query``'s filters (the current-snapshot scope is separate)."""
    import sqlalchemy as sa

    o = offers.c
    conds: list[sa.ColumnElement[bool]] = []
    if query.gpus:
        conds.append(o.accelerator.in_(list(query.gpus)))
    if query.min_vram_gb is not None:
        conds.append(o.gpu_memory_gb >= query.min_vram_gb)
    if query.min_total_vram_gb is not None:
        conds.append(o.gpu_memory_gb * o.gpu_count >= query.min_total_vram_gb)
    if query.gpu_count is not None:
        conds.append(o.gpu_count == query.gpu_count)
    if query.providers:
        # provider ids are canonical lower-case names; match the given spelling too
        conds.append(o.provider.in_(sorted({*query.providers, *(p.lower() for p in query.providers)})))
    if query.regions:
        # a row standing for several regions matches when one of them does
        listed = sa.func.lower(sa.cast(o.regions, sa.Text))
        conds.append(
            sa.or_(
                *(
                    term
                    for r in query.regions
                    for term in (
                        sa.func.lower(o.region).contains(r.lower(), autoescape=True),
                        listed.contains(r.lower(), autoescape=True),
                    )
                )
            )
        )
    if query.spot is True:
        conds.append(o.spot_price_usd_per_hour.is_not(None))
    elif query.spot is False:
        conds.append(o.price_usd_per_hour.is_not(None))
    if query.available_only:
        conds.append(o.availability != Availability.UNAVAILABLE.value)
    if query.interconnect:
        ic = query.interconnect.lower()
        if ic not in INTERCONNECTS:
            raise InvalidInputError(
                "interconnect", f"unknown value {query.interconnect!r}", ", ".join(INTERCONNECTS)
            )
        conds.append(o.interconnect == ic)
    if query.max_price_usd_per_hour is not None:
        price = o.spot_price_usd_per_hour if query.spot else o.price_usd_per_hour
        conds.append(price <= query.max_price_usd_per_hour)
    if query.exclude_stale:
        conds.append(o.stale.is_(False))
    return conds


def order_by(query: OfferQuery, offers: sa.Table) -> list[Any]:
    """ORDER BY terms for ``query.sort``: best first, ``descending`` flips it; unknown values
    (NULL) last either way; ties by per-GPU price, then row id (a stable order for paging).

    The spec sorts read each offer's precomputed, indexed ``*_per_usd`` column. ``price`` and
    ``price_per_gpu`` follow ``query.spot``; ``on_demand_price*`` always sort on the on-demand
    price. ``total_vram`` is most memory first; ``interconnect`` is NVLink, then PCIe (unknown
    last); ``availability`` is available, limited, unknown, unavailable; ``instance_type`` and
    ``source`` ignore case; ``age`` is freshest first."""
    import sqlalchemy as sa

    check_sort(query.sort)
    o = offers.c
    spot = bool(query.spot)
    price = o.spot_price_usd_per_hour if spot else o.price_usd_per_hour
    per_gpu = o.spot_price_usd_per_gpu_hour if spot else o.price_usd_per_gpu_hour
    # sort key -> (expression, best is high)
    keys: dict[str, tuple[Any, bool]] = {
        "price": (price, False),
        "price_per_gpu": (per_gpu, False),
        "on_demand_price": (o.price_usd_per_hour, False),
        "on_demand_price_per_gpu": (o.price_usd_per_gpu_hour, False),
        "price_per_gb_vram": (price / (o.gpu_memory_gb * o.gpu_count), False),
        "bandwidth_per_dollar": (o.spot_bandwidth_per_usd if spot else o.bandwidth_per_usd, True),
        "tflops_per_dollar": (o.spot_tflops_per_usd if spot else o.tflops_per_usd, True),
        "spot_price": (o.spot_price_usd_per_hour, False),
        "gpu_memory": (o.gpu_memory_gb, True),
        "total_vram": (o.gpu_memory_gb * o.gpu_count, True),
        "gpu_count": (o.gpu_count, False),
        "age": (o.observed_at, True),
        "interconnect": (sa.case(_INTERCONNECT_RANK, value=o.interconnect, else_=None), False),
        "availability": (sa.case(_AVAILABILITY_RANK, value=o.availability, else_=None), False),
        "instance_type": (sa.func.lower(o.instance_type), False),
        "source": (sa.func.lower(o.source), False),
        "provider": (o.provider, False),
        "accelerator": (o.accelerator, False),
        "region": (o.region, False),
    }
    expr, best_high = keys[query.sort]
    high_first = best_high != query.descending
    primary = expr.desc().nulls_last() if high_first else expr.asc().nulls_last()
    return [primary, o.price_usd_per_gpu_hour.asc().nulls_last(), o.id.asc()]


# ---- which snapshots are current ---------------------------------------------------------------
def source_preference(source: str) -> int | None:
    """Which live feed wins when two cover the same provider: a direct API (10) over a gpuhunt
    catalog (5). A user's own offer file (``None``) neither hides nor is hidden: its offers are
    private terms next to the public ones. Sources are named by kind (``gpuhunt:aws``, ``file:PATH``)."""
    if source.startswith("file:"):
        return None
    if source.startswith("gpuhunt:"):
        return 5
    return 10


def superseded_providers(live: Sequence[Any]) -> dict[int, list[str]]:
    """For each live snapshot (rows with ``id``, ``source``, ``providers``), the providers another live
    snapshot of a preferred feed also covers (so the same Azure VM is not listed once from Azure's API
    and again from gpuhunt's catalog)."""
    ranked = [(r, pref) for r in live if (pref := source_preference(r.source)) is not None]
    best: dict[str, int] = {}
    for r, pref in ranked:
        for p in filter(None, r.providers.split(",")):
            best[p] = max(best.get(p, -1), pref)
    out: dict[int, list[str]] = {}
    for r, pref in ranked:
        lost = sorted(p for p in filter(None, r.providers.split(",")) if best[p] > pref)
        if lost:
            out[int(r.id)] = lost
    return out


def current_scope(
    current: Sequence[Any], offers: sa.Table, *, include_superseded: bool = False
) -> sa.ColumnElement[bool]:
    """The condition selecting current offers, given the current snapshots (rows with ``id``,
    ``source``, ``fallback``, ``providers``), as plain ``snapshot_id IN (...)`` terms (no join, so the
    planner can drive the query from the price/accelerator indexes). Bundled-snapshot rows of
    providers that a live current snapshot covers are left out, and so are a live feed's rows of
    providers a preferred feed covers, unless ``include_superseded``. Offers of defunct providers
    (knowledge ``providers.yaml`` status) are never current; stored history keeps them."""
    import sqlalchemy as sa

    from gpuscout.knowledge.providers import defunct_providers

    live = [r for r in current if not r.fallback]
    fallback = sorted(int(r.id) for r in current if r.fallback)
    hidden = sorted({p for r in live for p in r.providers.split(",") if p})
    superseded = {} if include_superseded else superseded_providers(live)
    o = offers.c
    scope: list[sa.ColumnElement[bool]] = []
    whole = sorted(int(r.id) for r in live if int(r.id) not in superseded)
    if whole:
        scope.append(o.snapshot_id.in_(whole))
    for snap_id, providers in sorted(superseded.items()):
        scope.append(sa.and_(o.snapshot_id == snap_id, o.provider.not_in(providers)))
    if fallback:
        term: sa.ColumnElement[bool] = o.snapshot_id.in_(fallback)
        if hidden and not include_superseded:
            term = sa.and_(term, o.provider.not_in(hidden))
        scope.append(term)
    if not scope:
        return sa.false()
    gone = sorted(defunct_providers())
    return sa.and_(sa.or_(*scope), o.provider.not_in(gone)) if gone else sa.or_(*scope)
