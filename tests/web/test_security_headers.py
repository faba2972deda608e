"""Every response carries the security headers (Permissions-Policy included) and no Server header.

Regression for the audit's defect 17: no ``Permissions-Policy``; ``server: uvicorn`` sent.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.web import create_app
from gpuscout.web.security import PERMISSIONS_POLICY, SECURITY_HEADERS

REQUESTS = [
    ("GET", "/"),
    ("GET", "/gpus"),
    ("GET", "/sources"),
    ("GET", "/api/v1/offers"),
    ("GET", "/api/v1/offers?per_page=100000"),  # 422
    ("GET", "/api/v1/gpus/not-a-gpu"),  # 404
    ("GET", "/nope"),  # 404 page
    ("POST", "/api/v1/offers"),  # 405
    ("GET", "/offers.csv"),
    ("GET", "/healthz"),
    ("GET", "/static/app.css"),
    ("GET", "/openapi.json"),
]


@pytest.mark.parametrize(("method", "path"), REQUESTS)
def test_every_response_carries_the_security_headers(client: TestClient, method: str, path: str) -> None:
    r = client.request(method, path, follow_redirects=False)
    for name, value in SECURITY_HEADERS:
        assert r.headers.get(name.decode()) == value.decode(), (path, name)
    assert "server" not in r.headers


def test_permissions_policy_turns_off_device_features() -> None:
    features = dict(part.split("=") for part in PERMISSIONS_POLICY.split(", "))
    assert {"camera", "microphone", "geolocation", "payment", "usb"} <= set(features)
    assert set(features.values()) == {"()"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_gpuscout_serve_sends_no_server_header(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The options ``gpuscout serve`` gives uvicorn, on a real uvicorn server on loopback."""
    import uvicorn

    from gpuscout.cli import app as cli_app

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append(k))
    result = CliRunner().invoke(cli_app, ["serve", "--db", db_url])
    assert result.exit_code == 0, result.output
    (options,) = calls
    port = _free_port()
    config = uvicorn.Config(
        create_app(db_url),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        server_header=options.get("server_header", True),
        proxy_headers=options.get("proxy_headers", False),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline and thread.is_alive():
            time.sleep(0.05)
        assert server.started
        r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
        assert r.status_code in (200, 503)
        assert "server" not in r.headers
        assert r.headers["permissions-policy"] == PERMISSIONS_POLICY
    finally:
        server.should_exit = True
        thread.join(10)
