"""``create_app``: the FastAPI application of gpuscout (pages, JSON API, assets, health)."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from gpuscout import __version__
from gpuscout.settings import Settings
from gpuscout.web import api, assets, pages
from gpuscout.web.errors import install_error_handlers
from gpuscout.web.head import HeadAsGetMiddleware
from gpuscout.web.lean_offers import LeanOffersMiddleware
from gpuscout.web.security import SecurityHeadersMiddleware
from gpuscout.web.services import WebServices

DESCRIPTION = """\
Which cloud GPU offer to rent for a generative-AI workload, and what it will really cost.

Every error is JSON with the `field` at fault, a `message`, what is `accepted` and, for unknown
names, the closest known names in `suggestions`. Page sizes are bounded (`per_page` <= 200).
"""


def create_app(
    db: str | None = None, *, services: WebServices | None = None, settings: Settings | None = None
) -> FastAPI:
    """Build the app for the store at ``db`` (``None``: ``GPUSCOUT_DB`` or the default SQLite file).

    ``settings`` (default: read from the environment now) are passed to the services.

    An empty store is filled from the bundled snapshot on first use, so the app works offline
    with no set-up.
    """
    app = FastAPI(
        title="gpuscout",
        version=__version__,
        description=DESCRIPTION,
        docs_url=None,  # our own /docs page serves Swagger UI from the installed package
        redoc_url=None,
    )
    app.state.services = services or WebServices(db, settings=settings)
    install_error_handlers(app)
    app.include_router(api.router)
    app.include_router(api.health_router)
    app.include_router(pages.router)
    app.include_router(assets.router)
    # Outermost first: HEAD is run as GET; security headers on every response; bodies over 1 KB
    # gzipped (static assets come gzipped already and are left alone); plain /api/v1/offers requests
    # answered on the event loop, with the route's own body and response (lean_offers.py).
    app.add_middleware(LeanOffersMiddleware)
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(HeadAsGetMiddleware)
    return app


def app_from_env() -> FastAPI:
    """App factory for uvicorn/gunicorn workers: the settings (the store: ``GPUSCOUT_DB`` or the
    default) are read from the environment once, here."""
    settings = Settings.from_env()
    return create_app(settings.db_url, settings=settings)
