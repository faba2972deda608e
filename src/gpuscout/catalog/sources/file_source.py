"""The file source: a user's own offers (negotiated/reserved contracts, on-prem cost per GPU-hour)
from a CSV or YAML file, checked row by row with line-numbered errors.

Columns / keys (one offer per row):

* required: ``provider``, ``gpu`` (any name ``resolve_gpu`` knows), and a price:
  ``price_usd_per_hour`` (whole instance) or ``price_usd_per_gpu_hour``;
* optional: ``gpu_count`` (default 1), ``instance_type`` (default ``<count>x<gpu>``), ``region``
  (default ``private``), ``zone``, ``gpu_memory_gb`` (default: the accelerator's),
  ``spot_price_usd_per_hour``, ``vcpus``, ``ram_gb``, ``disk_gb``, ``interconnect``
  (nvlink | pcie | unknown), ``availability`` (available | limited | unavailable | unknown),
  ``available_count``, ``observed_at`` (ISO date/time; default: the file's modification time,
  i.e. when you wrote the price down), ``billing_terms``, ``egress_usd_per_gb``,
  ``storage_usd_per_gb_month``, ``notes``.

YAML is a list of mappings, or a mapping with an ``offers`` list. Unknown columns are an error
(so a typo never silently drops a price). Every problem is reported as ``FILE:LINE: field: why``.
A file that parses is then refreshed like any source: its rows pass the same validation gate
(plausible price band, memory consistency) before they are stored.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import httpx
import yaml

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.sources.base import Source
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.providers import canonical_provider

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
)
ACCEPTED = (*REQUIRED, *PRICE_FIELDS, *OPTIONAL)


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

    def __init__(self, label: str, data: Mapping[str, Any], line: int, key_lines: Mapping[str, int]) -> None:
        self.label, self.data, self.line, self.key_lines = label, data, line, key_lines
        self.problems: list[tuple[str, str]] = []

    def where(self, key: str) -> str:
        return f"{self.label}:{self.key_lines.get(key, self.line)}: {key}"

    def bad(self, key: str, why: str) -> None:
        self.problems.append((self.where(key), why))

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key)
        if isinstance(value, str) and "\x00" in value:  # a store cannot keep it (PostgreSQL refuses it)
            self.bad(key, "contains a NUL character (accepted: text without NUL characters)")
            return default
        return default if _blank(value) else str(value).strip()

    def choice(self, key: str, kind: type[E], default: E) -> E:
        """A member of the string enum ``kind`` named (any case) in the column; blank -> ``default``."""
        raw = self.text(key)
        if not raw:
            return default
        try:
            return kind(raw.lower())
        except ValueError:
            self.bad(key, f"unknown value {raw!r} (accepted: {', '.join(kind)})")
            return default

    def number(self, key: str, *, positive: bool = False, integer: bool = False) -> float | None:
        value = self.data.get(key)
        if _blank(value):
            return None
        try:
            number = float(str(value).strip().replace("$", "").replace(",", ""))
        except ValueError:
            self.bad(key, f"not a number: {value!r}")
            return None
        if not math.isfinite(number) or number < 0 or (positive and number == 0):
            self.bad(key, f"must be {'> 0' if positive else '>= 0'}, got {value!r}")
            return None
        if integer and number != int(number):
            self.bad(key, f"must be a whole number, got {value!r}")
            return None
        return number


def _parse_time(row: _Row, default: datetime) -> datetime:
    raw = row.data.get("observed_at")
    if _blank(raw):
        return default
    if isinstance(raw, datetime):
        return raw if raw.tzinfo else raw.replace(tzinfo=UTC)
    try:
        when = datetime.fromisoformat(str(raw).strip())
    except ValueError:
        row.bad("observed_at", f"not an ISO date/time: {raw!r}")
        return default
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _offer(row: _Row, source_label: str, default_time: datetime) -> Offer | None:
    unknown = sorted(k for k in row.data if k not in ACCEPTED)
    for key in unknown:
        row.bad(
            key,
            "unknown column",
        )
    if unknown:
        row.problems[-len(unknown) :] = [
            (f, f"{m} (accepted: {', '.join(ACCEPTED)})") for f, m in row.problems[-len(unknown) :]
        ]
    for key in REQUIRED:
        if _blank(row.data.get(key)):
            row.bad(key, "required")
    accelerator = None
    gpu = row.text("gpu")
    if gpu:
        try:
            accelerator = resolve_gpu(gpu)
        except UnknownNameError as exc:
            row.bad("gpu", f"unknown GPU {gpu!r}; closest known: {', '.join(exc.suggestions) or 'none'}")
    count_f = row.number("gpu_count", positive=True, integer=True)
    count = int(count_f) if count_f is not None else 1
    price = row.number("price_usd_per_hour", positive=True)
    per_gpu = row.number("price_usd_per_gpu_hour", positive=True)
    spot = row.number("spot_price_usd_per_hour", positive=True)
    if price is not None and per_gpu is not None and abs(price - per_gpu * count) > 0.005 * price:
        row.bad(
            "price_usd_per_gpu_hour", f"disagrees with price_usd_per_hour / gpu_count ({price / count:g})"
        )
    if price is None and per_gpu is not None:
        price = per_gpu * count
    if price is None and spot is None and not any(k for k in row.problems if k[0].endswith(PRICE_FIELDS)):
        row.bad("price_usd_per_hour", "a price is required (price_usd_per_hour or price_usd_per_gpu_hour)")
    memory = row.number("gpu_memory_gb", positive=True)
    interconnect = row.choice("interconnect", Interconnect, Interconnect.UNKNOWN)
    availability = row.choice("availability", Availability, Availability.UNKNOWN)
    available_count = row.number("available_count", integer=True)
    vcpus, ram, disk = row.number("vcpus"), row.number("ram_gb"), row.number("disk_gb")
    egress, storage = row.number("egress_usd_per_gb"), row.number("storage_usd_per_gb_month")
    observed = _parse_time(row, default_time)
    if row.problems or accelerator is None:
        return None
    provider_raw = row.text("provider") or ""
    provider = canonical_provider(provider_raw) or provider_raw.lower()
    return Offer(
        provider=provider,
        instance_type=row.text("instance_type") or f"{count}x{accelerator.name}",
        region=row.text("region") or "private",
        zone=row.text("zone"),
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
        billing_terms=row.text("billing_terms") or provider,
        egress_usd_per_gb=egress,
        storage_usd_per_gb_month=storage,
        notes=row.text("notes") or "",
        extra={"line": str(row.line)},
    )


def _csv_rows(label: str, text: str) -> Iterator[_Row]:
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames:
        raise OfferFileError([(f"{label}:1: header", "empty file; the first line must name the columns")])
    header = [h.strip() for h in reader.fieldnames]
    reader.fieldnames = header
    for record in reader:
        line = reader.line_num  # the physical line the row ends on (blank lines counted)
        data = {k: v for k, v in record.items() if k is not None}
        if None in record:
            yield _Row(label, {**data, "__extra__": ",".join(record[None])}, line, {})
            continue
        if all(_blank(v) for v in data.values()):
            continue
        yield _Row(label, data, line, {})


def _yaml_rows(label: str, text: str) -> Iterator[_Row]:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise OfferFileError(
            [(f"{label}:{line}: yaml", f"not valid YAML: {getattr(exc, 'problem', exc)}")]
        ) from exc
    finally:
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
        key_lines = {str(k.value): v.start_mark.line + 1 for k, v in item_node.value}
        yield _Row(label, {str(k): v for k, v in item.items()}, line, key_lines)


def parse_offer_file(path: Path, *, source_label: str | None = None) -> list[Offer]:
    """All offers of a CSV/YAML file, or :class:`OfferFileError` listing every problem."""
    label = path.name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError("file", f"cannot read {path}: {exc.strerror or exc}") from exc
    default_time = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        rows = _yaml_rows(label, text)
    elif suffix == ".csv":
        rows = _csv_rows(label, text)
    else:
        raise InvalidInputError("file", f"{path.name}: unknown file type {suffix!r}", ".csv, .yaml, .yml")
    offers: list[Offer] = []
    problems: list[tuple[str, str]] = []
    for row in rows:
        if "__extra__" in row.data:
            problems.append((f"{label}:{row.line}: row", "more values than header columns"))
            continue
        offer = _offer(row, source_label or f"file:{path}", default_time)
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

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        return self.offers()
