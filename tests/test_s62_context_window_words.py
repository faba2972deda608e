"""A context past a model's window names where each face takes a config.json (stop 62): the estimator's
message ended "(CLI: --config)" on every face, so the JSON API (which has no such parameter) and the Python
API sent users to a CLI flag, and ``gpuscout diagnose`` (no ``--config`` either) to one it lacks. The
message is one text, and each face passes its own words in: the CLI ``--config`` where the command has it,
the JSON API its ``model`` parameter (a model imported from that config.json), Python ``model=`` a spec
read from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout import estimate
from gpuscout.cli import app
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.arguments import ContextPastWindow
from gpuscout.web import create_app
from gpuscout.web.services import WebServices

runner = CliRunner()
PAST = "200,512 exceed llama-3.1-8b's context window of 131,072 tokens"
IMPORTED = "the name of a model imported from it by gpuscout models import PATH"


def _cli_error(argv: list[str]) -> str:
    result = runner.invoke(app, argv, env={"COLUMNS": "80"})
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


def test_the_cli_names_its_config_option() -> None:
    said = _cli_error(["estimate", "llama-3.1-8b", "--gpu", "H100", "--prompt", "200000"])
    assert said.startswith("error: --prompt: 200,000 prompt + 512 output tokens = " + PAST)
    assert "scaled length (--config)" in said
    assert "CLI" not in said and "model_from_hf_config" not in said
    said = _cli_error(["vram", "llama-3.1-8b", "--context", "200000"])
    assert "scaled length (--config)" in said


def test_a_command_without_a_config_option_names_an_imported_model() -> None:
    diagnose = ["diagnose", "llama-3.1-8b", "--gpu", "H100", "--measured-tps", "50"]
    said = _cli_error([*diagnose, "--context", "200000"])
    assert said.startswith("error: --context: 200,000 tokens exceed")
    assert "--config" not in said and "CLI" not in said
    assert f"scaled length (model: {IMPORTED})" in said


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    url = f"sqlite:///{tmp_path / 'web.db'}"
    return TestClient(create_app(url, services=WebServices(url, cache_seconds=0)))


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("/api/v1/estimate", {"model": "llama-3.1-8b", "gpu": "H100", "context_in": 200000}, "context_in"),
        ("/api/v1/models/phi-1.5", {"context": 4096}, "context"),
    ],
)
def test_the_json_api_names_its_own_parameter(
    client: TestClient, path: str, params: dict[str, object], field: str
) -> None:
    with client:
        r = client.get(path, params=params)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"] == field
    assert body["message"].endswith(f"scaled length (model: {IMPORTED}) (accepted: {body['accepted']})")
    assert "--config" not in body["message"] and "CLI" not in body["message"]


def test_python_names_the_model_argument() -> None:
    with pytest.raises(ContextPastWindow) as raised:
        estimate("llama-3.1-8b", "H100", context_in=200000)
    said = str(raised.value)
    assert said.startswith(f"context_in: 200,000 prompt + 512 output tokens = {PAST}")
    assert "scaled length (model=gpuscout.loaders.model_from_hf_config(path), or " + IMPORTED + ")" in said
    assert "--config" not in said and "CLI" not in said
    with pytest.raises(ContextPastWindow):
        memory_needed("llama-3.1-8b", "H100", context=200000)


def test_the_faces_words_differ_only_where_the_config_is_given() -> None:
    with pytest.raises(ContextPastWindow) as raised:
        estimate("llama-3.1-8b", "H100", context_in=200000)
    core = raised.value
    cli = core.given_as("--config")
    assert (cli.field, cli.accepted) == (core.field, core.accepted)
    assert re.sub(r"\(--config\)", f"({core.config_input})", cli.message) == core.message
