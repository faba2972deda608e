"""A region list splits on commas, except where a comma is part of a region's own name: Vast.ai's live rows
say "Texas, US", and ``region=Texas, US`` was read as "Texas" or "US" (every US row).
``query.region_terms`` is the one split the CLI, the web page and the JSON API read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuscout.catalog.query import OfferQuery, region_known, region_terms
from gpuscout.catalog.store import Store
from tests.catalog.helpers import STORE_KINDS, make_offer, temp_store

REGIONS = ("Texas, US", "Virginia, US", "Santa Clara, US, North America", "eu-west-1")


def _known(text: str) -> bool:
    """As the filter matches: a substring of a region, ignoring case."""
    return any(text.lower() in r.lower() for r in REGIONS)


@pytest.mark.parametrize(
    ("typed", "terms"),
    [
        ("Texas, US", ("Texas, US",)),
        ("texas,us", ("texas, us",)),  # spaces around the comma do not matter
        ("Texas, US,eu-west", ("Texas, US", "eu-west")),  # a repeat joined with a comma
        ("eu-west, Texas, US", ("eu-west", "Texas, US")),
        ("Santa Clara, US, North America", ("Santa Clara, US, North America",)),
        ("US, eu-west", ("US", "eu-west")),  # no region holds "US, eu-west": two
        ("Texas, Virginia", ("Texas", "Virginia")),
        ("us-east, DE", ("us-east", "DE")),
        ("Texas, US, Virginia, US", ("Texas, US", "Virginia, US")),
        ("US, us, ,", ("US",)),  # each once, blanks dropped
        ("", ()),
    ],
)
def test_a_region_name_with_a_comma_stays_whole(typed: str, terms: tuple[str, ...]) -> None:
    assert region_terms([typed], _known) == terms


def test_values_are_split_apart_and_their_terms_kept_once() -> None:
    # the CLI's repeated --region: each value split by itself
    assert region_terms(["Texas, US", "texas, US", "eu-west,US"], _known) == ("Texas, US", "eu-west", "US")


def test_the_catalog_is_asked_only_of_texts_with_a_comma_each_once() -> None:
    asked: list[str] = []

    def known(text: str) -> bool:
        asked.append(text)
        return _known(text)

    assert region_terms(["US", "eu-west"], known) == ("US", "eu-west")
    assert asked == []
    assert region_terms(["Texas, US"], known) == ("Texas, US",)
    assert asked == ["Texas, US"]  # the whole value: known, nothing more is asked
    asked.clear()
    region_terms(["a, b, c, d, e, f, g, h"], known)
    # the whole, then each pair (none is known, so no longer run is asked): the parts' count, not its square
    assert len(asked) == len(set(asked)) == 8


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with temp_store(request.param, tmp_path) as s:
        yield s


def test_a_region_is_known_as_the_filter_matches_it(store: Store) -> None:
    store.write_snapshot(
        "vastai",
        [
            make_offer(provider="vastai", instance_type="t", region="Texas, US"),
            make_offer(provider="vastai", instance_type="v", region="Virginia, US"),
            make_offer(
                provider="vastai", instance_type="m", region="2 regions", regions=("Quebec, CA", "Oslo, NO")
            ),
        ],
    )
    known = region_known(store.count_offers)
    assert known("texas, us") and known("Quebec, CA") and not known("US, Texas")
    terms = region_terms(["Texas,US"], known)
    assert terms == ("Texas, US",)
    rows = store.current_offers(OfferQuery(regions=terms))
    assert [o.instance_type for o in rows] == ["t"]
    # the old split: "Texas" or "US", both Vast rows in the US
    old = store.current_offers(OfferQuery(regions=("Texas", "US")))
    assert sorted(o.instance_type for o in old) == ["t", "v"]
