"""Web benchmarks: latency of ``/`` and ``/api/v1/offers`` under load, and what a browser loads.

**Load** (the default):
builds a temporary SQLite store with N synthetic offers (default 10,000), starts
``uvicorn gpuscout.web.app:app_from_env`` on 127.0.0.1 in a child process, and runs C concurrent
httpx clients (default 20) for S seconds (default 30) per endpoint, one endpoint after the other,
over a fixed mix of filtered, sorted and paged views. Prints the median and p95 latency per endpoint,
the request rate and the failed requests.

    python benchmarks/web.py [--seconds 30] [--offers 10000] [--clients 20] [--workers 1]
                             [--cache-seconds 10] [--endpoint PATH ...] [--query QS ...] [--json]
                             [--client httpx|raw] [--http auto|h11|httptools] [--loop auto|asyncio|uvloop]

Loopback only; every loop is bounded by the duration. The web layer caches the rows of recent
filter sets for ``--cache-seconds`` (0 disables it, to measure the store on every request).
``--endpoint`` and ``--query`` (repeatable) replace the endpoints and the query mix, e.g.
``--endpoint / --query '?sort=vram'`` measures only the page sorted by total VRAM.

The server's own CPU time per request (user + system of the uvicorn process, from /proc) is printed
next to the latencies, and so is the load generator's (this process): with C closed-loop clients on
one worker the median is about C times the server's time per request, and on a small machine the
load generator competes with the server for the same cores (and its own CPU per request bounds its
rate: alone on one core it sends at most 1000 / that many requests a second). ``--client raw`` sends
the same requests (keep-alive, ``accept-encoding: gzip, deflate`` like httpx) over plain sockets and
reads each whole response without decoding it, so less of the machine goes to the client; ``--http``
and ``--loop`` pick uvicorn's HTTP parser and event loop (``auto``: httptools and uvloop when
installed, the ``web`` extra).

**Pages** (``--pages``): every page in headless Chromium (Debian's, through Playwright), each in a
fresh browser context (a cold cache) ``--runs`` times over loopback: the median first contentful
paint, the time until the page's charts are drawn, and the bytes transferred for the page and every
asset it loads (encoded body sizes as the browser received them, so compression counts). The store
is the bundled snapshot (what a newcomer sees); ``--url`` measures a server that is already running
instead; give two to compare them (e.g. another checkout, for a before/after: their loads alternate,
so a busy machine slows both alike).

    python benchmarks/web.py --pages [--runs 5] [--url http://127.0.0.1:8000 [--url ...]] [--json]

**Answers** (``--answers DIR``): the responses of ``/api/v1/offers`` to a broad sample of query
strings (each filter, every sort both ways, pages, bad values and their 422 bodies) over the bundled
snapshot, one file each, to show that speed work leaves the bytes as they were: record before and
after, then ``python benchmarks/answers.py compare BEFORE AFTER``.

    python benchmarks/web.py --answers DIR
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.settings import Settings

QUERIES: tuple[str, ...] = (
    "",
    "?gpu=H100",
    "?gpu=A100&sort=price&order=desc",
    "?max_price=10&sort=price",
    "?pricing=spot&sort=spot_price",
    "?min_vram=48&gpus=8&interconnect=nvlink",
    "?provider=cloud03,cloud07&page=2",
    "?region=us-&available=true&sort=age",
    "?sort=vram&order=desc&page=3",
    "?gpu=RTX4090&per_page=100",
)


def synthetic_offers(n: int, seed: int = 7) -> dict[str, list[Offer]]:
    """``n`` plausible offers over 20 providers and the accelerators with a known price band."""
    rng = random.Random(seed)
    accs = [a for a in all_accelerators() if a.kind in ("datacenter", "consumer", "workstation")]
    per_gpu = {a.name: 0.1 + a.bandwidth_gbps / 1500 for a in accs}  # ~$0.3-5.5 per GPU-hour
    regions = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-south-1", "us-central1", "ca-east"]
    now = datetime.now(UTC)
    by_source: dict[str, list[Offer]] = {}
    for i in range(n):
        acc = rng.choice(accs)
        count = rng.choice((1, 1, 2, 4, 8))
        provider = f"cloud{i % 20:02d}"
        price = round(per_gpu[acc.name] * count * rng.uniform(0.6, 1.6), 4)
        offer = Offer(
            provider=provider,
            instance_type=f"{acc.name.lower()}-x{count}-{i}",
            region=rng.choice(regions),
            accelerator=acc.name,
            gpu_count=count,
            gpu_memory_gb=acc.memory_gb,
            price_usd_per_hour=price if rng.random() > 0.05 else None,
            spot_price_usd_per_hour=round(price * rng.uniform(0.3, 0.7), 4) if rng.random() < 0.4 else None,
            source=f"bench:https://example.com/{provider}",
            observed_at=now - timedelta(minutes=rng.randint(1, 600)),
            interconnect=Interconnect.NVLINK if count > 1 and rng.random() < 0.5 else Interconnect.PCIE,
            availability=rng.choice(list(Availability)),
        )
        by_source.setdefault(f"bench-{i % 5}", []).append(offer)
    return by_source


def build_store(url: str, n: int) -> None:
    store = Store(url)
    # no bundled rows (marked as this package's snapshot, so it is not loaded): exactly n offers
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    for source, offers in synthetic_offers(n).items():
        store.write_snapshot(source, offers)
    store.close()


def default_cache_seconds() -> float:
    """The web cache lifetime the app uses when ``--cache-seconds`` is not given."""
    field = next(f for f in dataclasses.fields(Settings) if f.name == "web_cache_seconds")
    return float(field.default)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


ENDPOINTS: tuple[str, ...] = ("/", "/api/v1/offers")


async def client_loop(
    client: httpx.AsyncClient,
    path: str,
    queries: tuple[str, ...],
    deadline: float,
    k: int,
    out: list[float],
    errors: list[str],
) -> None:
    i = k
    while time.perf_counter() < deadline:
        url = path + queries[i % len(queries)]
        t0 = time.perf_counter()
        try:
            r = await client.get(url)
        except httpx.HTTPError as exc:  # counted and reported, not hidden
            errors.append(f"{url}: {type(exc).__name__}")
            i += 1
            continue
        elapsed = time.perf_counter() - t0
        if r.status_code != 200:
            errors.append(f"{url}: HTTP {r.status_code}")
        else:
            out.append(elapsed * 1000)
        i += 1


class RawConnection:
    """One keep-alive HTTP/1.1 connection that sends what httpx sends for a GET (``accept-encoding:
    gzip, deflate``, so the server compresses as it does for a browser) and reads each whole response
    (``content-length`` or chunked), without decoding it: the load of a client without the client's
    own CPU cost (httpx spends about as much per request as the server on the same two cores)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, target: str) -> tuple[int, int]:
        """``(status, body bytes)`` of ``GET target``; reconnects once when the server closed."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(
            f"GET {target} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\naccept: */*\r\n"
            "accept-encoding: gzip, deflate\r\nconnection: keep-alive\r\n"
            "user-agent: gpuscout-bench\r\n\r\n".encode()
        )
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
        size = 0
        if "content-length" in headers:
            size = len(await self.reader.readexactly(int(headers["content-length"])))
        elif headers.get("transfer-encoding") == "chunked":
            while chunk := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
                size += len(await self.reader.readexactly(chunk + 2)) - 2
            await self.reader.readuntil(b"\r\n")
        if headers.get("connection") == "close":
            await self.close()
        return status, size

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def raw_loop(
    base: str,
    path: str,
    queries: tuple[str, ...],
    deadline: float,
    k: int,
    out: list[float],
    errors: list[str],
) -> None:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    conn = RawConnection(host, int(port))
    i = k
    try:
        while time.perf_counter() < deadline:
            url = path + queries[i % len(queries)]
            t0 = time.perf_counter()
            try:
                status, _ = await asyncio.wait_for(conn.get(url), timeout=60)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors.append(f"{url}: {type(exc).__name__}")
                await conn.close()
                i += 1
                continue
            elapsed = time.perf_counter() - t0
            if status != 200:
                errors.append(f"{url}: HTTP {status}")
            else:
                out.append(elapsed * 1000)
            i += 1
    finally:
        await conn.close()


async def run_load(
    base: str, path: str, queries: tuple[str, ...], clients: int, seconds: float, kind: str = "httpx"
) -> tuple[list[float], int]:
    """``clients`` concurrent loops over the query mix of ``path`` for ``seconds`` (``kind``: one
    shared httpx client, or raw keep-alive connections)."""
    out: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        (await client.get(path)).raise_for_status()  # warm-up: store open, template compiled
        deadline = time.perf_counter() + seconds
        if kind == "raw":
            loops = [raw_loop(base, path, queries, deadline, k, out, errors) for k in range(clients)]
        else:
            loops = [client_loop(client, path, queries, deadline, k, out, errors) for k in range(clients)]
        await asyncio.gather(*loops)
    if errors:
        print(f"{path}: {len(errors)} failed requests, e.g. {errors[:3]}", file=sys.stderr)
    return out, len(errors)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its descendants (Linux /proc), in seconds."""
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                total += cpu_seconds(int(child))
    except (OSError, IndexError, ValueError):
        pass  # process gone, or not Linux: reported as 0
    return total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# ---- pages in a browser -------------------------------------------------------------------------
PAGES: tuple[str, ...] = (
    "/",
    "/?gpu=H100",
    "/advise",
    "/advise?kind=serve&model=llama-3.1-70b&precision=fp8&prompt_tokens=4000&output_tokens=800"
    "&concurrency=16",
    "/gpus",
    "/gpus/H100-SXM",
    "/models",
    "/models/llama-3.1-70b",
    "/faq",
    "/sources",
    "/docs",
)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-pings",
]


def measure_page(browser: Any, url: str) -> dict[str, float]:
    """One cold load of ``url``: first contentful paint, charts drawn, bytes over the wire."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r))
    try:
        page.goto(url, wait_until="load")
        page.wait_for_load_state("networkidle")
        charts = page.locator("[data-chart-target], .chart").count()
        chart_ms = float("nan")
        if charts:
            page.wait_for_function(
                "() => [...document.querySelectorAll('.chart')].every(c => c.dataset.rendered)",
                timeout=60_000,
            )
            chart_ms = page.evaluate("() => performance.now()")
        fcp = page.evaluate(
            "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || NaN"
        )
        transferred = 0
        for response in responses:
            sizes = response.request.sizes()
            transferred += sizes["responseBodySize"] + sizes["responseHeadersSize"]
        html = next((r for r in responses if r.url == url), None)
        html_bytes = html.request.sizes()["responseBodySize"] if html else 0
        return {
            "fcp_ms": float(fcp),
            "chart_ms": chart_ms,
            "bytes": float(transferred),
            "html_bytes": float(html_bytes),
            "requests": float(len(responses)),
        }
    finally:
        context.close()


def run_pages(bases: list[str], runs: int) -> dict[str, dict[str, dict[str, float]]]:
    """Median figures per server and page; with several servers the loads alternate (A, B, A, B...),
    so a busy machine slows them alike."""
    from playwright.sync_api import sync_playwright

    samples: dict[str, dict[str, list[dict[str, float]]]] = {b: {p: [] for p in PAGES} for b in bases}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for path in PAGES:
                for _ in range(runs):
                    for base in bases:
                        samples[base][path].append(measure_page(browser, base + path))
        finally:
            browser.close()
    keys = ("fcp_ms", "chart_ms", "bytes", "html_bytes", "requests")
    return {
        base: {
            path: {k: round(statistics.median(s[k] for s in runs_), 1) for k in keys}
            for path, runs_ in by_page.items()
        }
        for base, by_page in samples.items()
    }


def start_server(
    env: dict[str, str], log_path: Path, *, workers: int = 1, http: str = "auto", loop: str = "auto"
) -> tuple[subprocess.Popen[bytes], str, Any]:
    """uvicorn serving ``app_from_env`` on a free loopback port (``http`` and ``loop``: uvicorn's
    ``--http`` and ``--loop``); waits until /healthz answers."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "gpuscout.web.app:app_from_env",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--http",
        http,
        "--loop",
        loop,
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    log = log_path.open("w")
    server = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):  # up to 60 s to start (the first start loads the bundled snapshot)
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return server, base, log
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            break
        time.sleep(0.1)
    server.kill()
    log.close()
    raise RuntimeError("uvicorn did not start: " + log_path.read_text()[-2000:])


def stop_server(server: subprocess.Popen[bytes], log: Any) -> None:
    """Stop the uvicorn child (killed if it does not exit within 15 s) and close its log."""
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


def pages_main(args: argparse.Namespace) -> int:
    if args.url:
        bases = [u.rstrip("/") for u in args.url]
        for base in bases:
            for path in PAGES:  # warm-up: store opened, templates compiled, caches filled
                httpx.get(base + path, timeout=120)
        reports = run_pages(bases, args.runs)
    else:
        with tempfile.TemporaryDirectory(prefix="gpuscout-bench-pages-") as tmp:
            env = {
                **os.environ,
                "GPUSCOUT_DB": f"sqlite:///{Path(tmp) / 'pages.db'}",
                "GPUSCOUT_DATA_DIR": tmp,
            }
            server, base, log = start_server(env, Path(tmp) / "uvicorn.log")
            try:
                for path in PAGES:
                    httpx.get(base + path, timeout=120)
                reports = run_pages([base], args.runs)
            finally:
                stop_server(server, log)
    load = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps({"runs": args.runs, "load_average_1min": load, "servers": reports}, indent=2))
        return 0
    print(f"median of {args.runs} cold loads per page, 1440x900, loopback (load average {load:.2f})")
    for base, report in reports.items():
        if len(reports) > 1:
            print(f"server {base}")
        header = f"{'FCP ms':>8} {'charts ms':>10} {'HTML KB':>8} {'total KB':>9} {'requests':>9}"
        print(f"  {'page':<44} {header}")
        for path, r in report.items():
            chart = "" if r["chart_ms"] != r["chart_ms"] else f"{r['chart_ms']:.0f}"  # NaN: no chart
            shown = path if len(path) <= 44 else path[:41] + "..."
            print(
                f"  {shown:<44} {r['fcp_ms']:>8.0f} {chart:>10} {r['html_bytes'] / 1000:>8.1f} "
                f"{r['bytes'] / 1000:>9.1f} {r['requests']:>9.0f}"
            )
    return 0


# ---- answers: the API's bytes over a broad sample of query strings --------------------------------
def answer_queries() -> list[str]:
    """Query strings of ``/api/v1/offers``: each filter alone and combined, every sort both ways, pages
    (past the end too), and bad values (their 422 bodies)."""
    sorts = ("provider", "instance", "gpu", "gpu_count", "vram", "interconnect", "region", "price")
    sorts += ("spot_price", "price_per_gpu", "availability", "age", "source")
    filters = [
        "",
        "gpu=H100",
        "gpu=A100,L4",
        "gpu=h100-sxm",
        "min_vram=80",
        "gpus=8",
        "provider=aws,gcp",
        "provider=vast",
        "region=us",
        "region=EU-",
        "region=country:de",
        "pricing=spot",
        "pricing=on-demand",
        "available=true",
        "include_stale=true",
        "interconnect=nvlink",
        "interconnect=pcie",
        "max_price=5",
        "pricing=spot&max_price=2",
        "gpu=H100&pricing=spot&available=true&interconnect=nvlink",
        "min_vram=40&gpus=4&region=us&max_price=40",
    ]
    out = [f"{f}&sort={s}&order={o}".lstrip("&") for f in filters[:6] for s in sorts for o in ("asc", "desc")]
    out += [
        f"{f}&per_page={n}&page={p}".lstrip("&")
        for f in filters
        for n, p in ((50, 1), (7, 3), (200, 1), (20, 500))
    ]
    out += [
        "gpu=nonsense",
        "gpu=H10O",
        "min_vram=-1",
        "min_vram=abc",
        "gpus=0",
        "gpus=2000",
        "pricing=cheap",
        "interconnect=infiniband",
        "max_price=0",
        "max_price=1e400",
        "sort=cheap",
        "order=up",
        "page=0",
        "page=10001",
        "per_page=201",
        "per_page=",
        "available=maybe",
        "region=" + "x" * 101,
        "gpu=%00",
        "provider=a%00b",
        "unknown=1",
    ]
    return out


def record_answers(out: Path) -> int:
    """Every ``answer_queries`` response of ``/api/v1/offers`` (status, type, body) over the bundled
    snapshot in a fresh data dir, in-process with the web cache off, one file each: compare two
    recordings with ``python benchmarks/answers.py compare A B``."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpuscout-bench-answers-") as tmp:
        os.environ.update(GPUSCOUT_DATA_DIR=tmp, GPUSCOUT_WEB_CACHE_SECONDS="0")
        os.environ.pop("GPUSCOUT_DB", None)
        from fastapi.testclient import TestClient

        from gpuscout.web.app import app_from_env

        with TestClient(app_from_env()) as client:
            for i, query in enumerate(answer_queries()):
                r = client.get("/api/v1/offers?" + query)
                (out / f"offers-{i:03d}.txt").write_bytes(
                    b"%s\nstatus %d %s\n%s"
                    % (query.encode(), r.status_code, r.headers["content-type"].encode(), r.content)
                )
    print(f"recorded {len(answer_queries())} answers in {out}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--offers", type=int, default=10_000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument(
        "--cache-seconds",
        type=float,
        default=None,
        help="web cache lifetime (default: the app's, 300 s); 0 disables the cache",
    )
    ap.add_argument(
        "--endpoint",
        action="append",
        default=None,
        metavar="PATH",
        help=f"endpoint to load (repeatable; default: {' and '.join(ENDPOINTS)})",
    )
    ap.add_argument(
        "--query",
        action="append",
        default=None,
        metavar="QS",
        help="query string, e.g. '?sort=vram' (repeatable; default: a mix of 10 views)",
    )
    ap.add_argument(
        "--client",
        choices=("httpx", "raw"),
        default="httpx",
        help="load generator: one httpx client (default), or raw keep-alive sockets sending the same "
        "requests (a lighter client: less of the two cores goes to the load itself)",
    )
    ap.add_argument("--http", choices=("auto", "h11", "httptools"), default="auto", help="uvicorn --http")
    ap.add_argument("--loop", choices=("auto", "asyncio", "uvloop"), default="auto", help="uvicorn --loop")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--answers",
        type=Path,
        metavar="DIR",
        help="instead: record the API's answers to a broad sample of query strings under DIR "
        "(compare two recordings with benchmarks/answers.py compare A B)",
    )
    ap.add_argument(
        "--pages",
        action="store_true",
        help="measure every page in headless Chromium (FCP, charts drawn, bytes) instead",
    )
    ap.add_argument("--runs", type=int, default=5, help="--pages: cold loads per page (median)")
    ap.add_argument(
        "--url",
        action="append",
        default=None,
        metavar="URL",
        help="--pages: measure this running server instead (repeat for a before/after: the "
        "servers' loads alternate)",
    )
    args = ap.parse_args()
    if args.answers:
        return record_answers(args.answers)
    if args.pages:
        if not 1 <= args.runs <= 50:
            ap.error("--runs in [1, 50]")
        return pages_main(args)
    endpoints = tuple(args.endpoint or ENDPOINTS)
    queries = tuple(args.query or QUERIES)
    bad_query = any(q and not q.startswith("?") for q in queries)
    if bad_query or not all(e.startswith("/") for e in endpoints):
        ap.error("--endpoint starts with '/', --query with '?'")
    if not (0 < args.seconds <= 600 and 1 <= args.clients <= 200 and 1 <= args.offers <= 200_000):
        ap.error("--seconds in (0, 600], --clients in [1, 200], --offers in [1, 200000]")

    with tempfile.TemporaryDirectory(prefix="gpuscout-bench-web-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        t0 = time.perf_counter()
        build_store(url, args.offers)
        load_s = time.perf_counter() - t0
        env = {**os.environ, "GPUSCOUT_DB": url, "GPUSCOUT_DATA_DIR": tmp}
        if args.cache_seconds is not None:
            env["GPUSCOUT_WEB_CACHE_SECONDS"] = str(args.cache_seconds)
        log_path = Path(tmp) / "uvicorn.log"
        server, base, log = start_server(env, log_path, workers=args.workers, http=args.http, loop=args.loop)
        try:
            results: dict[str, list[float]] = {}
            errors: dict[str, int] = {}
            cpu_ms: dict[str, float] = {}
            client_ms: dict[str, float] = {}
            for path in endpoints:  # one endpoint at a time, each with all the clients
                cpu0, client0 = cpu_seconds(server.pid), time.process_time()
                results[path], errors[path] = asyncio.run(
                    run_load(base, path, queries, args.clients, args.seconds, args.client)
                )
                done = max(1, len(results[path]))
                cpu_ms[path] = (cpu_seconds(server.pid) - cpu0) * 1000 / done
                client_ms[path] = (time.process_time() - client0) * 1000 / done
        finally:
            stop_server(server, log)
            server_log = log_path.read_text()[-2000:]

    report = {
        "offers": args.offers,
        "clients": args.clients,
        "seconds": args.seconds,
        "workers": args.workers,
        "client": args.client,
        "http": args.http,
        "loop": args.loop,
        "cache_seconds": args.cache_seconds if args.cache_seconds is not None else default_cache_seconds(),
        "queries": list(queries),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "store_load_s": round(load_s, 2),
        "endpoints": {
            path: {
                "requests": len(v),
                "errors": errors[path],
                "median_ms": round(statistics.median(v), 1),
                "p95_ms": round(percentile(v, 0.95), 1),
                "requests_per_s": round(len(v) / args.seconds, 1),
                "server_cpu_ms_per_request": round(cpu_ms[path], 2),
                "client_cpu_ms_per_request": round(client_ms[path], 2),
            }
            for path, v in results.items()
        },
    }
    if any(errors.values()):
        print("server log (tail):\n" + server_log, file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{args.offers} offers, {args.clients} clients, {args.seconds:g} s, {args.workers} worker(s), "
            f"cache {report['cache_seconds']:g} s, {args.client} client, uvicorn --http {args.http} "
            f"--loop {args.loop} (store filled in {load_s:.1f} s; "
            f"load average {report['load_average_1min']})"
        )
        if args.query:
            print(f"  queries: {', '.join(queries)}")
        for path, r in report["endpoints"].items():  # type: ignore[union-attr]
            print(
                f"  {path:<16} median {r['median_ms']:>7.1f} ms   p95 {r['p95_ms']:>7.1f} ms   "
                f"{r['requests']:>6} requests ({r['requests_per_s']:.0f}/s), {r['errors']} errors, "
                f"server CPU {r['server_cpu_ms_per_request']:.1f} ms/request, "
                f"client CPU {r['client_cpu_ms_per_request']:.1f} ms/request"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
