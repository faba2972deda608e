"""``OfferQuery``: the filters and sort shared by the CLI, the web page and the JSON API, and the SQL
they mean.

:func:`conditions` and :func:`order_by` turn a query into SQL terms over the ``offers`` table;
:func:`current_scope` selects the rows of the current snapshots; :func:`offers_sql` puts them in one
statement. They are plain functions of a query that return SQL text and its bound values (named
``:pN``), so the filter and sort semantics live here, in one place, for every way the store is read:
SQLAlchemy's engine (PostgreSQL, and SQLite where the store is written) and the standard library's
``sqlite3`` on the CLI's read path (:mod:`gpuscout.catalog.reader`). The text is the same on both
databases; it can be checked without one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.errors import InvalidInputError

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
    spot: bool | None = None  # True: has a spot price; False: a firm on-demand price (FIRM_ON_DEMAND_SQL)
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


#: An offer has an on-demand price one can rent at without being outbid: the SQL form of
#: :attr:`gpuscout.catalog.offer.Offer.firm_on_demand` (an auction's listed price, flagged
#: ``price_is_interruptible``, is a spot-class price). Unqualified column names of ``offers``.
FIRM_ON_DEMAND_SQL = "price_usd_per_hour IS NOT NULL AND NOT price_is_interruptible"


class Params:
    """The bound values of one statement, named ``p0``, ``p1``... in the order they are added."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, value: Any) -> str:
        """The placeholder (``:pN``) for ``value``."""
        name = f"p{len(self.values)}"
        self.values[name] = value
        return f":{name}"

    def many(self, values: Sequence[Any]) -> str:
        """``:p3, :p4, ...`` for an ``IN (...)`` list."""
        return ", ".join(self.add(v) for v in values)


def _contains(column: str, text: str, params: Params, dialect: str) -> str:
    """``column`` contains ``text`` (case-insensitive, LIKE wildcards in ``text`` taken literally).

    SQLite's LIKE already ignores the case of ASCII letters, and its ``lower`` folds no others, so
    there ``column LIKE pattern`` means ``lower(column) LIKE pattern`` without a call per row;
    PostgreSQL's LIKE heeds case, so the column is lowered there."""
    escaped = text.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
    target = column if dialect == "sqlite" else f"lower({column})"
    return f"{target} LIKE {params.add(f'%{escaped}%')} ESCAPE '/'"


def conditions(
    query: OfferQuery, params: Params, *, dialect: str = "postgresql", seek_price: bool = True
) -> list[str]:
    """The WHERE terms of ``query``'s filters (the current-snapshot scope is separate), over the
    columns of ``offers``; their values go to ``params``. ``dialect``: ``sqlite`` or ``postgresql``.
    ``seek_price=False`` writes the maximum price as ``+column`` so that no index is searched for it
    (see :func:`offers_sql`)."""
    conds: list[str] = []
    if query.gpus:
        conds.append(f"accelerator IN ({params.many(query.gpus)})")
    if query.min_vram_gb is not None:
        # SQLite: the memory index serves the memory sort only (a range over it would lead the planner
        # to read most rows through it one by one, migration 10)
        memory = "+gpu_memory_gb" if dialect == "sqlite" else "gpu_memory_gb"
        conds.append(f"{memory} >= {params.add(query.min_vram_gb)}")
    if query.min_total_vram_gb is not None:
        conds.append(f"gpu_memory_gb * gpu_count >= {params.add(query.min_total_vram_gb)}")
    if query.gpu_count is not None:
        conds.append(f"gpu_count = {params.add(query.gpu_count)}")
    if query.providers:
        # provider ids are canonical lower-case names; match the given spelling too
        names = sorted({*query.providers, *(p.lower() for p in query.providers)})
        conds.append(f"provider IN ({params.many(names)})")
    if query.regions:
        # a row standing for several regions matches when one of them does
        listed = "regions" if dialect == "sqlite" else "CAST(regions AS TEXT)"  # SQLite: JSON is text
        terms = [
            term
            for r in query.regions
            for term in (_contains("region", r, params, dialect), _contains(listed, r, params, dialect))
        ]
        conds.append("(" + " OR ".join(terms) + ")")
    if query.spot is True:
        conds.append("spot_price_usd_per_hour IS NOT NULL")
    elif query.spot is False:
        conds.append(f"({FIRM_ON_DEMAND_SQL})")
    if query.available_only:
        conds.append(f"availability != {params.add(Availability.UNAVAILABLE.value)}")
    if query.interconnect:
        ic = query.interconnect.lower()
        if ic not in INTERCONNECTS:
            raise InvalidInputError(
                "interconnect", f"unknown value {query.interconnect!r}", ", ".join(INTERCONNECTS)
            )
        conds.append(f"interconnect = {params.add(ic)}")
    if query.max_price_usd_per_hour is not None:
        price = "spot_price_usd_per_hour" if query.spot else "price_usd_per_hour"
        price = price if seek_price else f"+{price}"
        conds.append(f"{price} <= {params.add(query.max_price_usd_per_hour)}")
    if query.exclude_stale:
        conds.append(f"stale = {params.add(False)}")
    return conds


def _rank(column: str, ranks: dict[str, int]) -> str:
    whens = " ".join(f"WHEN '{value}' THEN {rank}" for value, rank in ranks.items())
    return f"CASE {column} {whens} ELSE NULL END"


def order_by(query: OfferQuery) -> list[str]:
    """ORDER BY terms for ``query.sort``: best first, ``descending`` flips it; unknown values
    (NULL) last either way; ties by per-GPU price, then row id (a stable order for paging).

    The spec sorts read each offer's precomputed, indexed ``*_per_usd`` column. ``price`` and
    ``price_per_gpu`` follow ``query.spot``; ``on_demand_price*`` always sort on the on-demand
    price. ``total_vram`` is most memory first; ``interconnect`` is NVLink, then PCIe (unknown
    last); ``availability`` is available, limited, unknown, unavailable; ``instance_type`` and
    ``source`` ignore case; ``age`` is freshest first."""
    check_sort(query.sort)
    spot = bool(query.spot)
    price = "spot_price_usd_per_hour" if spot else "price_usd_per_hour"
    per_gpu = "spot_price_usd_per_gpu_hour" if spot else "price_usd_per_gpu_hour"
    # sort key -> (expression, best is high)
    keys: dict[str, tuple[str, bool]] = {
        "price": (price, False),
        "price_per_gpu": (per_gpu, False),
        "on_demand_price": ("price_usd_per_hour", False),
        "on_demand_price_per_gpu": ("price_usd_per_gpu_hour", False),
        "price_per_gb_vram": (f"{price} / (gpu_memory_gb * gpu_count)", False),
        "bandwidth_per_dollar": ("spot_bandwidth_per_usd" if spot else "bandwidth_per_usd", True),
        "tflops_per_dollar": ("spot_tflops_per_usd" if spot else "tflops_per_usd", True),
        "spot_price": ("spot_price_usd_per_hour", False),
        "gpu_memory": ("gpu_memory_gb", True),
        "total_vram": ("gpu_memory_gb * gpu_count", True),
        "gpu_count": ("gpu_count", False),
        "age": ("observed_at", True),
        "interconnect": (_rank("interconnect", _INTERCONNECT_RANK), False),
        "availability": (_rank("availability", _AVAILABILITY_RANK), False),
        "instance_type": ("lower(instance_type)", False),
        "source": ("lower(source)", False),
        "provider": ("provider", False),
        "accelerator": ("accelerator", False),
        "region": ("region", False),
    }
    expr, best_high = keys[query.sort]
    high_first = best_high != query.descending
    return [
        f"{expr} {'DESC' if high_first else 'ASC'} NULLS LAST",
        "price_usd_per_gpu_hour ASC NULLS LAST",
        "id ASC",
    ]


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
    current: Sequence[Any], params: Params, *, include_superseded: bool = False, seek: bool = True
) -> str:
    """The condition selecting current offers, given the current snapshots (rows with ``id``,
    ``source``, ``fallback``, ``providers``), as plain terms over ``offers`` (no join, so the planner
    can drive the query from the price/accelerator indexes). Bundled-snapshot rows of providers that a
    live current snapshot covers are left out, and so are a live feed's rows of providers a preferred
    feed covers, unless ``include_superseded``. Offers of defunct providers (knowledge
    ``providers.yaml`` status) are never current; stored history keeps them.

    Written as ``snapshot_id IN (every current snapshot)``, then ``AND NOT (...)`` the rows left out:
    one list, which an index led by ``snapshot_id`` is searched for (SQLite's ``ix_offers_count``,
    migration 10). ``seek=False`` writes it ``+snapshot_id`` so that no index is searched for it (a
    page, which reads its sort's index instead: :func:`offers_sql`)."""
    from gpuscout.knowledge.providers import defunct_providers

    def listed(rows: Sequence[Any]) -> set[str]:  # the providers a snapshot's rows have (its own list)
        return {p for r in rows for p in r.providers.split(",") if p}

    if not current:
        return "1 = 0"
    live = [r for r in current if not r.fallback]
    bundled = [r for r in current if r.fallback]
    column = "snapshot_id" if seek else "+snapshot_id"
    scope = f"{column} IN ({params.many(sorted(int(r.id) for r in current))})"
    # A provider condition is written only where it can remove a row: one over providers the
    # snapshots do not have changes nothing, and costs a row read per index entry.
    left_out = [] if include_superseded else sorted(superseded_providers(live).items())
    hidden = sorted(listed(live) & listed(bundled))
    terms = [f"(snapshot_id = {params.add(i)} AND provider IN ({params.many(p)}))" for i, p in left_out]
    if hidden and not include_superseded:
        fallback = sorted(int(r.id) for r in bundled)
        terms.append(f"(snapshot_id IN ({params.many(fallback)}) AND provider IN ({params.many(hidden)}))")
    if terms:
        scope += f" AND NOT ({' OR '.join(terms)})"
    gone = sorted(defunct_providers() & listed(current))
    return f"{scope} AND provider NOT IN ({params.many(gone)})" if gone else scope


def offers_sql(
    query: OfferQuery,
    current: Sequence[Any],
    columns: Sequence[str],
    *,
    dialect: str,
    include_superseded: bool = False,
    count: bool = False,
    providers: bool = False,
) -> tuple[str, dict[str, Any]]:
    """The statement reading ``query``'s page of current offers (``columns`` of ``offers``, sorted,
    limited), or with ``count`` how many match in all (with ``providers`` also how many providers
    they come from); and its bound values. ``dialect``: ``sqlite`` or ``postgresql`` (how an offset
    without a limit is written differs, and a SQLite count reads no price index: SQLite's covering
    ``ix_offers_count``, migrations 9 and 10, holds every filtered column, and counting through a
    price range's index reads each match's table row one by one). A SQLite count searches that index
    for the current snapshots; a SQLite page writes its scope ``+snapshot_id`` so that its plan reads
    the sort's index (searching the snapshots' entries, then sorting them all, reads every current
    row where the sort's index stops after the page)."""
    params = Params()
    where = " AND ".join(
        [
            current_scope(
                current, params, include_superseded=include_superseded, seek=count or dialect != "sqlite"
            ),
            *conditions(query, params, dialect=dialect, seek_price=not (count and dialect == "sqlite")),
        ]
    )
    if count:
        counted = "count(*), count(DISTINCT provider)" if providers else "count(*)"
        return f"SELECT {counted} FROM offers WHERE {where}", params.values
    text = f"SELECT {', '.join(columns)} FROM offers WHERE {where} ORDER BY {', '.join(order_by(query))}"
    if query.limit is not None:
        text += f" LIMIT {params.add(query.limit)}"
    elif query.offset and dialect == "sqlite":
        text += " LIMIT -1"
    if query.offset:
        text += f" OFFSET {params.add(query.offset)}"
    return text, params.values


#: The current snapshot of every source, as :func:`current_scope` needs it.
CURRENT_SNAPSHOTS_SQL = (
    "SELECT snapshots.id, snapshots.source, snapshots.fallback, snapshots.providers FROM snapshots "
    "JOIN current_snapshot ON current_snapshot.snapshot_id = snapshots.id"
)
