"""Currency conversion: a stated, dated default rate per currency, overridable per currency."""

from __future__ import annotations

import pytest

from gpuscout.catalog.currency import DEFAULT_RATES, exchange_rate, stated_prices
from gpuscout.errors import InvalidInputError


def test_the_default_euro_rate_states_its_date_and_source() -> None:
    rate = exchange_rate("eur")
    assert rate is DEFAULT_RATES["EUR"]
    assert 0.8 < rate.usd_per_unit < 1.6  # a plausible USD/EUR, not a unit slip
    assert rate.as_of[:4].isdigit() and "ecb.europa.eu" in rate.source
    assert "GPUSCOUT_FX_EUR_USD" in rate.note and rate.as_of in rate.note


def test_an_override_per_currency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUSCOUT_FX_EUR_USD", " 1.085 ")
    rate = exchange_rate("EUR")
    assert (rate.usd_per_unit, rate.as_of, rate.source) == (1.085, "set by the user", "$GPUSCOUT_FX_EUR_USD")
    assert rate.to_usd(10.0) == pytest.approx(10.85) and rate.to_usd(None) is None


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "inf", "one"])
def test_a_bad_override_names_the_variable(bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUSCOUT_FX_EUR_USD", bad)
    with pytest.raises(InvalidInputError, match="GPUSCOUT_FX_EUR_USD"):
        exchange_rate("EUR")


def test_an_unknown_currency_is_an_error_not_a_silent_usd() -> None:
    with pytest.raises(InvalidInputError, match="currency: no exchange rate for 'INR'"):
        exchange_rate("INR")


def test_stated_prices_keep_both_figures() -> None:
    eur = stated_prices(exchange_rate("EUR"), 10.0, 4.0)
    usd_per_eur = DEFAULT_RATES["EUR"].usd_per_unit
    assert eur.fields == {
        "price_usd_per_hour": pytest.approx(10 * usd_per_eur),
        "spot_price_usd_per_hour": pytest.approx(4 * usd_per_eur),
        "original_currency": "EUR",
        "original_price_per_hour": 10.0,
        "original_spot_price_per_hour": 4.0,
    }
    assert eur.extra["rate_as_of"] == DEFAULT_RATES["EUR"].as_of
    usd = stated_prices(exchange_rate("USD"), 2.0, None)
    assert usd.fields == {"price_usd_per_hour": 2.0, "spot_price_usd_per_hour": None} and usd.extra == {}
