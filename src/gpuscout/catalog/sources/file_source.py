"""The file source: a user's own offers (negotiated/reserved contracts, on-prem cost per GPU-hour)
from a CSV or YAML file, checked row by row with line-numbered errors.

Columns / keys (one offer per row):

* required: ``provider``, ``gpu`` (any name ``resolve_gpu`` knows), and a price:
  ``price_usd_per_hour`` (whole instance) or ``price_usd_per_gpu_hour``;
* optional: ``gpu_count`` (default 1), ``instance_type`` (default ``<count>x<gpu>``), ``region``
  (default ``private``), ``zone``, ``gpu_memory_gb`` (default: the accelerator's),
  ``spot_price_usd_per_hour`` (or ``spot_price_usd_per_gpu_hour``), ``vcpus``, ``ram_gb``,
  ``disk_gb``, ``interconnect`` (nvlink | pcie | unknown), ``internode`` (efa | infiniband | roce),
  ``availability`` (available | limited | unavailable | unknown), ``available_count``,
  ``observed_at`` (ISO date/time, or ``unknown``; default: the file's modification time, i.e. when
  you wrote the price down), ``billing_terms``, ``egress_usd_per_gb``, ``storage_usd_per_gb_month``,
  ``notes``, ``regions`` and ``also_listed_by`` (lists: ``a | b``), ``secure``, ``fractional``,
  ``price_is_interruptible`` and ``stale`` (true | false), ``original_currency``,
  ``original_price_per_hour``, ``original_spot_price_per_hour``.

What ``gpuscout offers --csv`` writes loads back: its ``accelerator`` column is ``gpu``
(:data:`ALIASES`), and the columns it derives (``source``, ``total_memory_gb``, ``age``:
:data:`DERIVED`) are accepted and not read (the file source sets its own ``source``).

YAML is a list of mappings, or a mapping with an ``offers`` list. Unknown columns are an error
(so a typo never silently drops a price), naming the closest column. Every problem is reported as
``FILE:LINE: field: why``.
A file that parses is then refreshed like any source: its rows pass the same validation gate
(plausible price band, memory consistency) before they are stored.

Reading is bounded, and error messages never quote the file (they are stored and shown on the
public ``/sources`` page): only a regular file is read (a FIFO, a device such as ``/dev/zero`` or a
directory is refused before reading), at most :data:`MAX_FILE_BYTES`; it must be UTF-8 text
(UTF-16 and binary files are named as such); YAML is composed with a depth limit and a bound on
what merge keys may expand to (no "billion laughs"); every value must be a single value, numbers
are finite and within sane bounds (a count of 2^63 is a field error, not a database overflow),
and ``observed_at`` may not lie in the future. Problems name the file, the line and the field, and
say what is accepted, never what was written.
"""

from __future__ import annotations

import csv
import difflib
import functools
import io
import math
import os
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from gpuscout.catalog.offer import Availability, Interconnect, Offer, gpus_worth
from gpuscout.catalog.offer_fields import offer_constructor
from gpuscout.catalog.sources.base import Source
from gpuscout.errors import InvalidInputError, UnknownNameError, closest
from gpuscout.gc_pause import collection_paused
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.providers import canonical_provider

if TYPE_CHECKING:
    import httpx

E = TypeVar("E", bound=StrEnum)

REQUIRED = ("provider", "gpu")
PRICE_FIELDS = ("price_usd_per_hour", "price_usd_per_gpu_hour")
OPTIONAL = (
    "gpu_count",
    "instance_type",
    "region",
    "zone",
    "gpu_memory_gb",
    "spot_price_usd_per_hour",
    "vcpus",
    "ram_gb",
    "disk_gb",
    "interconnect",
    "availability",
    "available_count",
    "observed_at",
    "billing_terms",
    "egress_usd_per_gb",
    "storage_usd_per_gb_month",
    "notes",
    # the other fields ``gpuscout offers --csv`` writes: read by the checking reader only (``_offer``)
    "spot_price_usd_per_gpu_hour",
    "internode",
    "regions",
    "also_listed_by",
    "secure",
    "fractional",
    "price_is_interruptible",
    "stale",
    "original_currency",
    "original_price_per_hour",
    "original_spot_price_per_hour",
)
ACCEPTED = (*REQUIRED, *PRICE_FIELDS, *OPTIONAL)
#: Other names of a column: what ``gpuscout offers --csv`` (an ``Offer``'s field) calls it -> this file's.
ALIASES: dict[str, str] = {"accelerator": "gpu"}
#: Columns ``gpuscout offers --csv`` writes that gpuscout derives or sets itself: accepted, so that a file
#: it wrote loads back, and not read (the file source sets ``source``; the rest follow from other fields).
DERIVED = ("source", "total_memory_gb", "age")
#: Every column name a file may have.
KNOWN_COLUMNS = frozenset((*ACCEPTED, *ALIASES, *DERIVED))
#: The columns the one-pass reader (:func:`plain_reader`) does not read: a file with any of them is read
#: by the checking reader.
CHECKED_ONLY = OPTIONAL[OPTIONAL.index("spot_price_usd_per_gpu_hour") :]
#: The inter-node fabrics an offer may state (``Offer.internode``), as the catalog's sources write them.
INTERNODES = ("efa", "infiniband", "roce")
#: How a yes/no column may read (any case); a blank cell is the field's default.
_FLAGS = {"true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}
#: What a list column's items are separated by (``gpuscout offers --csv`` writes " | ").
_LIST_SEPARATOR = "|"

#: The numeric columns: whether a value must be > 0 (``>= 0`` otherwise), and a whole number.
NUMBERS: dict[str, dict[str, bool]] = {
    "gpu_count": {"positive": True, "integer": True},
    "price_usd_per_hour": {"positive": True, "integer": False},
    "price_usd_per_gpu_hour": {"positive": True, "integer": False},
    "spot_price_usd_per_hour": {"positive": True, "integer": False},
    "spot_price_usd_per_gpu_hour": {"positive": True, "integer": False},
    "original_price_per_hour": {"positive": True, "integer": False},
    "original_spot_price_per_hour": {"positive": True, "integer": False},
    "gpu_memory_gb": {"positive": True, "integer": False},
    "available_count": {"positive": False, "integer": True},
    **{k: {"positive": False, "integer": False} for k in ("vcpus", "ram_gb", "disk_gb")},
    **{k: {"positive": False, "integer": False} for k in ("egress_usd_per_gb", "storage_usd_per_gb_month")},
}
MAX_FILE_BYTES = 64 * 1024 * 1024  # a 150,000-row CSV is ~15 MB
MAX_YAML_DEPTH = 32  # an offer file is a list of flat mappings: 3 levels
MAX_MERGED_KEYS = 1_000  # keys one YAML mapping may hold once merge keys (<<) are expanded
MAX_TEXT_CHARS = 2_000
FUTURE_SLACK = timedelta(days=1)  # a date written in a time zone ahead of UTC
EARLIEST_OBSERVED = datetime(2000, 1, 1, tzinfo=UTC)
# upper bounds of the numeric columns: beyond them a value is a typo, not an offer
MAX_VALUE: dict[str, float] = {
    "gpu_count": 10_000,
    "available_count": 1_000_000,
    "gpu_memory_gb": 10_000,
    "vcpus": 100_000,
    "ram_gb": 10_000_000,
    "disk_gb": 1_000_000_000,
    "price_usd_per_hour": 10_000_000,
    "price_usd_per_gpu_hour": 1_000_000,
    "spot_price_usd_per_hour": 10_000_000,
    "spot_price_usd_per_gpu_hour": 1_000_000,
    "original_price_per_hour": 1_000_000_000,  # a price in a currency of small units (yen, won)
    "original_spot_price_per_hour": 1_000_000_000,
    "egress_usd_per_gb": 10_000,
    "storage_usd_per_gb_month": 10_000,
}


class OfferFileError(InvalidInputError):
    """One or more rows of an offer file are invalid; ``problems`` lists every ``(field, why)``."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        field, message = problems[0]
        if len(problems) > 1:
            rest = "; ".join(f"{f}: {m}" for f, m in problems[1:6])
            more = f" (+{len(problems) - 6} more)" if len(problems) > 6 else ""
            message = f"{message} [and {len(problems) - 1} more: {rest}{more}]"
        super().__init__(field, message)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


class _Row:
    """One input row with its line numbers, collecting problems instead of raising."""

    __slots__ = ("data", "key_lines", "label", "line", "problems")

    def __init__(self, label: str, data: Mapping[str, Any], line: int, key_lines: Mapping[str, int]) -> None:
        self.label, self.data, self.line, self.key_lines = label, data, line, key_lines
        self.problems: list[tuple[str, str]] = []

    def where(self, key: str) -> str:
        return f"{self.label}:{self.key_lines.get(key, self.line)}: {key}"

    def bad(self, key: str, why: str) -> None:
        self.problems.append((self.where(key), why))

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key)
        if value is None:
            return default
        if type(value) is str:  # a CSV cell (the common case, checked without the general path)
            text = value.strip()
            if not text:
                return default
            if "\x00" not in text and len(text) <= MAX_TEXT_CHARS:
                return text
        if _blank(value):
            return default
        if not isinstance(value, str | int | float | date) or isinstance(value, bool):
            self.bad(key, "must be a single value, not a list or a mapping")
            return default
        text = str(value).strip()
        if "\x00" in text:  # a store cannot keep it (PostgreSQL refuses it)
            self.bad(key, "contains a NUL character (accepted: text without NUL characters)")
            return default
        if len(text) > MAX_TEXT_CHARS:
            self.bad(key, f"longer than {MAX_TEXT_CHARS} characters")
            return default
        return text

    def choice(self, key: str, kind: type[E], default: E) -> E:
        """A member of the string enum ``kind`` named (any case) in the column; blank -> ``default``."""
        raw = self.text(key)
        if not raw:
            return default
        try:
            return kind(raw.lower())
        except ValueError:
            self.bad(key, f"unknown value (accepted: {', '.join(kind)})")
            return default

    def flag(self, key: str, default: bool | None = False) -> bool | None:
        """A yes/no column (true | false, yes | no, 1 | 0, any case; a YAML boolean); blank -> ``default``."""
        value = self.data.get(key)
        if isinstance(value, bool):
            return value
        raw = self.text(key)
        if not raw:
            return default
        found = _FLAGS.get(raw.lower())
        if found is None:
            self.bad(key, "not true or false (accepted: true, false)")
            return default
        return found

    def names(self, key: str) -> tuple[str, ...]:
        """A list column: its items separated by ``|`` (``a | b``, as ``gpuscout offers --csv`` writes
        it) or a YAML list of single values; blank items dropped."""
        value = self.data.get(key)
        if isinstance(value, list):
            items = []
            for item in value:
                if not isinstance(item, str | int | float) or isinstance(item, bool):
                    self.bad(key, "must be a list of names, not of lists or mappings")
                    return ()
                items.append(str(item))
        else:
            raw = self.text(key)
            items = raw.split(_LIST_SEPARATOR) if raw else []
        out = tuple(i.strip() for i in items if i.strip())
        if any(len(i) > MAX_TEXT_CHARS or "\x00" in i for i in out):
            self.bad(key, f"an item is longer than {MAX_TEXT_CHARS} characters or holds a NUL character")
            return ()
        return out

    def number(self, key: str, *, positive: bool = False, integer: bool = False) -> float | None:
        value = self.data.get(key)
        if value is None:
            return None
        if type(value) is str:  # a CSV cell
            text = value.strip()
            if not text:
                return None
        elif _blank(value):
            return None
        elif isinstance(value, bool) or not isinstance(value, int | float):
            self.bad(key, "not a number")
            return None
        else:
            text = str(value).strip()
        try:
            number = float(text.replace("$", "").replace(",", ""))
        except (ValueError, OverflowError):
            self.bad(key, "not a number")
            return None
        ceiling = MAX_VALUE.get(key, 1e12)
        if not math.isfinite(number) or number < 0 or (positive and number == 0):
            self.bad(key, f"must be {'> 0' if positive else '>= 0'} (a finite number)")
            return None
        if number > ceiling:
            self.bad(key, f"must be at most {ceiling:,.0f}")
            return None
        if integer and number != int(number):
            self.bad(key, "must be a whole number")
            return None
        return number


def _parse_time(row: _Row, default: datetime, now: datetime) -> datetime | None:
    raw = row.data.get("observed_at")
    if _blank(raw):
        return default
    if isinstance(raw, str) and raw.strip().lower() == "unknown":  # as ``gpuscout offers --csv`` writes it
        return None
    if isinstance(raw, datetime):
        when = raw
    elif isinstance(raw, date):  # YAML reads 2026-11-01 as a date
        when = datetime(raw.year, raw.month, raw.day)
    else:
        text = row.text("observed_at")
        try:
            when = datetime.fromisoformat(text or "")
        except ValueError:
            row.bad(
                "observed_at", "not an ISO date/time (accepted: 2026-11-01, 2026-11-01T12:00:00Z or unknown)"
            )
            return default
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    if when > now + FUTURE_SLACK:
        row.bad("observed_at", "lies in the future; it is when the price was observed")
        return default
    if when < EARLIEST_OBSERVED:
        row.bad("observed_at", f"before {EARLIEST_OBSERVED.year}: not a date a GPU price was observed")
        return default
    return when


class _Names:
    """The GPU and provider names of one file, each resolved once (a file names few of them)."""

    def __init__(self) -> None:
        self.gpus: dict[str, Accelerator | UnknownNameError] = {}
        self.providers: dict[str, str] = {}

    def gpu(self, name: str) -> Accelerator | UnknownNameError:
        found = self.gpus.get(name)
        if found is None:
            try:
                found = resolve_gpu(name)
            except UnknownNameError as exc:
                found = exc
            self.gpus[name] = found
        return found

    def provider(self, raw: str) -> str:
        found = self.providers.get(raw)
        if found is None:
            found = self.providers[raw] = canonical_provider(raw) or raw.lower()
        return found


def _offer(
    row: _Row, source_label: str, default_time: datetime, now: datetime, names: _Names | None = None
) -> Offer | None:
    data = row.data
    names = names or _Names()
    for key in REQUIRED:
        if _blank(data.get(key)):
            row.bad(key, "required")
    accelerator = None
    gpu = row.text("gpu")
    if gpu:
        found = names.gpu(gpu)
        if isinstance(found, UnknownNameError):
            what = "ambiguous" if found.ambiguous else "unknown"
            row.bad("gpu", f"{what} GPU name; closest known: {', '.join(found.suggestions) or 'none'}")
        else:
            accelerator = found

    def number(key: str, *, positive: bool = False, integer: bool = False) -> float | None:
        # a column the row does not have is blank (checked here: most files have few of them)
        value = data.get(key)
        if type(value) is str:
            # A plain number: what _Row.number accepts without a problem, read in one call (float()
            # strips the same white space; a "$" or "," fails here and is read there).
            try:
                number = float(value)
            except ValueError:
                pass
            else:
                good = (number > 0 if positive else number >= 0) and number <= MAX_VALUE.get(key, 1e12)
                if good and (not integer or number.is_integer()):
                    return number
        return row.number(key, positive=positive, integer=integer) if key in data else None

    def text(key: str) -> str | None:
        value = data.get(key)
        if type(value) is str:
            plain = value.strip()
            if plain and len(plain) <= MAX_TEXT_CHARS and "\x00" not in plain:
                return plain
        return row.text(key) if key in data else None

    count_f = number("gpu_count", **NUMBERS["gpu_count"])
    count = int(count_f) if count_f is not None else 1
    memory = number("gpu_memory_gb", **NUMBERS["gpu_memory_gb"])
    fractional = bool(row.flag("fractional")) if "fractional" in data else False
    # what a per-GPU price is per: the GPU count, or a vGPU slice's share of the card (``Offer.gpus_worth``:
    # ``gpuscout offers --csv`` writes a slice's per-GPU price for a whole GPU's worth)
    share: float = count
    per = "gpu_count"
    if fractional and accelerator is not None:
        card = memory if memory is not None else accelerator.memory_gb
        share = gpus_worth(accelerator.name, count, card, fractional=True)
        per = "the GPUs the slice is worth"
    price = number("price_usd_per_hour", **NUMBERS["price_usd_per_hour"])
    per_gpu = number("price_usd_per_gpu_hour", **NUMBERS["price_usd_per_gpu_hour"])
    spot = number("spot_price_usd_per_hour", **NUMBERS["spot_price_usd_per_hour"])
    spot_per_gpu = number("spot_price_usd_per_gpu_hour", **NUMBERS["spot_price_usd_per_gpu_hour"])
    if price is not None and per_gpu is not None and abs(price - per_gpu * share) > 0.005 * price:
        row.bad("price_usd_per_gpu_hour", f"disagrees with price_usd_per_hour / {per} ({price / share:g})")
    if spot is not None and spot_per_gpu is not None and abs(spot - spot_per_gpu * share) > 0.005 * spot:
        row.bad(
            "spot_price_usd_per_gpu_hour",
            f"disagrees with spot_price_usd_per_hour / {per} ({spot / share:g})",
        )
    if price is None and per_gpu is not None:
        price = per_gpu * share
    if spot is None and spot_per_gpu is not None:
        spot = spot_per_gpu * share
    if price is None and spot is None and not any(k for k in row.problems if k[0].endswith(PRICE_FIELDS)):
        row.bad("price_usd_per_hour", "a price is required (price_usd_per_hour or price_usd_per_gpu_hour)")
    interconnect = row.choice("interconnect", Interconnect, Interconnect.UNKNOWN)
    availability = row.choice("availability", Availability, Availability.UNKNOWN)
    available_count = number("available_count", **NUMBERS["available_count"])
    vcpus, ram, disk = number("vcpus"), number("ram_gb"), number("disk_gb")
    egress, storage = number("egress_usd_per_gb"), number("storage_usd_per_gb_month")
    observed = _parse_time(row, default_time, now) if "observed_at" in data else default_time
    # the fields only the checking reader reads (``CHECKED_ONLY``): keyword -> value, where the row has them
    more: dict[str, Any] = {}
    if "internode" in data:
        fabric = row.text("internode")
        if fabric and fabric.lower() not in INTERNODES:
            row.bad("internode", f"unknown value (accepted: {', '.join(INTERNODES)})")
        more["internode"] = fabric.lower() if fabric else None
    for key in ("regions", "also_listed_by"):
        if key in data:
            more[key] = row.names(key)
    if "fractional" in data:
        more["fractional"] = fractional
    for key in ("price_is_interruptible", "stale"):
        if key in data:
            more[key] = bool(row.flag(key))
    if "secure" in data:
        more["secure"] = row.flag("secure", None)
    if "original_currency" in data:
        currency = row.text("original_currency")
        if currency and not (len(currency) == 3 and currency.isascii() and currency.isalpha()):
            row.bad("original_currency", "not an ISO 4217 currency code (accepted: three letters, e.g. EUR)")
        more["original_currency"] = currency.upper() if currency else None
    for key in ("original_price_per_hour", "original_spot_price_per_hour"):
        if key in data:
            more[key] = number(key, **NUMBERS[key])
    if row.problems or accelerator is None:
        return None
    provider = names.provider(row.text("provider") or "")
    return _make_offer(
        provider=provider,
        instance_type=text("instance_type") or f"{count}x{accelerator.name}",
        region=text("region") or "private",
        zone=text("zone"),
        accelerator=accelerator.name,
        gpu_count=count,
        gpu_memory_gb=memory if memory is not None else accelerator.memory_gb,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=spot,
        source=source_label,
        observed_at=observed,
        vcpus=vcpus,
        ram_gb=ram,
        disk_gb=disk,
        interconnect=interconnect,
        availability=availability,
        available_count=int(available_count) if available_count is not None else None,
        billing_terms=text("billing_terms") or provider,
        egress_usd_per_gb=egress,
        storage_usd_per_gb_month=storage,
        notes=text("notes") or "",
        extra={"line": str(row.line)},
        **more,
    )


_make_offer = offer_constructor(Offer)


_CHOICES: dict[str, dict[str, Any]] = {
    "interconnect": {m.value: m for m in Interconnect},
    "availability": {m.value: m for m in Availability},
}


_TEXTS = ("provider", "gpu", "instance_type", "region", "zone", "billing_terms", "notes", "observed_at")


PlainReader = Callable[[list[str], int], "Offer | None"]


def plain_reader(
    header: Sequence[str], source_label: str, default_time: datetime, now: datetime, names: _Names
) -> PlainReader:
    """The reader of a CSV row under ``header`` whose cells are all plain (numbers in range without
    ``$`` or ``,``, known names, short text without NUL, a valid ``observed_at``): ``read(cells,
    line)`` is its offer, or ``None`` for any other row, which :func:`_offer` then reads, naming each
    problem. For a row both read, both give the same offer (``tests/catalog/test_file_source.py``
    checks it). Most rows of a big file are plain; this reader is compiled once per file for its
    columns (as :mod:`dataclasses` compiles ``__init__``), reads each cell by its position and
    builds the offer in one call: a fraction of the cost of the checks that name problems.

    ``cells`` must hold one cell per header column (a shorter or longer row is the checking
    reader's). A column named twice is read from its last cell, as the checking reader's row
    mapping does.
    """
    index = {name: i for i, name in enumerate(header)}
    if any(key in index for key in CHECKED_ONLY):  # columns it does not read: every row is checked
        return _checked_only
    scope: dict[str, Any] = {
        "MAX_TEXT_CHARS": MAX_TEXT_CHARS,
        "UnknownNameError": UnknownNameError,
        "gpu_of": names.gpu,
        "provider_of": names.provider,
        "make": _make_offer,
        "source_label": source_label,
        "default_time": default_time,
        "latest": now + FUTURE_SLACK,
        "EARLIEST_OBSERVED": EARLIEST_OBSERVED,
        "fromisoformat": datetime.fromisoformat,
        "UTC": UTC,
        "INTERCONNECT_UNKNOWN": Interconnect.UNKNOWN,
        "AVAILABILITY_UNKNOWN": Availability.UNKNOWN,
        "interconnects": _CHOICES["interconnect"],
        "availabilities": _CHOICES["availability"],
    }
    body: list[str] = []
    for key in (*_TEXTS, *_CHOICES):
        var = f"t_{key}"
        if key not in index:
            body.append(f"{var} = None")
            continue
        body += [
            f"{var} = cells[{index[key]}].strip()",
            f"if len({var}) > MAX_TEXT_CHARS or '\\x00' in {var}:",
            "    return None",
            f"if not {var}:",
            f"    {var} = None",
        ]
    for key, rule in NUMBERS.items():
        var = f"n_{key}"
        if key not in index:
            body.append(f"{var} = None")
            continue
        scope[f"max_{key}"] = MAX_VALUE.get(key, 1e12)
        bound = f"{var} > 0" if rule["positive"] else f"{var} >= 0"
        whole = f" or not {var}.is_integer()" if rule["integer"] else ""
        body += [
            f"cell = cells[{index[key]}]",
            "try:",
            f"    {var} = float(cell)",
            "except ValueError:",
            "    if cell.strip():",
            "        return None",
            f"    {var} = None",
            "else:",
            f"    if not ({bound} and {var} <= max_{key}){whole}:",
            "        return None",
        ]
    body += [
        "if not t_provider or not t_gpu:",
        "    return None",
        "accelerator = gpu_of(t_gpu)",
        "if isinstance(accelerator, UnknownNameError):",
        "    return None",
        "count = int(n_gpu_count) if n_gpu_count is not None else 1",
        "price, spot = n_price_usd_per_hour, n_spot_price_usd_per_hour",
        "if n_price_usd_per_gpu_hour is not None:",
        "    if price is not None:",
        "        return None  # both given: the checking reader checks they agree",
        "    price = n_price_usd_per_gpu_hour * count",
        "if price is None and spot is None:",
        "    return None",
        "if t_interconnect is None:",
        "    interconnect = INTERCONNECT_UNKNOWN",
        "else:",
        "    interconnect = interconnects.get(t_interconnect.lower())",
        "    if interconnect is None:",
        "        return None",
        "if t_availability is None:",
        "    availability = AVAILABILITY_UNKNOWN",
        "else:",
        "    availability = availabilities.get(t_availability.lower())",
        "    if availability is None:",
        "        return None",
        "observed = default_time",
        "if t_observed_at is not None:",
        "    try:",
        "        observed = fromisoformat(t_observed_at)",
        "    except ValueError:",
        "        return None",
        "    if not observed.tzinfo:",
        "        observed = observed.replace(tzinfo=UTC)",
        "    if observed > latest or observed < EARLIEST_OBSERVED:",
        "        return None",
        "provider = provider_of(t_provider)",
        "return make(",
        "    provider=provider,",
        "    instance_type=t_instance_type or f'{count}x{accelerator.name}',",
        "    region=t_region or 'private',",
        "    zone=t_zone,",
        "    accelerator=accelerator.name,",
        "    gpu_count=count,",
        "    gpu_memory_gb=n_gpu_memory_gb if n_gpu_memory_gb is not None else accelerator.memory_gb,",
        "    price_usd_per_hour=price,",
        "    spot_price_usd_per_hour=spot,",
        "    source=source_label,",
        "    observed_at=observed,",
        "    vcpus=n_vcpus,",
        "    ram_gb=n_ram_gb,",
        "    disk_gb=n_disk_gb,",
        "    interconnect=interconnect,",
        "    availability=availability,",
        "    available_count=int(n_available_count) if n_available_count is not None else None,",
        "    billing_terms=t_billing_terms or provider,",
        "    egress_usd_per_gb=n_egress_usd_per_gb,",
        "    storage_usd_per_gb_month=n_storage_usd_per_gb_month,",
        "    notes=t_notes or '',",
        "    extra={'line': str(line)},",
        ")",
    ]
    source = "def read(cells, line):\n" + "".join(f"    {line}\n" for line in body)
    exec(source, scope)  # the text is built above from the known column names and positions only
    read: PlainReader = scope["read"]
    return read


def _checked_only(cells: list[str], line: int) -> Offer | None:
    """The one-pass reader of a header with columns it does not read: every row to the checking reader."""
    return None


#: Words for a column that are no word of its name (a word of a column's name finds it without them).
_SYNONYMS: dict[str, str] = {
    "card": "gpu",
    "model": "gpu",
    "gpus": "gpu_count",
    "num": "gpu_count",
    "cost": "price_usd_per_hour",
    "hourly": "price_usd_per_hour",
    "vram": "gpu_memory_gb",
    "cpu": "vcpus",
    "cpus": "vcpus",
    "location": "region",
    "date": "observed_at",
    "time": "observed_at",
    "timestamp": "observed_at",
    "cloud": "provider",
    "vendor": "provider",
    "network": "internode",
    "fabric": "internode",
}
_NAMES = (*ACCEPTED, *ALIASES)


def _words(name: str) -> list[str]:
    return [w for w in name.replace("-", "_").replace(" ", "_").replace(".", "_").split("_") if w]


def closest_column(name: str) -> str | None:
    """The column a name the file source does not know most likely means: the same name in another case
    or with other separators ("GPU", "gpu-count"); else the column a word of it stands for ("vram_gb":
    gpu_memory_gb); else a near miss of a column's name ("prce_usd_per_hour", "price_per_hour"); else
    the shortest column a word of it is a word of ("spot_price": spot_price_usd_per_hour, "gpu_type":
    gpu); None where none is near (no "did you mean" beats a wrong one: "accelerator" was told
    "price_usd_per_hour")."""
    folded = "_".join(_words(name.lower()))
    if folded in KNOWN_COLUMNS:
        return folded
    words = _words(folded)
    for word in words:
        if word in _SYNONYMS:
            return _SYNONYMS[word]
    near = closest(folded, _NAMES, n=1)
    if near and difflib.SequenceMatcher(None, folded, near[0]).ratio() >= 0.75:
        return near[0]
    for word in words:
        owners = [c for c in _NAMES if word in _words(c)]
        if owners:
            return min(owners, key=len)
    return None


def _unknown_fields(label: str, line: int, names: list[tuple[str, str]]) -> None:
    """Refuse unknown columns / keys, named by position (``column 3``), never by what was written."""
    problems = []
    for where, name in names:
        hint = closest_column(name)
        near = f"; did you mean {hint}?" if hint else ""
        problems.append(
            (
                f"{label}:{line}: {where}",
                f"unknown field{near} (accepted: {', '.join(ACCEPTED[: ACCEPTED.index('notes') + 1])}, "
                "and the other columns `gpuscout offers --csv` writes)",
            )
        )
    if problems:
        raise OfferFileError(problems)


def _canonical(label: str, line: int, names: Sequence[tuple[str, str]]) -> list[str]:
    """The column each of ``names`` (``(where, name)``) is read as (an alias as its column); an alias
    next to the column it stands for is an error (which of the two would be read is not said)."""
    given = {name for _, name in names}
    problems = [
        (f"{label}:{line}: {where}", f"names the {ALIASES[name]} column, which the file has too: keep one")
        for where, name in names
        if name in ALIASES and ALIASES[name] in given
    ]
    if problems:
        raise OfferFileError(problems)
    return [ALIASES.get(name, name) for _, name in names]


def _csv_records(label: str, text: str) -> Iterator[tuple[int, list[str]]]:
    """(line, cells) of each record of a CSV text, as ``csv.reader`` reads them (``line``: the physical
    line the record ends on, blank lines counted; a blank line is a record without cells).

    A text without the characters the reader treats specially (quotes, carriage returns, NUL) and
    without a line longer than its field size limit is cut at line ends and commas, which is what
    the reader does with such a text, at a fraction of its cost; any other text goes through the
    reader, whose errors name the line (the header's, line 1)."""
    if '"' not in text and "\r" not in text and "\x00" not in text:
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the line end of the last line
        if not lines or max(map(len, lines)) <= csv.field_size_limit():
            for number, record in enumerate(lines, 1):
                yield number, record.split(",") if record else []
            return
    reader = csv.reader(io.StringIO(text))
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            where = f"{label}:1: header" if reader.line_num <= 1 else f"{label}:{reader.line_num}: row"
            raise OfferFileError([(where, f"not valid CSV ({exc})")]) from None
        yield reader.line_num, cells


def _csv_offers(
    label: str, text: str, source_label: str, default_time: datetime, now: datetime, names: _Names
) -> tuple[list[Offer], list[tuple[str, str]]]:
    """The offers of a CSV text and the problems of its rows (read as csv.DictReader did: empty lines
    after the header skipped, a short row's missing cells blank, a long row refused). A row of one
    cell per column is read by the file's :func:`plain_reader` first; any row it leaves goes to the
    checking reader, which names its problems."""
    records = _csv_records(label, text)
    fieldnames = next(records, (1, []))[1]
    if not fieldnames:
        raise OfferFileError([(f"{label}:1: header", "empty file; the first line must name the columns")])
    written = [(f"column {i}", h.strip()) for i, h in enumerate(fieldnames, 1)]
    _unknown_fields(label, 1, [(where, h) for where, h in written if h not in KNOWN_COLUMNS])
    header = _canonical(label, 1, written)
    width = len(header)
    plain = plain_reader(header, source_label, default_time, now, names)
    offers: list[Offer] = []
    problems: list[tuple[str, str]] = []
    add = offers.append
    for line, cells in records:
        if len(cells) == width:
            offer = plain(cells, line)
            if offer is not None:
                add(offer)
                continue
        elif not cells:
            continue
        elif len(cells) > width:
            problems.append((f"{label}:{line}: row", "more values than header columns"))
            continue
        if not "".join(cells).strip():  # every cell blank: not an offer
            continue
        data: dict[str, str | None] = dict(zip(header, cells, strict=False))
        if len(cells) < width:
            data.update(dict.fromkeys(header[len(cells) :]))
        row = _Row(label, data, line, {})
        offer = _offer(row, source_label, default_time, now, names)
        problems.extend(row.problems)
        if offer is not None:
            add(offer)
    return offers, problems


@functools.cache
def _bounded_loader() -> Any:
    """PyYAML's safe loader with a nesting limit (no RecursionError on a 5,000-deep list) and a bound
    on merge keys, which a few bytes of nested ``<<: [*a, *a, ...]`` can expand exponentially; built
    on first use (a CSV file never imports YAML)."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self._depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self._depth += 1
            try:
                if self._depth > MAX_YAML_DEPTH:
                    mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                    raise yaml.composer.ComposerError(
                        None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark
                    )
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

        def flatten_mapping(self, node: Any) -> None:
            super().flatten_mapping(node)
            if len(node.value) > MAX_MERGED_KEYS:
                raise yaml.constructor.ConstructorError(
                    None, None, f"merge keys expand to more than {MAX_MERGED_KEYS} keys", node.start_mark
                )

    return BoundedLoader


def _yaml_rows(label: str, text: str) -> Iterator[_Row]:
    import yaml

    loader: Any = None
    try:
        loader = _bounded_loader()(text)  # its reader already refuses control characters
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or "cannot be read"
        raise OfferFileError([(f"{label}:{line}: yaml", f"not valid YAML: {problem}")]) from None
    except RecursionError:
        raise OfferFileError([(f"{label}:1: yaml", "not valid YAML: nested too deeply")]) from None
    finally:
        if loader is not None:
            loader.dispose()
    items_node = node
    if isinstance(data, dict):
        if "offers" not in data or not isinstance(node, yaml.MappingNode):
            raise OfferFileError(
                [(f"{label}:1: offers", "expected a list of offers or a mapping with 'offers'")]
            )
        data = data["offers"]
        items_node = next(v for k, v in node.value if k.value == "offers")
    if not isinstance(data, list) or not isinstance(items_node, yaml.SequenceNode):
        raise OfferFileError([(f"{label}:1: offers", "expected a list of offers")])
    for item, item_node in zip(data, items_node.value, strict=True):
        line = item_node.start_mark.line + 1
        if not isinstance(item, dict) or not isinstance(item_node, yaml.MappingNode):
            raise OfferFileError([(f"{label}:{line}: offer", "each offer must be a mapping of field: value")])
        keys = [(f"field at line {k.start_mark.line + 1}", str(k.value)) for k, _ in item_node.value]
        _unknown_fields(label, line, [(where, k) for where, k in keys if k not in KNOWN_COLUMNS])
        _canonical(label, line, keys)
        key_lines = {
            ALIASES.get(str(k.value), str(k.value)): v.start_mark.line + 1 for k, v in item_node.value
        }
        yield _Row(label, {ALIASES.get(str(k), str(k)): v for k, v in item.items()}, line, key_lines)


def read_text_file(path: Path, max_bytes: int | None = None) -> tuple[str, float]:
    """The UTF-8 text of a regular file of at most ``max_bytes`` and its modification time.

    Opened without blocking (a FIFO with no writer cannot wedge the caller) and checked to be a
    regular file *before* anything is read; errors name the file and never quote it.
    """
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InvalidInputError("file", f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInputError(
                "file", f"{path} is not a regular file (a FIFO, device or directory cannot be an offer file)"
            )
        if info.st_size > max_bytes:
            raise InvalidInputError("file", f"{path} is larger than {max_bytes:,} bytes")
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise InvalidInputError("file", f"{path} is larger than {max_bytes:,} bytes")
    except OSError as exc:
        raise InvalidInputError("file", f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    head = data[:4096]  # UTF-16 text is every other byte NUL; a stray NUL in a cell is named per field
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or (head and head.count(b"\x00") * 4 >= len(head)):
        raise InvalidInputError("file", f"{path.name} is UTF-16 encoded; save it as UTF-8", "UTF-8 text")
    try:
        return data.decode("utf-8-sig"), info.st_mtime
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            "file", f"{path.name} is not UTF-8 text (byte {exc.start} cannot be decoded)", "UTF-8 text"
        ) from None


def parse_offer_file(path: Path, *, source_label: str | None = None) -> list[Offer]:
    """All offers of a CSV/YAML file, or :class:`OfferFileError` listing every problem."""
    label = path.name
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".csv"):
        raise InvalidInputError("file", f"{path.name}: unknown file type {suffix!r}", ".csv, .yaml, .yml")
    text, mtime = read_text_file(path)
    default_time = datetime.fromtimestamp(mtime, tz=UTC)
    now = datetime.now(UTC)
    label_of_source = source_label or f"file:{path}"
    names = _Names()
    with collection_paused(text.count("\n")):  # about one offer a line
        if suffix == ".csv":
            offers, problems = _csv_offers(label, text, label_of_source, default_time, now, names)
        else:
            offers, problems = [], []
            for row in _yaml_rows(label, text):
                offer = _offer(row, label_of_source, default_time, now, names)
                problems.extend(row.problems)
                if offer is not None:
                    offers.append(offer)
    if problems:
        raise OfferFileError(problems)
    if not offers:
        raise OfferFileError([(f"{label}:1: offers", "the file has no offers")])
    return offers


class FileSource(Source):
    """Offers from a user's CSV/YAML file, as the source ``file:<absolute path>``."""

    kind = "file"

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path).expanduser().resolve()
        self.name = f"file:{self.path}"
        self.endpoint = str(self.path)

    def offers(self) -> list[Offer]:
        self.reset_report()
        return parse_offer_file(self.path, source_label=self.name)

    def offline_offers(self) -> list[Offer]:
        return self.offers()

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        return self.offers()
