"""``POST /api/v1/refresh`` accepts only the sources configured on the server and refuses anything
else at once (422), before a refresh starts; a path the settings do not list is never opened.

Regression for the audit's defect 3 (web side): ``source=file:PATH`` read any path (a FIFO wedged
every later refresh, ``/dev/zero`` grew the server, a CSV's first line was published on the public
``/sources`` page), and an unknown source got 202 and then only a traceback in the server log.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuscout.web import create_app
from gpuscout.web.services import WebServices

TOKEN = "t0ken-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
OFFERS_CSV = "provider,gpu,price_usd_per_hour,instance_type\nfilecloud,H100-SXM,2.5,fc.h100\n"


@pytest.fixture()
def offer_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_offers.csv"
    path.write_text(OFFERS_CSV)
    return path


@pytest.fixture()
def admin(
    db_url: str, offer_file: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, WebServices, list[object]]]:
    monkeypatch.setenv("GPUSCOUT_ADMIN_TOKEN", TOKEN)
    monkeypatch.setenv("GPUSCOUT_OFFER_FILES", str(offer_file))
    services = WebServices(db_url, cache_seconds=0)
    calls: list[object] = []
    monkeypatch.setattr(services, "refresh", lambda names: calls.append(names) or [])
    with TestClient(create_app(db_url, services=services)) as client:
        yield client, services, calls


def _post(client: TestClient, source: str) -> tuple[int, dict[str, object]]:
    r = client.post("/api/v1/refresh", params={"source": source}, headers=AUTH)
    return r.status_code, r.json()


def test_an_unknown_source_is_422_at_once_with_the_closest_names(
    admin: tuple[TestClient, WebServices, list[object]],
) -> None:
    client, _, calls = admin
    status, body = _post(client, "vastia")
    assert status == 422 and body["field"] == "source" and "vastai" in (body.get("suggestions") or [])
    assert calls == []  # nothing started


@pytest.mark.parametrize("path", ["/etc/passwd", "/dev/zero", "/proc/self/environ", "relative.csv", ""])
def test_a_file_the_settings_do_not_list_is_refused(
    admin: tuple[TestClient, WebServices, list[object]], path: str
) -> None:
    client, _, calls = admin
    status, body = _post(client, f"file:{path}")
    assert status == 422 and body["field"] == "source" and "configured" in str(body["message"])
    assert calls == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_never_opened(admin: tuple[TestClient, WebServices, list[object]], tmp_path: Path) -> None:
    client, services, calls = admin
    fifo = tmp_path / "wedge.csv"
    os.mkfifo(fifo)
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(_post(client, f"file:{fifo}")[0]), daemon=True)
    worker.start()
    worker.join(30)  # opening the FIFO for reading would block for ever (no writer)
    assert done == [422] and calls == []
    assert not services.refresh_lock.locked()


def test_the_configured_file_and_registered_sources_start(
    admin: tuple[TestClient, WebServices, list[object]], offer_file: Path
) -> None:
    client, _, calls = admin
    name = f"file:{offer_file.resolve()}"
    status, body = _post(client, f"vastai, {name},snapshot")
    assert status == 202 and body == {"status": "started", "sources": ["vastai", name, "snapshot"]}
    assert calls == [["vastai", name, "snapshot"]]
    status, _ = _post(client, "")  # a blank name is refused, as the CLI's --source '' (stop 60)
    assert status == 422
    every = client.post("/api/v1/refresh", headers=AUTH)  # no source parameter: every source
    assert every.status_code == 202 and calls[-1] is None


def test_a_second_refresh_while_one_runs_is_409_and_never_queued(
    admin: tuple[TestClient, WebServices, list[object]],
) -> None:
    client, services, calls = admin
    with services.refresh_lock:
        assert _post(client, "vastai")[0] == 409
    assert calls == []


def test_the_services_refuse_a_second_refresh_instead_of_waiting(db_url: str) -> None:
    from gpuscout.errors import GpuscoutError

    services = WebServices(db_url, cache_seconds=0)
    raised: list[BaseException] = []

    def second() -> None:
        try:
            services.refresh(["snapshot"])
        except GpuscoutError as exc:
            raised.append(exc)

    with services.refresh_lock:
        worker = threading.Thread(target=second, daemon=True)
        worker.start()
        worker.join(30)  # waiting for the lock would block for ever
    assert not worker.is_alive() and raised and "already running" in str(raised[0])
    assert not services.refresh_lock.locked()


def test_a_real_refresh_of_the_configured_file_lands(
    db_url: str, offer_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUSCOUT_ADMIN_TOKEN", TOKEN)
    monkeypatch.setenv("GPUSCOUT_OFFER_FILES", str(offer_file))
    services = WebServices(db_url, cache_seconds=0)
    with TestClient(create_app(db_url, services=services)) as client:
        name = f"file:{offer_file.resolve()}"
        r = client.post("/api/v1/refresh", params={"source": name}, headers=AUTH)
        assert r.status_code == 202  # TestClient runs the background task before returning
        assert not services.refresh_lock.locked()
        [status] = [s for s in client.get("/api/v1/sources").json() if s["source"] == name]
        assert status["last_status"] == "ok" and status["row_count"] == 1


source_lists = st.lists(
    st.one_of(
        st.text(max_size=30),
        st.sampled_from(
            [
                "vastai",
                "snapshot",
                "gpuhunt:aws",
                "file:",
                "file:/etc/passwd",
                "FILE:/dev/zero",
                "file:../../x.csv",
                "lambda",
                " ",
                "\x00",
                "file:\x00",
            ]
        ),
        st.text(max_size=20).map(lambda t: "file:" + t),
    ),
    max_size=4,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources=source_lists)
def test_any_source_list_is_started_only_when_every_name_is_configured(
    admin: tuple[TestClient, WebServices, list[object]], offer_file: Path, sources: list[str]
) -> None:
    client, _, calls = admin
    before = len(calls)
    r = client.post("/api/v1/refresh", params={"source": ",".join(sources)}, headers=AUTH)
    assert r.status_code in (202, 422), r.text
    if r.status_code == 422:
        assert len(calls) == before and r.json()["field"] in ("source", "query")
        return
    started = calls[-1] or []
    assert isinstance(started, list)
    for name in started:
        assert not name.lower().startswith("file:") or name == f"file:{offer_file.resolve()}"


@pytest.mark.parametrize(
    "content",
    [
        b"db_password=hunter2,api_key=AKIA-EXAMPLE-SECRET\n1,2\n",  # a header of unknown columns
        b"provider,gpu,price_usd_per_hour\nhunter2-corp,H100-SXM,not-a-price-hunter2\n",  # a bad cell
        "db_password=hunter2\n".encode("utf-16"),  # not UTF-8
    ],
)
def test_a_failing_configured_file_never_publishes_its_content(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    secret = tmp_path / "server_secret_config.csv"
    secret.write_bytes(content)
    monkeypatch.setenv("GPUSCOUT_ADMIN_TOKEN", TOKEN)
    monkeypatch.setenv("GPUSCOUT_OFFER_FILES", str(secret))
    services = WebServices(db_url, cache_seconds=0)
    with TestClient(create_app(db_url, services=services)) as client:
        name = f"file:{secret.resolve()}"
        assert client.post("/api/v1/refresh", params={"source": name}, headers=AUTH).status_code == 202
        api = client.get("/api/v1/sources").text
        page = client.get("/sources").text
    [entry] = [s for s in json.loads(api) if s["source"] == name]
    assert entry["last_status"] in ("failed", "rejected")  # the failure is recorded...
    assert "hunter2" not in api and "AKIA" not in api  # ... without the file's content
    assert "hunter2" not in page and "AKIA" not in page
