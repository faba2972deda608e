"""Why a filtered view of the offers is empty, in one line: the catalog has no offer at all, or none of the
GPUs asked for (``--gpu TPU`` on a catalog without TPUs), or the filters together leave none (and which of
them, dropped alone, would give rows back). ``gpuscout offers`` says it under an empty table (the offers
page says its own words: which filter, dropped, gives rows back); a JSON answer stays an empty list."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpuscout.catalog.query import OfferQuery
from gpuscout.wording import plural

#: The filters of an :class:`OfferQuery` a face sets from its inputs, with their "no filter" values, in
#: the order the faces list them.
FILTER_DEFAULTS: dict[str, Any] = {
    "gpus": (),
    "min_vram_gb": None,
    "gpu_count": None,
    "providers": (),
    "regions": (),
    "spot": None,
    "available_only": False,
    "interconnect": None,
    "max_price_usd_per_hour": None,
    "exclude_stale": False,
}

#: At most this many GPU names are written out in "no offer of ..." (a family has a few; a long list is cut).
NAMED_GPUS = 6


def no_offer_of(gpus: Sequence[str], count: Callable[[OfferQuery], int], refresh: str) -> str:
    """The line that says the catalog holds no offer of any of ``gpus`` (canonical names; stale offers
    count), and how many offers it does hold (``refresh``: how the face says to fetch the providers'
    current offers); "" where it holds one of them, or no GPU is asked for."""
    if not gpus or count(OfferQuery(gpus=tuple(gpus))):
        return ""
    named = list(gpus[:NAMED_GPUS])
    if len(gpus) > NAMED_GPUS:
        named.append(f"{len(gpus) - NAMED_GPUS} more")
    shown = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
    everything = count(OfferQuery())
    has = "has" if everything == 1 else "have"
    held = f"its {everything:,} {plural(everything, 'offer')} {has} none" if everything else "it is empty"
    return f"no offer of {shown} is in the catalog ({held}; {refresh})"


def _dropped(name: str) -> str:
    """How a face says a filter is dropped: "without --max-price"; a filter it applies by default and a
    flag drops is named with that flag already ("with --include-stale")."""
    return name if name.startswith("with ") else f"without {name}"


def why_no_offers(
    query: OfferQuery, count: Callable[[OfferQuery], int], names: Mapping[str, str], refresh: str
) -> str:
    """Why ``query`` matches no current offer, in one line: an empty catalog; no offer of its GPUs at all
    (:func:`no_offer_of`); else the filters that, dropped alone, give offers back ("without --max-price:
    12 offers"), each named as ``names`` says (an :class:`OfferQuery` field -> the face's word for it;
    "with --include-stale" for a filter the face applies by default),
    or that none alone does. ``count`` counts a query's offers (the reader's ``count_offers``)."""
    if not count(OfferQuery()):
        return f"the catalog has no offer at all ({refresh})"
    absent = no_offer_of(query.gpus, count, refresh)
    if absent:
        return absent
    active = [f for f, default in FILTER_DEFAULTS.items() if getattr(query, f) != default]
    back: list[str] = []
    for name in active:
        found = count(replace(query, **{name: FILTER_DEFAULTS[name]}))
        if found:
            back.append(f"{_dropped(names.get(name, name))}: {found:,} {plural(found, 'offer')}")
    if len(active) == 1:  # the one filter removed them all: back holds what the catalog has without it
        only = names.get(active[0], active[0])
        if only.startswith("with "):  # a face's default filter, dropped by a flag (--include-stale)
            return "no current offer passes the default filters" + (f" ({back[0]})" if back else "")
        return f"no current offer passes {only}" + (f" ({back[0]})" if back else "")
    if back:
        return "no offer passes these filters together; " + ", ".join(back)
    return "no offer passes these filters together, and dropping any one of them still leaves none"
