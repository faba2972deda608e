"""``OfferQuery``: the filters and sort shared by the CLI, the web page and the JSON API, and the SQL
they mean.

:func:`conditions` and :func:`order_by` turn a query into SQL terms over the ``offers`` table;
:func:`current_scope` selects the rows of the current snapshots; :func:`offers_sql` puts them in one
statement. They are plain functions of a query that return SQL text and its bound values (named
``:pN``), so the filter and sort semantics live here, in one place, for every way the store is read:
SQLAlchemy's engine (PostgreSQL, and SQLite where the store is written) and the standard library's
``sqlite3`` on the CLI's read path (:mod:`gpuscout.catalog.reader`). The text is the same on both
databases; it can be checked without one.

Two rules every face reads from here, so that the CLI table, the web pages, the JSON API and the
advisor agree: staleness (:data:`STALE_AFTER`, :func:`stale_sql`: a read's ``stale`` is its feed's
flag, or a live price fetched more than ``STALE_AFTER`` before the store's newest live fetch) and
resales (:func:`resale_terms`: a live Prime Intellect row reselling a current first-party offer at
its price is read as that offer, which names the reseller in ``also_listed_by``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.provider_ids import NoCurrentOffer, NoOffersFrom
from gpuscout.errors import InvalidInputError, quoted_value
from gpuscout.wording import REGION_HELP as REGION_HELP  # what a term means (the faces' help)

if TYPE_CHECKING:
    # imported where a region filter is written or an error suggests regions: its tables take some
    # milliseconds to build, which a query without a region filter (most ``gpuscout offers``) skips
    from gpuscout.knowledge.regions import RegionTerm

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

#: The order every face lists offers in when none is asked for (``gpuscout offers``, the web table,
#: ``/api/v1/offers``, an :class:`OfferQuery`): the price per GPU-hour, cheapest first (the spot one
#: where the query asks for spot prices). It compares offers of every size alike, where the instance's
#: $/h ranks a 1-GPU box above an 8-GPU one that is cheaper per GPU; the web table's title says it
#: ("the cheapest per GPU-hour now"). A key of :data:`SORT_KEYS` and a column of the web table alike.
DEFAULT_SORT = "price_per_gpu"

#: The catalog's one staleness rule (the CLI table, the web pages, the JSON API and the advisor read
#: it through every read's ``stale``): an offer is stale when its feed flags it (``Offer.stale``: an
#: older catalog file), or when it is a live row (a provider's feed, fetched by a refresh, with its own
#: fetch time) fetched more than ``STALE_AFTER`` before the newest live fetch in the same store: its
#: provider's refresh failed or was not run again while the others were. Measured against the store's
#: newest fetch, not the clock, a store refreshed three days ago still ranks its rows (none is older
#: than the others). The bundled snapshot's rows (the dated baseline, of unknown age) and a user's own
#: offer file (``file:``, private terms dated by the user) are never stale by age.
STALE_AFTER = timedelta(days=2)

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
    # words, countries or areas (gpuscout.knowledge.regions; also over Offer.regions); typed lists:
    # region_terms()
    regions: tuple[str, ...] = ()
    spot: bool | None = None  # True: has a spot price; False: a firm on-demand price (FIRM_ON_DEMAND_SQL)
    available_only: bool = False  # drop offers known to be unavailable
    interconnect: str | None = None  # "nvlink" | "pcie"
    max_price_usd_per_hour: float | None = None  # on the on-demand (or spot when spot=True) price
    sort: str = DEFAULT_SORT
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


#: The web table's column names (``/api/v1/offers?sort=vram``) where the store's sort key differs, so
#: that ``gpuscout offers --sort vram`` sorts as the page does.
SORT_ALIASES: dict[str, str] = {"vram": "gpu_memory", "gpu": "accelerator", "instance": "instance_type"}


def canonical_sort(sort: str) -> str:
    """The store's sort key for ``sort``, a key of :data:`SORT_KEYS` or a web column name
    (:data:`SORT_ALIASES`); anything else is returned as given, for :func:`check_sort` to refuse."""
    return SORT_ALIASES.get(sort, sort)


def check_sort(sort: str) -> None:
    if sort not in SORT_KEYS:
        accepted = ", ".join(SORT_KEYS) + " (or the web table's " + ", ".join(SORT_ALIASES) + ")"
        raise InvalidInputError("sort", f"unknown sort {quoted_value(sort)}", accepted)


#: An offer has an on-demand price one can rent at without being outbid: the SQL form of
#: :attr:`gpuscout.catalog.offer.Offer.firm_on_demand` (an auction's listed price, flagged
#: ``price_is_interruptible``, is a spot-class price). Unqualified column names of ``offers``.
FIRM_ON_DEMAND_SQL = "price_usd_per_hour IS NOT NULL AND NOT price_is_interruptible"


class Params:
    """The bound values of one statement, named ``p0``, ``p1``... in the order they are added, and
    its common table expressions (``WITH``: :meth:`cte`, :meth:`with_clause`)."""

    __slots__ = ("ctes", "values")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.ctes: dict[str, str] = {}  # name -> SELECT

    def cte(self, select: str) -> str:
        """The name of a common table expression for ``select`` (read once per statement, however
        often it is named); the statement is to start with :meth:`with_clause`."""
        name = f"region_names_{len(self.ctes)}"
        self.ctes[name] = select
        return name

    def with_clause(self) -> str:
        """``WITH name AS (...), ... `` for the common table expressions, or ``""``."""
        if not self.ctes:
            return ""
        return "WITH " + ", ".join(f"{name} AS ({select})" for name, select in self.ctes.items()) + " "

    def add(self, value: Any) -> str:
        """The placeholder (``:pN``) for ``value``."""
        name = f"p{len(self.values)}"
        self.values[name] = value
        return f":{name}"

    def many(self, values: Sequence[Any]) -> str:
        """``:p3, :p4, ...`` for an ``IN (...)`` list."""
        return ", ".join(self.add(v) for v in values)


# ---- the region filter -------------------------------------------------------------------------
# A term matches a region name by its words, or by the country or area it names, as
# gpuscout.knowledge.regions says (its module docstring): the rules are evaluated once per distinct
# region name of the current snapshots (a few hundred), in a subquery read once per statement, and the
# rows are then kept by their names' membership; never a chain of text functions per row.
_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _like(text: str) -> str:
    """``text`` for a LIKE pattern with ``ESCAPE '/'`` (its ``%``, ``_`` and ``/`` literal)."""
    return text.replace("/", "//").replace("%", "/%").replace("_", "/_")


def _chain(expr: str, steps: Sequence[tuple[str, str]]) -> str:
    for old, new in steps:
        expr = f"replace({expr}, '{old}', '{new}')"
    return expr


def _in(expr: str, values: Sequence[str], params: Params) -> str:
    return f"{expr} IN ({params.many(values)})" if values else "1 = 0"


def _place_names_sql(params: Params, dialect: str, snapshots: Sequence[int] | None) -> str:
    """Every region name of the rows of ``snapshots`` (all rows where ``None``): each row's ``region``
    and each name of its ``regions``, once, with the parts the rules read
    (:class:`gpuscout.knowledge.regions.NameParts`: ``l``, ``n``, ``t``, ``f``, ``g``, ``w``) and
    ``k``, whether it is a name of :data:`~gpuscout.knowledge.regions.PLACES`. Its steps are nested
    subqueries, each a short chain (SQLite's parser nests only so many calls); those whose columns are
    read more than once are kept whole (``LIMIT -1`` / ``OFFSET 0``: not merged into the next), so
    that each part is computed once per name, not again wherever it is read."""
    from gpuscout.knowledge.regions import PLACES, SEPARATORS

    if snapshots is None:
        scope = "1 = 1"
    else:
        scope = f"o.snapshot_id IN ({params.many(snapshots)})" if snapshots else "1 = 0"
    if dialect == "sqlite":
        # (a name of a scalar ``regions`` would be one more name to judge, never a row's: see
        # region_condition; the usual empty list is passed over unparsed)
        listed = (
            f"SELECT e.value FROM offers AS o, json_each(o.regions) AS e WHERE {scope} AND o.regions <> '[]'"
        )
        fold, find, fence = "lower(name)", "instr", "LIMIT -1"
    else:
        listed = (
            "SELECT e.value FROM offers AS o CROSS JOIN LATERAL json_array_elements_text(CASE WHEN "
            "json_typeof(o.regions) = 'array' THEN o.regions ELSE CAST('[]' AS json) END) AS e(value) "
            f"WHERE {scope} AND CAST(o.regions AS TEXT) <> '[]'"
        )
        fold = f"translate(name, '{_ASCII_UPPER}', '{_ASCII_UPPER.lower()}')"
        find, fence = "strpos", "OFFSET 0"
    names = f"SELECT o.region AS name FROM offers AS o WHERE {scope} UNION {listed}"
    spaced = _chain("l", [(c, " ") for c in SEPARATORS])
    marked = _chain("s", [*((d, f"<{d}>") for d in "0123456789"), ("><", "")])
    joined = _chain("d", [("<", " "), (">", " "), (" ", "<>"), ("><", ""), ("<>", " ")])
    first = f"substr(n, 2, {find}(substr(n, 2) || ' ', ' ') - 1)"
    rest = "substr(n, length(f) + 3)"
    second = f"substr({rest}, 1, {find}({rest} || ' ', ' ') - 1)"
    last = "substr(t, length(rtrim(t, replace(t, ' ', ''))) + 1)"
    steps = f"SELECT name, {fold} AS l FROM ({names}) AS s0"
    steps = f"SELECT name, l, {spaced} AS s FROM ({steps}) AS s1"
    steps = f"SELECT name, l, {marked} AS d FROM ({steps}) AS s2"
    steps = f"SELECT name, l, ' ' || trim({joined}) || ' ' AS n FROM ({steps}) AS s3 {fence}"
    steps = (
        f"SELECT name, l, n, rtrim(n, ' 0123456789') AS t, {first} AS f, "
        f"l IN ({params.many(sorted(PLACES))}) AS k FROM ({steps}) AS s4 {fence}"
    )
    return f"SELECT name, l, n, t, f, k, {second} AS g, {last} AS w FROM ({steps}) AS s5 {fence}"


def _place_in_sql(term: RegionTerm, params: Params, dialect: str) -> str:
    """:func:`gpuscout.knowledge.regions.place_in` of the term's countries and areas, over the
    columns of :func:`_place_names_sql`: mostly look-ups in short lists."""
    from gpuscout.knowledge.regions import country_rules

    rules = country_rules(term.countries, term.areas)
    if dialect == "sqlite":
        last, middle = "substr(l, -2)", "substr(l, -6, 2)"
    else:
        last, middle = "right(l, 2)", "substr(right(l, 6), 1, 2)"
    codes = params.many(rules.codes)
    rest = [
        _in("l", rules.canonical, params),
        _in("w", rules.tail_words, params),
        *(f"t LIKE {params.add(f'% {_like(phrase)}')} ESCAPE '/'" for phrase in rules.tail_phrases),
        _in("t", rules.whole_names, params),
        *(f"n LIKE {params.add(f' {_like(phrase)} %')} ESCAPE '/'" for phrase in rules.head_phrases),
        f"(l LIKE '%, __' AND {last} IN ({codes}))",
        f"(l LIKE '%, __, __' AND {middle} IN ({codes}))",
        _in("f", rules.leading_words, params),
        f"({_in('f', rules.country_prefixes, params)} AND g IN ({codes}))",
    ]
    return f"CASE WHEN k THEN {_in('l', rules.places, params)} ELSE ({' OR '.join(rest)}) END"


def _matched_names_sql(
    terms: Sequence[str], params: Params, dialect: str, snapshots: Sequence[int] | None
) -> str:
    """The region names (of :func:`_place_names_sql`) some term matches."""
    from gpuscout.knowledge.regions import region_term

    tests = []
    for text in terms:
        term = region_term(text)
        if term.words:
            tests.append(f"n LIKE {params.add(f'% {_like(term.words)} %')} ESCAPE '/'")
        if term.countries:
            tests.append(_place_in_sql(term, params, dialect))
    matched = " OR ".join(tests) or "1 = 0"
    return f"SELECT name FROM ({_place_names_sql(params, dialect, snapshots)}) AS places WHERE {matched}"


def region_condition(
    terms: Sequence[str], params: Params, *, dialect: str, snapshots: Sequence[int] | None = None
) -> str:
    """The rows in a region some of ``terms`` matches (:mod:`gpuscout.knowledge.regions`): a row's
    names are its ``regions`` where it lists several (its ``region`` is then a summary), else its
    ``region`` and a one-name list (:func:`~gpuscout.knowledge.regions.offer_places`). The names are
    those of the rows of ``snapshots`` (the current ones; every row's where ``None``), judged once
    per statement: the matching names are a common table expression (:meth:`Params.cte`) that each
    row looks its names up in."""
    matched = params.cte(_matched_names_sql(terms, params, dialect, snapshots))
    if dialect == "sqlite":
        length = "json_array_length(regions)"
        listed = "json_each(regions) AS e"
    else:
        array = "json_typeof(regions) = 'array'"
        length = f"(CASE WHEN {array} THEN json_array_length(regions) ELSE 0 END)"
        elements = f"CASE WHEN {array} THEN regions ELSE CAST('[]' AS json) END"
        listed = f"json_array_elements_text({elements}) AS e(value)"
    names = f"SELECT name FROM {matched}"
    return (
        f"(({length} <= 1 AND region IN ({names})) "
        f"OR ({length} > 0 AND EXISTS (SELECT 1 FROM {listed} WHERE e.value IN ({names}))))"
    )


def conditions(
    query: OfferQuery,
    params: Params,
    *,
    dialect: str = "postgresql",
    seek_price: bool = True,
    snapshots: Sequence[int] | None = None,
) -> list[str]:
    """The WHERE terms of ``query``'s filters (the current-snapshot scope is separate), over the
    columns of ``offers``; their values go to ``params``. ``dialect``: ``sqlite`` or ``postgresql``.
    ``seek_price=False`` writes the maximum price as ``+column`` so that no index is searched for it
    (see :func:`offers_sql`). ``snapshots``: the current snapshots' ids, whose region names the
    region filter reads (:func:`region_condition`; every row's where ``None``)."""
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
        conds.append(region_condition(query.regions, params, dialect=dialect, snapshots=snapshots))
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
    if query.exclude_stale:  # the feed's flag; the age part of the rule needs the snapshots (offers_sql)
        conds.append(f"stale = {params.add(False)}")
    return conds


#: The most comma-separated parts one region name is read as ("Santa Clara, US, North America"), past
#: the whole of what was typed (which stays one name whenever a region holds it).
REGION_NAME_PARTS = 3


def region_terms(values: Iterable[str], known: Callable[[str], bool]) -> tuple[str, ...]:
    """The terms of :attr:`OfferQuery.regions` for the region filter's typed ``values`` (each one
    ``gpuscout offers --region`` or the web's ``region``, its repeats joined with commas): the one
    place the CLI, the web page and the JSON API split a region list.

    A value is a comma-separated list of region substrings, except where commas are part of a
    region's own name (Vast.ai's "Texas, US"): the whole value stays one term when ``known`` (a
    region the catalog has, matched as the filter matches it: :func:`region_known`) says so; else
    each run of consecutive parts (of at most :data:`REGION_NAME_PARTS`) that is a known region, read
    ``", "``-joined, is one term ("Texas, US, EU" is "Texas, US" and "EU") and every other part is
    its own. Blank parts are dropped; a term is kept once, its first spelling (matched ignoring case:
    "US" and "us" are one). ``known`` is asked only of texts holding a comma, each once."""
    asked: dict[str, bool] = {}

    def is_known(parts: Sequence[str]) -> bool:
        text = ", ".join(parts)
        if text.lower() not in asked:
            asked[text.lower()] = known(text)
        return asked[text.lower()]

    terms: dict[str, str] = {}
    for value in values:
        parts = [p.strip() for p in value.split(",") if p.strip()]
        if len(parts) > 1 and is_known(parts):
            runs = [parts]
        else:
            runs, i = [], 0
            while i < len(parts):
                # a run that is no region's substring grows into none (a region holding "a, b, c"
                # holds "a, b"): extend while the longer run is known
                end = i + 1
                while end < min(len(parts), i + REGION_NAME_PARTS) and is_known(parts[i : end + 1]):
                    end += 1
                runs.append(parts[i:end])
                i = end
        for run in runs:
            term = ", ".join(run)
            terms.setdefault(term.lower(), term)
    return tuple(terms.values())


def region_known(count_offers: Callable[[OfferQuery], int]) -> Callable[[str], bool]:
    """Whether a text is a region the catalog knows: some current offer is in a region it matches
    (its words, country or area), as the region filter matches (``count_offers``: a reader's)."""
    return lambda text: count_offers(OfferQuery(regions=(text,))) > 0


#: How many regions an error about a region no offer is in names.
REGION_SUGGESTIONS = 4


class NoOffersIn(NoCurrentOffer):
    """No current offer is in a region matching ``name`` (the region filter's words, country or
    area: :mod:`gpuscout.knowledge.regions`); ``suggestions`` are the closest regions that have
    offers (their names, countries and areas)."""

    def __init__(self, field: str, name: str, suggestions: Sequence[str]) -> None:
        super().__init__(field, name, suggestions, f"in a region matching {quoted_value(name)}")


def offer_regions(offers: Iterable[Any]) -> set[str]:
    """The region names of ``offers`` an error may suggest: each offer's region, or each of its
    ``regions`` where it stands for several (its ``region`` is then a summary, "14 regions"), and
    the countries and areas they are in ("Finland" and "europe" for ``FIN-03``), which a filter
    accepts too."""
    from gpuscout.knowledge.regions import place_names

    names: set[str] = set()
    for o in offers:
        names.update(o.regions if len(o.regions) > 1 else (o.region,))
    return names | place_names(names)


def check_regions(
    terms: Iterable[str],
    count_offers: Callable[[OfferQuery], int],
    listed: Callable[[], Iterable[str]],
    *,
    field: str = "region",
) -> None:
    """The check of a region filter that left nothing to show (``gpuscout offers --region``,
    ``/api/v1/offers``, ``gpuscout recommend --region`` and ``/api/v1/recommend``): the first term no
    current offer is in (by the region filter: ``count_offers``, a reader's, as :func:`region_known`) raises
    :class:`NoOffersIn` naming ``field`` and the closest regions with offers (``listed()``, read only
    then: the current offers' region names, :func:`offer_regions`), so that a typo ("Mars", "eu-wset")
    does not read as an empty catalog. Terms that all match pass."""
    from gpuscout.errors import closest

    known = region_known(count_offers)
    for term in terms:
        if not known(term):
            raise NoOffersIn(field, term, closest(term, set(listed()), n=REGION_SUGGESTIONS))


def _rank(column: str, ranks: dict[str, int]) -> str:
    whens = " ".join(f"WHEN '{value}' THEN {rank}" for value, rank in ranks.items())
    return f"CASE {column} {whens} ELSE NULL END"


def region_sort_key(dialect: str) -> str:
    """The ``region`` sort's expression: the region's name ignoring case, in code-point order on both
    databases (PostgreSQL's default collation may follow a language's rules, SQLite's is binary); NULL,
    so after every named region either way, for a row standing for several regions (its ``region`` a
    summary, "14 regions", whose text would sort "14 regions" < "2 regions" < "CANADA-1")."""
    if dialect == "sqlite":
        return "CASE WHEN json_array_length(regions) > 1 THEN NULL ELSE lower(region) END"
    # a CASE, not AND: PostgreSQL may evaluate either side of an AND first (the length of a scalar fails)
    return (
        "(CASE WHEN json_typeof(regions) <> 'array' THEN lower(region) "
        'WHEN json_array_length(regions) > 1 THEN NULL ELSE lower(region) END) COLLATE "C"'
    )


def order_by(query: OfferQuery, *, dialect: str = "postgresql") -> list[str]:
    """ORDER BY terms for ``query.sort``: best first, ``descending`` flips it; unknown values
    (NULL) last either way; ties by per-GPU price, then row id (a stable order for paging).

    The spec sorts read each offer's precomputed, indexed ``*_per_usd`` column. ``price`` and
    ``price_per_gpu`` follow ``query.spot``; ``on_demand_price*`` always sort on the on-demand
    price. ``total_vram`` is most memory first; ``interconnect`` is NVLink, then PCIe (unknown
    last); ``availability`` is available, limited, unknown, unavailable; ``instance_type`` and
    ``source`` ignore case; ``age`` is freshest first; ``region`` is A-Z ignoring case, the rows
    standing for several regions last (:func:`region_sort_key`). ``dialect``: ``sqlite`` or
    ``postgresql``."""
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
        "region": (region_sort_key(dialect), False),
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


# ---- staleness ---------------------------------------------------------------------------------
def aging_snapshots(current: Sequence[Any]) -> list[int]:
    """The current snapshots whose rows :data:`STALE_AFTER`'s age rule applies to: the live feeds'
    (neither the bundled snapshot nor a user's own offer file)."""
    return sorted(int(r.id) for r in current if not r.fallback and source_preference(r.source) is not None)


def stale_cutoff_sql(live: Sequence[int], params: Params, dialect: str) -> str:
    """The time before which a live row is stale: :data:`STALE_AFTER` before the newest fetch time of
    a row of the ``live`` snapshots; NULL when none has a known time. The newest is read through the
    index of ``observed_at`` (newest first, stopping at the first live row: ``+snapshot_id`` keeps
    SQLite from reading every live row through the snapshot's index instead). On SQLite a time is the
    UTC text the store wrote, and the cutoff is written alike (to the millisecond: compared as text, a
    row at the cutoff is not before it)."""
    column = "+snapshot_id" if dialect == "sqlite" else "snapshot_id"
    newest = (
        f"(SELECT observed_at FROM offers WHERE {column} IN ({params.many(live)}) "
        "AND observed_at IS NOT NULL ORDER BY observed_at DESC LIMIT 1)"
    )
    if dialect == "sqlite":
        shift = params.add(f"-{STALE_AFTER.total_seconds():.0f} seconds")
        return f"strftime('%Y-%m-%d %H:%M:%f', {newest}, {shift})"
    return f"({newest} - {params.add(STALE_AFTER)})"


def _aged_snapshots_sql(live: Sequence[int], cutoff: str, params: Params) -> str:
    """The ``live`` snapshots that can hold a row stale by age: those whose oldest row
    (``snapshots.observed_at``) is before ``cutoff``, or with an undated row; none while every feed is
    fresh (the small ``snapshots`` table is read, not ``offers``)."""
    return (
        f"SELECT id FROM snapshots WHERE id IN ({params.many(live)}) "
        f"AND (observed_at IS NULL OR observed_at < {cutoff})"
    )


def stale_sql(current: Sequence[Any], params: Params, dialect: str) -> str:
    """:data:`STALE_AFTER`'s rule over one ``offers`` row, as a boolean that is never NULL: flagged by
    its feed, or a live row fetched before :func:`stale_cutoff_sql`."""
    live = aging_snapshots(current)
    if not live:
        return "stale"
    cutoff = stale_cutoff_sql(live, params, dialect)
    old = _aged_snapshots_sql(live, cutoff, params)
    # EXISTS is read once: while no live feed is old, a row costs its flag only
    aged = f"EXISTS ({old}) AND snapshot_id IN ({old}) AND observed_at < {cutoff}"
    return f"(stale OR COALESCE({aged}, FALSE))"


def aged_terms(current: Sequence[Any], params: Params, dialect: str) -> str | None:
    """The condition leaving out the live rows stale by age (:func:`stale_sql` without the flag: that
    is ``exclude_stale``'s other term). It reads no column of ``offers`` that a count's covering index
    lacks (the aged rows' ids are a subquery read once), and while no live feed is old it is one
    EXISTS, read once; ``None`` without live rows."""
    live = aging_snapshots(current)
    if not live:
        return None
    cutoff = stale_cutoff_sql(live, params, dialect)
    old = _aged_snapshots_sql(live, cutoff, params)
    rows = f"SELECT id FROM offers WHERE snapshot_id IN ({old}) AND {_no_seek(dialect)}observed_at < {cutoff}"
    return f"NOT (EXISTS ({old}) AND snapshot_id IN ({old}) AND id IN ({rows}))"


# ---- resales of a first-party offer ------------------------------------------------------------
#: The aggregator whose live rows name the offer they resell: instance type ``<provider>:<its type>``
#: (``hyperstack:n3-H100x1``, the provider as its gpuscout id) in the provider's own region, with its
#: GPU count.
RESELLER = "primeintellect"


def _offer_key(dialect: str, *, first_party: bool) -> str:
    """What makes a resale the same offer as a first-party row, as one text: the first party's
    ``provider:instance_type`` (a resale's instance type), region, GPU count and on-demand price to the
    cent (a resale at another price is another offer: the snapshot's rule ``resale-priced-apart``)."""
    price = "CAST(price_usd_per_hour AS numeric)" if dialect == "postgresql" else "price_usd_per_hour"
    name = "provider || ':' || instance_type" if first_party else "instance_type"
    parts = [name, "region", "CAST(gpu_count AS TEXT)", f"CAST(round({price}, 2) AS TEXT)"]
    return " || '|' || ".join(parts)


def _resellers(current: Sequence[Any]) -> list[int]:
    """The current live snapshots with rows of :data:`RESELLER` (the bundled snapshot's resales were
    linked when it was built)."""
    return sorted(int(r.id) for r in current if not r.fallback and RESELLER in r.providers.split(","))


def _no_seek(dialect: str) -> str:
    """SQLite's mark that no index is to be searched for a column (``+column``); PostgreSQL's planner
    needs none (and has no unary ``+`` for text or times)."""
    return "+" if dialect == "sqlite" else ""


def _resold_rows(resellers: Sequence[int], params: Params, dialect: str) -> str:
    """The :data:`RESELLER` rows a first-party row can stand for: on-demand priced, with no spot price
    of their own (the first-party row keeps its own spot price, so such a resale hides nothing). Read
    through the reseller snapshots' index only (no other index is searched for them)."""
    plus = _no_seek(dialect)
    return (
        f"snapshot_id IN ({params.many(resellers)}) AND {plus}provider = {params.add(RESELLER)} "
        f"AND {plus}price_usd_per_hour IS NOT NULL AND {plus}spot_price_usd_per_hour IS NULL"
    )


def _upstreams(resold: str, dialect: str) -> str:
    """The providers the ``resold`` rows resell (the first part of their instance types, as ``p``), as
    a subquery read once per statement."""
    split = (
        "split_part(instance_type, ':', 1)"
        if dialect == "postgresql"
        else "substr(instance_type, 1, instr(instance_type, ':') - 1)"
    )
    return f"SELECT DISTINCT {split} AS p FROM offers WHERE {resold}"


def _hidden_resales(
    current: Sequence[Any], params: Params, dialect: str, include_superseded: bool
) -> str | None:
    """The ids of the live :data:`RESELLER` rows that resell a current first-party offer at its price,
    as a subquery read once per statement (so that a count filtering on it keeps to its covering
    index); ``None`` when no live reseller snapshot is current.

    A resale is compared with the current rows of the providers it resells only (Hyperstack's,
    Lambda's...: those of the current snapshots that list one of them, searched by snapshot), never
    with every current offer nor the stored history."""
    resellers = _resellers(current)
    if not resellers:
        return None
    others = sorted(int(r.id) for r in current if int(r.id) not in resellers)
    if not others:
        return None
    plus = _no_seek(dialect)
    resold = _resold_rows(resellers, params, dialect)
    upstreams = _upstreams(resold, dialect)
    holders = (
        f"SELECT DISTINCT s.id FROM snapshots AS s, ({upstreams}) AS u WHERE s.id IN ({params.many(others)}) "
        "AND ',' || s.providers || ',' LIKE '%,' || u.p || ',%'"
    )
    scope = current_scope(current, params, include_superseded=include_superseded, seek=dialect != "sqlite")
    first = (
        f"SELECT {_offer_key(dialect, first_party=True)} FROM offers WHERE snapshot_id IN ({holders}) "
        f"AND {scope} AND {plus}provider IN (SELECT p FROM ({upstreams}) AS v) "
        f"AND {plus}price_usd_per_hour IS NOT NULL"
    )
    return f"SELECT id FROM offers WHERE {resold} AND {_offer_key(dialect, first_party=False)} IN ({first})"


def resale_terms(
    current: Sequence[Any], params: Params, *, dialect: str, include_superseded: bool = False
) -> str | None:
    """Leaves out a live :data:`RESELLER` row reselling a current first-party offer at its price
    (the same box at the same price listed twice: Hyperstack's n3-H100x1 at $1.90 and Prime
    Intellect's ``hyperstack:n3-H100x1`` at $1.90); the first-party row names the reseller in
    ``also_listed_by`` (:func:`also_listed_by_sql`). A resale at another price stays, its notes say
    whose offer it resells. ``None`` when no live reseller snapshot is current. Only a row of a
    reseller snapshot is looked up in the list (the others pass on their snapshot id, read from the
    same index entry)."""
    hidden = _hidden_resales(current, params, dialect, include_superseded)
    if hidden is None:
        return None
    return f"NOT (snapshot_id IN ({params.many(_resellers(current))}) AND id IN ({hidden}))"


def also_listed_by_sql(current: Sequence[Any], params: Params, *, dialect: str) -> str | None:
    """The ``also_listed_by`` column of a current row, with :data:`RESELLER` added on a first-party row
    whose live resale :func:`resale_terms` leaves out; ``None`` when no live reseller snapshot is
    current."""
    resellers = _resellers(current)
    if not resellers:
        return None
    rows = _resold_rows(resellers, params, dialect)
    resold = f"SELECT {_offer_key(dialect, first_party=False)} FROM offers WHERE {rows}"
    upstreams = _upstreams(rows, dialect)
    name, pattern = params.add(RESELLER), params.add(f'%"{RESELLER}"%')  # named already: not twice
    if dialect == "postgresql":
        added = f"CAST(CAST(also_listed_by AS jsonb) || to_jsonb(CAST({name} AS text)) AS json)"
        listed = "CAST(also_listed_by AS TEXT)"
    else:
        added = f"json_insert(also_listed_by, '$[#]', {name})"
        listed = "also_listed_by"
    return (
        f"CASE WHEN provider IN (SELECT p FROM ({upstreams}) AS v) AND provider != {name} "
        f"AND price_usd_per_hour IS NOT NULL AND {listed} NOT LIKE {pattern} "
        f"AND {_offer_key(dialect, first_party=True)} IN ({resold}) THEN {added} ELSE also_listed_by END"
    )


class ProviderShutDown(NoOffersFrom):
    """No current offer is from ``name`` because the provider shut down (knowledge ``providers.yaml``
    ``status: defunct``, whose offers :func:`current_scope` never lists): the message says when and
    where that is said, not "no current offer" with names to try instead."""

    def __init__(self, field: str, name: str, why: str) -> None:
        self.name = name
        self.suggestions = []
        self.ambiguous = False
        InvalidInputError.__init__(self, field, why)


def shut_down(exc: NoOffersFrom) -> NoOffersFrom:
    """``exc`` (from :func:`~gpuscout.catalog.provider_ids.provider_ids`), or where its provider shut
    down, a :class:`ProviderShutDown` naming the same field: "Cudo Compute shut down on 2026-03-31
    (https://...); its offers are no longer listed"."""
    from gpuscout.knowledge.providers import canonical_provider, is_defunct, provider_terms

    pid = canonical_provider(exc.name)
    if pid is None or not is_defunct(pid):
        return exc
    terms = provider_terms(pid)
    when = f" on {terms.status_since}" if terms.status_since else ""
    said = f" ({terms.status_source})" if terms.status_source else ""
    why = f"{terms.display_name} shut down{when}{said}; its offers are no longer listed"
    return ProviderShutDown(exc.field, exc.name, why)


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
    row where the sort's index stops after the page).

    The ``stale`` column, where asked for, is read by the catalog's rule (:func:`stale_sql`), and so
    is ``exclude_stale``; a live resale at its first party's price is left out and named on that
    party's row instead (:func:`resale_terms`, ``also_listed_by`` where asked for)."""
    params = Params()
    shown = list(columns)
    if not count and "stale" in shown:
        shown[shown.index("stale")] = f"{stale_sql(current, params, dialect)} AS stale"
    if not count and "also_listed_by" in shown:
        listed = also_listed_by_sql(current, params, dialect=dialect)
        if listed is not None:
            shown[shown.index("also_listed_by")] = f"{listed} AS also_listed_by"
    terms = [
        current_scope(
            current, params, include_superseded=include_superseded, seek=count or dialect != "sqlite"
        ),
        *conditions(
            query,
            params,
            dialect=dialect,
            seek_price=not (count and dialect == "sqlite"),
            snapshots=sorted(int(r.id) for r in current),
        ),
    ]
    resales = resale_terms(current, params, dialect=dialect, include_superseded=include_superseded)
    if resales is not None:
        terms.append(resales)
    aged = aged_terms(current, params, dialect) if query.exclude_stale else None
    if aged is not None:
        terms.append(aged)
    where = " AND ".join(terms)
    if count:
        counted = "count(*), count(DISTINCT provider)" if providers else "count(*)"
        return f"{params.with_clause()}SELECT {counted} FROM offers WHERE {where}", params.values
    order = ", ".join(order_by(query, dialect=dialect))
    text = f"{params.with_clause()}SELECT {', '.join(shown)} FROM offers WHERE {where} ORDER BY {order}"
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
