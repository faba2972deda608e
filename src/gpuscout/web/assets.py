"""Third-party browser assets served from installed Python packages (never from a CDN).

- Plotly: ``plotly/package_data/plotly.min.js`` of the ``plotly`` package.
- Swagger UI (for ``/docs``): the bundle shipped by the ``fastapi-offline`` package.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, RedirectResponse, Response

router = APIRouter(include_in_schema=False)

_LONG_CACHE = {"cache-control": "public, max-age=86400"}


@cache
def plotly_js() -> Path:
    return Path(str(resources.files("plotly") / "package_data" / "plotly.min.js"))


@cache
def swagger_file(name: str) -> Path | None:
    try:
        base = resources.files("fastapi_offline") / "static"
    except ModuleNotFoundError:
        return None
    path = Path(str(base / name))
    return path if path.is_file() else None


FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" '
    'fill="#2457c5"/><path d="M4 11V5h8v6z" fill="none" stroke="#fff" stroke-width="1.5"/></svg>'
)


@router.get("/favicon.svg")
def favicon_svg() -> Response:
    return Response(FAVICON_SVG, media_type="image/svg+xml", headers=_LONG_CACHE)


@router.get("/favicon.ico")
def favicon() -> RedirectResponse:
    return RedirectResponse("/favicon.svg", status_code=301)


@router.get("/vendor/plotly.min.js")
def vendor_plotly() -> FileResponse:
    return FileResponse(plotly_js(), media_type="text/javascript", headers=_LONG_CACHE)


@router.get("/vendor/swagger/{name}")
def vendor_swagger(name: str) -> FileResponse:
    if name not in ("swagger-ui-bundle.js", "swagger-ui.css"):
        raise HTTPException(404, f"no asset {name!r}")
    path = swagger_file(name)
    if path is None:
        raise HTTPException(404, "Swagger UI assets are not installed (pip install fastapi-offline)")
    media = "text/javascript" if name.endswith(".js") else "text/css"
    return FileResponse(path, media_type=media, headers=_LONG_CACHE)
