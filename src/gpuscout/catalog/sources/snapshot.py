"""The bundled price snapshot: real offers shipped inside the package (the offline default).

``data/snapshot.csv`` is built by :func:`build_snapshot_csv` from the shared reference
``price_snapshot.csv`` (a hand transcription of SkyPilot catalog files, see its ``.md``). Each row
keeps its source URL (pinned to a catalog commit) and its ``as_of`` ("unknown": the commits could
not be dated). The builder adds:

* ``provider_id``: the canonical provider name (``vast`` -> ``vastai``) so live sources supersede
  the snapshot's rows of the same provider;
* ``accelerator``: the canonical accelerator (``resolve_gpu`` on the name *and* the row's memory,
  so a 24 GB "RTX6000" is never taken for the 48 GB RTX 6000 Ada); empty when the name is not in
  the knowledge table, with the reason in ``accelerator_note``;
* ``variant_exact``: false where the source does not state the form factor / memory (plain
  "H100", "A100-80GB", "A100-40GB", "H200", "V100"...). The default variant is then assumed and
  the offer's ``notes`` say so;
* ``stale``: true for rows from the older v6 catalog files (Azure, Paperspace, DigitalOcean),
  detected from ``/catalogs/v6/`` in the source URL.

Loading never invents a date: ``observed_at`` is ``None`` (age unknown), never "now".
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import httpx

from gpuscout.catalog.fabrics import known_fabric
from gpuscout.catalog.normalize import interconnect_for
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.catalog.sources.base import Source
from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.accelerators import resolve_gpu, resolve_gpu_detail
from gpuscout.knowledge.providers import canonical_provider

SNAPSHOT_NAME = "snapshot"
DATA_FILE = "snapshot.csv"
STALE_MARK = "/catalogs/v6/"

SOURCE_COLUMNS = (
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
ADDED_COLUMNS = ("provider_id", "accelerator", "variant_exact", "accelerator_note", "stale")


def _resolve(gpu_name: str, memory_gb: str) -> tuple[str, bool, str]:
    """(canonical name, variant exact, note); name "" when the GPU is not in the knowledge table."""
    try:
        found = resolve_gpu_detail(f"{gpu_name} {memory_gb}GB")
    except UnknownNameError:
        return "", False, "is not in the accelerator table"
    note = "" if found.exact else found.note.replace(f" {memory_gb}GB'", "'")
    return found.accelerator.name, found.exact, note


def build_snapshot_rows(reference_csv: Path) -> list[dict[str, str]]:
    """The bundled snapshot's rows, made from the reference CSV (see the module docstring)."""
    with reference_csv.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in SOURCE_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{reference_csv}: missing columns {missing}")
        rows = list(reader)
    out: list[dict[str, str]] = []
    for row in rows:
        accelerator, exact, note = _resolve(row["gpu_name"], row["gpu_memory_gb"])
        added = {
            "provider_id": canonical_provider(row["provider"]) or row["provider"].strip().lower(),
            "accelerator": accelerator,
            "variant_exact": "true" if exact else "false",
            "accelerator_note": note,
            "stale": "true" if STALE_MARK in row["source"] else "false",
        }
        out.append({**{c: row[c] for c in SOURCE_COLUMNS}, **added})
    return out


def build_snapshot_csv(reference_csv: Path, target: Path) -> int:
    """Write the bundled ``snapshot.csv``; returns the number of rows."""
    rows = build_snapshot_rows(reference_csv)
    with target.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=[*SOURCE_COLUMNS, *ADDED_COLUMNS], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def bundled_snapshot_text() -> str:
    return resources.files("gpuscout.catalog").joinpath("data", DATA_FILE).read_text(encoding="utf-8")


def _opt_float(text: str) -> float | None:
    text = text.strip()
    return float(text) if text else None


def _interconnect(accelerator: str, exact: bool) -> Interconnect:
    """The fabric the part implies (SXM/OAM/superchip baseboards: NVLink-class; PCIe cards: PCIe),
    only where the variant is stated; an assumed variant stays unknown."""
    if not exact:
        return Interconnect.UNKNOWN
    return interconnect_for(resolve_gpu(accelerator))


class SnapshotSource(Source):
    """The bundled snapshot as a source named ``"snapshot"`` (no network, no credentials)."""

    name = SNAPSHOT_NAME
    provider = ""
    endpoint = "package:gpuscout/catalog/data/snapshot.csv"
    kind = "snapshot"

    def __init__(self, text: str | None = None) -> None:
        super().__init__()
        self._text = text

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
                accelerator, exact, note = _resolve(row["gpu_name"], row["gpu_memory_gb"])
            if not accelerator:
                self.drop(ident, f"GPU {row['gpu_name']!r} ({row['gpu_memory_gb']} GB) {note}")
                continue
            extra = {"gpu_name_source": row["gpu_name"], "as_of": row["as_of"] or "unknown"}
            if not exact:
                extra["variant"] = "assumed"
            notes = [note] if note else []
            if row["stale"] == "true":
                notes.append("stale: from an older (v6) catalog file")
            provider = row["provider_id"]
            fabric = known_fabric(provider, row["instance_type"])
            if fabric is not None:
                extra["internode_source"] = fabric.source_url
                extra["internode_gbps"] = f"{fabric.gbps_per_node:g}"
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
                interconnect=_interconnect(accelerator, exact),
                internode=fabric.kind if fabric is not None else None,
                billing_terms=provider,
                stale=row["stale"] == "true",
                notes="; ".join(notes),
                extra=extra,
            )

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        return self.offers()


def main(argv: list[str] | None = None) -> int:
    """``python -m gpuscout.catalog.sources.snapshot REFERENCE_CSV TARGET_CSV`` rebuilds the file."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.stderr.write("usage: python -m gpuscout.catalog.sources.snapshot REFERENCE_CSV TARGET_CSV\n")
        return 2
    count = build_snapshot_csv(Path(args[0]), Path(args[1]))
    sys.stdout.write(f"wrote {count} rows to {args[1]}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
