"""The rule of a named engine on the faces: the JSON API and the web advisor share the advisor (an engine
given runs on every row, a GPU it cannot run on is left out with the rule; the form's "auto", a blank
engine, is the default, replaced where it cannot run), and the CLI's --engine / --precision help says so."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app as cli_app
from tests.advise.web_helpers import web_client, web_offer


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    offers = [web_offer("v100", "V100-SXM2-16GB", 16, 0.3), web_offer("h100", "H100-SXM", 80, 2.5)]
    with web_client(tmp_path, offers) as c:
        yield c


def _advise(client: TestClient, engine: str | None) -> dict:
    workload = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 4}
    if engine is not None:
        workload["engine"] = engine
    answer = client.post("/api/v1/advise", json={"workload": workload, "show_rejected": True})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _gpu(row: dict) -> str:
    return str(row["offer"]["accelerator"])


def test_the_json_api_runs_a_named_engine_on_every_row(client: TestClient) -> None:
    named = _advise(client, "tensorrt-llm")
    rows = named["recommendations"]
    assert [_gpu(r) for r in rows] == ["H100-SXM"], rows
    assert all(r["substitution"] is None for r in rows)
    (v100,) = [r for r in named["rejected"] if _gpu(r) == "V100-SXM2-16GB"]
    assert "TensorRT-LLM does not run on V100-SXM2-16GB (CC 7.0) at all" in v100["rejected"]
    # the form's "auto" (a blank engine) and no engine at all: the default, replaced on the V100 (said)
    for default in (_advise(client, ""), _advise(client, None)):
        (row,) = [r for r in default["recommendations"] if _gpu(r) == "V100-SXM2-16GB"]
        assert row["substitution"] and "instead" in row["substitution"]


def test_the_web_advisor_leaves_out_the_gpu_a_named_engine_cannot_run_on(client: TestClient) -> None:
    params = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": "4"}
    named = client.get("/advise", params={**params, "engine": "tensorrt-llm"})
    auto = client.get("/advise", params={**params, "engine": ""})
    assert named.status_code == auto.status_code == 200
    assert "runs llama.cpp" in auto.text  # the default engine's substitute, said on the V100's row
    assert "runs llama.cpp" not in named.text


def _help(command: str, option: str) -> str:
    out = CliRunner().invoke(cli_app, ["recommend", command, "--help"], env={"COLUMNS": "300"}).output
    text = re.sub(r"[│\s]+", " ", out)
    start = text.index(f" {option} ")
    return text[start : start + 700]


@pytest.mark.parametrize("command", ["serve", "batch"])
def test_the_help_says_a_named_engine_is_never_replaced(command: str) -> None:
    engine = _help(command, "--engine")
    assert "every row runs it, never another engine" in engine, engine
    assert "without --precision it runs the nearest precision it has there" in engine, engine
    precision = _help(command, "--precision")
    assert "Where the default engine cannot run it" in precision
    assert "with --engine and --precision both given" in precision
