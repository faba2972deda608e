"""Stand-ins for gpuhunt calls, run inside the real worker process by the gpuhunt source tests."""

from __future__ import annotations

import time
from typing import Any

from gpuscout.catalog.sources.gpuhunt_worker import WorkerFailed


def connection_error(*_: Any) -> Any:
    raise ConnectionError("lium API down")


def missing_credentials(*_: Any) -> Any:
    raise WorkerFailed("missing_credentials", "SEEWEB_API_TOKEN is not set")


def only_aws(version: str | None) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    return {"aws": ("20260101", [])}


def busy_forever(*_: Any) -> Any:
    while True:  # CPU-bound and never ends: only a kill stops it
        time.sleep(0)
