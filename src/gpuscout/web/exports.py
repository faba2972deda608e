"""CSV and JSON exports of exactly the rows of a view."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from gpuscout.web.offer_view import EXPORT_COLUMNS, OfferRow, csv_cell, export_record


def offers_csv(rows: Sequence[OfferRow]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for row in rows:
        record = export_record(row)
        writer.writerow([csv_cell(record[c]) for c in EXPORT_COLUMNS])
    return buffer.getvalue()


def offers_json(rows: Sequence[OfferRow]) -> str:
    return json.dumps([export_record(r) for r in rows], indent=1)
