"""Text the CLI wraps in an 80-column terminal keeps web addresses whole and bullets indented.

``estimate``'s support assumption printed its rules' sources inside a table cell, folded mid-address
(".../blob/v0.33.0/vll" / "m/platforms/cuda.py"): neither clicked nor copied. The addresses are now
numbered in the cell ("(source: [1], [2])") and printed whole below the table, one a line (the terminal
shows what is wider than it); a refused estimate's sources likewise. ``faq``'s bullets wrapped to column
0; their lines now stay under the bullet's text.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from gpuscout.cli import advise_cmds, app, consoles, estimate_cmds, output  # noqa: F401 (loaded to patch)
from tests.cli.terminal_lines import terminal_output

runner = CliRunner()
URL = re.compile(r"https?://[^\s,)]+")


def _terminal(monkeypatch: pytest.MonkeyPatch, width: int, *args: str) -> list[str]:
    """What ``gpuscout ARGS`` prints at ``width`` columns (:func:`terminal_output`).
    Lines may be wider (an address)."""
    return terminal_output(monkeypatch, width, *args)


def _urls_whole(lines: list[str], text: str, width: int) -> None:
    urls = URL.findall(text)
    assert urls, text
    for url in urls:  # each whole on a line of its own, after its number
        assert any(re.fullmatch(rf"\[\d+\] {re.escape(url)}", line) for line in lines), (url, lines)
    assert all(len(line) <= width for line in lines if not URL.search(line))


def test_estimate_prints_the_support_rules_sources_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["estimate", "llama-3.1-8b", "--gpu", "MI300X", "--engine", "sglang", "--precision", "fp8"]
    support = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["assumptions"]["support"]
    lines = _terminal(monkeypatch, 80, *args)
    _urls_whole(lines, support, 80)
    assert any("(source: [1], [2]" in line for line in lines)  # the cell names them by number


def test_a_refused_estimate_prints_its_sources_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["estimate", "llama-3.1-8b", "--gpu", "V100-SXM2-16GB", "--precision", "fp8"]
    support = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["assumptions"]["support"]
    lines = _terminal(monkeypatch, 80, *args)
    _urls_whole(lines, support, 80)


def test_faq_bullets_wrap_under_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = json.loads(runner.invoke(app, ["faq", "llama-3.1-8b", "--json"]).stdout)["answers"]
    lines = _terminal(monkeypatch, 80, "faq", "llama-3.1-8b")
    assert all(len(line) <= 80 for line in lines)
    bullets: list[list[str]] = []
    for line in lines:
        if line.startswith("  • "):
            bullets.append([line[4:]])
        elif bullets and bullets[-1] and line.startswith("    ") and line[4] != " ":
            bullets[-1].append(line[4:])
        elif bullets:
            bullets.append([])  # the bullet ended: a line at the left edge is no part of it
    shown = [" ".join(b) for b in bullets if b]
    details = [d for a in answers for d in a["details"]]
    assert shown == details
    assert any(len(b) > 1 for b in bullets)  # some did wrap
