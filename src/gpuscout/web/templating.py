"""Jinja2 environment (autoescape on for every template) and the helpers templates use."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, StrictUndefined

from gpuscout import __version__
from gpuscout.estimate.memory import gib
from gpuscout.estimate.rate_cells import RATE_FOOTNOTE, rate_cells
from gpuscout.web.assets import PLOTLY_BUNDLE, asset_url, swagger_url
from gpuscout.web.model_view import model_label
from gpuscout.web.offer_view import variant_note
from gpuscout.web.overview import age_words
from gpuscout.web.providers_view import provider_label
from gpuscout.wording import key_words, money_text, plural


def money(value: float | None, digits: int = 2) -> str:
    """USD for people: ``$1,234.50`` (``digits`` 0: whole dollars, ``$1,235``); a positive amount under
    a cent with two figures (``$0.0019``, ``$0.000041``: never ``$0.0000``), by the rule every face
    follows (:func:`gpuscout.wording.money_text`); ``None`` -> "—"."""
    if value is None:
        return "—"
    if digits == 2 or abs(value) < 0.01:
        return money_text(value)
    return f"${value:,.{digits}f}"


def cents(value: float | None, total: float | None = None) -> str:
    """An amount of a cost breakdown, as the CLI's ``--explain`` writes it
    (:func:`gpuscout.wording.money_text`): the total as the table's (``$0.0019`` for a job of a fifth
    of a cent, never "<$0.01"), an item ``beside`` its ``total`` to the total's precision: "<$0.01"
    beside "$199.13" (a warm-up of $0.0099 read "$0.0100" there: a precision the figure has not),
    ``$0.0017`` beside ``$0.0019``."""
    if value is None:
        return "—"
    return money_text(value, beside=total)


def gb(value: float | None) -> str:
    """Memory as vendors state it: "80 GB", "141 GB", "23.5 GB"; ``None`` -> "—"."""
    if value is None:
        return "—"
    return f"{value:,.0f} GB" if float(value).is_integer() or value >= 100 else f"{value:,.1f} GB"


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


def query_string(params: Any) -> str:
    """``?a=1&b=2`` of the non-empty parameters ("" when none)."""
    return _query(dict(params))


def _query(params: dict[str, Any]) -> str:
    clean = {k: v for k, v in params.items() if v not in (None, "")}
    return "?" + urlencode(clean, doseq=True) if clean else ""


def _with_param(params: dict[str, Any], name: str, value: str) -> dict[str, Any]:
    """``params`` with ``name`` set to ``value`` (a suggestion link that keeps the other inputs)."""
    return {**params, name: value}


def _build_env() -> Environment:
    env = Environment(
        loader=PackageLoader("gpuscout.web", "templates"),
        autoescape=True,  # every template, whatever its extension
        # templates ship with the code: re-reading an edited one while the process runs the old Python
        # (an upgrade in place, a working tree under edit) renders a page its view never prepared
        auto_reload=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["money"] = money
    env.filters["cents"] = cents
    env.filters["num"] = _num
    env.filters["url_parts"] = _url_parts
    env.globals["query"] = _query
    env.globals["with_param"] = _with_param
    env.globals["version"] = __version__
    env.globals["variant_note"] = variant_note
    env.globals["asset_url"] = asset_url
    env.globals["swagger_url"] = swagger_url
    env.globals["plotly_url"] = lambda: asset_url(PLOTLY_BUNDLE)
    env.globals["provider_label"] = provider_label
    env.globals["age_words"] = age_words
    env.globals["gib"] = gib
    env.globals["model_label"] = model_label
    env.globals["rate_cells"] = rate_cells  # the BF16/FP8 cells, as `gpuscout gpus` prints them
    env.globals["rate_footnote"] = RATE_FOOTNOTE
    env.globals["plural"] = plural  # {{ n }} {{ plural(n, "offer") }}
    env.filters["gb"] = gb
    env.filters["sentence"] = lambda text: text[:1].upper() + text[1:]
    env.filters["nobreak"] = lambda text: text.replace("-", "\u2011")  # no line break at a hyphen
    env.filters["key_words"] = key_words  # an assumption's key in words ("KV dtype"), as the CLI shows it
    return env


ENV = _build_env()


def render(request: Request, template: str, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    html = ENV.get_template(template).render(request=request, path=request.url.path, **context)
    return HTMLResponse(html, status_code=status_code)
