"""Property-based API tests: schemathesis generates requests from the app's own OpenAPI; none may 5xx."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.web.conftest import sample_offers

# schemathesis needs the app when the module is collected: build it over a temporary store now
# (the store itself is opened on the first request) and delete the directory after the tests.
_DIR = Path(tempfile.mkdtemp(prefix="gpuscout-schemathesis-"))
_URL = f"sqlite:///{_DIR / 'web.db'}"
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(_URL, services=WebServices(_URL, 0)))


@pytest.fixture(scope="module", autouse=True)
def _store() -> Iterator[None]:
    store = Store(_URL)
    # only the offers below (the bundled snapshot marked as loaded, with no rows)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.write_snapshot("test", sample_offers())
    store.close()
    yield
    shutil.rmtree(_DIR, ignore_errors=True)


@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
def test_no_server_errors(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
