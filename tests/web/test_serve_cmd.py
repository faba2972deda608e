"""`gpuscout serve`: options reach uvicorn, the store is prepared once, a bad --db is a clear error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app


def test_serve_passes_options_to_uvicorn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    result = CliRunner().invoke(app, ["serve", "--port", "8123", "--workers", "3", "--db", db])
    assert result.exit_code == 0, result.output
    ((args, kwargs),) = calls
    assert args == ("gpuscout.web.app:app_from_env",) and kwargs["factory"] is True
    assert kwargs["port"] == 8123 and kwargs["workers"] == 3 and kwargs["host"] == "127.0.0.1"
    assert (tmp_path / "serve.db").exists()  # prepared (migrated, snapshot loaded) before the workers


def test_serve_rejects_an_unusable_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("must not start"))
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = CliRunner().invoke(app, ["serve", "--db", f"sqlite:///{blocker}/x.db"])
    assert result.exit_code == 2 and "--db" in result.output


def test_reload_and_workers_do_not_mix(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("must not start"))
    result = CliRunner().invoke(app, ["serve", "--workers", "2", "--reload"])
    assert result.exit_code == 2 and "--workers" in result.output
