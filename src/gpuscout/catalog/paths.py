"""Where gpuscout keeps its data: the user data dir and the default store URL."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

DATA_DIR_ENV = "GPUSCOUT_DATA_DIR"
DB_ENV = "GPUSCOUT_DB"
DB_FILENAME = "catalog.sqlite3"


def data_dir() -> Path:
    """The directory for gpuscout's files: ``$GPUSCOUT_DATA_DIR`` or the platform user data dir."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("gpuscout"))


def default_db_url() -> str:
    """``$GPUSCOUT_DB`` when set, else a SQLite file in :func:`data_dir` (created on demand)."""
    url = os.environ.get(DB_ENV)
    if url:
        return url
    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / DB_FILENAME}"
