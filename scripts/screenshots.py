"""Look at what you build: every web page at 1440 and 390 px, and the CLI at 80 columns.

    python scripts/screenshots.py OUT_DIR [--pages-only | --cli-only] [--page PATH ...] [--db URL]

Serves the web app on loopback from a fresh store in a temporary data dir (the bundled snapshot, no
network), takes a full-page screenshot of each page in ``PAGES`` at both widths with Debian's Chromium
(``/usr/bin/chromium`` through Playwright; never a browser download), and writes the text the CLI prints
for ``CLI`` at 80 columns. The files are for a human look; nothing is asserted and nothing is committed.
The browser tests (tests/web/) check the same pages' layout rules. ``--page`` shoots only the pages given
(any path, in ``PAGES`` or not); ``--db`` serves an existing store instead (a price history to look at).
"""

from __future__ import annotations

import argparse
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
WIDTHS = {"1440": (1440, 900), "390": (390, 844)}
PAGES = (
    "/",
    "/?pricing=spot",
    "/?gpu=H100",
    "/?gpu=H1000&region=eu-",
    "/advise",
    "/advise?kind=serve&model=llama-3.1-8b&concurrency=8&prompt_tokens=2000&output_tokens=500",
    "/advise?kind=serve&model=llama-3.1-70b&precision=fp8&concurrency=16&prompt_tokens=4000&output_tokens=800",
    "/advise?kind=finetune&model=llama-3-70b&method=qlora&dataset_tokens=50000000&epochs=2&spot_allowed=true",
    "/advise?kind=pretrain&model=llama-3.1-8b&token_budget=100000000000",
    "/advise?kind=batch&model=sdxl&images_total=100000",
    "/advise?kind=serve&model=llama-3.1-8b&concurrency=-3",
    "/gpus",
    "/gpus/H100-SXM",
    "/gpus/H999",
    "/models",
    "/models/llama-3.1-70b",
    "/faq?model=llama-3.1-405b",
    "/sources",
    "/docs",
)
CLI = (
    "--help",
    "offers --gpu H100 --limit 15",
    "vram llama-3.1-70b --precision int4 --context 32768",
    "estimate llama-3.1-70b --gpu H100 --gpus 2 --precision fp8 --concurrency 16 --context-in 2000"
    " --context-out 500",
    "estimate llama-3.1-8b --gpu V100 --precision fp8 --engine vllm",
    "recommend serve llama-3.1-8b --concurrency 32 --prompt 2000 --output 500",
    "recommend serve llama-3.1-70b --precision fp8 --concurrency 16 --prompt 4000 --output 800",
    "recommend serve llama-3.1-8b --bursts 20 --burst-minutes 6",
    "recommend finetune llama-3-70b --method qlora --dataset-tokens 50e6 --epochs 2 --spot",
    "recommend batch flux.1-dev --images 10000 --steps 28",
    "faq llama-3.1-70b",
    "sources",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _name(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text).strip("_")[:90] or "root"


def shoot_pages(out: Path, data_dir: Path, pages: tuple[str, ...] = PAGES, db: str | None = None) -> None:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from gpuscout.web.app import create_app

    app = create_app(db or f"sqlite:///{data_dir / 'gpuscout.db'}")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            sys.exit("the web app did not start")
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
            for width, (w, h) in WIDTHS.items():
                context = browser.new_context(viewport={"width": w, "height": h})
                page = context.new_page()
                for path in pages:
                    page.goto(base + path, timeout=60_000)
                    page.wait_for_load_state("networkidle")
                    target = out / f"{_name(path)}_{width}.png"
                    page.screenshot(path=str(target), full_page=True)
                    print(target)
                context.close()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _run_in_terminal(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """Run ``argv`` on a pseudo-terminal (what a user sees in an 80-column window), return (exit, text)."""
    import pty
    import select

    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv, env=env, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(leader)
    code = proc.wait(timeout=10)
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def capture_cli(out: Path, data_dir: Path) -> None:
    env = {**os.environ, "COLUMNS": "80", "LINES": "50", "GPUSCOUT_DATA_DIR": str(data_dir), "NO_COLOR": "1"}
    env.pop("GPUSCOUT_DB", None)
    for command in CLI:
        argv = [sys.executable, "-m", "gpuscout", *shlex.split(command)]
        code, text = _run_in_terminal(argv, env, timeout=300)
        target = out / f"cli_{_name(command)}.txt"
        target.write_text(f"$ gpuscout {command}\n(exit {code})\n{text}")
        widest = max((len(line) for line in text.splitlines()), default=0)
        print(f"{target}  exit {code}, widest line {widest}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--pages-only", action="store_true")
    only.add_argument("--cli-only", action="store_true")
    parser.add_argument("--page", action="append", default=[], help="a page to shoot (repeatable)")
    parser.add_argument("--db", help="serve this store (a database URL) instead of a fresh one")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GPUSCOUT_DATA_DIR"] = tmp
        if not args.cli_only:
            if not CHROMIUM.exists():
                sys.exit(f"{CHROMIUM} not found: apt-get install chromium")
            shoot_pages(args.out, Path(tmp), tuple(args.page) or PAGES, args.db)
        if not args.pages_only:
            capture_cli(args.out, Path(tmp))


if __name__ == "__main__":
    main()
