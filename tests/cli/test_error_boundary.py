"""The CLI's one error boundary: store and file-system failures are one clear line and an exit code, never a
traceback (issue 14, defect 8); ``--version`` and ``python -m gpuscout``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout import __version__
from gpuscout.cli import app

runner = CliRunner()

# Every command that opens the store, with the arguments it needs.
STORE_COMMANDS = [
    ["offers"],
    ["sources"],
    ["history", "H100"],
    ["prune", "--older-than-days", "30"],
    ["refresh", "--source", "snapshot"],
    ["recommend", "serve", "llama-3.1-8b"],
    ["faq", "llama-3.1-8b"],
]


#: The commands that read or delete what a store holds: a --db naming no store is refused, not created.
READ_OR_DELETE = ("sources", "history", "prune")


def _unusable_stores(tmp_path: Path) -> dict[str, tuple[str, int, str]]:
    """name -> (--db value, exit code, what the message must say)."""
    not_a_db = tmp_path / "garbage.sqlite3"
    not_a_db.write_bytes(b"this is not an SQLite file" * 100)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    return {
        "postgres down": ("postgresql+psycopg://u:secret@127.0.0.1:1/x", 1, "the store cannot be used"),
        "unparsable url": ("::not a url::", 2, "db: cannot parse the database URL"),
        "unsupported url": ("mysql://u:secret@h/x", 2, "unsupported database URL"),
        "a directory": (f"sqlite:///{folder}", 2, "is a directory"),
        "uncreatable folder": ("sqlite:////proc/gpuscout/x.sqlite3", 2, "cannot create the folder"),
        "not a database": (f"sqlite:///{not_a_db}", 1, "file is not a database"),
    }


@pytest.mark.parametrize("command", STORE_COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize(
    "case",
    [
        "postgres down",
        "unparsable url",
        "unsupported url",
        "a directory",
        "uncreatable folder",
        "not a database",
    ],
)
def test_an_unusable_store_is_one_line_and_an_exit_code(
    command: list[str], case: str, tmp_path: Path
) -> None:
    db, code, said = _unusable_stores(tmp_path)[case]
    if case == "uncreatable folder" and command[0] in READ_OR_DELETE:
        said = "--db: no store at /proc/gpuscout/x.sqlite3"  # refused before any folder is made
    result = runner.invoke(app, [*command, "--db", db])
    assert result.exit_code == code, (result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert result.output.startswith("error: ") and said in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "secret" not in result.output  # a password in the URL is never echoed


def test_a_file_system_error_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Disk full, read-only file system...: the store's OSError reaches the boundary."""
    from gpuscout.catalog import store as store_module
    from gpuscout.catalog import store_template

    def disk_full(*_args: object, **_kw: object) -> None:
        raise OSError(28, "No space left on device", str(tmp_path / "catalog.sqlite3"))

    monkeypatch.setattr(store_module, "migrate", disk_full)
    # the fresh store's template cannot be written either: the Store then builds it, and fails
    monkeypatch.setattr(store_template, "install", disk_full)
    result = runner.invoke(app, ["offers", "--db", f"sqlite:///{tmp_path / 'catalog.sqlite3'}"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "No space left on device" in result.output and "catalog.sqlite3" in result.output


def test_markup_in_an_error_is_printed_as_text() -> None:
    result = runner.invoke(app, ["offers", "--gpu", "[/]"])
    assert result.exit_code == 2 and "[/]" in result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"gpuscout {__version__}"


def test_python_dash_m_gpuscout() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpuscout", "--version"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == f"gpuscout {__version__}"
