"""An auction market's listed price (``price_is_interruptible``) is no on-demand price: one rule
(``Offer.firm_on_demand``, in SQL ``FIRM_ON_DEMAND_SQL``) for the on-demand filter and the on-demand
price history, which also leaves stale prices out."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuscout.catalog import api
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.reader import open_ready
from tests.catalog.helpers import STORE_KINDS, make_offer, temp_store

MINE = ("firm", "auction", "oldfeed", "spotonly")  # the store may hold the bundled snapshot too
OFFERS = [
    make_offer(provider="firm", instance_type="f1", price_usd_per_hour=2.0, spot_price_usd_per_hour=1.2),
    # an auction market: its listed price is the auction price (price == spot in the source)
    make_offer(
        provider="auction",
        instance_type="a1",
        price_usd_per_hour=1.0,
        spot_price_usd_per_hour=1.0,
        price_is_interruptible=True,
    ),
    make_offer(provider="oldfeed", instance_type="o1", price_usd_per_hour=0.5, stale=True),
    make_offer(provider="spotonly", instance_type="s1", price_usd_per_hour=None, spot_price_usd_per_hour=0.7),
]


def test_the_offer_says_which_on_demand_price_is_firm() -> None:
    by_type = {o.instance_type: o for o in OFFERS}
    assert by_type["f1"].firm_on_demand and not by_type["f1"].interruptible_on_demand
    assert not by_type["a1"].firm_on_demand and by_type["a1"].interruptible_on_demand
    assert not by_type["s1"].firm_on_demand and not by_type["s1"].interruptible_on_demand  # no price to mark


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_the_on_demand_filter_and_the_history_leave_auction_prices_out(kind: str, tmp_path: Path) -> None:
    with temp_store(kind, tmp_path) as store:
        store.write_snapshot("live", OFFERS)
        on_demand = store.current_offers(OfferQuery(spot=False, providers=MINE, sort="price_per_gpu"))
        # the SQL form of the rule is the offer's property
        assert [o.instance_type for o in on_demand] == ["o1", "f1"]
        assert {
            o.instance_type for o in store.current_offers(OfferQuery(providers=MINE)) if o.firm_on_demand
        } == {"o1", "f1"}
        assert store.count_offers(OfferQuery(spot=False, providers=MINE)) == 2
        # the spot view lists the auction price with the spot prices
        spot = store.current_offers(OfferQuery(spot=True, providers=MINE, sort="price_per_gpu"))
        assert [o.instance_type for o in spot] == ["s1", "a1", "f1"]
        # the on-demand history: neither the auction price nor the stale one
        points = [p for p in api.price_history("H100", db=store) if p.source == "live"]
        assert [(p.provider, p.min_usd_per_gpu_hour) for p in points] == [("firm", 2.0)]
        if kind == "sqlite":  # the CLI's and the web's sqlite3 reader reads the same SQL
            reader = open_ready(store.url)
            assert reader is not None
            try:
                assert [
                    o.instance_type
                    for o in reader.current_offers(
                        OfferQuery(spot=False, providers=MINE, sort="price_per_gpu")
                    )
                ] == [
                    "o1",
                    "f1",
                ]
                assert reader.count_offers(OfferQuery(spot=False, providers=MINE)) == 2
            finally:
                reader.close()


def test_the_bundled_snapshots_auction_rows_are_not_on_demand(tmp_path: Path) -> None:
    """Over the real catalog (Mithril's H100 and H200 are auction prices) the SQL and the property
    pick the same offers."""
    store = api.open_store(f"sqlite:///{tmp_path / 'bundled.sqlite3'}")
    try:
        every = store.current_offers()
        assert any(o.interruptible_on_demand and o.provider == "mithril" for o in every)
        firm = {(o.provider, o.instance_type, o.region) for o in every if o.firm_on_demand}
        listed = store.current_offers(OfferQuery(spot=False))
        assert {(o.provider, o.instance_type, o.region) for o in listed} == firm
        assert all(p.provider != "mithril" for p in api.price_history("H100", db=store))
        stale = {o.provider for o in every if o.accelerator == "H100-SXM"} - {
            o.provider for o in every if o.accelerator == "H100-SXM" and not o.stale
        }
        assert stale  # providers whose H100-SXM offers are all stale (Azure, DigitalOcean, Paperspace)
        assert not stale & {p.provider for p in api.price_history("H100-SXM", db=store)}
    finally:
        store.close()
