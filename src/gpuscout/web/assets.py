"""Static assets: our CSS/JS, the vendored Plotly bundle and Swagger UI, served with content hashes.

Pages link every asset through :func:`asset_url`, which puts a hash of the file's bytes in its name
(``/static/app.3f9c0a1b2d.css``). A hashed URL never changes meaning, so it is served with
``cache-control: immutable`` for a year; a new release changes the hash and browsers fetch the new
file. The same file under its plain name (``/static/app.css``) is served with ``no-cache`` and an
ETag (revalidated on every use). Bodies are read once and kept in memory with a gzip copy, sent to
clients that accept it (the app's gzip middleware leaves responses that are already encoded alone).

Third-party code, never from a CDN:

- Plotly: ``static/vendor/plotly-basic.min.js``, the ``plotly.js-basic-dist-min`` 4.1.1 bundle from
  the npm registry (the bar, pie and scatter traces only; MIT, see ``static/vendor/README.md``).
- Swagger UI (for ``/docs``): the bundle shipped by the ``fastapi-offline`` package.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from gpuscout.errors import quoted_value

router = APIRouter(include_in_schema=False)

STATIC_DIR = Path(str(resources.files("gpuscout.web") / "static"))
PLOTLY_BUNDLE = "vendor/plotly-basic.min.js"
SWAGGER_FILES = ("swagger-ui-bundle.js", "swagger-ui.css")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
HASH_CHARS = 10
_MEDIA = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}
_HASHED = re.compile(rf"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{{{HASH_CHARS}}})(?P<ext>\.[a-z]+)$")


@dataclass(frozen=True, slots=True)
class Asset:
    """One file's bytes, their gzip copy, content hash and media type."""

    body: bytes
    gzipped: bytes
    digest: str
    media_type: str

    @classmethod
    def of(cls, path: Path) -> Asset:
        body = path.read_bytes()
        digest = hashlib.sha256(body).hexdigest()[:HASH_CHARS]
        # mtime=0: the same bytes give the same gzip bytes (stable ETags)
        return cls(
            body,
            gzip.compress(body, compresslevel=9, mtime=0),
            digest,
            _MEDIA.get(path.suffix, "application/octet-stream"),
        )


@cache
def _static_files() -> dict[str, Path]:
    """Every file under ``static/`` by its path there (``vendor/plotly-basic.min.js``), listed once."""
    root = STATIC_DIR.resolve()
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


@cache
def _asset_of(path: Path) -> Asset:
    return Asset.of(path)


def static_asset(name: str) -> Asset | None:
    """The file ``name`` under ``static/`` (``None`` if it is not one). A name from a request is looked up
    in the folder's listing, never on the file system: a name longer than the file system takes (a
    4,000-character ``/static/...``) raised ENAMETOOLONG there, a 500, and caching every name asked
    for kept each unknown one in memory."""
    path = _static_files().get(name)
    return _asset_of(path) if path is not None else None


@cache
def swagger_asset(name: str) -> Asset | None:
    """A Swagger UI file of the installed ``fastapi-offline`` package (``None`` when not installed)."""
    if name not in SWAGGER_FILES:
        return None
    try:
        base = resources.files("fastapi_offline") / "static"
    except ModuleNotFoundError:
        return None
    path = Path(str(base / name))
    return Asset.of(path) if path.is_file() else None


def _hashed_name(name: str, digest: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{digest}.{ext}" if dot else f"{name}.{digest}"


def asset_url(name: str) -> str:
    """The content-hashed URL of ``static/<name>`` (what templates link)."""
    asset = static_asset(name)
    if asset is None:
        raise LookupError(f"no static asset {name!r}")
    return f"/static/{_hashed_name(name, asset.digest)}"


def swagger_url(name: str) -> str:
    """The content-hashed URL of a Swagger UI file (the plain name when it is not installed)."""
    asset = swagger_asset(name)
    return f"/vendor/swagger/{_hashed_name(name, asset.digest) if asset else name}"


def _split_hash(name: str) -> tuple[str, str | None]:
    """``app.0123456789.css`` -> (``app.css``, ``0123456789``); a plain name -> (name, None)."""
    match = _HASHED.match(name)
    if match is None:
        return name, None
    return match["stem"] + match["ext"], match["hash"]


def serve(request: Request, asset: Asset, requested_hash: str | None) -> Response:
    """The asset, gzipped when the client accepts it, cached for good when the URL's hash is current."""
    etag = f'"{asset.digest}"'
    cache_control = IMMUTABLE if requested_hash == asset.digest else REVALIDATE
    headers = {"cache-control": cache_control, "etag": etag, "vary": "Accept-Encoding"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["content-encoding"] = "gzip"
        return Response(asset.gzipped, media_type=asset.media_type, headers=headers)
    return Response(asset.body, media_type=asset.media_type, headers=headers)


@router.get("/static/{name:path}")
def static_file(request: Request, name: str) -> Response:
    plain, digest = _split_hash(name)
    asset = static_asset(plain)
    if asset is None:
        raise HTTPException(404, f"no asset {quoted_value(name)}")
    return serve(request, asset, digest)


@router.get("/vendor/plotly.min.js")
def vendor_plotly(request: Request) -> Response:
    """The Plotly bundle under its old, unhashed path (pages link the hashed URL)."""
    asset = static_asset(PLOTLY_BUNDLE)
    if asset is None:  # pragma: no cover - the bundle ships with the package
        raise HTTPException(404, "the Plotly bundle is missing from the package")
    return serve(request, asset, None)


@router.get("/vendor/swagger/{name}")
def vendor_swagger(request: Request, name: str) -> Response:
    plain, digest = _split_hash(name)
    if plain not in SWAGGER_FILES:
        raise HTTPException(404, f"no asset {quoted_value(name)}")
    asset = swagger_asset(plain)
    if asset is None:
        raise HTTPException(404, "Swagger UI assets are not installed (pip install fastapi-offline)")
    return serve(request, asset, digest)


FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" '
    'fill="#2457c5"/><path d="M4 11V5h8v6z" fill="none" stroke="#fff" stroke-width="1.5"/></svg>'
)


@router.get("/favicon.svg")
def favicon_svg() -> Response:
    return Response(
        FAVICON_SVG, media_type="image/svg+xml", headers={"cache-control": "public, max-age=86400"}
    )


@router.get("/favicon.ico")
def favicon() -> RedirectResponse:
    return RedirectResponse("/favicon.svg", status_code=301)
