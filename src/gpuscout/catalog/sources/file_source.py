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
import io
import math
import os
import stat
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import httpx
import yaml

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.sources.base import Source
from gpuscout.errors import InvalidInputError, UnknownNameError, closest
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


def _parse_time(row: _Row, default: datetime, now: datetime) -> datetime:
    raw = row.data.get("observed_at")
    if _blank(raw):
        return default
    if isinstance(raw, datetime):
        when = raw
    elif isinstance(raw, date):  # YAML reads 2026-11-01 as a date
        when = datetime(raw.year, raw.month, raw.day)
    else:
        text = row.text("observed_at")
        try:
            when = datetime.fromisoformat(text or "")
        except ValueError:
            row.bad("observed_at", "not an ISO date/time (accepted: 2026-11-01 or 2026-11-01T12:00:00Z)")
            return default
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    if when > now + FUTURE_SLACK:
        row.bad("observed_at", "lies in the future; it is when the price was observed")
        return default
    if when < EARLIEST_OBSERVED:
        row.bad("observed_at", f"before {EARLIEST_OBSERVED.year}: not a date a GPU price was observed")
        return default
    return when


def _offer(row: _Row, source_label: str, default_time: datetime, now: datetime) -> Offer | None:
    data = row.data
    for key in REQUIRED:
        if _blank(data.get(key)):
            row.bad(key, "required")
    accelerator = None
    gpu = row.text("gpu")
    if gpu:
        try:
            accelerator = resolve_gpu(gpu)
        except UnknownNameError as exc:
            what = "ambiguous" if exc.ambiguous else "unknown"
            row.bad("gpu", f"{what} GPU name; closest known: {', '.join(exc.suggestions) or 'none'}")

    def number(key: str, *, positive: bool = False, integer: bool = False) -> float | None:
        # a column the row does not have is blank (checked here: most files have few of them)
        return row.number(key, positive=positive, integer=integer) if key in data else None

    def text(key: str) -> str | None:
        return row.text(key) if key in data else None

    count_f = number("gpu_count", positive=True, integer=True)
    count = int(count_f) if count_f is not None else 1
    price = number("price_usd_per_hour", positive=True)
    per_gpu = number("price_usd_per_gpu_hour", positive=True)
    spot = number("spot_price_usd_per_hour", positive=True)
    if price is not None and per_gpu is not None and abs(price - per_gpu * count) > 0.005 * price:
        row.bad(
            "price_usd_per_gpu_hour", f"disagrees with price_usd_per_hour / gpu_count ({price / count:g})"
        )
    if price is None and per_gpu is not None:
        price = per_gpu * count
    if price is None and spot is None and not any(k for k in row.problems if k[0].endswith(PRICE_FIELDS)):
        row.bad("price_usd_per_hour", "a price is required (price_usd_per_hour or price_usd_per_gpu_hour)")
    memory = number("gpu_memory_gb", positive=True)
    interconnect = row.choice("interconnect", Interconnect, Interconnect.UNKNOWN)
    availability = row.choice("availability", Availability, Availability.UNKNOWN)
    available_count = number("available_count", integer=True)
    vcpus, ram, disk = number("vcpus"), number("ram_gb"), number("disk_gb")
    egress, storage = number("egress_usd_per_gb"), number("storage_usd_per_gb_month")
    observed = _parse_time(row, default_time, now) if "observed_at" in data else default_time
    if row.problems or accelerator is None:
        return None
    provider_raw = row.text("provider") or ""
    provider = canonical_provider(provider_raw) or provider_raw.lower()
    return Offer(
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
    )


def _unknown_fields(label: str, line: int, names: list[tuple[str, str]]) -> None:
    """Refuse unknown columns / keys, named by position (``column 3``), never by what was written."""
    problems = []
    for where, name in names:
        hint = closest(name, ACCEPTED, n=1)
        near = f"; did you mean {hint[0]}?" if hint else ""
        problems.append(
            (f"{label}:{line}: {where}", f"unknown field{near} (accepted: {', '.join(ACCEPTED)})")
        )
    if problems:
        raise OfferFileError(problems)


def _csv_rows(label: str, text: str) -> Iterator[_Row]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        fieldnames = reader.fieldnames
    except csv.Error as exc:
        raise OfferFileError([(f"{label}:1: header", f"not valid CSV ({exc})")]) from None
    if not fieldnames:
        raise OfferFileError([(f"{label}:1: header", "empty file; the first line must name the columns")])
    header = [h.strip() for h in fieldnames]
    _unknown_fields(label, 1, [(f"column {i}", h) for i, h in enumerate(header, 1) if h not in ACCEPTED])
    reader.fieldnames = header
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise OfferFileError([(f"{label}:{reader.line_num}: row", f"not valid CSV ({exc})")]) from None
        line = reader.line_num  # the physical line the row ends on (blank lines counted)
        if None in record:
            data = {k: v for k, v in record.items() if k is not None}
            yield _Row(label, {**data, "__extra__": "1"}, line, {})
            continue
        data = record
        # every cell blank (a cell is text, or None where the row is short): not an offer
        if not "".join(filter(None, data.values())).strip():
            continue
        yield _Row(label, data, line, {})


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with a nesting limit (no RecursionError on a 5,000-deep list) and a bound
    on merge keys, which a few bytes of nested ``<<: [*a, *a, ...]`` can expand exponentially."""

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


def _yaml_rows(label: str, text: str) -> Iterator[_Row]:
    loader: _BoundedLoader | None = None
    try:
        loader = _BoundedLoader(text)  # its reader already refuses control characters
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
        key_lines = {str(k.value): v.start_mark.line + 1 for k, v in item_node.value}
        unknown = [(k, v) for k, v in item_node.value if str(k.value) not in ACCEPTED]
        _unknown_fields(
            label, line, [(f"field at line {k.start_mark.line + 1}", str(k.value)) for k, _ in unknown]
        )
        yield _Row(label, {str(k): v for k, v in item.items()}, line, key_lines)


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
    rows = _yaml_rows(label, text) if suffix in (".yaml", ".yml") else _csv_rows(label, text)
    offers: list[Offer] = []
    problems: list[tuple[str, str]] = []
    for row in rows:
        if "__extra__" in row.data:
            problems.append((f"{label}:{row.line}: row", "more values than header columns"))
            continue
        offer = _offer(row, source_label or f"file:{path}", default_time, now)
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
