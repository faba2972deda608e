"""Helpers of the browser tests: the app served by uvicorn in a thread, and Debian's Chromium."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-quic",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--disable-breakpad", "--no-pings",
]


def require_chromium() -> None:
    """Skip when Chromium is missing locally; in CI (CI=true) its absence is a failure."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI") == "true":
        pytest.fail("/usr/bin/chromium is missing in CI (.ci/run installs Debian's chromium)")
    pytest.skip("Debian chromium not installed (apt-get install chromium)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serve_in_thread(app: FastAPI) -> Iterator[str]:
    """Run ``app`` with uvicorn on 127.0.0.1 in a daemon thread; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
