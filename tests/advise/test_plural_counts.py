"""A count of one reads in the singular ("at 1 user/replica", "load: 1 request/s", "for 1 user"),
everywhere the advisor and the FAQ print a count of users or requests (real estimator)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpuscout.advise.faq import faq
from gpuscout.advise.rank import advise
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer

OFFERS = [
    offer("runpod", "RTX4090", 1, 0.69, spot=0.35, memory=24, instance="4090"),
    offer("lambda", "H100-SXM", 1, 2.49, instance="h100"),
    offer("lambda", "H100-SXM", 2, 4.98, instance="2xh100"),
]

# "1 users", "1 requests/s", "1 users/replica"; not "21 users" nor "0.1 users"
ONE_PLURAL = re.compile(r"(?<![\d.,])1 (?:simultaneous )?(?:users|requests)\b")


def _plural_after_one(texts: Iterable[str]) -> list[str]:
    return [t for t in texts if ONE_PLURAL.search(t)]


def test_plural_agrees_with_the_count_as_printed() -> None:
    from gpuscout.advise.reasons import plural

    assert plural(1, "user") == "user" and plural(8, "user") == "users" and plural(0, "user") == "users"
    assert plural(0.5, "user") == "users" and plural(1.0, "user") == "user"
    assert plural("1", "request") == "request"  # f"{0.9996:.3g}" prints "1"
    assert plural("1.5", "request") == "requests" and plural("10", "request") == "requests"
    assert plural(2, "reply", "replies") == "replies" and plural(1, "reply", "replies") == "reply"


def test_one_user_reads_in_the_singular_in_a_rows_reasons_and_the_targets() -> None:
    a = advise(ServeWorkload(model="llama-3.1-8b", concurrency=1), OFFERS, now=NOW)
    assert a.rows
    reasons = [r for rec in a.rows for r in rec.reasons]
    assert any("at 1 user/replica (" in r for r in reasons), reasons
    assert not _plural_after_one([*reasons, *a.targets])
    assert any(t.startswith("load: 1 simultaneous user,") for t in a.targets), a.targets
    # more than one stays plural
    many = advise(ServeWorkload(model="llama-3.1-8b", concurrency=8), OFFERS, now=NOW)
    assert any(t.startswith("load: 8 simultaneous users,") for t in many.targets)


def test_one_request_a_second_reads_in_the_singular() -> None:
    a = advise(ServeWorkload(model="llama-3.1-8b", requests_per_s=1.0), OFFERS, now=NOW)
    assert any(t.startswith("load: 1 request/s,") for t in a.targets), a.targets
    assert not _plural_after_one(a.targets)
    half = advise(ServeWorkload(model="llama-3.1-8b", requests_per_s=0.5), OFFERS, now=NOW)
    assert any(t.startswith("load: 0.5 requests/s,") for t in half.targets)


def test_the_faq_for_one_user_says_user() -> None:
    f = faq("llama-3.1-8b", OFFERS, users=1, now=NOW)
    texts = [f.summary, *(a.answer for a in f.answers), *(d for a in f.answers for d in a.details)]
    assert not _plural_after_one(texts), _plural_after_one(texts)
    assert "for 1 user x 4,096 tokens" in f.summary
    assert f.answers[0].answer.startswith("For 1 user at 4,096 tokens each")


def test_the_estimators_load_label_agrees_with_its_figure() -> None:
    from gpuscout.estimate.api import estimate

    one = estimate("llama-3.1-8b", "L4", request_rate=1.0)
    assert "1 request/s" in one.assumptions["load"] and "1 requests/s" not in one.assumptions["load"]
    assert "2 requests/s" in estimate("llama-3.1-8b", "L4", request_rate=2.0).assumptions["load"]


def test_the_month_every_serve_figure_is_for_is_said() -> None:
    from gpuscout.advise.answer import targets_applied

    # $/month is for 30 days of the hours asked (720 h always on), which the tables never said
    said = targets_applied(ServeWorkload(model="llama-3.1-8b", concurrency=8))
    assert "up 24 h a day, a month of 30 days" in said
    bursty = targets_applied(ServeWorkload(model="llama-3.1-8b", bursts_per_day=4, burst_minutes=30))
    assert "up 4 times a day for 30 min, a month of 30 days" in bursty


def test_a_request_rate_row_counts_requests_running_not_users() -> None:
    a = advise(ServeWorkload(model="llama-3.1-8b", requests_per_s=2.0), OFFERS, now=NOW)
    speed = [r for rec in a.recommendations for r in rec.reasons if "tok/s per user, TTFT" in r]
    assert speed and all("running per replica (requests arriving at random)" in r for r in speed)
    assert not any("users/replica" in r or "user/replica" in r for r in speed)
