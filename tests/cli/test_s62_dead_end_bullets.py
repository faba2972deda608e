"""``gpuscout recommend``'s dead end (stop 62, a review): "Why:" said what binds and every move in one
paragraph. It now says what binds, then each move as an indented bullet whose lines wrap under its text
(at 80 columns too), in the answer's order, the last resort said so; --json gives them with their
fields."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from tests.cli.terminal_lines import terminal_output

runner = CliRunner()

ARGS = [
    "recommend", "serve", "llama-3.1-70b", "--engine", "llama.cpp", "--concurrency", "4",
    "--prompt", "1000", "--output", "300", "--budget", "500",
]  # fmt: skip


def _terminal(monkeypatch: pytest.MonkeyPatch, width: int) -> list[str]:
    """The lines printed to a colourless terminal ``width`` columns wide."""
    return terminal_output(monkeypatch, width, *ARGS)


def test_the_moves_are_bullets_wrapped_under_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _terminal(monkeypatch, 80)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    start = next(i for i, line in enumerate(lines) if line.startswith("Why: "))
    end = next(i for i, line in enumerate(lines) if line.startswith("See each offer's reason"))
    why = lines[start:end]
    first = next(i for i, line in enumerate(why) if line.startswith("    - "))
    assert " ".join(why[:first]).endswith("what would give an answer:")
    bullets: list[str] = []
    for line in why[first:]:
        if line.startswith("    - "):
            bullets.append(line[6:])
        else:
            assert line.startswith("      ") and line[6] != " ", line  # under the bullet's text
            bullets[-1] += " " + line[6:]
    assert len(bullets) == 3, bullets
    assert bullets[0].startswith("--precision gguf-q4_k_m with --budget ")
    assert bullets[1].startswith("--tpot-ms ")
    assert bullets[2].startswith("as a last resort, --latency-targets none with --budget ")
    assert "a month, serves " in bullets[2]


def test_the_json_gives_the_moves_with_their_fields() -> None:
    result = runner.invoke(app, [*ARGS, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["binding"].startswith(answer["binding_why"] + "; what would give an answer: ")
    moves = answer["moves"]
    assert [m["group"] for m in moves] == ["keeps", "relaxes", "last resort"]
    assert moves[0]["options"]["precision"] == "gguf-q4_k_m" and moves[0]["total_usd"] > 0
    assert moves[2]["options"]["latency_targets"] == "none"
    assert all(m["text"] in answer["binding"] for m in moves)
