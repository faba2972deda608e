"""A model imported with ``gpuscout models import`` is estimated by name from Python and the JSON API as
from the CLI (stop 60, faces pass): ``gpuscout estimate my-qwen`` worked, while
``gpuscout.estimate("my-qwen", "H100")`` raised "unknown name" and ``GET /api/v1/estimate?model=my-qwen``
answered 422 with curated names only, though ``/api/v1/models`` listed it and the README says an imported
model is used "by name everywhere"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import UnknownNameError
from gpuscout.user_models import import_model

QWEN = Path(__file__).parent / "fixtures" / "reference" / "hf_configs" / "Qwen--Qwen3-8B.json"


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUSCOUT_DATA_DIR", str(tmp_path / "data"))
    import_model(str(QWEN), name="my-qwen")
    return tmp_path / "data"


def test_python_cli_and_api_give_one_estimate_of_an_imported_model(data_dir: Path) -> None:
    import gpuscout
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    py = gpuscout.estimate("my-qwen", "H100", concurrency=4)
    cli = runner_json("estimate", "my-qwen", "--gpu", "H100", "--concurrency", "4")
    url = f"sqlite:///{data_dir / 'web.db'}"
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        api = client.get("/api/v1/estimate", params={"model": "my-qwen", "gpu": "H100", "concurrency": 4})
    assert api.status_code == 200, api.text
    assert py.supported and py.tpot_ms is not None
    for face in (cli, api.json()):
        assert face["tpot_ms"] == pytest.approx(py.tpot_ms)
        assert face["memory"]["weights_gb"] == pytest.approx(py.memory.weights_gb)


def test_training_estimates_read_the_imported_name_too(data_dir: Path) -> None:
    import gpuscout

    run = gpuscout.estimate_training("my-qwen", "H100", method="lora", tokens=1e6)
    assert run.fits and run.tokens_per_s > 0


def test_an_unknown_name_suggests_imported_models_too(data_dir: Path) -> None:
    import gpuscout

    with pytest.raises(UnknownNameError) as err:
        gpuscout.estimate("my-qwem", "H100")
    assert "my-qwen" in err.value.suggestions


def runner_json(*args: str) -> dict[str, object]:
    out = CliRunner().invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    body: dict[str, object] = json.loads(out.output)
    return body


def test_a_model_removed_while_the_process_runs_is_gone_at_once(data_dir: Path) -> None:
    # the curated lookup is cached; an imported one must not be (a server answered for a removed model)
    import gpuscout
    from gpuscout.user_models import remove_model

    assert gpuscout.estimate("my-qwen", "H100").supported
    remove_model("my-qwen")
    with pytest.raises(UnknownNameError):
        gpuscout.estimate("my-qwen", "H100")
