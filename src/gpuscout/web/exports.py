"""CSV and JSON exports of exactly the rows of a view."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuscout.catalog.offer_fields import write_csv
from gpuscout.errors import InvalidInputError
from gpuscout.web.offer_view import EXPORT_COLUMNS, OfferRow, export_record

if TYPE_CHECKING:
    from gpuscout.web.filters import OfferFilters
    from gpuscout.web.services import WebServices


def export_rows(services: WebServices, filters: OfferFilters, scope: str) -> list[OfferRow]:
    """The rows of an export of the view ``filters`` (``scope``: its page, or all its pages). A page past
    the view's last one is what the page says of it, an error naming ``page`` and the last page (422):
    never a file of the header row alone, read as "no offers"."""
    if scope != "page":
        return services.export_rows(filters, scope)
    page = services.offer_page(filters)
    if filters.page > page.pages:
        raise InvalidInputError(
            "page",
            f"page {filters.page:,} is past the last page of this view ({page.pages:,})",
            f"1..{page.pages:,} (or scope=all for every page)",
        )
    return page.rows


def offers_csv(rows: Sequence[OfferRow]) -> str:
    buffer = io.StringIO()
    write_csv(buffer, EXPORT_COLUMNS, (export_record(r) for r in rows))
    return buffer.getvalue()


def offers_json(rows: Sequence[OfferRow]) -> str:
    return json.dumps([export_record(r) for r in rows], indent=1)
