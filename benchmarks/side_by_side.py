"""Whole-process speed of the CLI, side by side with gpuhunt on the same offers, and the other speed
figures of the README's "Speed" section.

    python benchmarks/side_by_side.py [--sizes 1500,101000] [--runs 9] [--quick] [--no-gpuhunt]
                                      [--no-web] [--no-advise] [--keep DIR] [--readme README.md]

Offers: the bundled snapshot's offers, repeated (each copy's instance names get a ``#k`` suffix) up
to each size, stored as one live source in a fresh data dir (the bundled rows are then hidden, as
live data hides them). gpuhunt gets the same offers as a local catalog (``GPUHUNT_CATALOG_DIR``: one
CSV per gpuhunt offline provider, a spot row next to the on-demand row where the offer has a spot
price, as gpuhunt publishes them), so neither tool touches the network.

gpuhunt is installed by this script into its own virtual environment (``--gpuhunt-venv``, default
``~/.cache/gpuscout-bench/gpuhunt-venv``) with pip; when that fails the comparison is skipped and
the reason printed. The compared processes:

* ``gpuscout offers --gpu H100``: import, open the store, query the H100 family (H100-SXM, -PCIe,
  -NVL), print the 30 cheapest as a table;
* gpuhunt: ``import gpuhunt``, a ``Catalog`` on the local files, ``query(gpu_name=["H100"])``, print
  the 30 cheapest, one line each.

Both tools run from compiled bytecode, as installed packages do (pip compiles a wheel's modules, so
gpuhunt's virtual environment has them): gpuscout's package is compiled first (``compileall``), since a
source checkout run with ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every module it
imports on every run.

Runs are interleaved (A, B, A, B...) so both see the same load; each figure is the median of
``--runs`` wall times with the min-max range, and the ratio of the medians. The load average is
printed with them: the machine is shared. Nothing is asserted; ``--readme`` rewrites the README's
"Speed" section with the figures.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.knowledge.accelerators import resolve_gpu

HERE = Path(__file__).resolve().parent
GPUSCOUT = [sys.executable, "-m", "gpuscout"]
GPUHUNT_PROVIDERS = ("aws", "azure", "verda", "gcp", "lambdalabs", "nebius", "oci", "runpod", "cloudrift")
GPUHUNT_NAMES = {"lambda": "lambdalabs", "datacrunch": "verda"}
GPUHUNT_FIELDS = (
    "instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "gpu_memory", "spot",
    "disk_size", "gpu_vendor", "flags", "cpu_arch", "provider_data",
)  # fmt: skip
GPUHUNT_VENDORS = {"NVIDIA": "nvidia", "AMD": "amd", "Google": "google", "Intel": "intel"}
GPUHUNT_QUERY = """
import gpuhunt
catalog = gpuhunt.Catalog(balance_resources=False, auto_reload=False)
items = sorted(catalog.query(gpu_name=["H100"]), key=lambda i: i.price)
print(f"{len(items)} offers")
for i in items[:30]:
    print(f"{i.provider:<12} {i.instance_name:<40} {i.gpu_count}x{i.gpu_name} {i.price:10.3f} {i.location}")
"""
RECOMMEND = [
    "recommend",
    "serve",
    "llama-3.1-8b",
    "--concurrency",
    "32",
    "--prompt",
    "2000",
    "--output",
    "500",
]


@dataclasses.dataclass
class Timed:
    """Wall and CPU (user + system) seconds of each run of one command."""

    label: str
    walls: list[float]
    cpus: list[float] = dataclasses.field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus) if self.cpus else math.nan

    def text(self) -> str:
        wall = f"{fmt_s(self.median)} (min-max {fmt_s(min(self.walls))}-{fmt_s(max(self.walls))})"
        return f"{wall}; CPU {fmt_s(self.cpu)}" if self.cpus else wall


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def run(cmd: Sequence[str], env: dict[str, str], *, check: bool = True) -> float:
    """Wall time of one whole process (output to a pipe that is read and dropped); its CPU time is
    added to ``LAST_CPU``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU[0] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return wall


LAST_CPU = [0.0]  # CPU seconds of the last process run() waited for


def interleaved(
    cases: dict[str, tuple[Sequence[str], dict[str, str]]], runs: int, *, warm: bool = True
) -> dict[str, Timed]:
    out = {label: Timed(label, []) for label in cases}
    for cmd, env in cases.values() if warm else ():  # one warm-up each (page cache, .pyc files)
        run(cmd, env)
    for _ in range(runs):
        for label, (cmd, env) in cases.items():
            out[label].walls.append(run(cmd, env))
            out[label].cpus.append(LAST_CPU[0])
    return out


# ---- data ----------------------------------------------------------------------------------------
def replicated(n: int) -> list[Offer]:
    base = SnapshotSource().offers()
    out: list[Offer] = []
    k = 0
    while len(out) < n:
        for o in base[: n - len(out)]:
            out.append(o if k == 0 else dataclasses.replace(o, instance_type=f"{o.instance_type}#{k}"))
        k += 1
    return out


def compile_package() -> None:
    """Write the bytecode of gpuscout's modules (where it is missing or stale), as installing does."""
    import gpuscout

    package = Path(gpuscout.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, capture_output=True)


def gpuscout_env(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, "GPUSCOUT_DATA_DIR": str(data_dir)}
    for var in ("GPUSCOUT_DB", "GPUSCOUT_OFFER_FILES", "COLUMNS"):
        env.pop(var, None)
    return env


def build_gpuscout_store(data_dir: Path, offers: list[Offer]) -> None:
    """A data dir whose store holds ``offers`` as the current data of one live source."""
    code = (
        "import pickle, sys\n"
        "from gpuscout.catalog.api import open_store\n"
        "from gpuscout.catalog.paths import default_db_url\n"
        "store = open_store(default_db_url())\n"
        "store.write_snapshot('bench', pickle.load(sys.stdin.buffer))\n"
        "store.close()\n"
    )
    import pickle

    subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(offers), env=gpuscout_env(data_dir), check=True
    )


def family(accelerator: str) -> str:
    return accelerator.split("-")[0]  # the H100 family is H100-SXM, H100-PCIe, H100-NVL


def write_gpuhunt_catalog(folder: Path, offers: list[Offer]) -> int:
    """gpuhunt's offline catalog files for ``offers``; returns the number of items written."""
    folder.mkdir(parents=True, exist_ok=True)
    rows: dict[str, list[dict[str, str]]] = {p: [] for p in GPUHUNT_PROVIDERS}
    spill = 0
    for o in offers:
        provider = GPUHUNT_NAMES.get(o.provider, o.provider)
        if provider not in rows:  # gpuhunt has no catalog of that provider: spread over its files
            provider = GPUHUNT_PROVIDERS[spill % len(GPUHUNT_PROVIDERS)]
            spill += 1
        vendor = GPUHUNT_VENDORS.get(resolve_gpu(o.accelerator).vendor, "")
        for price, spot in ((o.price_usd_per_hour, False), (o.spot_price_usd_per_hour, True)):
            if price is None:
                continue
            rows[provider].append({
                "instance_name": o.instance_type, "location": o.region, "price": str(price),
                "cpu": str(int(o.vcpus or 0)), "memory": str(o.ram_gb or 0.0), "gpu_count": str(o.gpu_count),
                "gpu_name": family(o.accelerator), "gpu_memory": str(o.gpu_memory_gb), "spot": str(spot),
                "disk_size": "" if o.disk_gb is None else str(o.disk_gb), "gpu_vendor": vendor, "flags": "",
                "cpu_arch": "x86", "provider_data": "{}",
            })  # fmt: skip
    for provider, items in rows.items():
        with (folder / f"{provider}.csv").open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=GPUHUNT_FIELDS)
            writer.writeheader()
            writer.writerows(items)
    return sum(len(v) for v in rows.values())


def gpuhunt_python(venv: Path) -> tuple[Path | None, str]:
    """The interpreter of a virtual environment with gpuhunt, made when missing; or why there is none."""
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import gpuhunt"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python, ""
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300
        )
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "gpuhunt"],
            check=True,
            capture_output=True,
            timeout=600,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        return None, f"gpuhunt could not be installed in {venv}: {exc} {detail.decode()[-300:]}".strip()
    if subprocess.run(probe, capture_output=True).returncode != 0:
        return None, f"gpuhunt does not import in {venv}"
    return python, ""


# ---- figures -------------------------------------------------------------------------------------
def side_by_side(
    work: Path, sizes: list[int], runs: int, gh_python: Path | None
) -> tuple[list[list[str]], dict[int, Path]]:
    table: list[list[str]] = []
    dirs: dict[int, Path] = {}
    for n in sizes:
        offers = replicated(n)
        data_dir = work / f"gpuscout-{n}"
        build_gpuscout_store(data_dir, offers)
        dirs[n] = data_dir
        cases: dict[str, tuple[Sequence[str], dict[str, str]]] = {
            "gpuscout": ([*GPUSCOUT, "offers", "--gpu", "H100"], gpuscout_env(data_dir)),
        }
        items = 0
        if gh_python is not None:
            folder = work / f"gpuhunt-{n}"
            items = write_gpuhunt_catalog(folder, offers)
            env = {**os.environ, "GPUHUNT_CATALOG_DIR": str(folder)}
            cases["gpuhunt"] = ([str(gh_python), "-c", GPUHUNT_QUERY], env)
        timed = interleaved(cases, runs)
        target = f"≤ {0.6 if n < 10_000 else 0.1}×; ≤ 0.25 s quiet"  # the (12) targets
        gs = timed["gpuscout"]
        if "gpuhunt" in timed:
            gh = timed["gpuhunt"]
            ratio = f"{gs.median / gh.median:.2f}x (CPU {gs.cpu / gh.cpu:.2f}x)"
            table.append(
                [f"{n:,} offers ({items:,} gpuhunt items)", gs.text(), gh.text(), ratio, target, load()]
            )
        else:
            table.append([f"{n:,} offers", gs.text(), "skipped", "-", target, load()])
        print(f"  {table[-1]}", flush=True)
    return table, dirs


def cli_figures(work: Path, big: tuple[int, Path] | None, small: Path, runs: int) -> list[list[str]]:
    rows: list[list[str]] = []

    def add(what: str, timed: Timed, target: str, note: str = "") -> None:
        rows.append([what, timed.text(), target, note, load()])
        print(f"  {rows[-1]}", flush=True)

    env = gpuscout_env(small)
    timed = interleaved({"help": ([*GPUSCOUT, "--help"], env), "rec": ([*GPUSCOUT, *RECOMMEND], env)}, runs)
    add("`gpuscout --help`", timed["help"], "≤ 0.15 s")
    add(
        "`gpuscout recommend serve llama-3.1-8b --concurrency 32 --prompt 2000 --output 500` (warm)",
        timed["rec"],
        "≤ 0.5 s",
    )
    fresh = Timed("fresh", [])
    for i in range(max(3, runs // 2)):
        fresh.walls.append(run([*GPUSCOUT, *RECOMMEND], gpuscout_env(work / f"fresh-{i}")))
        fresh.cpus.append(LAST_CPU[0])
    add("the same on a fresh data dir (loads the bundled snapshot first)", fresh, "≤ 1 s")
    if big is None:
        return rows
    n, data_dir = big
    env = gpuscout_env(data_dir)
    heavy = max(3, runs // 3)
    cases: dict[str, tuple[Sequence[str], dict[str, str]]] = {
        "json": ([*GPUSCOUT, "offers", "--gpu", "H100", "--limit", "0", "--json"], env),
        "csv": ([*GPUSCOUT, "offers", "--gpu", "H100", "--limit", "0", "--csv"], env),
    }
    timed = interleaved(cases, heavy)
    table_cmd = [*GPUSCOUT, "offers", "--gpu", "H100", "--limit", "0"]
    timed.update(interleaved({"table": (table_cmd, env)}, 1, warm=False))
    add(
        f"all H100 matches at {n:,} offers as JSON (`offers --gpu H100 --limit 0 --json`)",
        timed["json"],
        "≤ 1.5 s",
    )
    add("the same as CSV (`--csv`)", timed["csv"], "")
    add("the same as a table (`--limit 0`, piped)", timed["table"], "")
    offer_file = work / "offers-file.csv"
    write_offer_file(offer_file, replicated(n))
    ingest = Timed("ingest", [])
    for i in range(heavy):
        target = work / f"ingest-{i}"
        build_gpuscout_store(target, [])
        ingest.walls.append(
            run([*GPUSCOUT, "refresh", "--source", f"file:{offer_file}"], gpuscout_env(target))
        )
        ingest.cpus.append(LAST_CPU[0])
    add(f"ingest {n:,} offers from a file (`refresh --source file:offers.csv`)", ingest, "≤ 3 s")
    return rows


def write_offer_file(path: Path, offers: list[Offer]) -> None:
    columns = (
        "provider", "instance_type", "region", "gpu", "gpu_count", "gpu_memory_gb", "price_usd_per_hour",
        "spot_price_usd_per_hour", "vcpus", "ram_gb",
    )  # fmt: skip
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        for o in offers:
            if o.price_usd_per_hour is None:
                continue
            writer.writerow([
                o.provider, o.instance_type, o.region, o.accelerator, o.gpu_count, o.gpu_memory_gb,
                o.price_usd_per_hour, "" if o.spot_price_usd_per_hour is None else o.spot_price_usd_per_hour,
                "" if o.vcpus is None else o.vcpus, "" if o.ram_gb is None else o.ram_gb,
            ])  # fmt: skip


def script_figures(advise: bool, web: bool) -> list[list[str]]:
    rows: list[list[str]] = []
    if advise:
        out = subprocess.run(
            # the naive oracle on 2,000 offers: over all 100,000 it takes many minutes (the check, not
            # the timed ranking, which always ranks all of them)
            [sys.executable, str(HERE / "advise.py"), "--runs", "7", "--naive-sample", "2000", "--json"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        r = json.loads(out.stdout[out.stdout.index("{") :])
        rows.append([
            "`benchmarks/advise.py`: rank 100,000 offers (serve llama-3.1-8b)",
            f"median {r['median_ms']} ms (min {r['min_ms']} ms); CPU {r['median_cpu_ms']} ms",
            "≤ 200 ms (issue 9: ≤ 300 ms)", "", load(),
        ])  # fmt: skip
        print(f"  {rows[-1]}", flush=True)
    if web:
        out = subprocess.run(
            [sys.executable, str(HERE / "web.py"), "--seconds", "15", "--cache-seconds", "0", "--json"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        report = json.loads(out.stdout[out.stdout.index("{") :])
        for path, r in report["endpoints"].items():
            what = f"`benchmarks/web.py`, no cache: `{path}`, {report['offers']:,} offers, "
            what += f"{report['clients']} clients, one worker"
            note = (
                f"{r['requests_per_s']:.0f} req/s, server CPU {r['server_cpu_ms_per_request']:.1f} "
                f"ms/request, client (httpx) CPU {r['client_cpu_ms_per_request']:.1f} ms/request"
            )
            target = "≤ 60 ms" if path.startswith("/api/") else ""
            rows.append(
                [what, f"median {r['median_ms']:.0f} ms, p95 {r['p95_ms']:.0f} ms", target, note, load()]
            )
            print(f"  {rows[-1]}", flush=True)
    return rows


def markdown(header: Sequence[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1500,101000", help="offer counts, comma-separated")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="3 runs, no web or advisor figures")
    ap.add_argument("--no-gpuhunt", action="store_true")
    ap.add_argument("--no-web", action="store_true")
    ap.add_argument("--no-advise", action="store_true")
    ap.add_argument(
        "--gpuhunt-venv", type=Path, default=Path.home() / ".cache" / "gpuscout-bench" / "gpuhunt-venv"
    )
    ap.add_argument("--keep", type=Path, help="build the stores here and keep them")
    ap.add_argument("--readme", type=Path, help="rewrite the 'Speed' section of this README")
    args = ap.parse_args(argv)
    runs = 3 if args.quick else args.runs
    sizes = [int(s) for s in args.sizes.split(",") if s]
    gh_python: Path | None = None
    if not args.no_gpuhunt:
        gh_python, why = gpuhunt_python(args.gpuhunt_venv)
        if gh_python is None:
            print(f"side-by-side with gpuhunt skipped: {why}")
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        print(f"load average at start {load()} on {os.cpu_count()} cores; {runs} runs per figure")
        print("side by side (`gpuscout offers --gpu H100` | gpuhunt query H100 + print):", flush=True)
        side, dirs = side_by_side(work, sizes, runs, gh_python)
        bundled = work / "gpuscout-bundled"
        build_gpuscout_store(bundled, [])
        print("other figures:", flush=True)
        big = (max(sizes), dirs[max(sizes)]) if sizes else None
        other = cli_figures(work, big, bundled, runs)
        other += script_figures(not (args.no_advise or args.quick), not (args.no_web or args.quick))
    section = render(side, other, runs)
    print("\n" + section)
    if args.readme:
        rewrite_readme(args.readme, section)
    return 0


def render(side: list[list[str]], other: list[list[str]], runs: int) -> str:
    return "\n".join([
        "## Speed",
        "",
        "Measured with `python benchmarks/side_by_side.py` on the 2-core development machine (median of "
        f"{runs} interleaved whole-process runs, min-max in brackets, and the median CPU time of the "
        "process). The machine is shared: the 1-minute load average is shown with each figure, and "
        "under load the wall time is several times the CPU time. Nothing in the test suite asserts a "
        "timing.",
        "",
        "Side by side with gpuhunt on the same offers (the bundled snapshot repeated to the size; gpuhunt "
        "reads a local catalog of the same offers):",
        "",
        markdown(["offers", "`gpuscout offers --gpu H100`", "gpuhunt: query H100, print", "ratio", "target",
                  "load"], side),
        "",
        markdown(["figure", "median", "target", "note", "load"], other),
        "",
        "What makes a command quick: `gpuscout offers` with plain arguments is answered without building "
        "the Typer app (`cli/lean.py`: anything it does not fully understand, `--help`, a bad value, "
        "any error, goes to the Typer app, so every message stays as it was), its table written for a "
        "pipe with Rich's own layout but without importing Rich (`cli/offers_view.py`; a terminal, "
        "colour forced or a cell Rich would parse itself is printed by Rich), and the process ends with "
        "`os._exit` once the answer is flushed and the store closed (no interpreter teardown); "
        "`tests/cli/test_lean.py` holds both paths to the same bytes. Any other "
        "command imports only its own module (`cli/lazy.py`), and its "
        "options are converted without Typer's pydantic adapters where the value is plain text or a "
        "number (`cli/coercion.py`); the root help is replayed from its last render when nothing it "
        "depends on changed (`cli/help_cache.py`). Offers are read with the standard library's `sqlite3` "
        "from a SQLite store that needs no migration, spec sync or snapshot load (`catalog/reader.py`), "
        "with the same SQL text as the store's SQLAlchemy engine (`catalog/query.py`), so reading does "
        "not import SQLAlchemy, httpx or YAML, not even on a fresh install: a store that does not exist yet "
        "is written with `sqlite3` from a packaged template of what the first open builds "
        "(`catalog/store_template.py`, checked ready like any store). A refresh into such a store "
        "writes with `sqlite3` too (`catalog/sqlite_writer.py`: the Store's statements and values, in "
        "one transaction; a file source imports no provider adapter or HTTP client). SQLAlchemy stays "
        "where it earns its place: PostgreSQL, migrations and every other write. Provider terms come from a "
        "generated `providers.json` (the YAML is parsed only when it changed since), and rows are "
        "built and decoded by functions compiled "
        "once per column list; offers are built through their slots (`offer_fields.offer_constructor`). "
        "JSON is written by `cli/json_text.py` (the text of `json.dumps(indent=2)` without its "
        "pure-Python generator steps; each offer of `offers --json` straight from its attributes). "
        "Ingest: the plain rows of a CSV offer file are read by a reader compiled once per file for its "
        "columns, a text without quotes, CR or NUL split without `csv.reader` (the same records; the "
        "checking reader names the problems of any other row), plain valid rows checked by written-out "
        "checks with the same verdict as the rules, and no HTTP client made; Python's cyclic collector is "
        "paused while 5,000+ offers are read and stored, and while a ranking runs over 5,000+ offers "
        "(`gpuscout/gc_pause.py`). On SQLite the columns holding one NULL or text in every row are "
        "written into the INSERT instead of bound per row, and the offers indexes are dropped and built "
        "again after a bulk insert into a table no larger than the new rows, in the same transaction (a "
        "failed write keeps them and the last good data); PostgreSQL receives the rows with `COPY`. "
        "Ranking: one pass over the offers groups them by configuration (their indices, ordered by a "
        "stable sort on the lowest price each can be costed at), and the estimates of one GPU and "
        "split at the batch sizes the search tries share what does not depend on the load (engine, "
        "format, support verdict, rates, memory at one sequence, prefill speed: "
        "`estimate.api.EstimateSession`, one per ranking). "
        "The web API answers a plain query string of `/api/v1/offers` before FastAPI's routing, "
        "reading the store on the event loop (`web/lean_offers.py`: the route's own model validates "
        "the parameters and the route's own body and response go out; a repeated or unknown "
        "parameter, a bad value, any error, PostgreSQL or a store not opened yet go to the route, so "
        "every answer and 422 body stays as it was, `tests/web/test_lean_offers.py`). Uncached, it "
        "writes its JSON straight from the store's rows (`web/offer_json.py`, byte for byte the "
        "models' answer), gets a short page's total without a count, and on SQLite counts by "
        "searching a covering index of the filtered columns for the current snapshots; the default "
        "sort's index holds the filtered columns too, and the memory and spot price sorts read an "
        "index (migrations 9 and 10). The freshness banner of every page reads each current "
        "source's figures in one `sqlite3` query. "
        "`benchmarks/answers.py` records the answers of a fixed list of commands and API requests; "
        "they were byte-identical before and after this work.",
        "",
        "Other figures: `benchmarks/catalog.py` (query shapes at 100,000 offers in SQLite or "
        "PostgreSQL, ingest rows/s), `benchmarks/web.py` with its cache on (the default) and "
        "`--pages` (what a browser loads).",
        "",
    ])  # fmt: skip


def rewrite_readme(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index("## Speed\n")
    end = text.index("\n## ", start + 1) + 1
    path.write_text(text[:start] + section.rstrip("\n") + "\n\n" + text[end:], encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
