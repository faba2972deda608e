"""Record the answers of a fixed list of CLI commands and API requests, to check that a change keeps
them byte-identical.

    python benchmarks/answers.py record DIR     # one file per command/request under DIR
    python benchmarks/answers.py compare A B    # the files that differ between two recordings

Every command runs in its own process (``python -m gpuscout``) on a fresh data dir, so the store is
the bundled snapshot loaded on first use; output goes to a pipe at a fixed width. The API and the
offers page are requested in-process through FastAPI's test client, with the web cache off. Each
file holds the exit code, stdout and stderr. The speed work of issue 12 was checked this way:
recorded at the branch point, recorded again after, compared (README "Speed").
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MODEL = "llama-3.1-8b"
# the FAQ's answers (their speed work: benchmarks/faq.py): dense, sliding-window, MoE, MLA, MXFP4
FAQ_MODELS = ("gemma-2-27b", "gpt-oss-120b", "llama-3.1-70b", "llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3")
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("offers",),
    ("offers", "--gpu", "H100"),
    ("offers", "--gpu", "H100", "--json"),
    ("offers", "--gpu", "H100", "--csv"),
    ("offers", "--gpu", "H100", "--limit", "0", "--json"),
    ("offers", "--limit", "0", "--csv"),
    ("offers", "--limit", "0"),
    ("offers", "--gpu", "A100", "--gpu", "L4", "--sort", "price_per_gpu"),
    ("offers", "--sort", "tflops_per_dollar", "--limit", "15"),
    ("offers", "--sort", "bandwidth_per_dollar", "--spot"),
    ("offers", "--spot", "--max-price", "5", "--sort", "spot_price"),
    ("offers", "--on-demand", "--sort", "price_per_gb_vram"),
    ("offers", "--provider", "aws", "--provider", "vast", "--region", "us"),
    ("offers", "--min-vram", "80", "--gpus", "8", "--sort", "gpu_memory"),
    ("offers", "--interconnect", "nvlink", "--available", "--no-stale"),
    ("offers", "--sort", "age", "--limit", "5"),
    ("offers", "--sort", "instance_type", "--limit", "12"),
    ("offers", "--sort", "provider", "--limit", "0", "--json"),
    ("offers", "--gpu", "H10O"),
    ("offers", "--limit", "-1"),
    ("offers", "--sort", "cheap"),
    ("offers", "--interconnect", "infiniband"),
    ("offers", "--spot", "--on-demand"),
    ("recommend", "serve", MODEL, "--concurrency", "32", "--prompt", "2000", "--output", "500"),
    ("recommend", "serve", MODEL, "--concurrency", "32", "--prompt", "2000", "--output", "500", "--json"),
    ("recommend", "serve", MODEL, "--concurrency", "8", "--rejected", "--csv"),
    ("recommend", "serve", MODEL, "-c", "16", "--explain", "1"),
    ("recommend", "serve", "llama-3.1-70b", "--rps", "2", "--objective", "latency", "--top", "5"),
    ("recommend", "batch", MODEL, "--output-total", "1e9", "--json"),
    ("recommend", "finetune", MODEL, "--method", "lora", "--dataset-tokens", "5e7"),
    ("recommend", "pretrain", "llama-3.2-1b", "--tokens", "1e10", "--gpus", "8"),
    ("recommend", "serve", "no-such-model"),
    ("gpus",),
    ("gpus", "H100"),
    ("models",),
    ("estimate", MODEL, "--gpu", "H100"),
    ("vram", MODEL),
    ("--help",),
    ("--version",),
    *(
        (name, "--help")
        for name in (
            "gpus",
            "models",
            "vram",
            "estimate",
            "diagnose",
            "transcribe",
            "refresh",
            "sources",
            "offers",
            "history",
            "prune",
            "faq",
            "serve",
            "recommend",
        )
    ),
    *(("recommend", kind, "--help") for kind in ("serve", "batch", "finetune", "pretrain")),
    *(("faq", m, *json) for m in FAQ_MODELS for json in ((), ("--json",))),
    ("faq", "llama-3.1-70b", "--context", "32768", "--users", "4", "--gpu", "L40S", "--precision", "fp8"),
    (),
)
REQUESTS: tuple[str, ...] = (
    "/api/v1/offers",
    "/api/v1/offers?gpu=H100",
    "/api/v1/offers?gpu=A100&sort=price&order=desc",
    "/api/v1/offers?pricing=spot&sort=spot_price",
    "/api/v1/offers?min_vram=48&gpus=8&interconnect=nvlink",
    "/api/v1/offers?provider=aws,gcp&page=2",
    "/api/v1/offers?region=us-&available=true&sort=age",
    "/api/v1/offers?sort=vram&order=desc&page=3",
    "/api/v1/offers?per_page=100&sort=provider",
    "/api/v1/offers?gpu=nonsense",
    "/api/v1/gpus",
    "/api/v1/gpus/H100",
    "/api/v1/models",
    "/",
    "/?gpu=H100&sort=price_per_gpu",
    "/?pricing=spot&page=2",
    "/offers.csv?gpu=A100",
    "/offers.json?gpu=L4",
    *(f"/faq?model={m}" for m in FAQ_MODELS),
    "/faq?model=llama-3.1-70b&context=32768&users=4&gpu=L40S&precision=fp8",
)


def _name(parts: tuple[str, ...]) -> str:
    text = "_".join(parts) or "no-args"
    safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in text)[:80]
    return f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:8]}.txt"


def record(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "GPUSCOUT_DATA_DIR": str(Path(tmp) / "data"),
            "COLUMNS": "200",
            "NO_COLOR": "1",
            "TERM": "dumb",
        }
        env.pop("GPUSCOUT_DB", None)
        for parts in COMMANDS:
            done = subprocess.run(
                [sys.executable, "-m", "gpuscout", *parts], env=env, capture_output=True, timeout=300
            )
            (out / ("cli-" + _name(parts))).write_bytes(
                b"exit %d\n--- stdout\n%s\n--- stderr\n%s" % (done.returncode, done.stdout, done.stderr)
            )
        _record_requests(out, env)


def _record_requests(out: Path, env: dict[str, str]) -> None:
    os.environ.update(GPUSCOUT_DATA_DIR=env["GPUSCOUT_DATA_DIR"], GPUSCOUT_WEB_CACHE_SECONDS="0")
    from fastapi.testclient import TestClient

    from gpuscout.web.app import app_from_env

    with TestClient(app_from_env()) as client:
        for path in REQUESTS:
            response = client.get(path)
            (out / ("api-" + _name((path,)))).write_bytes(
                b"status %d\n%s\n--- body\n%s"
                % (response.status_code, response.headers.get("content-type", "").encode(), response.content)
            )


def compare(a: Path, b: Path) -> int:
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    differ = [
        n
        for n in names
        if not (a / n).exists() or not (b / n).exists() or (a / n).read_bytes() != (b / n).read_bytes()
    ]
    for n in differ:
        print(f"differs: {n}")
    print(f"{len(names) - len(differ)} of {len(names)} answers identical")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("record").add_argument("dir", type=Path)
    cmp = sub.add_parser("compare")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.cmd == "record":
        record(args.dir)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
