"""Provider terms: billing increment, minimum charge, egress, storage and spot, per provider; its
status (active, or defunct since a date, with a source) and its own price page.

Loaded from the curated ``data/providers.yaml`` (each row with ``source_url``, ``verified_at``
and a confidence level). Pure: reads package data only.

Parsing YAML costs tens of milliseconds on every command that reads offers, so the package also
ships ``data/providers.json``: the same rows, generated from the YAML with the SHA-256 of the YAML it
was made from (``python -m gpuscout.knowledge.providers > src/gpuscout/knowledge/data/providers.json``).
The JSON is used only while that hash matches the YAML's, so an edited YAML is read as it is even
before the JSON is regenerated (a test says when it is out of date).

:func:`defunct_providers` is what the catalog's read path filters on: a defunct provider's offers
are neither listed nor recommended, while stored history keeps them.

Unknown providers get :func:`default_terms`: a conservative default (hourly billing, nothing
else known, confidence "unverified") so that cost estimates round up rather than down.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from gpuscout.errors import GpuscoutError, UnknownNameError, closest, fold_name
from gpuscout.knowledge.provider_types import PROVIDER_STATUSES, ProviderTerms

CONFIDENCE_LEVELS = ("confirmed", "secondary", "unverified")
KINDS = ("hyperscaler", "gpu-cloud", "marketplace", "aggregator", "private")

_REQUIRED = (
    "name",
    "display_name",
    "kind",
    "billing_increment_s",
    "minimum_charge_s",
    "egress_usd_per_gb",
    "egress_free_gb_per_month",
    "storage_usd_per_gb_month",
    "spot_available",
    "spot_interruption_notice_s",
    "source_url",
    "verified_at",
    "confidence",
    "status",
    "pricing_url",
)
_DATE_RE = re.compile(r"\d{4}-\d{2}(-\d{2})?")


class ProviderDataError(GpuscoutError, ValueError):
    """The packaged providers.yaml is malformed (a bug in the data, named by row and field)."""


def _opt_int(row: dict[str, Any], key: str) -> int | None:
    value = row[key]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ProviderDataError(f"providers.yaml {row['name']}.{key}: expected a non-negative int or null")
    return value


def _opt_float(row: dict[str, Any], key: str) -> float | None:
    value = row[key]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ProviderDataError(f"providers.yaml {row['name']}.{key}: expected a non-negative number or null")
    return float(value)


def _parse_row(row: dict[str, Any]) -> ProviderTerms:
    missing = [k for k in _REQUIRED if k not in row]
    if missing:
        raise ProviderDataError(f"providers.yaml {row.get('name', '?')}: missing {', '.join(missing)}")
    if row["confidence"] not in CONFIDENCE_LEVELS:
        raise ProviderDataError(f"providers.yaml {row['name']}.confidence: one of {CONFIDENCE_LEVELS}")
    if row["kind"] not in KINDS:
        raise ProviderDataError(f"providers.yaml {row['name']}.kind: one of {KINDS}")
    verified = row["verified_at"]
    if verified is not None and not _DATE_RE.fullmatch(str(verified)):
        raise ProviderDataError(
            f"providers.yaml {row['name']}.verified_at: an ISO date (YYYY-MM[-DD]) or null"
        )
    status, since, status_source = _status(row)
    pricing_url = str(row["pricing_url"] or "")
    if pricing_url and not pricing_url.startswith("https://"):
        raise ProviderDataError(f"providers.yaml {row['name']}.pricing_url: an https:// URL")
    notes = " ".join(str(row.get("notes") or "").split())
    field_notes = row.get("field_notes") or {}
    if field_notes:
        notes += " Sources: " + "; ".join(f"{k}: {v}" for k, v in field_notes.items())
    return ProviderTerms(
        name=str(row["name"]),
        display_name=str(row["display_name"]),
        kind=str(row["kind"]),
        billing_increment_s=_opt_int(row, "billing_increment_s"),
        minimum_charge_s=_opt_int(row, "minimum_charge_s"),
        egress_usd_per_gb=_opt_float(row, "egress_usd_per_gb"),
        egress_free_gb_per_month=_opt_float(row, "egress_free_gb_per_month"),
        storage_usd_per_gb_month=_opt_float(row, "storage_usd_per_gb_month"),
        spot_available=bool(row["spot_available"]),
        spot_interruption_notice_s=_opt_int(row, "spot_interruption_notice_s"),
        source_url=str(row["source_url"]),
        verified_at=None if verified is None else str(verified),
        confidence=str(row["confidence"]),
        notes=notes.strip(),
        pricing_url=pricing_url,
        status=status,
        status_since=since,
        status_source=status_source,
    )


def _status(row: dict[str, Any]) -> tuple[str, str | None, str]:
    """(status, since, source); a defunct provider must say since when and who says so."""
    status = row["status"]
    if status not in PROVIDER_STATUSES:
        raise ProviderDataError(f"providers.yaml {row['name']}.status: one of {PROVIDER_STATUSES}")
    since = row.get("status_since")
    source = str(row.get("status_source") or "")
    if status == "defunct":
        if since is None or not _DATE_RE.fullmatch(str(since)):
            raise ProviderDataError(f"providers.yaml {row['name']}.status_since: the ISO date it shut down")
        if not source.startswith("https://"):
            raise ProviderDataError(f"providers.yaml {row['name']}.status_source: an https:// URL saying so")
    return str(status), None if since is None else str(since), source


def _yaml_rows(source: bytes) -> list[dict[str, Any]]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    rows: list[dict[str, Any]] = yaml.load(source, Loader=loader)["providers"]
    return rows


def _rows() -> list[dict[str, Any]]:
    """The rows of ``providers.yaml``: from the generated JSON while it matches the YAML, else parsed."""
    data = resources.files("gpuscout.knowledge").joinpath("data")
    source = data.joinpath("providers.yaml").read_bytes()
    try:
        packed = json.loads(data.joinpath(PACKED_FILE).read_bytes())
    except (FileNotFoundError, ValueError):
        packed = None
    if isinstance(packed, dict) and packed.get("source_sha256") == hashlib.sha256(source).hexdigest():
        rows: list[dict[str, Any]] = packed["providers"]
        return rows
    return _yaml_rows(source)


PACKED_FILE = "providers.json"


def packed_json() -> str:
    """The text of ``data/providers.json`` for the current ``providers.yaml`` (dates as ISO text,
    which is what the rows' readers make of them)."""
    source = resources.files("gpuscout.knowledge").joinpath("data", "providers.yaml").read_bytes()
    packed = {
        "generated_from": "providers.yaml by python -m gpuscout.knowledge.providers",
        "source_sha256": hashlib.sha256(source).hexdigest(),
        "providers": _yaml_rows(source),
    }
    return json.dumps(packed, indent=1, ensure_ascii=False, default=str) + "\n"


@cache
def _load() -> tuple[dict[str, ProviderTerms], dict[str, str]]:
    terms: dict[str, ProviderTerms] = {}
    aliases: dict[str, str] = {}
    for row in _rows():
        parsed = _parse_row(row)
        if parsed.name in terms:
            raise ProviderDataError(f"providers.yaml: duplicate provider {parsed.name!r}")
        terms[parsed.name] = parsed
        for alias in row.get("aliases") or ():
            aliases[_key(str(alias))] = parsed.name
    return terms, aliases


def _key(name: str) -> str:
    """How a provider name is matched: case, spaces, hyphens and underscores aside ("Vast-AI", "vast_ai",
    "Lambda Labs" are vastai and lambda)."""
    return fold_name(name).strip().lower().replace(" ", "").replace("_", "").replace("-", "")


@functools.lru_cache(maxsize=4096)
def canonical_provider(name: str) -> str | None:
    """The canonical provider id for ``name`` or an alias (``vast`` -> ``vastai``); None if unknown.
    (Cached: a feed or an offer file repeats the same names.)"""
    terms, aliases = _load()
    key = _key(name)
    if key in terms:
        return key
    for canonical in terms:
        if _key(canonical) == key:
            return canonical
    return aliases.get(key)


def default_terms(name: str) -> ProviderTerms:
    """Conservative terms for a provider with no curated row: hourly billing, nothing else known."""
    return ProviderTerms(
        name=name,
        display_name=name,
        kind="gpu-cloud",
        billing_increment_s=3600,
        minimum_charge_s=3600,
        egress_usd_per_gb=None,
        egress_free_gb_per_month=None,
        storage_usd_per_gb_month=None,
        spot_available=False,
        spot_interruption_notice_s=None,
        source_url="",
        verified_at=None,
        confidence="unverified",
        notes=(
            f"No curated terms for provider {name!r}: assuming hourly billing with a one-hour "
            "minimum (conservative); egress and storage unknown."
        ),
    )


def provider_terms(name: str) -> ProviderTerms:
    """Terms of provider ``name`` (aliases accepted); unknown names get :func:`default_terms`."""
    canonical = canonical_provider(name)
    if canonical is None:
        return default_terms(name.strip().lower())
    return _load()[0][canonical]


def known_provider_terms(name: str) -> ProviderTerms:
    """Like :func:`provider_terms` but unknown names raise ``UnknownNameError`` with the closest."""
    canonical = canonical_provider(name)
    if canonical is None:
        terms, aliases = _load()
        raise UnknownNameError("provider", name, closest(name, [*terms, *aliases]))
    return _load()[0][canonical]


def short_names(display_name: str, provider_id: str = "") -> tuple[str, ...]:
    """A provider's shorter names for narrow places, in order of preference: its display name without
    its parenthesised detail ("Google Cloud (Compute Engine)": "Google Cloud"), then its id where
    given ("aws", the name ``--provider`` takes); each once, none the display name itself, so empty
    where the display name is as short as it gets ("Vast.ai" without an id). The one rule of every
    face: the web's ``ProviderLabel.short_name`` is the first of them (else the display name), the
    CLI's provider cell, cut to its column, the first that fits (else the last)."""
    head = display_name.split(" (", 1)[0].strip()
    return tuple(dict.fromkeys(n for n in (head, provider_id) if n and n != display_name))


def all_provider_terms() -> tuple[ProviderTerms, ...]:
    """Every curated provider's terms, in file order."""
    return tuple(_load()[0].values())


@cache
def defunct_providers() -> frozenset[str]:
    """Canonical ids of the providers that no longer sell capacity (``status: defunct``)."""
    return frozenset(t.name for t in all_provider_terms() if t.defunct)


def is_defunct(name: str) -> bool:
    """Whether provider ``name`` (aliases accepted) is defunct; unknown providers are not."""
    canonical = canonical_provider(name)
    return canonical is not None and canonical in defunct_providers()


if __name__ == "__main__":  # print data/providers.json (see the module docstring)
    print(packed_json(), end="")
