"""CSV and JSON exports of exactly the rows of a view."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

from gpuscout.catalog.offer_fields import write_csv
from gpuscout.web.offer_view import EXPORT_COLUMNS, OfferRow, export_record


def offers_csv(rows: Sequence[OfferRow]) -> str:
    buffer = io.StringIO()
    write_csv(buffer, EXPORT_COLUMNS, (export_record(r) for r in rows))
    return buffer.getvalue()


def offers_json(rows: Sequence[OfferRow]) -> str:
    return json.dumps([export_record(r) for r in rows], indent=1)
