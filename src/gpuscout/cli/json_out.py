"""Strict JSON for the CLI's ``--json``: JSON has no infinity or NaN; such a number is written as null."""

from __future__ import annotations

import math
from typing import Any


def finite(obj: Any) -> Any:
    """``obj`` (a JSON value, as ``to_jsonable`` gives) with every non-finite float made ``None``: an
    unbounded queue's TTFT, a rejected row's score. ``json.dumps`` would write them ``Infinity`` or
    ``NaN``, which strict JSON readers (``JSON.parse``, ``jq``) refuse."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj
