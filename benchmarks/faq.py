"""Speed of the FAQ answers (``gpuscout faq MODEL``, the web ``/faq?model=MODEL``), cold and warm.

    python benchmarks/faq.py [--runs 5] [--model NAME ...] [--json]

For each model, ``--runs`` times:

- **CLI**: ``python -m gpuscout faq MODEL`` in its own process on a data dir loaded once beforehand
  (the bundled snapshot): the wall time of the whole command (start-up included) -- what a user waits.
- **web cold**: a fresh process starts the app (FastAPI's test client over the same store) and requests
  ``/faq?model=MODEL`` once: no answer is cached yet, in the process or the web layer (the first visit
  after a start or a catalog refresh).
- **web warm**: the same request again in that process: the page's answers come from the web cache.
- **faq() cold / warm**: the Python call alone, in a fresh process (the estimator's per-model caches
  empty), then again in the same one (those caches filled; nothing of the answer itself is kept).

Medians (and min/max) over the runs are printed, in seconds. The answers themselves are compared
before/after a change with ``benchmarks/answers.py`` (it records ``gpuscout faq`` text and ``--json``
and the ``/faq`` page for several models).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODELS = ("gemma-2-27b", "gpt-oss-120b", "llama-3.1-70b", "llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3")

_CHILD = r"""
import json, sys, time
model = sys.argv[1]
t0 = time.perf_counter()
from fastapi.testclient import TestClient
from gpuscout.advise.backends import default_backends
from gpuscout.advise.faq import faq
from gpuscout.catalog.api import current_offers
from gpuscout.user_models import registry
from gpuscout.web.app import app_from_env
if sys.argv[2] == "web":
    with TestClient(app_from_env()) as client:
        client.get("/api/v1/gpus")  # the app started, its store opened: not the FAQ's time
        out = {}
        for label in ("cold", "warm"):
            t = time.perf_counter()
            r = client.get("/faq", params={"model": model})
            out[label] = time.perf_counter() - t
            assert r.status_code == 200, r.status_code
else:
    offers = current_offers()
    out = {}
    for label in ("cold", "warm"):
        t = time.perf_counter()
        faq(model, offers, backends=default_backends(registry()))
        out[label] = time.perf_counter() - t
print(json.dumps(out))
"""


def _child(model: str, what: str, env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, model, what], env=env, capture_output=True, text=True, timeout=600
    )
    if done.returncode:
        raise SystemExit(f"{what} {model} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _cli(model: str, env: dict[str, str]) -> float:
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "gpuscout", "faq", model], env=env, capture_output=True, timeout=600
    )
    if done.returncode:
        raise SystemExit(f"gpuscout faq {model} failed:\n{done.stderr.decode()}")
    return time.perf_counter() - t


def _stats(xs: list[float]) -> dict[str, float]:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", action="append", help=f"default: {', '.join(MODELS)}")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    results: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "GPUSCOUT_DATA_DIR": str(Path(tmp) / "data"),
            "GPUSCOUT_WEB_CACHE_SECONDS": "60",
            "COLUMNS": "200",
            "NO_COLOR": "1",
        }
        env.pop("GPUSCOUT_DB", None)
        subprocess.run([sys.executable, "-m", "gpuscout", "gpus", "H100"], env=env, capture_output=True)
        for model in args.model or MODELS:
            times: dict[str, list[float]] = {}
            for _ in range(args.runs):
                times.setdefault("cli", []).append(_cli(model, env))
                for what in ("web", "faq()"):
                    for label, secs in _child(model, "web" if what == "web" else "call", env).items():
                        times.setdefault(f"{what} {label}", []).append(secs)
            results[model] = {k: _stats(v) for k, v in times.items()}
            if not args.json:
                row = "  ".join(f"{k} {v['median']:.3f}" for k, v in results[model].items())
                print(f"{model:16} {row}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
