"""Build the bundled snapshot (``catalog/data/snapshot.csv``) from the pinned reference rows and the
correction rules, and write the change log.

Build time only: the package never imports this module or reads its inputs at run time. The inputs
live in the repository, not in the package:

* ``data/snapshot/price_snapshot.csv``: the reference rows (a hand transcription of SkyPilot catalog
  files pinned to their commits; ``price_snapshot.md`` says how it was made);
* ``data/snapshot/rules.yaml``: what is removed, corrected, merged or relabelled, each rule with its
  reason and source (the 2026-12 data audit's findings);
* ``knowledge/data/providers.yaml``: which providers are defunct (their rows are dropped).

Outputs: the bundled ``snapshot.csv`` and ``data/snapshot/changes.csv``, one line per reference row a
rule removed, changed or merged (rule, action, field, before, after, detail, source). The build is
deterministic: ``tests/catalog/test_snapshot.py`` rebuilds both and compares them with the files.

Run from a checkout: ``python -m gpuscout.catalog.snapshot_build`` (``--check`` only compares).

Columns the build adds to the reference's: ``regions`` (every region a merged row stands for, ``;``
separated; ``region`` is then a summary), ``price_is_interruptible``, ``also_listed_by``,
``provider_id`` (canonical: ``vast`` -> ``vastai``, so live sources supersede the rows),
``accelerator`` (``resolve_gpu`` on the name *and* the row's memory; empty when the table lacks it,
the reason in ``accelerator_note``), ``variant_exact`` (false where the form factor, memory or
edition is assumed), ``stale`` (rows from the older v6 catalog files), ``notes`` and ``extra`` (JSON:
details such as the source's region text or a Vast group median's basis).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpuscout.catalog.sources.snapshot import resolve_listed_gpu
from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.accelerators import resolve_gpu_detail
from gpuscout.knowledge.providers import canonical_provider, defunct_providers, provider_terms
from gpuscout.wording import plural

REPO = Path(__file__).resolve().parents[3]
BUILD_DIR = REPO / "data" / "snapshot"
REFERENCE_CSV = BUILD_DIR / "price_snapshot.csv"
RULES_YAML = BUILD_DIR / "rules.yaml"
CHANGES_CSV = BUILD_DIR / "changes.csv"
TARGET_CSV = Path(__file__).resolve().parent / "data" / "snapshot.csv"
FINGERPRINT_PY = Path(__file__).resolve().parent / "snapshot_fingerprint.py"

STALE_MARK = "/catalogs/v6/"
ALL_LISTED = "all listed"
UNSTATED = "unstated"
COUNTRY = "country:"

REFERENCE_COLUMNS = (
    "provider",
    "instance_type",
    "region",
    "gpu_name",
    "gpu_count",
    "gpu_memory_gb",
    "vcpus",
    "ram_gb",
    "price_per_hour_usd",
    "spot_price_per_hour_usd",
    "source",
    "as_of",
)
SNAPSHOT_COLUMNS = (
    "provider",
    "instance_type",
    "region",
    "regions",
    "gpu_name",
    "gpu_count",
    "gpu_memory_gb",
    "vcpus",
    "ram_gb",
    "price_per_hour_usd",
    "spot_price_per_hour_usd",
    "price_is_interruptible",
    "also_listed_by",
    "source",
    "as_of",
    "provider_id",
    "accelerator",
    "variant_exact",
    "accelerator_note",
    "stale",
    "notes",
    "extra",
)
CHANGE_COLUMNS = (
    "rule",
    "action",
    "provider",
    "instance_type",
    "region",
    "field",
    "before",
    "after",
    "detail",
    "source",
)
ACTIONS = ("drop", "set", "clear_spot", "mark_interruptible", "note", "reprice", "scale")
_SETTABLE = frozenset({"gpu_name", "gpu_count", "gpu_memory_gb", "vcpus", "ram_gb"})
#: ``reprice``: a price the provider's own answer states, replacing the reference's (with a note)
_PRICES = frozenset({"price_per_hour_usd", "spot_price_per_hour_usd"})
#: ``scale``: a unit conversion (the reference's MemoryGiB to GB)
_SCALABLE = frozenset({"ram_gb"})
_ROUNDING = 1e-4  # a spot price within this fraction of on-demand is "not below" it
#: Two routes to the same box are one offer only at the same price: within 1 % or a cent (rounding)
_SAME_PRICE_FRACTION = 0.01
_SAME_PRICE_USD = 0.01


class SnapshotBuildError(ValueError):
    """The rules or the reference are malformed (named by rule id / row)."""


@dataclass
class _Row:
    """A reference row on its way through the build."""

    data: dict[str, str]
    ident: tuple[str, str, str]  # (provider, instance_type, region) as the reference wrote them
    regions: list[str] = field(default_factory=list)
    interruptible: bool = False
    also_listed_by: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, str] = field(default_factory=dict)
    #: (accelerator, note) where the variant comes from the first party this row resells
    variant: tuple[str, str] | None = None

    @property
    def provider(self) -> str:
        return self.data["provider"]

    def price(self, column: str) -> float | None:
        text = self.data[column].strip()
        return float(text) if text else None

    def terms(self) -> tuple[Any, ...]:
        """Everything but the region: rows equal here are the same offer."""
        return (
            tuple(v for k, v in sorted(self.data.items()) if k != "region"),
            self.interruptible,
            tuple(self.also_listed_by),
            tuple(self.notes),
            tuple(sorted((k, v) for k, v in self.extra.items() if k != "region_source")),
            self.variant,
        )


@dataclass(frozen=True)
class Change:
    """One line of the change log."""

    rule: str
    action: str
    provider: str
    instance_type: str
    region: str
    field: str = ""
    before: str = ""
    after: str = ""
    detail: str = ""
    source: str = ""

    def as_row(self) -> dict[str, str]:
        return {c: str(getattr(self, c)) for c in CHANGE_COLUMNS}


@dataclass(frozen=True)
class _Match:
    provider: str | None = None
    instance_type: re.Pattern[str] | None = None
    spot_below_fraction: float | None = None
    spot_not_below_on_demand: bool | None = None
    interruptible: bool | None = None
    #: (text, replacement): the row is an exact copy of the row whose instance type is this one's with
    #: ``text`` replaced (``duplicate_without`` X is (X, ""); ``duplicate_of`` names both)
    duplicate: tuple[str, str] | None = None

    def __call__(self, row: _Row, present: frozenset[tuple[str, ...]] = frozenset()) -> bool:
        """``present``: :func:`_cells` of every row at this point (for a ``duplicate``)."""
        if self.provider is not None and row.provider != self.provider:
            return False
        if self.instance_type is not None and not self.instance_type.fullmatch(row.data["instance_type"]):
            return False
        if self.duplicate is not None:
            name = row.data["instance_type"]
            twin = name.replace(*self.duplicate)
            if twin == name or _cells(row, instance_type=twin) not in present:
                return False
        if self.interruptible is not None and row.interruptible != self.interruptible:
            return False
        od, spot = row.price("price_per_hour_usd"), row.price("spot_price_per_hour_usd")
        if self.spot_below_fraction is not None and (
            od is None or spot is None or spot >= self.spot_below_fraction * od
        ):
            return False
        if self.spot_not_below_on_demand is not None:
            not_below = od is not None and spot is not None and spot >= od * (1 - _ROUNDING)
            if not_below != self.spot_not_below_on_demand:
                return False
        return True


def _cells(row: _Row, **replace: str) -> tuple[str, ...]:
    """The row's reference cells (prices, shape, region, source...), some replaced."""
    return tuple(replace.get(c, row.data[c]) for c in REFERENCE_COLUMNS)


@dataclass(frozen=True)
class _Rule:
    id: str
    action: str
    match: _Match
    reason: str
    source: str
    set: dict[str, str] = field(default_factory=dict)
    note: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    price: dict[str, str] = field(default_factory=dict)  # reprice: column -> the price's text
    scale: dict[str, float] = field(default_factory=dict)  # scale: column -> factor


@dataclass(frozen=True)
class _Aggregator:
    provider: str
    separator: str
    resells: dict[str, str]
    picks: dict[str, str]
    #: sub-provider -> pattern of the rest of the instance type naming the first party's own type
    #: (group ``type``) and region (optional group ``region``)
    names: dict[str, re.Pattern[str]]
    reason: str
    source: str


#: An all-listed row's note where the provider's entry gives none
ALL_LISTED_NOTE = (
    "regions: all listed: the source writes this type into every region of the provider at one price, "
    "which says nothing about where it is in stock"
)


@dataclass(frozen=True)
class _AllListed:
    """A provider whose source lists its types in regions without saying where they are in stock:
    a merged row's ``region`` is ``<summary> (N regions)`` and its notes say ``note``."""

    reason: str
    source: str
    summary: str = ALL_LISTED
    note: str = ALL_LISTED_NOTE


@dataclass(frozen=True)
class Rules:
    """The parsed ``rules.yaml``."""

    rules: tuple[_Rule, ...]
    aggregators: tuple[_Aggregator, ...]
    placeholders: frozenset[str]
    country_code_providers: frozenset[str]
    place_country_continent_providers: frozenset[str]
    region_names: dict[str, str]
    regions_reason: str
    regions_source: str
    all_listed: dict[str, _AllListed]  # provider -> how its region lists are read
    collapse_reason: str
    collapse_source: str


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SnapshotBuildError(f"rules.yaml {where}: expected text")
    return " ".join(value.split())


def _parse_match(raw: Any, where: str) -> _Match:
    if not isinstance(raw, dict):
        raise SnapshotBuildError(f"rules.yaml {where}.match: expected a mapping")
    known = {
        "provider",
        "instance_type",
        "spot_below_fraction",
        "spot_not_below_on_demand",
        "interruptible",
        "duplicate_without",
        "duplicate_of",
    }
    unknown = set(raw) - known
    if unknown:
        raise SnapshotBuildError(
            f"rules.yaml {where}.match: unknown keys {sorted(unknown)}; known {sorted(known)}"
        )
    pattern = raw.get("instance_type")
    fraction = raw.get("spot_below_fraction")
    duplicate: tuple[str, str] | None = None
    if "duplicate_without" in raw and "duplicate_of" in raw:
        raise SnapshotBuildError(f"rules.yaml {where}.match: duplicate_without or duplicate_of, not both")
    if "duplicate_without" in raw:
        duplicate = (_text(raw["duplicate_without"], f"{where}.match.duplicate_without"), "")
    elif "duplicate_of" in raw:
        pair = raw["duplicate_of"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise SnapshotBuildError(
                f"rules.yaml {where}.match.duplicate_of: expected [text, replacement], got {pair!r}"
            )
        duplicate = (
            _text(pair[0], f"{where}.match.duplicate_of[0]"),
            _text(pair[1], f"{where}.match.duplicate_of[1]"),
        )
    return _Match(
        provider=raw.get("provider"),
        instance_type=re.compile(pattern) if pattern is not None else None,
        spot_below_fraction=float(fraction) if fraction is not None else None,
        spot_not_below_on_demand=raw.get("spot_not_below_on_demand"),
        interruptible=raw.get("interruptible"),
        duplicate=duplicate,
    )


def _numbers(raw: Any, allowed: frozenset[str], action: str, wanted: bool, where: str) -> dict[str, float]:
    """``{column: positive number}`` of a ``price`` or ``scale`` mapping: present exactly when the
    rule's action is ``action``, with columns from ``allowed``."""
    if not wanted:
        if raw is not None:
            raise SnapshotBuildError(f"rules.yaml {where}: goes with action {action}, and only with it")
        return {}
    if not isinstance(raw, dict) or not raw:
        raise SnapshotBuildError(f"rules.yaml {where}: expected a mapping of {sorted(allowed)} to numbers")
    if set(raw) - allowed:
        raise SnapshotBuildError(f"rules.yaml {where}: only {sorted(allowed)}")
    out: dict[str, float] = {}
    for column, value in raw.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not value > 0:
            raise SnapshotBuildError(
                f"rules.yaml {where}.{column}: expected a positive number, got {value!r}"
            )
        out[str(column)] = float(value)
    return out


def _number_text(value: float) -> str:
    """A cell's text for a number: no float noise, no trailing zeros (``214.75``, ``23.92``)."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _name_pattern(value: Any, where: str) -> re.Pattern[str]:
    pattern = re.compile(_text(value, where))
    if "type" not in pattern.groupindex:
        raise SnapshotBuildError(f"rules.yaml {where}: the pattern needs a group named 'type'")
    return pattern


def load_rules(path: Path = RULES_YAML) -> Rules:
    """Parse ``rules.yaml`` (errors name the rule and the field)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    rules: list[_Rule] = []
    seen: set[str] = set()
    for i, raw in enumerate(data.get("rules") or ()):
        rid = str(raw.get("id") or f"#{i}")
        if rid in seen:
            raise SnapshotBuildError(f"rules.yaml: duplicate rule id {rid!r}")
        seen.add(rid)
        action = raw.get("action")
        if action not in ACTIONS:
            raise SnapshotBuildError(f"rules.yaml {rid}.action: one of {', '.join(ACTIONS)}")
        sets = {str(k): str(v) for k, v in (raw.get("set") or {}).items()}
        if set(sets) - _SETTABLE:
            raise SnapshotBuildError(f"rules.yaml {rid}.set: only {sorted(_SETTABLE)}")
        if (action == "set") != bool(sets):
            raise SnapshotBuildError(f"rules.yaml {rid}: `set` goes with action set, and only with it")
        if action in ("note", "reprice") and not raw.get("note"):
            raise SnapshotBuildError(f"rules.yaml {rid}.note: action {action} needs the note")
        prices = _numbers(raw.get("price"), _PRICES, "reprice", action == "reprice", f"{rid}.price")
        scale = _numbers(raw.get("scale"), _SCALABLE, "scale", action == "scale", f"{rid}.scale")
        rules.append(
            _Rule(
                id=rid,
                action=action,
                match=_parse_match(raw.get("match"), rid),
                reason=_text(raw.get("reason"), f"{rid}.reason"),
                source=_text(raw.get("source"), f"{rid}.source"),
                set=sets,
                note=" ".join(str(raw.get("note") or "").split()),
                extra={str(k): str(v) for k, v in (raw.get("extra") or {}).items()},
                price={k: _number_text(v) for k, v in prices.items()},
                scale=scale,
            )
        )
    aggregators = tuple(
        _Aggregator(
            provider=str(name),
            separator=str(raw["separator"]),
            resells={str(k): str(v) for k, v in raw["resells"].items()},
            picks={str(k): str(v) for k, v in (raw.get("picks") or {}).items()},
            names={
                str(k): _name_pattern(v, f"aggregators.{name}.names.{k}")
                for k, v in (raw.get("names") or {}).items()
            },
            reason=_text(raw.get("reason"), f"aggregators.{name}.reason"),
            source=_text(raw.get("source"), f"aggregators.{name}.source"),
        )
        for name, raw in (data.get("aggregators") or {}).items()
    )
    regions = data.get("regions") or {}
    collapse = data.get("collapse") or {}
    return Rules(
        rules=tuple(rules),
        aggregators=aggregators,
        placeholders=frozenset(str(p) for p in regions.get("placeholders") or ()),
        country_code_providers=frozenset(regions.get("country_code_providers") or ()),
        place_country_continent_providers=frozenset(regions.get("place_country_continent_providers") or ()),
        region_names={str(k): str(v) for k, v in (regions.get("names") or {}).items()},
        regions_reason=_text(regions.get("reason"), "regions.reason"),
        regions_source=_text(regions.get("source"), "regions.source"),
        all_listed={
            str(p): _AllListed(
                reason=_text(v.get("reason"), f"collapse.all_listed.{p}.reason"),
                source=_text(v.get("source"), f"collapse.all_listed.{p}.source"),
                summary=_text(v.get("summary", ALL_LISTED), f"collapse.all_listed.{p}.summary"),
                note=_text(v.get("note", ALL_LISTED_NOTE), f"collapse.all_listed.{p}.note"),
            )
            for p, v in (collapse.get("all_listed") or {}).items()
        },
        collapse_reason=_text(collapse.get("reason"), "collapse.reason"),
        collapse_source=_text(collapse.get("source"), "collapse.source"),
    )


def read_reference(path: Path = REFERENCE_CSV) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in REFERENCE_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise SnapshotBuildError(f"{path}: missing columns {missing}")
        return [{c: row[c] for c in REFERENCE_COLUMNS} for row in reader]


# ---- the steps -------------------------------------------------------------------------------------
class _Build:
    def __init__(self, reference: Sequence[dict[str, str]], rules: Rules) -> None:
        self.rules = rules
        self.rows = [_Row(dict(r), (r["provider"], r["instance_type"], r["region"])) for r in reference]
        self.changes: list[Change] = []

    def log(self, rule: str, action: str, row: _Row, **kw: str) -> None:
        provider, instance_type, region = row.ident
        self.changes.append(Change(rule, action, provider, instance_type, region, **kw))

    def keep(self, predicate: Callable[[_Row], bool]) -> None:
        self.rows = [r for r in self.rows if predicate(r)]

    def drop_defunct(self) -> None:
        gone = defunct_providers()

        def alive(row: _Row) -> bool:
            canonical = canonical_provider(row.provider) or row.provider
            if canonical not in gone:
                return True
            terms = provider_terms(canonical)
            self.log(
                "provider-defunct",
                "drop",
                row,
                detail=f"{terms.display_name} is defunct since {terms.status_since} (providers.yaml)",
                source=terms.status_source,
            )
            return False

        self.keep(alive)

    def apply_rules(self) -> None:
        for rule in self.rules.rules:
            present = frozenset(_cells(r) for r in self.rows)
            hits = [r for r in self.rows if rule.match(r, present)]
            if not hits:
                raise SnapshotBuildError(f"rules.yaml {rule.id}: matches no row (stale rule?)")
            for row in hits:
                self._apply(rule, row)
            if rule.action == "drop":
                dropped = {id(r) for r in hits}
                self.rows = [r for r in self.rows if id(r) not in dropped]

    def _apply(self, rule: _Rule, row: _Row) -> None:
        log = {"detail": rule.reason, "source": rule.source}
        if rule.action == "drop":
            self.log(rule.id, "drop", row, **log)
        elif rule.action == "set":
            for column, value in rule.set.items():
                self.log(rule.id, "set", row, field=column, before=row.data[column], after=value, **log)
                row.data[column] = value
            self._annotate(rule, row)
        elif rule.action == "reprice":  # logged as "set": the cell is another value, the rule says why
            for column, value in rule.price.items():
                self.log(rule.id, "set", row, field=column, before=row.data[column], after=value, **log)
                row.data[column] = value
            self._annotate(rule, row)
        elif rule.action == "scale":  # a unit conversion of the cells that hold a figure
            for column, factor in rule.scale.items():
                before = row.data[column].strip()
                if not before:
                    continue
                after = _number_text(round(float(before) * factor, 2))
                self.log(rule.id, "set", row, field=column, before=before, after=after, **log)
                row.data[column] = after
            self._annotate(rule, row)
        elif rule.action == "clear_spot":
            before = row.data["spot_price_per_hour_usd"]
            row.data["spot_price_per_hour_usd"] = ""
            row.notes.append(f"spot price removed: {rule.reason}")
            self.log(rule.id, "clear_spot", row, field="spot_price_per_hour_usd", before=before, **log)
        elif rule.action == "mark_interruptible":
            row.interruptible = True
            row.notes.append(f"interruptible: {rule.reason}")
            self.log(
                rule.id,
                "mark_interruptible",
                row,
                field="price_is_interruptible",
                before="false",
                after="true",
                **log,
            )
        else:  # note
            row.notes.append(rule.note)
            row.extra.update(rule.extra)
            self.log(rule.id, "note", row, field="notes", after=rule.note, **log)

    @staticmethod
    def _annotate(rule: _Rule, row: _Row) -> None:
        """A ``set``, ``reprice`` or ``scale`` rule's note and extra fields, when it has them."""
        if rule.note:
            row.notes.append(rule.note)
        row.extra.update(rule.extra)

    def link_aggregators(self) -> None:
        for agg in self.rules.aggregators:
            self._link(agg)

    def _link(self, agg: _Aggregator) -> None:
        """Merge a resold row into the first-party offer it copies when both sell at the same price;
        a resale at another price is another offer a renter can take: it stays, linked by a note."""
        merged: set[int] = set()
        aggregator = canonical_provider(agg.provider) or agg.provider
        for row in [r for r in self.rows if r.provider == agg.provider]:
            sub, sep, rest = row.data["instance_type"].partition(agg.separator)
            if not sep:
                continue
            first_party = agg.resells.get(sub) or canonical_provider(sub)
            row.extra["resold_from"] = first_party or sub
            if sub not in agg.resells:
                continue
            target = self._first_party(agg, row, sub, rest)
            if target is None:
                continue
            named = [fp for fp in self.rows if (fp.provider, fp.data["instance_type"]) == target]
            # a type sold in two shapes (Hyperstack's n3-H100-SXM5x8: 1800 GB RAM in CANADA-1, 960 in
            # US-1) is resold in the one of the same vCPUs and RAM
            targets = [fp for fp in named if _same_shape(fp, row)] or named
            at = _prices_text(row)
            fp_name = f"{canonical_provider(target[0]) or target[0]} {target[1]}"
            if not all(_same_prices(row, fp) for fp in targets):
                note = f"resale of {fp_name}"
                row.notes.append(note)
                row.extra["resale_of"] = f"{target[0]}/{target[1]}"
                theirs = "; ".join(sorted({_prices_text(fp) for fp in targets}))
                self.log(
                    "resale-priced-apart",
                    "note",
                    row,
                    field="notes",
                    after=note,
                    detail=(
                        f"{aggregator} sells {target[0]}'s {target[1]} at {at}, {target[0]} at {theirs}: "
                        "two purchase routes at different prices are two offers (merged only within 1 % "
                        f"or a cent); {agg.reason}"
                    ),
                    source=agg.source,
                )
                continue
            for fp in targets:
                if aggregator not in fp.also_listed_by:
                    fp.also_listed_by.append(aggregator)
                key = f"also_listed_by_{aggregator}"
                price = row.data["price_per_hour_usd"]
                prices = sorted({*filter(None, fp.extra.get(key, "").split(";")), price}, key=float)
                fp.extra[key] = ";".join(prices)
            self.log(
                f"aggregator-{agg.provider}",
                "merge",
                row,
                field="also_listed_by",
                after=f"{target[0]}/{target[1]}",
                detail=(
                    f"shown once as {target[0]}'s {target[1]} (also listed by {aggregator} at {at}, "
                    f"the same price): {agg.reason}"
                ),
                source=agg.source,
            )
            merged.add(id(row))
        self.keep(lambda r: id(r) not in merged)

    def variants_from_first_party(self) -> None:
        """A resold row that does not state its GPU's variant takes the one its first party lists.

        Prime Intellect's ``datacrunch__8xH200_141GB__...`` says "H200"; Verda (ex-DataCrunch), whose
        instance it is, lists its H200s as SXM only (``1H200.141S.44V``: S for SXM5). Where every row
        of the first party's with that GPU and memory names one variant exactly, the resold row is
        that variant, with a note saying why; otherwise it stays assumed. A resale linked to one
        first-party type (``resale_of``, kept apart for its price) takes that type's variant."""
        own: dict[str, list[_Row]] = {}
        for r in self.rows:
            own.setdefault(canonical_provider(r.provider) or r.provider, []).append(r)
        for row in self.rows:
            first_party = row.extra.get("resold_from", "")
            if not first_party or first_party == (canonical_provider(row.provider) or row.provider):
                continue
            _, exact, _ = resolve_listed_gpu(row.data["gpu_name"], row.data["gpu_memory_gb"])
            if exact:
                continue
            family = _family(row)
            listed = [r for r in own.get(first_party, []) if _family(r) == family]
            fp_provider, _, fp_type = row.extra.get("resale_of", "").partition("/")
            if fp_type:
                listed = [
                    r for r in listed if (r.provider, r.data["instance_type"]) == (fp_provider, fp_type)
                ]
            resolved = [resolve_listed_gpu(r.data["gpu_name"], r.data["gpu_memory_gb"]) for r in listed]
            names = {name for name, _, _ in resolved}
            if not listed or len(names) != 1 or not all(exact for _, exact, _ in resolved):
                continue
            name = names.pop()
            stated = f"variant not stated in {row.data['gpu_name']!r}; {name}"
            if fp_type:
                note = f"{stated}: {first_party} lists {fp_type}, the instance this resells, as {name}"
            else:
                note = (
                    f"{stated} as {first_party} (whose instance this is) lists its own "
                    f"{row.data['gpu_name']} {row.data['gpu_memory_gb']} GB"
                )
            row.variant = (name, note)
            self.log(
                "resold-variant",
                "relabel",
                row,
                field="accelerator",
                after=name,
                detail=note,
                source=listed[0].data["source"],
            )

    def _first_party(self, agg: _Aggregator, row: _Row, sub: str, rest: str) -> tuple[str, str] | None:
        """(provider, instance_type) of the first-party offer ``row`` resells, or None (``row``'s
        instance type is ``<sub><separator><rest>``)."""
        source_name = {canonical_provider(r.provider) or r.provider: r.provider for r in self.rows}
        ref_provider = source_name.get(agg.resells[sub])
        if ref_provider is None:
            return None
        if sub in agg.names:
            return self._named_first_party(agg, row, ref_provider, agg.names[sub], rest)
        pick = agg.picks.get(row.data["instance_type"])
        if pick is not None:
            return ref_provider, pick

        def same(r: _Row) -> bool:
            return r.provider == ref_provider and _family(r) == _family(row) and _same_shape(r, row)

        types = sorted({r.data["instance_type"] for r in self.rows if same(r)})
        if len(types) > 1:  # the same shape sold under two names: the one at the same price
            priced = sorted(
                {
                    r.data["instance_type"]
                    for r in self.rows
                    if same(r) and r.data["price_per_hour_usd"] == row.data["price_per_hour_usd"]
                }
            )
            if len(priced) != 1:
                raise SnapshotBuildError(
                    f"aggregators.{agg.provider}: {row.data['instance_type']} matches {types}; "
                    "name one in picks"
                )
            types = priced
        return (ref_provider, types[0]) if types else None

    def _named_first_party(
        self, agg: _Aggregator, row: _Row, ref_provider: str, pattern: re.Pattern[str], rest: str
    ) -> tuple[str, str] | None:
        """The first party's type the instance type names (``spheron-ai:n3-H100x1__CANADA-1`` is
        Hyperstack's ``n3-H100x1`` in CANADA-1), or None where the first party lists no such type;
        a named type of another shape stops the build (the pattern is wrong)."""
        found = pattern.fullmatch(rest)
        if found is None:
            return None
        name, region = found.group("type"), found.groupdict().get("region")
        listed = [
            r
            for r in self.rows
            if r.provider == ref_provider
            and r.data["instance_type"] == name
            and (region is None or r.data["region"] == region)
        ]
        if not listed:
            return None
        if any(_family(r) != _family(row) or not _same_shape(r, row) for r in listed):
            raise SnapshotBuildError(
                f"aggregators.{agg.provider}.names: {row.data['instance_type']} names {ref_provider}'s "
                f"{name}, which is another GPU, count, vCPU or RAM"
            )
        return ref_provider, name

    def canonical_regions(self) -> None:
        for row in self.rows:
            raw = row.data["region"]
            region = self._canonical_region(row.provider, raw)
            row.regions = [region]
            if region != raw:
                row.data["region"] = region
                row.extra["region_source"] = raw
                self.log(
                    "region-canonical",
                    "set",
                    row,
                    field="region",
                    before=raw,
                    after=region,
                    detail=self.rules.regions_reason,
                    source=self.rules.regions_source,
                )

    def _canonical_region(self, provider: str, raw: str) -> str:
        text = raw.strip()
        if text in self.rules.region_names:
            return self.rules.region_names[text]
        if text in self.rules.placeholders:
            return UNSTATED
        if provider in self.rules.country_code_providers:
            if not re.fullmatch(r"[A-Z]{2}", text):
                raise SnapshotBuildError(f"{provider} region {raw!r}: expected an ISO country code")
            return COUNTRY + text
        if provider in self.rules.place_country_continent_providers:
            parts = [p.strip() for p in text.split(",")]
            codes = [p for p in parts[-2:-1] if re.fullmatch(r"[A-Z]{2}", p)]
            if len(parts) < 2 or not codes:
                raise SnapshotBuildError(f"{provider} region {raw!r}: expected '<place>, CC, <continent>'")
            return COUNTRY + codes[0]
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", text):
            raise SnapshotBuildError(
                f"{provider} region {raw!r}: free text with no canonical form in rules.yaml"
            )
        return text

    def collapse(self) -> None:
        groups: dict[tuple[str, str, Any], list[_Row]] = {}
        for row in self.rows:
            groups.setdefault((row.provider, row.data["instance_type"], row.terms()), []).append(row)
        out: list[_Row] = []
        for (provider, _, _), members in groups.items():
            head = members[0]
            if len(members) == 1:
                out.append(head)
                continue
            regions = [m.data["region"] for m in members]
            listed = self.rules.all_listed.get(provider)
            reason, source = (
                (listed.reason, listed.source)
                if listed is not None
                else (self.rules.collapse_reason, self.rules.collapse_source)
            )
            summary = f"{len(regions)} regions"
            if listed is not None:
                summary = f"{listed.summary} ({summary})"
                head.notes.append(listed.note)
            head.regions = regions
            head.data["region"] = summary
            sources = [m.extra.get("region_source") for m in members]
            if any(sources):
                head.extra["region_source"] = ";".join(s or "" for s in sources)
            for m in members:
                self.log(
                    f"collapse-{provider}" if provider in self.rules.all_listed else "collapse",
                    "merge",
                    m,
                    field="region",
                    before=m.data["region"] if m is not head else regions[0],
                    after=summary,
                    detail=f"one row for {len(regions)} regions ({'; '.join(regions)}): {reason}",
                    source=source,
                )
            out.append(head)
        self.rows = out

    def output(self) -> list[dict[str, str]]:
        keys = [(r.data["provider"], r.data["instance_type"], r.data["region"]) for r in self.rows]
        if len(keys) != len(set(keys)):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise SnapshotBuildError(
                f"duplicate (provider, instance_type, region) after the build: {dup[:3]}"
            )
        return [_snapshot_row(r) for r in self.rows]


def _same_shape(a: _Row, b: _Row) -> bool:
    return all(a.data[c] == b.data[c] for c in ("gpu_count", "vcpus", "ram_gb"))


def _same_price(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= max(_SAME_PRICE_FRACTION * max(a, b), _SAME_PRICE_USD)


def _same_prices(resale: _Row, first_party: _Row) -> bool:
    """Whether the resale sells at the first party's price: on-demand within rounding, and a spot
    price only if the first party's agrees (the merged row keeps the first party's own spot price,
    so a resale without one hides nothing)."""
    od = _same_price(resale.price("price_per_hour_usd"), first_party.price("price_per_hour_usd"))
    spot = resale.price("spot_price_per_hour_usd")
    return od and (spot is None or _same_price(spot, first_party.price("spot_price_per_hour_usd")))


def _prices_text(row: _Row) -> str:
    spot = row.data["spot_price_per_hour_usd"]
    return f"${row.data['price_per_hour_usd']}/h" + (f", spot ${spot}/h" if spot else "")


def _family(row: _Row) -> tuple[str, str]:
    """The GPU model (ignoring form factor) and memory, to match the same capacity under two names."""
    try:
        name = resolve_gpu_detail(f"{row.data['gpu_name']} {row.data['gpu_memory_gb']}GB").accelerator.name
    except UnknownNameError:
        name = row.data["gpu_name"]
    return name.split("-")[0], row.data["gpu_memory_gb"]


def _snapshot_row(row: _Row) -> dict[str, str]:
    d = row.data
    accelerator, exact, note = resolve_listed_gpu(d["gpu_name"], d["gpu_memory_gb"])
    if row.variant is not None:
        (accelerator, note), exact = row.variant, True
    out = {c: d[c] for c in REFERENCE_COLUMNS}
    out.update(
        regions=";".join(row.regions) if len(row.regions) > 1 else "",
        price_is_interruptible="true" if row.interruptible else "false",
        also_listed_by=";".join(row.also_listed_by),
        provider_id=canonical_provider(d["provider"]) or d["provider"].strip().lower(),
        accelerator=accelerator,
        variant_exact="true" if exact else "false",
        accelerator_note=note,
        stale="true" if STALE_MARK in d["source"] else "false",
        notes="; ".join(row.notes),
        extra=json.dumps(row.extra, sort_keys=True, ensure_ascii=False) if row.extra else "",
    )
    return {c: out[c] for c in SNAPSHOT_COLUMNS}


@dataclass(frozen=True)
class BuildResult:
    rows: list[dict[str, str]]
    changes: list[Change]


def build(reference: Path = REFERENCE_CSV, rules: Path = RULES_YAML) -> BuildResult:
    """Apply the rules to the reference rows (see the module docstring for the order)."""
    b = _Build(read_reference(reference), load_rules(rules))
    b.drop_defunct()
    b.apply_rules()
    b.link_aggregators()
    b.variants_from_first_party()
    b.canonical_regions()
    b.collapse()
    return BuildResult(b.output(), b.changes)


def build_snapshot_rows(reference: Path = REFERENCE_CSV, rules: Path = RULES_YAML) -> list[dict[str, str]]:
    """The bundled snapshot's rows (what ``snapshot.csv`` must contain)."""
    return build(reference, rules).rows


def csv_text(rows: Iterable[dict[str, str]], columns: Sequence[str]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def fingerprint_module(csv: str) -> str:
    """The text of :mod:`gpuscout.catalog.snapshot_fingerprint` for the snapshot file ``csv``."""
    digest = hashlib.sha256(csv.encode("utf-8")).hexdigest()
    return (
        '"""Generated by ``python -m gpuscout.catalog.snapshot_build``: the SHA-256 of '
        "``data/snapshot.csv``.\n\n"
        "The store keeps the fingerprint of the bundled snapshot it loaded; when the installed package\n"
        "ships another file, the next read loads it as a new snapshot of the source ``snapshot`` (the old\n"
        "one stays in the history), without hashing the file at every start.\n"
        '"""\n\n'
        f'SNAPSHOT_SHA256 = "{digest}"\n'
    )


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8", newline="")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gpuscout.catalog.snapshot_build",
        description="Rebuild the bundled price snapshot and its change log from data/snapshot/.",
    )
    parser.add_argument("--reference", type=Path, default=REFERENCE_CSV)
    parser.add_argument("--rules", type=Path, default=RULES_YAML)
    parser.add_argument("--target", type=Path, default=TARGET_CSV)
    parser.add_argument("--changes", type=Path, default=CHANGES_CSV)
    parser.add_argument("--check", action="store_true", help="only say whether the files are up to date")
    args = parser.parse_args(argv)
    for path in (args.reference, args.rules):
        if not path.is_file():
            sys.stderr.write(f"{path}: not found (run from a checkout of the repository)\n")
            return 2
    try:
        result = build(args.reference, args.rules)
    except SnapshotBuildError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    snapshot = csv_text(result.rows, SNAPSHOT_COLUMNS)
    outputs = {
        args.target: snapshot,
        args.changes: csv_text((c.as_row() for c in result.changes), CHANGE_COLUMNS),
    }
    if args.target == TARGET_CSV:  # the packaged file: its fingerprint goes with it
        outputs[FINGERPRINT_PY] = fingerprint_module(snapshot)
    if args.check:
        stale = [p for p, text in outputs.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            sys.stderr.write(f"{p}: out of date\n")
        return 1 if stale else 0
    for path, text in outputs.items():
        _write_atomic(path, text)
    sys.stdout.write(
        f"wrote {len(result.rows)} rows to {args.target} "
        f"and {len(result.changes)} {plural(len(result.changes), 'change')} to {args.changes}\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
