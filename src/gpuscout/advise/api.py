"""The advisor's entry points: rank given offers for a workload (``gpuscout.recommend`` adds the catalog).

``advise`` returns the whole answer (:class:`~gpuscout.advise.types.Advice`: the Pareto front of cost
against time with the cheapest, balanced and fastest picks named, the dominated rows, the targets
applied, the caveats every row shares, and what binds when nothing passes); ``recommend`` returns its
rows as a list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends
from gpuscout.advise.rank import Ranker
from gpuscout.advise.types import Advice, Recommendation
from gpuscout.advise.workload import AnyWorkload, Workload
from gpuscout.catalog.offer import Offer
from gpuscout.errors import InvalidInputError


def as_workload(workload: AnyWorkload | Mapping[str, Any]) -> AnyWorkload:
    """Accept a workload object or a plain mapping (``{"kind": "serve", "model": ...}``)."""
    if isinstance(workload, Workload):
        return workload
    if isinstance(workload, Mapping):
        return Workload.from_dict(dict(workload))
    raise InvalidInputError(
        "workload",
        f"expected a Workload or a mapping, got {type(workload).__name__}",
        "ServeWorkload, BatchWorkload, FinetuneWorkload, PretrainWorkload or a dict",
    )


#: What ``offers`` of the advisor's entry points accept, said by its errors.
OFFERS_ACCEPTED = (
    "a list (any iterable) of gpuscout.catalog.offer.Offer, as gpuscout.catalog.api.current_offers() "
    "returns; gpuscout.advice and gpuscout.recommend read the catalog when offers is None"
)


def as_offers(offers: Iterable[Offer]) -> list[Offer]:
    """``offers`` as a list, each checked to be an :class:`~gpuscout.catalog.offer.Offer`: anything else
    (a number, a dict, a string) is an :class:`InvalidInputError` naming ``offers`` and the item at fault,
    never an ``AttributeError`` from deep in the ranking."""
    if isinstance(offers, (str, bytes, Mapping, Offer)) or not isinstance(offers, Iterable):
        raise InvalidInputError(
            "offers", f"expected offers, got {type(offers).__name__} {_shown(offers)}", OFFERS_ACCEPTED
        )
    out = list(offers)
    for i, item in enumerate(out):
        if not isinstance(item, Offer):
            raise InvalidInputError(
                "offers", f"item {i} is {type(item).__name__} {_shown(item)}, not an Offer", OFFERS_ACCEPTED
            )
    return out


def _shown(value: object) -> str:
    """``value``'s repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "\u2026"


def advise(
    workload: AnyWorkload | Mapping[str, Any],
    offers: Iterable[Offer],
    *,
    objective: str = "cost",
    top: int | None = None,
    include_rejected: bool = False,
    include_stale: bool = False,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> Advice:
    """The whole answer for ``workload`` over ``offers`` (pure: the offers are given).

    Rows: the Pareto front of cost against time first (no row on it is both dearer and slower than
    another), then dominated rows; ``objective`` sets the reading order -- "cost" (default: cheapest
    first), "time" / "latency" (fastest first: jobs' time to finish, serving's request latency),
    "balanced" (cost/cheapest x time/fastest). The cheapest, balanced and fastest picks are always
    shown (see :mod:`gpuscout.advise.pareto`). Left out, with the reason in ``rejected`` when
    ``include_rejected``: offers that cannot run the workload, miss a latency target or deadline, are
    over budget, unavailable, stale or from a defunct provider (unless ``include_stale``), or are spot /
    auction capacity for a workload that does not allow it.
    """
    chosen = as_offers(offers)
    ranker = Ranker(
        as_workload(workload),
        backends=backends,
        assumptions=assumptions,
        now=now,
        include_stale=include_stale,
    )
    return ranker.advise(chosen, objective=objective, top=top, include_rejected=include_rejected)


def recommend(
    workload: AnyWorkload | Mapping[str, Any],
    offers: Iterable[Offer],
    *,
    objective: str = "cost",
    top: int | None = None,
    include_rejected: bool = False,
    include_stale: bool = False,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> list[Recommendation]:
    """The rows of :func:`advise` (front first), then the rejected ones when ``include_rejected``."""
    return advise(
        workload,
        offers,
        objective=objective,
        top=top,
        include_rejected=include_rejected,
        include_stale=include_stale,
        backends=backends,
        assumptions=assumptions,
        now=now,
    ).recommendations
