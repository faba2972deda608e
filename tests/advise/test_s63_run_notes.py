"""A GPU's reason for running otherwise than asked is said once (stop 63).

``recommend serve llama-3.1-8b --precision awq`` ran the V100 rows with llama.cpp in place of vLLM,
and every V100 row's "why" repeated the support rule (vLLM on Volta, a dozen lines) while the title
already said "in place of vllm". The human faces (the CLI's table, the web page) now say the reason
once, as a numbered note naming its GPUs, and each of its rows says what differs ("llama.cpp in place of
vllm (note 1)"); the JSON keeps each row's whole reason for machine readers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from gpuscout.advise.api import advise
from gpuscout.advise.run_notes import run_notes
from gpuscout.cli import app
from gpuscout.cli.advise_output import why_text
from tests.advise.web_helpers import web_client, web_offer

SERVE = (
    "recommend",
    "serve",
    "llama-3.1-8b",
    "-c",
    "8",
    "--precision",
    "awq",
    "--gpu",
    "V100",
    "--gpu",
    "A4000",
)
#: a word of the Volta rule that no other text of the answer has (``knowledge`` support rules)
RULE_WORD = "sm_70"
WORKLOAD = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8, "precision": "awq"}


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_json_keeps_each_rows_whole_reason() -> None:
    rows = json.loads(_cli(*SERVE, "--json"))["recommendations"]
    v100 = [r for r in rows if r["offer"]["accelerator"].startswith("V100")]
    assert len(v100) >= 2
    for r in v100:
        assert RULE_WORD in r["substitution"] and r["substitution"].endswith("instead")

    # the Python API too: the row's reasons hold it whole
    offers = [web_offer("v100a", "V100-SXM2-16GB", 16, 0.3), web_offer("v100b", "V100-SXM2-16GB", 16, 0.35)]
    for rec in advise(WORKLOAD, offers).rows:
        assert rec.substitution and RULE_WORD in rec.substitution and rec.substitution in rec.reasons


def test_the_table_says_the_rule_once_in_a_note() -> None:
    rows = json.loads(_cli(*SERVE, "--json"))["recommendations"]
    texts = {r["substitution"] for r in rows if r["substitution"]}
    assert texts and all(RULE_WORD in t for t in texts)
    out = _cli(*SERVE)
    note = re.search(r"• note 1, (\S+(?: / \S+)*) rows: ", out)
    assert note is not None, out
    per_text = next(iter(texts)).count(RULE_WORD)
    assert out.count(RULE_WORD) == per_text  # once, in the note; before: on every V100 row


def test_each_row_says_what_differs_and_the_note_it_points_to() -> None:
    offers = [
        web_offer("v100a", "V100-SXM2-16GB", 16, 0.3),
        web_offer("v100b", "V100-SXM2-16GB", 16, 0.35),
        web_offer("v100c", "V100-SXM2-32GB", 32, 0.4),
        web_offer("a4000", "A4000", 16, 0.2),
    ]
    answer = advise(WORKLOAD, offers)
    notes = run_notes(answer.rows)
    (note,) = notes  # the 16 and 32 GB boards share the rule: one note naming both
    assert note.gpus == ("V100-SXM2-16GB", "V100-SXM2-32GB") or note.gpus == (
        "V100-SXM2-32GB",
        "V100-SXM2-16GB",
    )
    assert "on V100-SXM2-" in note.text and RULE_WORD in note.text
    for rec in answer.rows:
        why = why_text(rec, notes, answer.asked_run)
        if rec.offer.accelerator == "A4000":
            assert why == rec.top_reason and "note" not in why
            continue
        assert why.startswith("llama.cpp in place of vllm (note 1); ")
        assert RULE_WORD not in why
        rest = next(r for r in rec.reasons if r != rec.substitution)
        assert why.endswith(rest)  # the row's own next reason: its fit, or the row that beats it


def test_the_web_page_says_the_rule_once_and_each_row_points_to_it(tmp_path: Path) -> None:
    offers = [
        web_offer("v100a", "V100-SXM2-16GB", 16, 0.3),
        web_offer("v100b", "V100-SXM2-16GB", 16, 0.35, region="eu-west-1"),
        web_offer("h100", "H100-SXM", 80, 2.5),
    ]
    params = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": "8", "precision": "awq"}
    with web_client(tmp_path, offers) as client:
        page = client.get("/advise", params=params)
        api = client.post(
            "/api/v1/advise",
            json={
                "workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8, "precision": "awq"}
            },
        )
    assert page.status_code == api.status_code == 200, page.text
    rows = api.json()["recommendations"]
    v100 = [r for r in rows if r["offer"]["accelerator"] == "V100-SXM2-16GB"]
    assert len(v100) == 2 and all(RULE_WORD in r["substitution"] for r in v100)  # the API keeps it whole
    notes = re.search(r'<div class="caveats" id="run-notes".*?</div>', page.text, re.S)
    assert notes is not None and notes.group().count(RULE_WORD) == v100[0]["substitution"].count(RULE_WORD)
    cells = re.findall(r'<td class="key-reason".*?</td>', page.text, re.S)
    assert not any(RULE_WORD in c for c in cells)  # before: the whole rule in each V100 row's Note
    assert sum("llama.cpp in place of vllm (note 1)" in c for c in cells) == 2
