"""The web face of gpuscout: HTML pages and the JSON API (FastAPI). Build it with ``create_app``."""

from __future__ import annotations

from gpuscout.web.app import create_app

__all__ = ["create_app"]
