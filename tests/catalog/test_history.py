"""Price history: min/median per-GPU price per provider over stored snapshots, and its CLI chart."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from gpuscout.catalog import api
from gpuscout.catalog import schema as t
from gpuscout.catalog.store import Store
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from tests.catalog.helpers import make_offer


def _fill(store: Store) -> list[datetime]:
    """Three refreshes of one live source, 10 days apart; H100 SXM and PCIe at two providers."""
    times = [datetime(2026, 11, d, 12, tzinfo=UTC) for d in (1, 11, 21)]
    for k, when in enumerate(times):
        offers = [
            make_offer(
                provider="alpha", instance_type="a1", price_usd_per_hour=3.0 - 0.5 * k, observed_at=when
            ),
            make_offer(
                provider="alpha",
                instance_type="a8",
                gpu_count=8,
                price_usd_per_hour=8 * (4.0 - 0.5 * k),
                observed_at=when,
            ),
            make_offer(
                provider="beta",
                instance_type="b1",
                accelerator="H100-PCIe",
                price_usd_per_hour=2.2,
                observed_at=when,
            ),
        ]
        report = store.write_snapshot("live", offers)
        with store.engine.begin() as conn:  # pretend it was stored when it was observed
            conn.execute(
                sa.update(t.snapshots)
                .where(t.snapshots.c.id == report.snapshot_id)
                .values(started_at=when, finished_at=when)
            )
    return times


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = api.open_store(f"sqlite:///{tmp_path / 'h.sqlite3'}")
    yield s
    s.close()


def test_history_points_per_provider_and_snapshot(store: Store) -> None:
    times = _fill(store)
    points = api.price_history("H100", db=store)
    unknown = [p for p in points if p.at is None]
    dated = [p for p in points if p.at is not None]
    assert unknown and points[: len(unknown)] == unknown  # bundled snapshot: time unknown, listed first
    assert all(p.source == "snapshot" for p in unknown)
    alpha = [p for p in dated if p.provider == "alpha"]
    assert [p.at for p in alpha] == times
    assert [p.min_usd_per_gpu_hour for p in alpha] == [3.0, 2.5, 2.0]
    assert [p.median_usd_per_gpu_hour for p in alpha] == [3.5, 3.0, 2.5]  # median of (1x, 8x) per GPU
    assert all(p.offers == 2 for p in alpha)
    beta = [p for p in dated if p.provider == "beta"]
    assert [p.min_usd_per_gpu_hour for p in beta] == [2.2, 2.2, 2.2]
    # a variant-exact name only covers that variant
    assert {p.provider for p in api.price_history("H100 PCIe", db=store) if p.at} == {"beta"}


def test_history_filters(store: Store) -> None:
    _fill(store)
    assert {p.provider for p in api.price_history("H100", provider="ALPHA", db=store)} == {"alpha"}
    now = datetime.now(UTC)
    with store.engine.begin() as conn:  # the last refresh observed its prices yesterday
        last = conn.execute(sa.select(sa.func.max(t.snapshots.c.id))).scalar_one()
        conn.execute(
            sa.update(t.snapshots).where(t.snapshots.c.id == last).values(observed_at=now - timedelta(days=1))
        )
    recent = api.price_history("H100", provider="alpha", days=3, db=store)
    assert [p.min_usd_per_gpu_hour for p in recent] == [2.0]
    # ``days`` is when the prices were observed: a snapshot stored today with old (or unknown) prices,
    # the bundled one loaded again, is no recent price
    with store.engine.begin() as conn:
        conn.execute(sa.update(t.snapshots).where(t.snapshots.c.id != last).values(finished_at=now))
    again = api.price_history("H100", provider="alpha", days=3, db=store)
    assert [p.min_usd_per_gpu_hour for p in again] == [2.0]
    with pytest.raises(InvalidInputError, match="days"):
        api.price_history("H100", days=0, db=store)


def test_history_cli_chart(store: Store) -> None:
    _fill(store)
    url = store.url
    out = CliRunner().invoke(app, ["history", "H100", "--provider", "alpha", "--db", url]).output
    assert "2026-11-01 12:00" in out and "2026-11-21 12:00" in out
    assert "alpha" in out and "3.000" in out and "2.000" in out
    trend = next(line for line in out.splitlines() if line.strip().startswith("alpha") and "->" in line)
    assert "█" in trend and "▁" in trend  # falling price: high bar first, low bar last
    assert trend.index("█") < trend.index("▁")
    data = json.loads(CliRunner().invoke(app, ["history", "H100", "--json", "--db", url]).output)
    assert {p["provider"] for p in data} >= {"alpha", "beta"}
    assert any(p["at"] is None for p in data)
