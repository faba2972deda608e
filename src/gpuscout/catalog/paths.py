"""Where gpuscout keeps its data: the user data dir and the default store URL."""

from __future__ import annotations

from pathlib import Path

from gpuscout.errors import InvalidInputError
from gpuscout.settings import Settings

DB_FILENAME = "catalog.sqlite3"


def data_dir(settings: Settings | None = None) -> Path:
    """The directory for gpuscout's files: ``GPUSCOUT_DATA_DIR`` or the platform user data dir."""
    settings = settings or Settings.from_env()
    if settings.data_dir is not None:
        return settings.data_dir
    import platformdirs  # only for the platform's default

    return Path(platformdirs.user_data_dir("gpuscout"))


def default_db_url(settings: Settings | None = None) -> str:
    """``GPUSCOUT_DB`` when set, else a SQLite file in :func:`data_dir` (created on demand)."""
    settings = settings or Settings.from_env()
    if settings.db_url:
        return settings.db_url
    directory = data_dir(settings)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInputError(
            "GPUSCOUT_DATA_DIR", f"cannot create {directory}: {exc.strerror or exc}", "a writable folder"
        ) from None
    return f"sqlite:///{directory / DB_FILENAME}"
