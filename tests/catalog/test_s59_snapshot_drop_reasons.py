"""The bundled snapshot's load records why it dropped rows, per reason, as a refresh does (stop 59,
renter pass): ``gpuscout sources`` said one row was dropped and listed no reason (its count was in the
load's text only)."""

from __future__ import annotations

from pathlib import Path

from gpuscout.catalog.api import load_bundled_snapshot
from tests.catalog.helpers import temp_store


def test_the_bundled_snapshot_load_counts_its_drops_by_reason(tmp_path: Path) -> None:
    with temp_store("sqlite", tmp_path) as store:
        result = load_bundled_snapshot(store)
        assert result is not None and result.dropped >= 1
        (status,) = [s for s in store.sources_status() if s.source == "snapshot"]
        assert status.last_dropped_count == result.dropped
        assert sum(status.last_drop_reasons.values()) == status.last_dropped_count
        assert any("not in the accelerator table" in reason for reason in status.last_drop_reasons)
