"""``gpuscout offers`` without Typer: its query from the option values, and its table.

Both faces of the command use it: the Typer command (:func:`gpuscout.cli.catalog_cmds.offers_cmd`)
and the lean dispatch (:mod:`gpuscout.cli.lean`), so the two answer with the same code.

The table goes to a pipe or a file (the usual case for scripts, and for a long list) as text written
here directly (:func:`pipe_table`) when Rich would write exactly that text: output that is not a
terminal gets the wide console of :func:`~gpuscout.cli.consoles.wide_console`, without colours or
styles, in UTF-8, and every cell is one line of printable ASCII without markup, so Rich's table
comes down to column widths, padding and box characters. Any other case (a terminal, another
encoding, colour forced, a cell Rich would measure or parse itself) is printed by Rich as before;
``tests/cli/test_lean.py`` holds the two to the same bytes.
"""

from __future__ import annotations

import builtins
import itertools
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from gpuscout.catalog.query import (
    DEFAULT_SORT,
    INTERCONNECTS,
    canonical_sort,
    check_regions,
    offer_regions,
    region_known,
    region_terms,
)
from gpuscout.cli.markup import plain, printable
from gpuscout.cli.table_fit import PIPE_WIDTH, Column
from gpuscout.errors import InvalidInputError
from gpuscout.wording import plural

if TYPE_CHECKING:
    from rich.table import Table

    from gpuscout.catalog.offer import Offer
    from gpuscout.catalog.query import OfferQuery
    from gpuscout.catalog.reader import OfferReader
    from gpuscout.cli.table_fit import Cell, Short

# The most rows ``--limit`` takes (the other bounds are the web's too: catalog.filter_bounds).
MAX_ROWS = 10_000_000

_GITHUB_RE = re.compile(r"github\.com/([^/]+)/([^/]+)/blob/([0-9a-f]{7})[0-9a-f]*/(.+)$")
_PATH_SEP = re.compile(r"[/\\]")  # a file source's path, POSIX or Windows

#: The region column's width where the table cuts long names: a code and the country it is in,
#: "ap-northeast-2 (KR)" (:func:`region_text`), whole.
REGION_WIDTH = 19

# Every column, the source as :func:`short_source`: a pipe, or a terminal wide enough for the whole
# row (the source may give way only to tell that it is not); a narrower one gets :func:`narrow_columns`.
COLUMNS = (
    Column("provider", max_width=12),
    Column("instance", max_width=16),
    Column("gpu"),
    Column("#", right=True),
    Column("GiB/gpu", right=True),  # MEMORY_HEADER: the offer's memory as sold, an "80 GB" card is 80 GiB
    Column("$/h", right=True),
    Column("$/gpu-h", right=True),
    Column("spot $/h", right=True),
    Column("region", max_width=REGION_WIDTH),
    Column("avail"),
    Column("age"),
    Column("source", drop=1, max_width=40),
)
# A narrow terminal's order of giving way (1 first) among the columns whose rows differ: the provider
# (no price can be rented without it), the region, the GPU, the prices of the side the rows are read by
# and the sorted column never give way (see :func:`narrow_columns`); the memory (which the GPU's name
# tells) before the source and the age, which the command promises for every row, then the count (which
# the two prices tell, but for a slice), and last the prices of the other side (:data:`_OTHER_SIDE_DROP`).
_NARROW_DROP = {"avail": 1, "instance": 2, "GiB/gpu": 3, "source": 4, "age": 5, "#": 6}
#: The prices of each side (``--spot``: the spot side), and where the rows are read by one side, the
#: other side's prices in their order of giving way, after every column of :data:`_NARROW_DROP`: its
#: instance price first (with --spot the on-demand $/gpu-h is what the spot $/gpu-h compares with).
_SIDE_PRICES = {False: ("$/h", "$/gpu-h"), True: ("spot $/h", "spot $/gpu-h")}
_OTHER_SIDE_DROP = {False: {"spot $/h": 7}, True: {"$/h": 7, "$/gpu-h": 8}}
# The order of giving way of the columns whose rows all read the same, before any of the others: their
# value is said once under the table (:func:`shared_note`), the feed and the age first; a price no row
# has (``-`` on every row: :data:`_PRICES`) next (the only way a price of the rows' side gives way).
_NARROW_SAME = {
    "source": 1,
    "age": 2,
    **dict.fromkeys(("$/h", "$/gpu-h", "spot $/h"), 3),
    "avail": 4,
    "provider": 5,
    "#": 6,
    "GiB/gpu": 7,
    "instance": 8,
    "gpu": 9,
}
_PRICES = ("$/h", "$/gpu-h", "spot $/h")
#: What the line under a narrow table calls a column whose rows all read the same (:func:`shared_note`).
_SHARED_LABELS = {
    "#": "gpus",
    "avail": "availability",
    "age": "price age",
    "$/h": "on-demand price",
    "$/gpu-h": "price per GPU",
    "spot $/h": "spot price",
}
#: The memory column's header (GPU memory as sold: the vendor's "80 GB" is 80 GiB, shown as stated), and
#: its short form where the whole one would cost a narrow table a column (:func:`narrow_columns`), with
#: the note that says what it is.
MEMORY_HEADER = "GiB/gpu"
SHORT_MEMORY_HEADER = "GiB"
SHORT_MEMORY_NOTE = 'GiB = memory per GPU as sold (an "80 GB" card holds 80 GiB).'
#: Said under a table whose source column shows the feed only (``snapshot``, ``vastai``...).
FULL_SOURCE = "full source"
ASSUMED_NOTE = (
    "? = the source does not state the variant (form factor or memory); the default one is assumed."
)
SLICE_NOTE = "# 1/N = a vGPU slice: 1/N of one GPU (its share of the card's memory), linked to no other GPU."
#: Added to :data:`SLICE_NOTE` where the table shows the per-GPU price.
SLICE_PRICE_NOTE = " Its $/gpu-h is for a whole GPU's worth: N x its $/h."
AUCTION_NOTE = (
    "auction = an auction market's price: interruptible, like a spot price; --on-demand leaves it out."
)
_UNKNOWN_AGE_NOTE = (
    "age {} = bundled snapshot rows whose dates could not be established; "
    "run `gpuscout refresh` for live prices."
)
UNKNOWN_AGE_NOTE = _UNKNOWN_AGE_NOTE.format("unknown")
#: Under a table too narrow for the age column (where "stale" marks a row from a stale feed): how many of
#: the rows shown are, whose they are, and how to hide them (:func:`stale_note`).
STALE_NOTE = (
    "{} of {} rows shown are from stale feeds ({}): a wider terminal (or --csv) shows which, in the age "
    "column; leave out --include-stale to hide them."
)
#: Under a table that hides offers from stale feeds (the default), how many it hid of those its filters
#: match, and the flag that lists them (the web table's "93 prices flagged stale are hidden (show)").
HIDDEN_STALE_NOTE = "{} from stale feeds {} hidden: --include-stale lists {}."
#: The age of a price whose observation time is unknown, in a narrow table.
SHORT_UNKNOWN_AGE = "?"


#: How the header of the column the rows are sorted by may read in a narrow terminal, in order of
#: preference (:func:`narrow_columns`): marked on its line, marked on two lines, or as it is.
HEADER_FORMS = ("marked", "two lines", "plain")


def narrow_columns(
    *,
    spot: bool,
    sort: str = DEFAULT_SORT,
    header: str = "marked",
    short_memory: bool = False,
    unpriced: frozenset[str] = frozenset(),
) -> tuple[Column, ...]:
    """:data:`COLUMNS` for a terminal too narrow for them. The columns whose rows all read the same
    give way first (the source, the age, the availability, the provider, the count, the memory, the
    instance, the GPU: their value is said once under the table, :func:`shared_note`), then
    availability, instance, memory, source, age, count, and the prices of the side the rows are not
    read by (the on-demand ones with ``--spot``, the spot one without), the instance's first. The
    provider (a price cannot be rented without it), the region, the GPU, the prices of the rows' side
    and the column the rows are sorted by (:func:`sort_layout`) never give way: they are what tells
    offers apart; but a price in ``unpriced`` (``-`` on every row: no row has it) may, said once
    under the table as the other columns whose rows read the same. ``header``: the sorted
    column's header form (:data:`HEADER_FORMS`); ``short_memory``: the memory column headed
    :data:`SHORT_MEMORY_HEADER` (unless the rows are sorted by it). ``spot`` is the sort's side
    (``--spot``)."""
    from dataclasses import replace

    layout = sort_layout(sort, spot=spot)
    # the sorted column, as the side's prices (but those no row has) and the region, stays whatever its rows
    kept = {layout.header, *(h for h in _SIDE_PRICES[spot] if h not in unpriced)}
    drops = {**_NARROW_DROP, **_OTHER_SIDE_DROP[spot]}
    columns = [
        replace(c, drop=None, same=None)
        if c.header in kept
        else replace(c, drop=drops.get(c.header), same=_NARROW_SAME.get(c.header))
        for c in COLUMNS
    ]
    if short_memory and layout.header != MEMORY_HEADER:
        columns = [
            replace(c, header=SHORT_MEMORY_HEADER) if c.header == MEMORY_HEADER else c for c in columns
        ]
    if layout.derived is not None:
        columns.insert(layout.derived_at, layout.derived.column)
    if header == "plain":
        return tuple(columns)
    return tuple(_marked(c, layout, two_lines=header == "two lines") for c in columns)


def shared_note(shared: Sequence[tuple[str, str]]) -> str | None:
    """The line under a narrow table that left out columns whose rows all read the same, ``shared``
    as (header, the text every row shows): "all rows: source snapshot, price age unknown"; None where
    there is none."""
    if not shared:
        return None
    named = (
        f"no {_SHARED_LABELS.get(header, header)}"
        if text == "-"
        else f"{_SHARED_LABELS.get(header, header)} {text}"
        for header, text in shared
    )
    return "all rows: " + ", ".join(named)


#: The column each sort orders the rows by, where the table has one for every sort mode (``price``
#: and ``price_per_gpu`` follow ``--spot``: :func:`sort_layout`).
_SORT_HEADERS = {
    "on_demand_price": "$/h",
    "on_demand_price_per_gpu": "$/gpu-h",
    "spot_price": "spot $/h",
    "gpu_memory": MEMORY_HEADER,
    "provider": "provider",
    "accelerator": "gpu",
    "gpu_count": "#",
    "region": "region",
    "age": "age",
    "instance_type": "instance",
    "availability": "avail",
    "source": "source",
}
#: Sorts that put the highest value first: their column is marked :data:`HIGH_FIRST_MARK`, the
#: others (cheapest, fewest, freshest, A-Z, best rank first) :data:`LOW_FIRST_MARK`.
_HIGH_FIRST = frozenset({"gpu_memory", "total_vram", "bandwidth_per_dollar", "tflops_per_dollar"})
#: The marks after the header of the column the rows are sorted by (the web table's marks).
LOW_FIRST_MARK = "▲"
HIGH_FIRST_MARK = "▼"
_SORT_MARKS = (f" {LOW_FIRST_MARK}", f" {HIGH_FIRST_MARK}")


@dataclass(frozen=True)
class Derived:
    """A column shown only for the sort it holds (the table has no column with that value): its
    column, the header of the column it follows, and its cell for an offer."""

    column: Column
    after: str
    cell: Callable[[Offer], str]


@dataclass(frozen=True)
class SortLayout:
    """Where the value the rows are sorted by is shown: ``header``, the header (unmarked) of its
    column; ``derived``, that column where the table has none of its own; ``is_price``, whether it is
    a price; ``auction_on``,
    the column that marks an auction market's price (the sort's own price where it is one drawn from
    the on-demand price, else ``$/h``); ``mark``, the mark after its header."""

    header: str
    derived: Derived | None = None
    is_price: bool = False
    auction_on: str = "$/h"
    mark: str = LOW_FIRST_MARK

    @property
    def label(self) -> str:
        """The sorted column's header as the table marks it ("$/gpu-h ▲"): the title names the sort by it."""
        return f"{self.header} {self.mark}"

    @property
    def derived_at(self) -> int:
        """Where :attr:`derived` goes in :data:`COLUMNS`: after the column it follows."""
        assert self.derived is not None
        return next(i for i, c in enumerate(COLUMNS) if c.header == self.derived.after) + 1


def _per(value: float | None, by: float | None) -> float | None:
    return None if value is None or not by else value / by


def _ratio(value: float | None) -> str:
    """A small price ratio ($ per GiB-hour) with the digits that tell close offers apart."""
    return "-" if value is None else money(value) if value >= 1 else f"{value:.4f}"


def _spec_per_dollar(spec: str, spot: bool) -> Callable[[Offer], str]:
    """The cell of an accelerator spec (GB/s, BF16 TFLOPS) per USD of the per-GPU price, as the
    store's ``*_per_usd`` sort columns compute it (``catalog.migrations.fill_value_columns``)."""
    from gpuscout.knowledge.accelerators import all_accelerators

    specs = {a.name: getattr(a, spec) for a in all_accelerators()}

    def cell(o: Offer) -> str:
        price = o.spot_price_usd_per_gpu_hour if spot else o.price_usd_per_gpu_hour
        value = _per(specs.get(o.accelerator), price)
        return "-" if value is None else f"{value:,.0f}"

    return cell


def sort_layout(sort: str, *, spot: bool) -> SortLayout:
    """Where the table shows the value ``sort`` orders its rows by (``spot``: the sort reads the spot
    price, ``--spot``), as :func:`gpuscout.catalog.query.order_by` sorts: a column of the table, or
    one added for that sort (the price per GiB of memory, the specs per dollar, the total memory, the
    interconnect, the spot price per GPU)."""
    mark = HIGH_FIRST_MARK if sort in _HIGH_FIRST else LOW_FIRST_MARK
    side = "spot " if spot else ""
    if sort == "price":
        return SortLayout("spot $/h" if spot else "$/h", is_price=True)
    if sort in ("price_per_gpu", "on_demand_price_per_gpu") and not (spot and sort == "price_per_gpu"):
        return SortLayout("$/gpu-h", is_price=True, auction_on="$/gpu-h")
    derived: Derived | None = None
    if sort == "price_per_gpu":  # with --spot: the spot price per GPU, which no column shows
        derived = Derived(
            Column("spot $/gpu-h", right=True), "spot $/h", lambda o: money(o.spot_price_usd_per_gpu_hour)
        )
    elif sort == "price_per_gb_vram":

        def per_gb(o: Offer) -> str:
            price = o.spot_price_usd_per_hour if spot else o.price_usd_per_hour
            return _ratio(_per(price, o.gpu_memory_gb * o.gpu_count))

        derived = Derived(Column(f"{side}$/GiB-h", right=True), "spot $/h", per_gb)
    elif sort == "bandwidth_per_dollar":
        cell = _spec_per_dollar("bandwidth_gbps", spot)
        derived = Derived(Column(f"{side}GB/s per $", right=True), "spot $/h", cell)
    elif sort == "tflops_per_dollar":
        cell = _spec_per_dollar("bf16_tflops", spot)
        derived = Derived(Column(f"{side}TFLOPS per $", right=True), "spot $/h", cell)
    elif sort == "total_vram":
        derived = Derived(
            Column("GiB total", right=True), MEMORY_HEADER, lambda o: f"{o.gpu_memory_gb * o.gpu_count:g}"
        )
    elif sort == "interconnect":
        derived = Derived(Column("link"), "gpu", lambda o: o.interconnect.value)
    if derived is not None:
        is_price = "$" in derived.column.header
        auction_on = derived.column.header if is_price and not spot else "$/h"
        return SortLayout(derived.column.header, derived, is_price, auction_on, mark)
    header = _SORT_HEADERS.get(sort, "$/h")
    return SortLayout(header, is_price=header.endswith("$/h"), auction_on="$/h", mark=mark)


def _marked(column: Column, layout: SortLayout, *, two_lines: bool = False) -> Column:
    """``column`` with the sort's mark after its header where the rows are sorted by it; with
    ``two_lines``, the marked header broken onto two lines where that makes it narrower."""
    from dataclasses import replace

    if column.header != layout.header:
        return column
    text = layout.label
    if two_lines:
        cuts = [i for i, ch in enumerate(text) if ch == " "]
        text = min((text[:i] + "\n" + text[i + 1 :] for i in cuts), key=_header_width, default=text)
    return replace(column, header=text)


def _header_width(text: str) -> int:
    return max(len(line) for line in text.split("\n"))


def wide_columns(layout: SortLayout) -> tuple[Column, ...]:
    """Every column (:data:`COLUMNS`, and the sort's own where it has one), the sort's marked."""
    columns = list(COLUMNS)
    if layout.derived is not None:
        columns.insert(layout.derived_at, layout.derived.column)
    return tuple(_marked(c, layout) for c in columns)


def short_source(source: str) -> str:
    """A compact provenance label: the source's own name where it has one per provider or file
    (``gpuhunt:aws``, ``file:offers.csv``, the file's name without its folder), else feed +
    repo@commit + path tail, or feed + host."""
    feed, _, where = source.partition(":")
    if not where:
        return source
    if feed == "gpuhunt":  # gpuhunt:<provider>:<catalog URL, local path or online module>
        return f"{feed}:{where.partition(':')[0]}"
    if feed == "file":  # file:<absolute path>
        name = _PATH_SEP.split(where)[-1]
        return f"{feed}:{name or where}"
    hit = _GITHUB_RE.search(where)
    if hit:
        _owner, repo, sha, path = hit.groups()
        tail = "/".join(p for p in path.split("/") if p not in ("catalogs", "vms.csv"))
        return f"{feed} {repo}@{sha} {tail}"
    host = re.sub(r"^[a-z]+://", "", where).split("/")[0]
    return f"{feed} {host}" if host else feed


def source_feed(source: str) -> str:
    """The feed an offer came from (``snapshot``, ``vastai``, ``gpuhunt``, ``file``): its
    :attr:`~gpuscout.catalog.offer.Offer.source` up to the first colon."""
    return source.partition(":")[0]


def money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}" if value >= 10 else f"{value:.3f}"


def age_text(offer: object) -> str:
    """The age of an offer's price (``unknown`` without an observation time)."""
    from gpuscout.catalog.clock import format_age

    observed = getattr(offer, "observed_at", None)
    if observed is None:
        return "unknown"
    from datetime import UTC, datetime

    return format_age((datetime.now(UTC) - observed).total_seconds())


@dataclass(frozen=True, slots=True)
class OffersOptions:
    """The option values of ``gpuscout offers``, as its Typer command receives them (its defaults are the
    command's): what :func:`find_offers` and :func:`why_no_offers` read, and what the lean dispatch
    (:mod:`gpuscout.cli.lean`) builds from the arguments."""

    gpu: Sequence[str] | None = None
    min_vram: float | None = None
    gpus: int | None = None
    provider: Sequence[str] | None = None
    region: Sequence[str] | None = None
    spot: bool = False
    on_demand: bool = False
    available: bool = False
    interconnect: str | None = None
    max_price: float | None = None
    sort: str = DEFAULT_SORT
    limit: int = 30
    fresh_only: bool = True  # stale feeds hidden, as every other face has them (--include-stale)
    json_out: bool = False
    csv_out: bool = False
    db: str | None = None

    def __post_init__(self) -> None:
        # the web table's column names sort as there (``--sort vram`` is ``gpu_memory``)
        object.__setattr__(self, "sort", canonical_sort(self.sort))
        # a comma-separated --gpu / --provider is several, as the API's gpu=H100,A100 (--region already
        # splits its own); a blank one stays for the filters' "is empty" errors
        for name in ("gpu", "provider"):
            values = getattr(self, name)
            if values and any("," in v for v in values):
                parts = [
                    p.strip() for v in values for p in (v.split(",") if v.replace(",", "").strip() else [v])
                ]
                object.__setattr__(self, name, tuple(p for p in parts if p) or tuple(values))


class FoundOffers(NamedTuple):
    """What :func:`find_offers` read: the offers to list, how many match in all, and how many more
    would match from stale feeds, which the table says it hides (counted for a table only: ``--json``
    and ``--csv`` are a bare list of rows; 0 with ``--include-stale`` or where no offer matches, whose
    empty table already names the flag: :func:`why_no_offers`)."""

    offers: list[Offer]
    total: int
    stale_hidden: int = 0


def find_offers(options: OffersOptions) -> FoundOffers:
    """The offers ``gpuscout offers`` lists for these option values, how many match in all, and for a
    table how many stale ones it hides (:class:`FoundOffers`). A bad value is an
    :class:`~gpuscout.errors.InvalidInputError` naming the option."""
    from gpuscout.catalog.api import expand_gpus
    from gpuscout.catalog.paths import default_db_url
    from gpuscout.catalog.reader import open_reader

    o = options
    if o.spot and o.on_demand:
        raise InvalidInputError("--spot/--on-demand", "give one of them, not both")
    if o.json_out and o.csv_out:
        raise InvalidInputError("--json/--csv", "give one of them, not both")
    if o.limit < 0:
        raise InvalidInputError("--limit", f"must be >= 0, got {o.limit}", "0 (all) or a positive count")
    if o.interconnect is not None and o.interconnect.lower() not in INTERCONNECTS:
        accepted = ", ".join(INTERCONNECTS)
        raise InvalidInputError("--interconnect", f"unknown value {o.interconnect!r}", accepted)
    gpu_names = expand_gpus(o.gpu or ())
    reader = open_reader(o.db or default_db_url())
    try:
        query = _offer_query(reader, gpu_names, o)
        offers, total = reader.offer_page(query)
        if not total and query.regions:
            # a term no offer's region holds: the closest regions with offers (catalog.query)
            check_regions(
                query.regions,
                reader.count_offers,
                lambda: offer_regions(reader.current_offers()),
                field="--region",
            )
        hidden = 0
        if total and query.exclude_stale and not (o.json_out or o.csv_out):
            from dataclasses import replace

            hidden = max(0, reader.count_offers(replace(query, exclude_stale=False)) - total)
        return FoundOffers(offers, total, hidden)
    finally:
        reader.close()


#: How ``gpuscout offers`` names each filter of its query (an :class:`OfferQuery` field), in a reason
#: under an empty table.
FILTER_OPTIONS = {
    "gpus": "--gpu",
    "min_vram_gb": "--min-vram",
    "gpu_count": "--gpus",
    "providers": "--provider",
    "regions": "--region",
    "available_only": "--available",
    "interconnect": "--interconnect",
    "max_price_usd_per_hour": "--max-price",
    "exclude_stale": "with --include-stale",  # stale feeds are hidden by default
}

#: What to run for the providers' current offers, as a reason under an empty table says it.
REFRESH_HINT = "`gpuscout refresh` fetches the providers' current offers"


def why_no_offers(options: OffersOptions) -> str:
    """Why ``gpuscout offers`` with these option values (the ones :func:`find_offers` took, and found no
    offer for: already checked there) lists nothing, in one line
    (:func:`gpuscout.catalog.no_offers.why_no_offers`): no offer of the GPUs asked for in the whole
    catalog, or the options that, dropped alone, give offers back."""
    from gpuscout.catalog.api import expand_gpus
    from gpuscout.catalog.no_offers import why_no_offers as why
    from gpuscout.catalog.paths import default_db_url
    from gpuscout.catalog.reader import open_reader

    reader = open_reader(options.db or default_db_url())
    try:
        query = _offer_query(reader, expand_gpus(options.gpu or ()), options)
        names = {**FILTER_OPTIONS, "spot": "--spot" if options.spot else "--on-demand"}
        return why(query, reader.count_offers, names, REFRESH_HINT)
    finally:
        reader.close()


def _offer_query(reader: OfferReader, gpu_names: tuple[str, ...], options: OffersOptions) -> OfferQuery:
    """The query of ``gpuscout offers``'s options, its GPUs as canonical names (``gpu_names``); a provider
    no current offer is from is an error naming ``--provider``."""
    from gpuscout.catalog.query import OfferQuery

    o = options
    providers: tuple[str, ...] = ()
    if o.provider:  # "vast" -> vastai; one no current offer is from is an error, as on the web page
        from gpuscout.catalog.provider_ids import NoOffersFrom, provider_ids
        from gpuscout.catalog.query import shut_down

        try:
            providers = provider_ids(
                o.provider,
                lambda p: reader.count_offers(OfferQuery(providers=(p,))) > 0,
                lambda: {offer.provider for offer in reader.current_offers()},
                field="--provider",
            )
        except NoOffersFrom as exc:  # one that shut down: say so, not "no current offer"
            raise shut_down(exc) from None
    if any(not value.replace(",", "").strip() for value in o.region or ()):
        # a blank --region is no filter typed: an error, as a blank --gpu is (not every region)
        raise InvalidInputError("region", "is empty; leave --region out for every region", "a region name")
    return OfferQuery(
        gpus=gpu_names,
        min_vram_gb=o.min_vram,
        gpu_count=o.gpus,
        providers=providers,
        regions=region_terms(o.region or (), region_known(reader.count_offers)),
        spot=True if o.spot else False if o.on_demand else None,
        available_only=o.available,
        interconnect=o.interconnect.lower() if o.interconnect else None,
        max_price_usd_per_hour=o.max_price,
        sort=o.sort,
        limit=o.limit or None,
        exclude_stale=o.fresh_only,
    )


def _cells(
    o: Offer,
    *,
    markup: bool,
    layout: SortLayout | None = None,
    stacked: bool = False,
    narrow: bool = False,
    short_age: bool = False,
) -> tuple[str, ...]:
    """One row, a cell for each column of :func:`wide_columns` (or :data:`COLUMNS` without a
    ``layout``): each cell as Rich markup, or as the text it shows (``markup=False``). An auction
    price is marked after the price (in the layout's ``auction_on`` column), or under it with
    ``stacked`` (no wider than the price column). ``narrow``: the source is its feed; ``short_age``:
    an unknown age is :data:`SHORT_UNKNOWN_AGE`."""
    layout = layout or SortLayout("$/h")
    show = plain if markup else printable
    gpu_label = o.accelerator + ("?" if o.extra.get("variant") == "assumed" else "")
    share = o.slice_label  # a vGPU slice: its share of one GPU where the count is ("1/20")
    count = (share if o.gpu_count == 1 else f"{o.gpu_count}x{share}") if share else str(o.gpu_count)
    stale = (" [yellow]stale[/]" if markup else " stale") if o.stale else ""
    avail = o.availability.value + (f" ({o.available_count})" if o.available_count is not None else "")
    cells = [
        show(o.provider),
        show(o.instance_type),
        show(gpu_label),
        count,
        f"{o.gpu_memory_gb:g}",
        money(o.price_usd_per_hour),
        money(o.price_usd_per_gpu_hour),
        money(o.spot_price_usd_per_hour),
        show(region_text(o)),
        avail,
        (SHORT_UNKNOWN_AGE if short_age and o.observed_at is None else age_text(o)) + stale,
        show(source_feed(o.source) if narrow else short_source(o.source)),
    ]
    headers = [c.header for c in COLUMNS]
    if layout.derived is not None:
        cells.insert(layout.derived_at, layout.derived.cell(o))
        headers.insert(layout.derived_at, layout.derived.column.header)
    if o.interruptible_on_demand:
        at = headers.index(layout.auction_on)
        cells[at] += ("\n" if stacked else " ") + ("[yellow]auction[/]" if markup else "auction")
    return tuple(cells)


def region_text(o: Offer) -> str:
    """An offer's region as the table shows it: its name, and after an opaque code the country it is
    in (:func:`~gpuscout.knowledge.regions.place_label`): "af-casablanca-1 (MA)", "eu-west1 (FR)";
    a name that says where it is ("country:DE", "frankfurt-germany-6", "us-east-1"), or a summary of
    the several regions an offer stands for, as it is."""
    label = _place(o)
    return o.region if label is None else f"{o.region} ({label})"


def _place(o: Offer) -> str | None:
    """The country code to show after the offer's region name (:func:`region_text`), or ``None``."""
    if len(o.regions) > 1:  # its region is a summary ("3 regions"), placed nowhere in particular
        return None
    from gpuscout.knowledge.regions import place_label  # read only when a table shows regions

    return place_label(o.region)


def _region_cells(
    columns: Sequence[Column], offers: Sequence[Offer], rows: Sequence[Sequence[str]]
) -> list[list[Cell | Short]]:
    """``rows`` with each region that carries a country (:func:`region_text`) given a shorter form
    (:class:`~gpuscout.cli.table_fit.Short`) for a narrow table: where the column is cut, its name is
    cut before the country, never the country off its end ("ap-south… (ID)", not "ap-southeast-3…")."""
    from gpuscout.cli.table_fit import Short

    at = next((i for i, c in enumerate(columns) if c.header.split()[0] == "region"), None)
    out: list[list[Cell | Short]] = [list(row) for row in rows]
    if at is None:
        return out
    for o, row in zip(offers, out, strict=True):
        label = _place(o)
        cell = row[at]
        if label is None or not isinstance(cell, str):
            continue
        room = REGION_WIDTH - len(label) - 4  # " (XX)" and the ellipsis
        shorter = [f"{plain(o.region[:room])}… ({label})"] if room >= 3 else []
        row[at] = Short(cell, (*shorter, label))
    return out


def print_offers_csv(offers: list[Offer]) -> None:
    """Every shown Offer field (derived from the dataclass) and the price's age, one line per offer;
    an unknown observation time reads ``unknown``."""
    from gpuscout.catalog.offer_fields import RECORD_COLUMNS, offer_record, write_csv

    records = []
    for o in offers:
        record = offer_record(o)
        record["observed_at"] = record["observed_at"] or "unknown"
        record["age"] = age_text(o)
        records.append(record)
    write_csv(sys.stdout, (*RECORD_COLUMNS, "age"), records)


def _notes(
    offers: Sequence[Offer],
    *,
    left_out: Sequence[str] = (),
    short_age: bool = False,
    auction_on: str = "$/h",
) -> list[str]:
    """The lines under the table that explain the marks in the columns it shows (``short_age``: an
    unknown age is :data:`SHORT_UNKNOWN_AGE`; ``auction_on``: the column that marks auction prices)."""
    notes = []
    if any(o.extra.get("variant") == "assumed" for o in offers):
        notes.append(ASSUMED_NOTE)
    if any(o.slice_label for o in offers):
        notes.append(SLICE_NOTE + ("" if "$/gpu-h" in left_out else SLICE_PRICE_NOTE))
    if auction_on not in left_out and any(o.interruptible_on_demand for o in offers):
        notes.append(AUCTION_NOTE)
    if "age" not in left_out and any(o.observed_at is None for o in offers):
        notes.append(_UNKNOWN_AGE_NOTE.format(SHORT_UNKNOWN_AGE) if short_age else UNKNOWN_AGE_NOTE)
    if "age" in left_out and (stale := stale_note(offers)):
        notes.append(stale)
    return notes


def stale_note(offers: Sequence[Offer]) -> str | None:
    """:data:`STALE_NOTE` for ``offers`` (the rows a table shows without its age column, which marks the
    stale ones), as Rich markup: "4 of 5 rows shown are from stale feeds (azure): ..."; None where none
    is."""
    stale = [o for o in offers if o.stale]
    if not stale:
        return None
    providers = ", ".join(plain(p) for p in sorted({o.provider for o in stale}))  # printed as markup
    return STALE_NOTE.format(len(stale), len(offers), providers)


class Fitted(NamedTuple):
    """An offers table fitted to a terminal (:func:`_fitted`): the table, the headers of the columns
    it leaves out (and :data:`FULL_SOURCE` where the source shows its feed only), whether its unknown
    ages are short, and the columns left out because every row reads the same there, as (header, that
    text): their value is said once under the table (:func:`shared_note`), not lost."""

    table: Table
    left_out: list[str]
    short_age: bool
    shared: list[tuple[str, str]]


def _fitted(
    title: str, offers: Sequence[Offer], width: int | None, *, spot: bool, sort: str = DEFAULT_SORT
) -> Fitted:
    """The table of ``offers`` within ``width`` (:class:`Fitted`). Every column when the whole row
    fits; else :func:`narrow_columns` (the source as its feed, the columns whose rows all read the same
    given way first), in the first of its forms that leaves the fewest columns out whose rows differ
    (one that only keeps a column whose rows read the same is not worth it), then the one that fits
    without wrapping a cell: the unknown age in full
    or short, an auction mark beside or under its
    price, the sorted column's header marked on one line or two, or not (where its mark would cost a
    column: the title says the sort too), and last the memory column headed
    :data:`SHORT_MEMORY_HEADER` (where its whole header would cost a column). The prices, the region
    and the column the rows are sorted by are always shown."""
    from gpuscout.cli.table_fit import fitted_table, overflow, same_on_every_row

    layout = sort_layout(sort, spot=spot)
    wide = wide_columns(layout)
    rows = _region_cells(wide, offers, [_cells(o, markup=True, layout=layout) for o in offers])
    table, left_out = fitted_table(title, wide, rows, width)
    if not left_out:
        return Fitted(table, left_out, False, [])
    # the text each column shows, unknown ages in full: what the line of shared values quotes
    texts = [_cells(o, markup=True, layout=layout, narrow=True) for o in offers]
    headers = [c.header for c in COLUMNS]
    if layout.derived is not None:
        headers.insert(layout.derived_at, layout.derived.column.header)
    unpriced = frozenset(
        h for i, h in enumerate(headers) if h in _PRICES and all(row[i] == "-" for row in texts)
    )
    stacking = (False, True) if any(o.interruptible_on_demand for o in offers) else (False,)
    best: tuple[tuple[int, tuple[int, ...], int], Fitted] | None = None
    # the memory column's short header last: only where every whole one leaves more out
    forms = itertools.product((False, True), HEADER_FORMS, (False, True), stacking)
    for short_memory, header, short_age, stacked in forms:
        columns = narrow_columns(
            spot=spot, sort=sort, header=header, short_memory=short_memory, unpriced=unpriced
        )
        rows = _region_cells(
            columns,
            offers,
            [
                _cells(o, markup=True, layout=layout, stacked=stacked, narrow=True, short_age=short_age)
                for o in offers
            ],
        )
        table, left_out = fitted_table(title, columns, rows, width)
        at = {c.header: i for i, c in enumerate(columns)}
        shared: list[tuple[str, str]] = []
        for h in left_out:
            text = same_on_every_row([row[at[h]] for row in texts])
            if text is not None and columns[at[h]].same is not None:
                shared.append((MEMORY_HEADER if h == SHORT_MEMORY_HEADER else h, text))
        lost = [h for h in left_out if h not in dict(shared)]
        # of two that lose as many, the one that loses the less useful columns (a narrow column taken
        # back where a wider, more useful one did not fit: the count kept, the $/h lost, is not worth
        # it where another form keeps the $/h), then the one that fits
        useful = tuple(sorted((columns[at[h]].drop or 0 for h in lost), reverse=True))
        score = (len(lost), useful, overflow(table, width))
        if best is None or score < best[0]:
            best = (score, Fitted(table, [*lost, FULL_SOURCE], short_age and "age" not in left_out, shared))
    assert best is not None
    return best[1]


def print_offers_table(
    offers: Sequence[Offer],
    total: int,
    sort: str,
    *,
    spot: bool = False,
    why_none: str = "",
    stale_hidden: int = 0,
) -> None:
    """The table of ``gpuscout offers`` and the notes under it, on stdout (``spot``: the rows are
    sorted and filtered by their spot price, ``--spot``). The column the rows are sorted by is always
    shown (:func:`sort_layout`), its header marked: ``▲`` lowest (or first) at the top, ``▼``
    highest. A narrow terminal's table says once under it what the columns it left out because every
    row reads the same there hold (:func:`shared_note`). ``why_none``: why no offer matched
    (:func:`why_no_offers`), said first under an empty table; ``stale_hidden``: how many offers from
    stale feeds the filters match besides, said first under the table (:func:`hidden_stale_note`)."""
    spot = spot or sort == "spot_price"
    layout = sort_layout(sort, spot=spot)
    title = f"{len(offers)} of {total} {plural(total, 'offer')}, sorted by {layout.label}"
    hidden = hidden_stale_note(stale_hidden)
    if plain_pipe(sys.stdout):
        rows = [_cells(o, markup=False, layout=layout) for o in offers]
        text = pipe_table(title, wide_columns(layout), rows)
        if text is not None:
            notes = [why_none] if why_none and not offers else []
            notes += [hidden] if hidden else []
            notes += _notes(offers, auction_on=layout.auction_on)
            sys.stdout.write(text + "".join(note + "\n" for note in notes))
            sys.stdout.flush()
            return
    from gpuscout.cli.consoles import wide_console
    from gpuscout.cli.table_fit import left_out_note, terminal_width

    out = wide_console()
    table, left_out, short_age, shared = _fitted(title, offers, terminal_width(out), spot=spot, sort=sort)
    out.print(table)
    if why_none and not offers:
        out.print(why_none, markup=False, highlight=False)
    if hidden:
        out.print(hidden, markup=False, highlight=False)
    shared_text = shared_note(shared)
    if shared_text:
        out.print(shared_text, markup=False, highlight=False)
    if any(column.header == SHORT_MEMORY_HEADER for column in table.columns):
        out.print(SHORT_MEMORY_NOTE, markup=False, highlight=False)
    for note in _notes(offers, left_out=left_out, short_age=short_age, auction_on=layout.auction_on):
        out.print(note)
    left_out_text = left_out_note(left_out)
    if left_out_text:
        out.print(left_out_text, markup=False, highlight=False)


def hidden_stale_note(count: int) -> str | None:
    """:data:`HIDDEN_STALE_NOTE` for ``count`` offers: "3 offers from stale feeds are hidden:
    --include-stale lists them."; None for none."""
    if count <= 0:
        return None
    return HIDDEN_STALE_NOTE.format(
        f"{count:,} {plural(count, 'offer')}", plural(count, "is", "are"), plural(count, "it", "them")
    )


#: Environment variables with which Rich may treat a pipe as a terminal (colours, styles).
_TERMINAL_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


def plain_pipe(stream: object) -> bool:
    """Whether :func:`~gpuscout.cli.consoles.wide_console` would print to ``stream`` as to a plain
    UTF-8 pipe (no terminal, so no colours or styles, at the pipe width); ``False`` when in doubt."""
    from gpuscout.settings import environment_items  # Rich reads them: not gpuscout settings

    if any(name in _TERMINAL_ENV for name, _ in environment_items()) or hasattr(stream, "rich_proxied_file"):
        return False
    if hasattr(builtins, "get_ipython"):
        return False  # IPython or a notebook: Rich decides for itself
    try:
        if stream.isatty():  # type: ignore[attr-defined]
            return False
    except (AttributeError, ValueError, OSError):
        return False
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower()
    return encoding.startswith("utf")


def pipe_table(title: str, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> str | None:
    """The text Rich prints for :func:`~gpuscout.cli.table_fit.fitted_table` ``(title, columns, rows,
    None)`` on the wide console of a plain pipe, ``rows`` given as the text each cell shows; ``None``
    when Rich would do more than lay out, wrap and pad plain cells (a cell that is not one line of
    printable ASCII or that holds a "[", a table that cannot be narrowed to the pipe by wrapping its
    text columns, a title wider than the table), so that the caller lets Rich print it.

    The layout is Rich's (``Table`` with its default box, padding and header; ``Text`` wrapped with
    ``overflow="fold"``): each column as wide as its widest cell; when the table is wider than the
    pipe, the widest wrappable columns are narrowed together, step by step down to the next widest,
    until it fits; a cell longer than its column breaks at spaces, and a word longer than the column
    is cut into column-wide pieces.
    """
    grid = [[c.header for c in columns], *rows]
    natural = [1] * len(columns)
    for n, row in enumerate(grid):
        for i, cell in enumerate(row):
            # a header's sort mark is one cell wide, for Rich as here
            text = cell[:-2] if n == 0 and cell.endswith(_SORT_MARKS) else cell
            if not (text.isascii() and text.isprintable()) or "[" in cell:
                return None
            if len(cell) > natural[i]:
                natural[i] = len(cell)
    # the title names the sort by its marked header ("sorted by $/gpu-h ▲"): the mark is one cell wide
    plain_title = title
    for mark in _SORT_MARKS:
        plain_title = plain_title.replace(mark, "")
    if not (plain_title.isascii() and plain_title.isprintable()):
        return None
    widths = [w + 2 for w in natural]  # one space of padding each side
    room = PIPE_WIDTH - (len(columns) + 1)  # the rules between and around the columns
    if sum(widths) > room:
        widths = _narrowed(widths, [not c.right for c in columns], room)
        if sum(widths) > room or min(widths) < 3:
            return None
    table_width = sum(widths) + len(columns) + 1
    if len(title) > table_width:
        return None
    shown = title.rstrip()  # centred without its trailing spaces; no title, no line
    left = (table_width - len(shown)) // 2
    out = [" " * left + shown + " " * (table_width - len(shown) - left)] if title else []
    out.append("┏" + "┳".join("━" * w for w in widths) + "┓")
    for n, row in enumerate(grid):
        rule = "┃" if n == 0 else "│"
        cells = []
        for cell, w, column in zip(row, widths, columns, strict=True):
            inner = w - 2
            if len(cell) <= inner:
                cells.append([cell.rstrip().rjust(inner) if column.right else cell.ljust(inner)])
            else:
                cells.append([line[:inner].ljust(inner) for line in _wrapped(cell, inner)])
        height = max(len(lines) for lines in cells)
        if height > 1:  # shorter cells get blank lines: below them, or above them in the header
            for lines in cells:
                blank = [" " * len(lines[0])] * (height - len(lines))
                if n == 0:
                    lines[:0] = blank
                else:
                    lines.extend(blank)
        for k in range(height):
            out.append(rule + rule.join(f" {lines[k]} " for lines in cells) + rule)
        if n == 0:
            out.append("┡" + "╇".join("━" * w for w in widths) + "┩")
    out.append("└" + "┴".join("─" * w for w in widths) + "┘")
    return "\n".join(out) + "\n"


def _narrowed(widths: list[int], wrappable: list[bool], room: int) -> list[int]:
    """Rich's way of narrowing a table (``Table._collapse_widths``): while the columns are wider than
    ``room``, the widest wrappable ones give up the excess, shared evenly (rounded as Rich rounds),
    each down to the width of the next widest at most."""
    widths = list(widths)
    excess = sum(widths) - room
    while excess > 0 and any(wrappable):
        widest = max(w for w, ok in zip(widths, wrappable, strict=True) if ok)
        runner_up = max((w for w, ok in zip(widths, wrappable, strict=True) if ok and w != widest), default=0)
        if widest == runner_up:
            break
        step = min(excess, widest - runner_up)
        share = [i for i, (w, ok) in enumerate(zip(widths, wrappable, strict=True)) if ok and w == widest]
        left, count = excess, len(share)
        for i in share:
            cut = min(step, round(left / count))
            widths[i] -= cut
            left -= cut
            count -= 1
        excess = sum(widths) - room
    return widths


_WORD = re.compile(r"\s*\S+\s*")


def _wrapped(text: str, width: int) -> list[str]:
    """The lines Rich wraps ``text`` into at ``width`` with ``overflow="fold"`` (``rich._wrap``): a
    word (with the spaces after it) goes to the next line when its text does not fit on this one,
    and a word longer than a line is cut into pieces ``width`` long."""
    breaks: list[int] = []
    offset = 0
    match = _WORD.match(text, 0)
    while match is not None:
        start, word = match.start(), match.group()
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:
            pieces = [word[i : i + width] for i in range(0, len(word), width)]
            for piece in pieces:
                if start:
                    breaks.append(start)
                start += len(piece)
            offset = len(pieces[-1])
        elif offset and start:
            breaks.append(start)
            offset = len(word)
        match = _WORD.match(text, match.end())
    ends = [0, *breaks, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(ends)]
