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
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--no-pings",
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


@contextmanager
def serve_bundled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app over a new store filled from the bundled snapshot (what a newcomer sees), with no answer
    cache, served in a thread; yields its base URL."""
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    db = f"sqlite:///{tmp_path_factory.mktemp('bundled') / 'store.db'}"
    with serve_in_thread(create_app(db, services=WebServices(db, cache_seconds=0))) as url:
        yield url


AXE_JS = Path(__file__).parent / "vendor" / "axe.min.js"
#: WCAG 2.x A/AA rules and axe's best practices; each violation is reported with its impact.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def axe_violations(page: object, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """Run axe-core (vendored, see vendor/README.md) in ``page``; the violations of these impacts as
    "rule-id (impact): help — first offending node" lines. The script is evaluated through the
    DevTools protocol, so the page's CSP needs no exception."""
    evaluate = page.evaluate  # type: ignore[attr-defined]
    if not evaluate("() => typeof window.axe !== 'undefined'"):
        evaluate(AXE_JS.read_text(encoding="utf-8"))
    result = evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
    out = []
    for v in result["violations"]:
        if v["impact"] in impacts:
            node = v["nodes"][0]["target"] if v["nodes"] else ""
            out.append(f"{v['id']} ({v['impact']}): {v['help']} — {node} (+{len(v['nodes']) - 1} more)")
    return out
