"""The store's database engine: URL checks, SQLite PRAGMAs and write locking, PostgreSQL options.

* SQLite: WAL journal (readers never block the writer), a 30 s busy timeout, foreign keys, and
  ``BEGIN IMMEDIATE`` for connections opened with the ``write=True`` execution option, so a writer
  takes the lock up front instead of failing half-way.
* PostgreSQL: ``postgres://`` and ``postgresql://`` URLs use the psycopg (3) driver; pooled
  connections are pinged before use. Reads use REPEATABLE READ (see :func:`read_engine`).

A URL that cannot be used (unparsable, unsupported backend, a directory as the SQLite file, a
folder that cannot be created) is an :class:`~gpuscout.errors.InvalidInputError` naming ``db``.
"""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

from gpuscout.errors import InvalidInputError

ACCEPTED_URLS = "sqlite:///PATH or postgresql+psycopg://USER:PASS@HOST/DB"


def normalize_url(url: str) -> str:
    """The URL with the psycopg driver named for plain PostgreSQL URLs."""
    if url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.removeprefix("postgres://")
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return url


def parse_url(url: str) -> sa.URL:
    """The parsed URL, or an error naming ``db`` (the password is never echoed)."""
    if "\x00" in url:
        raise InvalidInputError("db", "the database URL contains a NUL character", ACCEPTED_URLS)
    try:
        return sa.make_url(normalize_url(url))
    except (sa.exc.ArgumentError, ValueError) as exc:
        raise InvalidInputError("db", f"cannot parse the database URL ({exc})", ACCEPTED_URLS) from None


def make_engine(url: str) -> sa.Engine:
    """An engine for ``url`` (SQLite file or memory, or PostgreSQL); nothing connects yet."""
    parsed = parse_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed)
    if backend == "postgresql":
        return sa.create_engine(parsed, pool_pre_ping=True)
    raise InvalidInputError("db", f"unsupported database URL {parsed.render_as_string()!r}", ACCEPTED_URLS)


def _sqlite_engine(parsed: sa.URL) -> sa.Engine:
    memory = parsed.database in (None, "", ":memory:")
    if not memory and parsed.database:
        path = os.path.abspath(parsed.database)
        if os.path.isdir(path):
            raise InvalidInputError("db", f"{path} is a directory, not a database file", ACCEPTED_URLS)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as exc:
            raise InvalidInputError(
                "db", f"cannot create the folder of {path}: {exc.strerror or exc}", ACCEPTED_URLS
            ) from None
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
    if memory:
        kwargs["poolclass"] = StaticPool
    engine = sa.create_engine(parsed, **kwargs)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's implicit transactions
        # skip DDL and cannot take the write lock up front).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=30000")
        if not memory:
            _switch_to_wal(cur)
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get("write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _switch_to_wal(cur: Any, deadline_s: float = 30.0) -> None:
    """Put the file in WAL mode (persistent: later connections find it so). The switch needs the file
    to itself, and SQLite answers "database is locked" at once, without its busy handler, while another
    connection opening a fresh file at the same moment holds it: retry until WAL is on or the deadline."""
    end = time.monotonic() + deadline_s
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > end:
                raise
        time.sleep(0.02)
        try:
            if str(cur.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
                return  # the other opener switched it
        except sqlite3.OperationalError:
            pass


def write_engine(engine: sa.Engine) -> sa.Engine:
    """The engine for write transactions (on SQLite they take the write lock at BEGIN)."""
    return engine.execution_options(write=True)


def read_engine(engine: sa.Engine) -> sa.Engine:
    """The engine for reads: every statement of one connection sees one consistent snapshot (SQLite
    WAL does that within a transaction; PostgreSQL needs REPEATABLE READ)."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ")
    return engine


def advisory_lock(conn: sa.Connection, key: int) -> None:
    """Serialise a PostgreSQL transaction with others taking ``key`` (SQLite writers already are)."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})
