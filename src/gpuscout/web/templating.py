"""Jinja2 environment (autoescape on for every template) and the helpers templates use."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, StrictUndefined

from gpuscout import __version__
from gpuscout.web.offer_view import variant_note


def money(value: float | None, digits: int = 2) -> str:
    """USD for people: ``$1,234.50``; a non-zero amount under a cent keeps 4 decimals; ``None`` -> "—"."""
    if value is None:
        return "—"
    if value != 0 and abs(value) < 0.01:
        return f"${value:.4f}"
    return f"${value:,.{digits}f}"


def _num(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "—"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


_URL = re.compile(r"https?://[^\s\"'<>()]+")


def _url_parts(text: str) -> list[tuple[str, bool]]:
    """Split text into (segment, is_url) so templates can link http(s) URLs and escape the rest."""
    parts: list[tuple[str, bool]] = []
    pos = 0
    for match in _URL.finditer(text or ""):
        if match.start() > pos:
            parts.append((text[pos : match.start()], False))
        parts.append((match.group(0).rstrip(".,;"), True))
        pos = match.start() + len(parts[-1][0])
    if pos < len(text or ""):
        parts.append((text[pos:], False))
    return parts


def _query(params: dict[str, Any]) -> str:
    clean = {k: v for k, v in params.items() if v not in (None, "")}
    return "?" + urlencode(clean, doseq=True) if clean else ""


def _build_env() -> Environment:
    env = Environment(
        loader=PackageLoader("gpuscout.web", "templates"),
        autoescape=True,  # every template, whatever its extension
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["money"] = money
    env.filters["num"] = _num
    env.filters["url_parts"] = _url_parts
    env.globals["query"] = _query
    env.globals["version"] = __version__
    env.globals["variant_note"] = variant_note
    return env


ENV = _build_env()


def render(request: Request, template: str, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    html = ENV.get_template(template).render(request=request, path=request.url.path, **context)
    return HTMLResponse(html, status_code=status_code)
