"""Catalog speed at scale: ingest 100,000 offers into a store, then time `current_offers` queries.

    python benchmarks/catalog.py [--rows 100000] [--sources 10] [--repeat 15] [--pg URL]

Offers are synthetic but realistic: real accelerators from the knowledge table, per-GPU prices
around each accelerator's median in the bundled snapshot (or a memory-based estimate for GPUs the
snapshot lacks), 1/2/4/8-GPU shapes, ~40% with a spot price, spread over 10 sources, 24 providers
and 40 regions. Reports ingest rate (rows/s) and the median time of representative queries
(filters + sort + limit, as `gpuscout offers` runs them). Target: <= 150 ms median on 2 cores.
Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from gpuscout.catalog.api import gpu_family
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.catalog.store import Store
from gpuscout.knowledge.accelerators import all_accelerators

PROVIDERS = [f"cloud{i:02d}" for i in range(24)]
REGIONS = [
    f"{area}-{n}"
    for area in (
        "us-east",
        "us-west",
        "eu-central",
        "eu-west",
        "ap-south",
        "ap-northeast",
        "sa-east",
        "me-central",
    )
    for n in range(1, 6)
]


def _median_prices() -> dict[str, float]:
    per: dict[str, list[float]] = defaultdict(list)
    for o in SnapshotSource().offers():
        if o.price_usd_per_gpu_hour is not None:
            per[o.accelerator].append(o.price_usd_per_gpu_hour)
    return {k: statistics.median(v) for k, v in per.items()}


def synthetic_offers(n: int, source: str, seed: int) -> list[Offer]:
    rng = random.Random(seed)
    medians = _median_prices()
    accs = [a for a in all_accelerators() if a.kind in ("datacenter", "workstation", "consumer")]
    weights = [5.0 if a.name in medians else 1.0 for a in accs]
    now = datetime.now(UTC)
    out: list[Offer] = []
    for i in range(n):
        acc = rng.choices(accs, weights)[0]
        count = rng.choice((1, 1, 1, 2, 4, 8, 8))
        base = medians.get(acc.name, 0.03 * acc.memory_gb + 0.1)
        per_gpu = base * rng.uniform(0.6, 1.6)
        price = round(per_gpu * count, 4)
        spot = round(price * rng.uniform(0.3, 0.7), 4) if rng.random() < 0.4 else None
        provider = rng.choice(PROVIDERS)
        out.append(
            Offer(
                provider=provider,
                instance_type=f"{acc.name.lower()}-x{count}-{i}",
                region=rng.choice(REGIONS),
                accelerator=acc.name,
                gpu_count=count,
                gpu_memory_gb=acc.memory_gb,
                price_usd_per_hour=price,
                spot_price_usd_per_hour=spot,
                source=f"{source}:https://api.{provider}.example/offers",
                observed_at=now,
                vcpus=float(8 * count),
                ram_gb=float(64 * count),
                interconnect=Interconnect.NVLINK if "SXM" in acc.name and count > 1 else Interconnect.PCIE,
                availability=rng.choice(list(Availability)),
                billing_terms=provider,
            )
        )
    return out


QUERIES: dict[str, Callable[[], OfferQuery]] = {
    "all, sort price, limit 30": lambda: OfferQuery(sort="price", limit=30),
    "--gpu H100 (family) sort price_per_gpu": lambda: OfferQuery(
        gpus=gpu_family("H100"), sort="price_per_gpu", limit=30
    ),
    "--min-vram 48 --gpus 8 sort price_per_gb_vram": lambda: OfferQuery(
        min_vram_gb=48, gpu_count=8, sort="price_per_gb_vram", limit=30
    ),
    "sort bandwidth_per_dollar": lambda: OfferQuery(sort="bandwidth_per_dollar", limit=30),
    "--spot --max-price 5 sort tflops_per_dollar": lambda: OfferQuery(
        spot=True, max_price_usd_per_hour=5, sort="tflops_per_dollar", limit=30
    ),
    "--provider x2 --region eu --available --interconnect nvlink": lambda: OfferQuery(
        providers=("cloud03", "cloud07"),
        regions=("eu",),
        available_only=True,
        interconnect="nvlink",
        sort="price",
        limit=30,
    ),
    "--gpu A100 --limit 0 (all rows, ~10k objects)": lambda: OfferQuery(
        gpus=gpu_family("A100"), sort="price"
    ),
}


def run(url: str, rows: int, sources: int, repeat: int) -> None:
    store = Store(url)
    per_source = rows // sources
    batches = [synthetic_offers(per_source, f"bench{s}", seed=s) for s in range(sources)]
    t0 = time.perf_counter()
    for s, batch in enumerate(batches):
        store.write_snapshot(f"bench{s}", batch)
    ingest = time.perf_counter() - t0
    total = store.count_offers()
    print(f"\n== {store!r}")
    print(
        f"ingest: {total:,} offers in {ingest:.2f} s = {total / ingest:,.0f} rows/s "
        f"({sources} snapshots of {per_source:,})"
    )
    print(f"{'query':<62} {'rows':>6} {'median ms':>10} {'min ms':>8}")
    medians = []
    for label, make in QUERIES.items():
        query = make()
        store.current_offers(query)  # warm
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            found = store.current_offers(query)
            times.append((time.perf_counter() - t) * 1000)
        med = statistics.median(times)
        medians.append(med)
        print(f"{label:<62} {len(found):>6} {med:>10.1f} {min(times):>8.1f}")
    count_times = []
    for _ in range(repeat):
        t = time.perf_counter()
        store.count_offers(QUERIES["--gpu H100 (family) sort price_per_gpu"]())
        count_times.append((time.perf_counter() - t) * 1000)
    print(f"{'count_offers(--gpu H100)':<62} {'':>6} {statistics.median(count_times):>10.1f}")
    print(f"median over the limited queries: {statistics.median(medians[:-1]):.1f} ms (target <= 150 ms)")
    store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--sources", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--pg", help="also run on this PostgreSQL URL (a temporary schema is used)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}", args.rows, args.sources, args.repeat)
    if args.pg:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin = sa.create_engine(args.pg)
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        try:
            url = sa.make_url(args.pg).update_query_dict({"options": f"-csearch_path={schema}"})
            run(url.render_as_string(hide_password=False), args.rows, args.sources, args.repeat)
        finally:
            with admin.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    return 0


if __name__ == "__main__":
    sys.exit(main())
