"""``gpuscout serve``: run the web app (pages + JSON API) with uvicorn."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from gpuscout.cli.output import err_console, plain, user_errors
from gpuscout.errors import GpuscoutError, InvalidInputError

APP_FACTORY = "gpuscout.web.app:app_from_env"


def serve(
    host: Annotated[str, typer.Option(help="interface to listen on (0.0.0.0 to expose it)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(help="store URL (sqlite:///..., postgresql+psycopg://...); default $GPUSCOUT_DB"),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="worker processes (use PostgreSQL for > 1)")
    ] = 1,
    reload: Annotated[bool, typer.Option(help="restart on code changes (development)")] = False,
) -> None:
    """Serve the comparison table, the advisor, charts and the JSON API (docs at /docs)."""
    import uvicorn

    if db:
        os.environ["GPUSCOUT_DB"] = db  # the workers build the app from the environment
    if workers > 1 and reload:
        err_console.print("[bold red]error:[/] --workers: cannot be combined with --reload")
        raise typer.Exit(2)
    # Open the store once here, before any worker starts: migrations run and a fresh store gets the
    # bundled snapshot exactly once, and a bad --db fails now with a clear message.
    with user_errors():
        prepare_store(db)
    url = f"http://{host if host not in ('0.0.0.0', '::') else '127.0.0.1'}:{port}/"
    err_console.print(plain(f"gpuscout web on {url} (API docs at {url}docs)"), highlight=False)
    uvicorn.run(
        APP_FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        reload=reload,
        log_level="info",
        proxy_headers=True,
        server_header=False,
    )


def prepare_store(db: str | None) -> None:
    from gpuscout.catalog.api import open_store

    try:
        store = open_store(db)
    except InvalidInputError as exc:
        if exc.field != "db":
            raise
        raise InvalidInputError("--db", str(exc).removeprefix("db: "), exc.accepted) from None
    except GpuscoutError:
        raise
    except Exception as exc:  # driver/connection errors: say which store could not be opened
        raise InvalidInputError(
            "--db",
            f"cannot open the store: {type(exc).__name__}: {exc}",
            "sqlite:///PATH or postgresql+psycopg://USER:PASS@HOST/DB",
        ) from None
    store.close()


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the root app."""
    app.command("serve")(serve)
