"""How a provider is named on the pages: its display name and its own price page.

Offers carry the provider's canonical id (``vastai``); ``knowledge/providers.yaml`` has the display
name ("Vast.ai") and the provider's price page, which the pages link so a renter can check a price
before renting. An id the table does not know is shown as it is, with no link.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gpuscout.knowledge.providers import canonical_provider, provider_terms, short_names


@dataclass(frozen=True, slots=True)
class ProviderLabel:
    name: str  # the canonical id, as in Offer.provider
    display_name: str
    pricing_url: str  # "" when unknown

    @property
    def short_name(self) -> str:
        """The display name without its parenthesised detail ("Google Cloud (Compute Engine)" ->
        "Google Cloud"), for narrow places: the first of the providers' one rule
        (:func:`~gpuscout.knowledge.providers.short_names`)."""
        return next(iter(short_names(self.display_name)), self.display_name)


@lru_cache(maxsize=512)
def provider_label(name: str) -> ProviderLabel:
    if canonical_provider(name) is None:
        return ProviderLabel(name, name, "")
    terms = provider_terms(name)
    url = terms.pricing_url if terms.pricing_url.startswith(("https://", "http://")) else ""
    return ProviderLabel(name, terms.display_name or name, url)
