"""The bundled price snapshot: real offers shipped inside the package (the offline default).

``data/snapshot.csv`` is built by :mod:`gpuscout.catalog.snapshot_build` from the pinned reference
rows in the repository's ``data/snapshot/`` (a hand transcription of SkyPilot catalog files) and the
correction rules there; ``data/snapshot/changes.csv`` lists every row a rule removed, changed or
merged. This module only reads the built file. Each row keeps its source URL (pinned to a catalog
commit) and its ``as_of`` ("unknown": the commits could not be dated). Besides the reference's
columns the file carries:

* ``regions``: the regions a row stands for when the source listed the same offer at the same price
  in several (``region`` is then a summary: "3 regions", or "all listed (17 regions)" where the
  source writes every type into a fixed region list); regions have a canonical form (``country:US``
  for a country-level location, ``unstated`` where the source gives none);
* ``price_is_interruptible`` (an auction market's listed price) and ``also_listed_by`` (aggregators
  that resell the same capacity: the first-party row is shown once);
* ``provider_id``: the canonical provider name (``vast`` -> ``vastai``) so live sources supersede
  the snapshot's rows of the same provider;
* ``accelerator``: the canonical accelerator (``resolve_gpu`` on the name *and* the row's memory,
  so a 24 GB "RTX6000" is never taken for the 48 GB RTX 6000 Ada); empty when the name is not in
  the knowledge table, with the reason in ``accelerator_note``;
* ``variant_exact``: false where the source does not state the form factor / memory / edition
  (plain "H100", "A100-80GB", "H200", "V100", "RTXPRO6000"...). The default variant is then assumed,
  with its fabric (an assumed H200-SXM sits on its NVLink baseboard), and ``accelerator_note`` (the
  offer's ``notes``) says both;
* ``stale``: true for rows from the older v6 catalog files (Azure, Paperspace, DigitalOcean);
* ``notes`` and ``extra`` (JSON): what the build did to the row and why (a spot price removed, a
  Vast.ai group median, the source's own region text...).

``ram_gb`` is GB (the build converts the reference's GiB); an empty ``vcpus`` / ``ram_gb`` is unknown
(``None``), as for Vast.ai's groups, whose source gives every host the same placeholder figures.

At load, an instance type with a documented inter-node fabric (:mod:`gpuscout.catalog.fabrics`) gets
``internode`` (efa / infiniband / roce) and ``extra["internode_gbps"]`` (Gbit/s per instance, as the
provider states it) and ``extra["internode_source"]``: multi-node training rows are timed over it.

Loading never invents a date: ``observed_at`` is ``None`` (age unknown), never "now".
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from importlib import resources
from typing import TYPE_CHECKING

from gpuscout.catalog.fabrics import internode_extra, known_fabric
from gpuscout.catalog.normalize import assumed_fabric_note
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.catalog.sources.base import VARIANT_ASSUMED, VARIANT_KEY, Source, stated_interconnect
from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.accelerators import resolve_gpu, resolve_gpu_detail

if TYPE_CHECKING:
    import httpx

SNAPSHOT_NAME = "snapshot"
DATA_FILE = "snapshot.csv"


def resolve_listed_gpu(gpu_name: str, memory_gb: str) -> tuple[str, bool, str]:
    """(canonical name, variant exact, note) of a listed GPU name and memory; name "" when the GPU
    is not in the knowledge table."""
    try:
        found = resolve_gpu_detail(f"{gpu_name} {memory_gb}GB")
    except UnknownNameError:
        return "", False, "is not in the accelerator table"
    if found.exact:
        return found.accelerator.name, True, ""
    note = found.note.replace(f" {memory_gb}GB'", "'")
    fabric = assumed_fabric_note(found.accelerator)  # the board's fabric comes with the assumed board
    return found.accelerator.name, False, f"{note}; {fabric}" if fabric else note


def bundled_snapshot_text() -> str:
    return resources.files("gpuscout.catalog").joinpath("data", DATA_FILE).read_text(encoding="utf-8")


def _opt_float(text: str) -> float | None:
    text = text.strip()
    return float(text) if text else None


def _list(text: str) -> tuple[str, ...]:
    return tuple(x for x in text.split(";") if x)


def _interconnect(accelerator: str) -> Interconnect:
    """The fabric the part implies, by the rule every source follows (:func:`stated_interconnect`): an
    assumed variant's too, its note saying so (:func:`resolve_listed_gpu`)."""
    return stated_interconnect(resolve_gpu(accelerator))


class SnapshotSource(Source):
    """The bundled snapshot as a source named ``"snapshot"`` (no network, no credentials)."""

    name = SNAPSHOT_NAME
    provider = ""
    endpoint = "package:gpuscout/catalog/data/snapshot.csv"
    kind = "snapshot"

    def __init__(self, text: str | None = None) -> None:
        super().__init__()
        self._text = text

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the rows' file: the packaged one's is precomputed (see ``snapshot_fingerprint``)."""
        if self._text is None:
            from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256

            return SNAPSHOT_SHA256
        import hashlib

        return hashlib.sha256(self._text.encode("utf-8")).hexdigest()

    def offers(self) -> list[Offer]:
        """Parse the snapshot (sync; ``fetch`` wraps this)."""
        self.reset_report()
        return list(self._iter_offers(self._text if self._text is not None else bundled_snapshot_text()))

    def _iter_offers(self, text: str) -> Iterator[Offer]:
        for row in csv.DictReader(io.StringIO(text)):
            ident = f"{row['provider']}/{row['instance_type']}/{row['region']}"
            accelerator, exact, note = (
                row["accelerator"],
                row["variant_exact"] == "true",
                row["accelerator_note"],
            )
            if not accelerator:  # the knowledge table may have learnt the name since the build
                accelerator, exact, note = resolve_listed_gpu(row["gpu_name"], row["gpu_memory_gb"])
            if not accelerator:
                self.drop(ident, f"GPU {row['gpu_name']!r} ({row['gpu_memory_gb']} GB) {note}")
                continue
            extra = {"gpu_name_source": row["gpu_name"], "as_of": row["as_of"] or "unknown"}
            extra.update(json.loads(row["extra"]) if row["extra"] else {})
            if not exact:
                extra[VARIANT_KEY] = VARIANT_ASSUMED
            notes = [note] if note else []
            if row["stale"] == "true":
                notes.append("stale: from an older (v6) catalog file")
            if row["notes"]:
                notes.append(row["notes"])
            provider = row["provider_id"]
            fabric = known_fabric(provider, row["instance_type"])
            if fabric is not None:
                extra.update(internode_extra(fabric))  # Gbit/s as stated, and where
            yield Offer(
                provider=provider,
                instance_type=row["instance_type"],
                region=row["region"],
                accelerator=accelerator,
                gpu_count=int(row["gpu_count"]),
                gpu_memory_gb=float(row["gpu_memory_gb"]),
                price_usd_per_hour=_opt_float(row["price_per_hour_usd"]),
                spot_price_usd_per_hour=_opt_float(row["spot_price_per_hour_usd"]),
                source=f"{SNAPSHOT_NAME}:{row['source']}",
                observed_at=None,
                vcpus=_opt_float(row["vcpus"]),
                ram_gb=_opt_float(row["ram_gb"]),
                interconnect=_interconnect(accelerator),
                internode=fabric.kind if fabric is not None else None,
                billing_terms=provider,
                stale=row["stale"] == "true",
                notes="; ".join(notes),
                extra=extra,
                regions=_list(row["regions"]),
                also_listed_by=_list(row["also_listed_by"]),
                price_is_interruptible=row["price_is_interruptible"] == "true",
            )

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        return self.offers()
