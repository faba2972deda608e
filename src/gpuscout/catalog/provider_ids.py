"""The providers an offer listing is filtered on, checked against the current offers (one check for
``gpuscout offers --provider``, the web comparison page, its exports and ``/api/v1/offers``).

A provider is named as the user writes it ("Vast.ai", "vast", "Lambda") and read as the id offers
carry (``vastai``, ``lambda``). A name that no current offer is from is an error naming the closest
providers that have offers: a typo ("lamdba") must not read as an empty catalog ("0 of 0 offers").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gpuscout.errors import InvalidInputError, UnknownNameError, closest, fold_name, quoted_value

#: How many providers an error names.
SUGGESTIONS = 4


class NoCurrentOffer(UnknownNameError):
    """A filter's ``name`` that no current offer matches (said by ``where``: "from 'lamdba'", "in a
    region matching 'Mars'"); ``suggestions`` are the closest names that have offers. Not "unknown
    name": a provider or region may be known and have no offer now."""

    def __init__(self, field: str, name: str, suggestions: Iterable[str], where: str) -> None:
        self.name = name
        self.suggestions = list(suggestions)
        self.ambiguous = False
        hint = ", ".join(self.suggestions) if self.suggestions else "none close"
        InvalidInputError.__init__(self, field, f"no current offer is {where}; closest with offers: {hint}")


class NoOffersFrom(NoCurrentOffer):
    """No current offer is from the provider ``name``; ``suggestions`` are the closest providers that
    have offers."""

    def __init__(self, field: str, name: str, suggestions: Iterable[str]) -> None:
        super().__init__(field, name, suggestions, f"from {quoted_value(name)}")


def provider_ids(
    names: Iterable[str],
    has_offers: Callable[[str], bool],
    listed: Callable[[], Iterable[str]],
    *,
    field: str = "provider",
) -> tuple[str, ...]:
    """The provider ids of ``names`` ("Vast.ai" -> ``vastai``), in order, without repeats.

    ``has_offers(id)`` says whether some current offer is from that provider (an indexed count);
    ``listed()``, read only for an error, gives the providers of the current offers. The first name
    that no current offer is from raises :class:`NoOffersFrom` naming ``field``."""
    from gpuscout.knowledge.providers import canonical_provider

    out: dict[str, None] = {}
    for name in names:
        pid = canonical_provider(name) or fold_name(name).strip().lower()
        if not has_offers(pid):
            raise NoOffersFrom(field, name, closest(name, set(listed()), n=SUGGESTIONS))
        out[pid] = None
    return tuple(out)
