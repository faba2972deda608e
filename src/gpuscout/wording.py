"""Words that agree with the figures they follow, for every layer (it imports nothing from gpuscout).

The lowest layer of the import contract (``pyproject.toml``): the estimator, the catalog and the faces
pluralise through it, so that none spells "1 GPU(s)" or its own ``'s' if n != 1``.
"""

from __future__ import annotations

#: What a region filter term means (``knowledge.regions``), said the same by every face's help.
REGION_HELP = (
    "whole words of the region, ignoring case (us-east: us-east-1; DE is not desmoines); a country's "
    "ISO code or name (DE, Germany, US, USA, UK): offers located there; an area (eu/europe, eea, "
    "na/north-america, south-america, asia, apac, oceania, africa, middle-east): offers in its "
    "countries"
)


def plural(count: float | str | None, noun: str, many: str | None = None) -> str:
    """``noun`` as it reads after ``count``: singular after one ("1 user", "1 request/s"), else plural
    ("0 users", "0.5 users", "8 users": ``many``, else ``noun`` + "s"). The caller prints the figure;
    ``count`` may be that text ("1" from ``f"{0.9996:.3g}"``), so the noun agrees with what is read."""
    one = count.strip() == "1" if isinstance(count, str) else count == 1
    return noun if one else (many or noun + "s")
