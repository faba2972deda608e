"""Price history follow-ups: ``/api/v1/history?gpu=<family>&limit=N`` is the N most recent points of the
family in time order (it was the last N of the last variant read); a one-snapshot chart dates its price
and says when that price is old; the notes say what the history leaves out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.cli import app as cli_app
from gpuscout.web import create_app
from gpuscout.web.charts import price_history_chart
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer
from tests.web.history_points import NEWEST, Point

DAYS = [datetime(2026, 11, d, 12, tzinfo=UTC) for d in (1, 11, 21)]


def _family_store(url: str) -> None:
    """One live feed read three times: alpha's H100-SXM each time, beta's H100-PCIe the first time."""
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        for k, when in enumerate(DAYS):
            offers = [make_offer(provider="alpha", price_usd_per_hour=3.0 - k * 0.5, observed_at=when)]
            if k == 0:
                offers.append(
                    make_offer(provider="beta", instance_type="b", accelerator="H100-PCIe", observed_at=when)
                )
            store.write_snapshot("live", offers)


@pytest.fixture()
def family_client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    _family_store(url)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        yield client


def _history(client: TestClient, query: str) -> list[dict[str, object]]:
    r = client.get(f"/api/v1/history?{query}")
    assert r.status_code == 200, r.text
    return list(r.json())


def test_a_family_history_is_in_time_order(family_client: TestClient) -> None:
    points = _history(family_client, "gpu=H100")
    times = [p["at"] for p in points]
    assert times == sorted(times)  # was SXM's three points, then PCIe's first-day one
    assert [(p["provider"], p["at"][:10]) for p in points] == [  # type: ignore[index]
        ("alpha", "2026-11-01"),
        ("beta", "2026-11-01"),
        ("alpha", "2026-11-11"),
        ("alpha", "2026-11-21"),
    ]


def test_a_family_history_limit_keeps_the_most_recent_points(family_client: TestClient) -> None:
    points = _history(family_client, "gpu=H100&limit=2")
    # was alpha's 11-21 point and beta's 11-01 one (the last of the last variant read)
    assert [p["at"][:10] for p in points] == ["2026-11-11", "2026-11-21"]  # type: ignore[index]
    assert [p["min_usd_per_gpu_hour"] for p in points] == [2.5, 2.0]


def test_the_api_and_the_cli_read_a_family_history_alike(family_client: TestClient, tmp_path: Path) -> None:
    import json

    url = f"sqlite:///{tmp_path / 'history.db'}"
    res = CliRunner().invoke(cli_app, ["history", "H100", "--json", "--db", url])
    assert res.exit_code == 0, res.output
    cli = [(p["provider"], p["at"], p["min_usd_per_gpu_hour"]) for p in json.loads(res.output)]
    api = [(p["provider"], p["at"], p["min_usd_per_gpu_hour"]) for p in _history(family_client, "gpu=H100")]
    assert [(prov, price) for prov, _, price in cli] == [(prov, price) for prov, _, price in api]


# ---- a one-snapshot chart: its date, and whether its price is old --------------------------------


def test_an_old_single_snapshot_price_is_dated_and_said_to_be_old() -> None:
    points = [Point(datetime(2026, 11, 29, 12, tzinfo=UTC), "lium", 1.0, 1.0)]
    chart = price_history_chart(points, "H100-SXM", newest=NEWEST)
    assert "observed 2026-11-29" in chart.title  # was "(one snapshot so far)", no date
    assert chart.summary.startswith(
        "H100-SXM at 1 provider; cheapest $1.00/GPU-h at Lium, observed 2026-11-29, "
        "5 days before the newest prices: not a current price."
    )


def test_a_fresh_single_snapshot_price_is_dated_only() -> None:
    points = [Point(NEWEST - timedelta(hours=30), "lium", 1.0, 1.0)]
    chart = price_history_chart(points, "H100-SXM", newest=NEWEST)
    assert chart.summary.startswith(
        "H100-SXM at 1 provider; cheapest $1.00/GPU-h at Lium, observed 2026-12-03."
    )
    assert "not a current price" not in chart.summary


def test_without_the_newest_fetch_time_the_age_is_the_clocks() -> None:
    at = datetime.now(UTC) - timedelta(days=10)
    chart = price_history_chart([Point(at, "lium", 1.0, 1.0)], "H100-SXM")
    assert f"observed {at:%Y-%m-%d}, 10 days ago: not a current price" in chart.summary


def test_the_gpu_page_dates_an_old_single_snapshot_price(tmp_path: Path) -> None:
    """Lium's one H100 row is a week older than the newest live row (another GPU's): stale by age, so
    the headline has no on-demand price, and the chart must not call Lium's price the cheapest now."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    now = datetime.now(UTC).replace(microsecond=0)
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot(
            "lium", [make_offer(provider="lium", price_usd_per_hour=1.0, observed_at=now - timedelta(days=7))]
        )
        store.write_snapshot(
            "vastai",
            [make_offer(provider="vastai", accelerator="RTX4090", gpu_memory_gb=24, observed_at=now)],
        )
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        page = client.get("/gpus/H100-SXM").text
    summary = " ".join(page.split('id="chart-history-summary">')[1].split("</p>")[0].split())
    assert "cheapest $1.00/GPU-h at Lium, observed" in summary
    assert "7 days" in summary and "not a current price" in summary


# ---- what the history leaves out -----------------------------------------------------------------
def test_the_cli_history_note_says_only_flagged_prices_are_left_out(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    _family_store(url)
    res = CliRunner().invoke(cli_app, ["history", "H100", "--db", url])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "prices flagged stale by their feed are left out" in text
    assert "older prices are kept at their own date" in text
    assert "and stale prices are left out" not in text


def test_the_gpu_page_says_only_flagged_prices_are_left_out(family_client: TestClient) -> None:
    page = " ".join(family_client.get("/gpus/B200").text.split())  # no stored price: the note
    assert "prices flagged stale by their feed are left out; older prices are kept at their own date" in page
    assert "stale and auction prices are left out" not in page
