"""``gpuscout serve``: run the web app (pages + JSON API) with uvicorn."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from gpuscout.cli.output import err_console

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
    url = f"http://{host if host not in ('0.0.0.0', '::') else '127.0.0.1'}:{port}/"
    err_console.print(f"gpuscout web on {url} (API docs at {url}docs)", highlight=False)
    uvicorn.run(APP_FACTORY, factory=True, host=host, port=port, workers=workers, reload=reload,
                log_level="info", proxy_headers=True)


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the root app."""
    app.command("serve")(serve)
