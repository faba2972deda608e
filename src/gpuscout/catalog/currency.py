"""Prices a provider states in another currency than USD, converted at a stated, dated rate.

gpuscout compares offers in USD. A provider that prices in euros (Scaleway; OVHcloud's FR book)
is converted at :data:`DEFAULT_RATES`, a published reference rate with its date and source,
which the user can override with ``GPUSCOUT_FX_EUR_USD=1.09`` (USD per EUR; a field of
:class:`gpuscout.settings.Settings`). The offer keeps the price as the source stated it next to the
USD figure, and the rate used (value, date, source) in its notes, so a reader can redo the
conversion.

:func:`exchange_rate` is the one place that decides which rate applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuscout.errors import InvalidInputError, quoted_value

ENV_PREFIX = "GPUSCOUT_FX_"  # + "<CUR>_USD", e.g. GPUSCOUT_FX_EUR_USD


@dataclass(frozen=True, slots=True)
class ExchangeRate:
    """``usd_per_unit`` US dollars for one unit of ``currency``, as published on ``as_of``."""

    currency: str
    usd_per_unit: float
    as_of: str  # ISO date of the rate, or "set by the user"
    source: str

    def to_usd(self, amount: float | None) -> float | None:
        """``amount`` (in :attr:`currency`) in USD, rounded to 1e-6; ``None`` stays ``None``."""
        return None if amount is None else round(amount * self.usd_per_unit, 6)

    @property
    def note(self) -> str:
        """How the price was converted, for an offer's notes."""
        return (
            f"converted from {self.currency} at {self.usd_per_unit:g} USD/{self.currency} "
            f"({self.source}, {self.as_of}; override with {ENV_PREFIX}{self.currency}_USD)"
        )


# The ECB's euro reference rate (USD per EUR), rounded to two decimals. Recalled, not re-read:
# the rate hovered around 1.17 through the third quarter of 2025. Set GPUSCOUT_FX_EUR_USD to the
# day's rate for exact figures.
DEFAULT_RATES: dict[str, ExchangeRate] = {
    "USD": ExchangeRate("USD", 1.0, "fixed", "identity"),
    "EUR": ExchangeRate(
        "EUR",
        1.17,
        "2025-09-30",
        "ECB euro foreign exchange reference rate, https://www.ecb.europa.eu/stats/"
        "policy_and_exchange_rates/euro_reference_exchange_rates/html/eurofxref-graph-usd.en.html",
    ),
}


def exchange_rate(currency: str) -> ExchangeRate:
    """The rate converting ``currency`` to USD: the user's (``GPUSCOUT_FX_EUR_USD``, read through
    :class:`gpuscout.settings.Settings`) when set, else the stated default. A currency without a
    rate is an error (a price is never silently left unconverted)."""
    from gpuscout.settings import Settings

    code = (currency or "").strip().upper()
    if code == "EUR":
        override = Settings.from_env().eur_usd
        if override is not None:
            return ExchangeRate(code, override, "set by the user", f"${ENV_PREFIX}EUR_USD")
    if code not in DEFAULT_RATES:
        known = ", ".join(sorted(DEFAULT_RATES))
        raise InvalidInputError("currency", f"no exchange rate for {quoted_value(code)}", known)
    return DEFAULT_RATES[code]


@dataclass(frozen=True, slots=True)
class StatedPrices:
    """Prices a source states in a currency other than USD: ``fields`` are the Offer fields (the USD
    figures and the prices as stated: ``original_currency``, ``original_price_per_hour``,
    ``original_spot_price_per_hour``), ``extra`` the rate used (for ``Offer.extra``)."""

    fields: dict[str, Any]
    extra: dict[str, str]


def stated_prices(rate: ExchangeRate, price: float | None, spot: float | None) -> StatedPrices:
    """The USD prices of an offer priced ``price`` / ``spot`` per hour in ``rate.currency``."""
    fields: dict[str, Any] = {
        "price_usd_per_hour": rate.to_usd(price),
        "spot_price_usd_per_hour": rate.to_usd(spot),
    }
    if rate.currency != "USD":
        fields.update(
            original_currency=rate.currency,
            original_price_per_hour=price,
            original_spot_price_per_hour=spot,
        )
    extra = {"usd_per_unit": f"{rate.usd_per_unit:g}", "rate_as_of": rate.as_of, "rate_source": rate.source}
    return StatedPrices(fields=fields, extra=extra if rate.currency != "USD" else {})
