"""The advisor says what makes an offer stale in the catalog's rule's words: flagged by its feed, or
fetched over ``STALE_AFTER`` (2 days) before the catalog's newest prices; not "an older catalog feed"
(a live row can be stale by age alone). Session 49: the half of the rule that holds for the offer, not
both (tests/advise/test_s49_stale_and_billing.py)."""

from __future__ import annotations

from gpuscout.advise.rank import rank
from gpuscout.advise.reasons import STALE_AGED, STALE_FLAGGED
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.query import STALE_AFTER
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()
WORDS = "stale: flagged so by its feed"  # an undated row of a feed (no fetch time: not stale by age)


def test_the_words_name_the_catalogs_rule_and_its_two_days() -> None:
    assert STALE_FLAGGED == WORDS
    assert "over 2 days before the catalog's newest prices" in STALE_AGED
    assert f"over {STALE_AFTER.days} days" in STALE_AGED and STALE_AFTER.total_seconds() % 86400 == 0


def test_a_stale_offer_left_out_and_one_shown_say_why_in_those_words() -> None:
    w = ServeWorkload(model="small", concurrency=4)
    offers = [offer("persec", price=2.0), offer("market", stale=True)]
    rejected = {
        r.offer.provider: r.rejected for r in rank(w, offers, backends=BE, now=NOW, include_rejected=True)
    }
    assert rejected["market"] == f"{WORDS} (--include-stale shows it)"
    shown = {r.offer.provider: r for r in rank(w, offers, backends=BE, now=NOW, include_stale=True)}
    assert WORDS in shown["market"].warnings
    assert not any("older catalog feed" in x for x in shown["market"].warnings)
