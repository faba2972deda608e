"""Imported models (``gpuscout models import``): kept in the data dir, usable by name everywhere.

Every face is exercised with the same imported model: the CLI's estimate / vram / diagnose /
recommend / faq, ``gpuscout.recommend()``, and the web app's pages and JSON API.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.knowledge.model_registry import ModelRegistry
from gpuscout.knowledge.models import resolve_model
from gpuscout.user_models import import_model, load_imported, models_dir, registry, remove_model
from tests.advise.helpers import NOW, offer

CONFIGS = Path(__file__).parent / "fixtures" / "reference" / "hf_configs"
QWEN = CONFIGS / "Qwen--Qwen3-8B.json"
runner = CliRunner()


@pytest.fixture()
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUSCOUT_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_an_imported_model_is_kept_in_the_data_dir_and_parsed_again_on_load(data_dir: Path) -> None:
    done = import_model(str(QWEN), name="My Qwen")
    assert done.spec.name == "my-qwen" and done.spec.imported and not done.replaced
    assert done.path == models_dir() / "my-qwen.json" and done.path.parent.parent == data_dir
    record = json.loads(done.path.read_text())
    assert record["config"]["model_type"] == "qwen3" and record["name"] == "my-qwen"
    (spec,) = load_imported().specs
    assert spec.num_hidden_layers == resolve_model("qwen3-8b").num_hidden_layers
    assert registry().resolve("MY_QWEN").name == "my-qwen"  # case and separators as elsewhere
    assert not list(models_dir().glob("*.tmp"))  # the write was atomic: no temporary file left


def test_names_are_checked_and_never_shadow_a_curated_model(data_dir: Path) -> None:
    with pytest.raises(InvalidInputError) as exc:
        import_model(str(QWEN))  # defaults to the file's folder name: qwen3-8b is curated
    assert exc.value.field == "--name" and "curated model qwen3-8b" in str(exc.value)
    with pytest.raises(InvalidInputError):
        import_model(str(QWEN), name="bad name!")
    import_model(str(QWEN), name="mine")
    with pytest.raises(InvalidInputError) as again:
        import_model(str(QWEN), name="mine")
    assert "--force" in str(again.value)
    assert import_model(str(QWEN), name="mine", force=True).replaced
    remove_model("mine")
    with pytest.raises(UnknownNameError):
        remove_model("mine")


def test_a_config_that_cannot_be_read_is_never_kept(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096}))
    with pytest.raises(InvalidInputError):
        import_model(str(bad), name="broken")
    assert not (models_dir() / "broken.json").exists()
    with pytest.raises(InvalidInputError):
        import_model(str(tmp_path / "missing.json"), name="x")


def test_a_damaged_file_in_the_folder_is_reported_not_fatal(data_dir: Path) -> None:
    import_model(str(QWEN), name="good")
    (models_dir() / "damaged.json").write_text("{not json")
    loaded = load_imported()
    assert [s.name for s in loaded.specs] == ["good"]
    assert any("damaged.json" in p for p in loaded.problems)
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0 and "good" in result.stdout


def test_hub_ids_import_through_the_optional_hub_path(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda repo_id, filename, **_: str(QWEN))
    done = import_model("someone/Qwen3-8B-Finetune")
    assert done.spec.name == "qwen3-8b-finetune" and done.spec.hf_id == "someone/Qwen3-8B-Finetune"
    assert registry().resolve("someone/Qwen3-8B-Finetune").name == "qwen3-8b-finetune"


def test_the_registry_resolves_imported_models_first_and_suggests_them() -> None:
    from dataclasses import replace

    mine = replace(resolve_model("qwen3-8b"), name="house-model", hf_id="me/house-model", imported=True)
    reg = ModelRegistry((mine,))
    assert reg.resolve("house-model") is mine and reg.resolve("me/house-model") is mine
    assert reg.resolve("llama-3.1-8b").name == "llama-3.1-8b"
    with pytest.raises(UnknownNameError) as exc:
        reg.resolve("house-modle")
    assert exc.value.suggestions[0] == "house-model"
    assert reg.all()[-1] is mine


def test_the_name_works_in_every_cli_command(data_dir: Path) -> None:
    imported = runner.invoke(app, ["models", "import", str(QWEN), "--name", "my-qwen"])
    assert imported.exit_code == 0, imported.output
    for args in (
        ["models", "my-qwen", "--json"],
        ["estimate", "my-qwen", "--gpu", "H100", "--json"],
        ["vram", "my-qwen", "--json"],
        ["diagnose", "my-qwen", "--gpu", "A10G", "--measured-tps", "20", "--json"],
        ["recommend", "serve", "my-qwen", "-c", "4", "--json", "--top", "3"],
        [
            "recommend",
            "finetune",
            "my-qwen",
            "--method",
            "lora",
            "--dataset-tokens",
            "1e7",
            "--json",
            "--top",
            "2",
        ],
        ["faq", "my-qwen", "--json"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        assert "my-qwen" in result.stdout, args
    listing = runner.invoke(app, ["models", "--family", "qwen3", "--csv"])
    assert listing.exit_code == 0
    rows = [line.split(",")[0] for line in listing.stdout.splitlines()[1:]]
    assert "my-qwen" in rows and "qwen3-8b" in rows


def test_the_name_works_in_the_python_api_and_the_web_app(data_dir: Path) -> None:
    import gpuscout
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    import_model(str(QWEN), name="my-qwen")
    recs = gpuscout.recommend(
        {"kind": "serve", "model": "my-qwen", "concurrency": 2},
        offers=[offer("runpod", "H100-SXM", 1, 2.5)],
        now=NOW,
    )
    assert recs and recs[0].estimate is not None
    url = f"sqlite:///{data_dir / 'web.db'}"
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        body = {"workload": {"kind": "serve", "model": "my-qwen", "concurrency": 2}, "top": 2}
        api = client.post("/api/v1/recommend", json=body)
        assert api.status_code == 200, api.text
        assert api.json() and api.json()[0]["estimate"]["weights_gb"] > 0
        answer = client.post("/api/v1/advise", json=body)
        assert answer.status_code == 200 and answer.json()["picks"]["cheapest"] == 1
        assert client.get("/api/v1/models/my-qwen").status_code == 200
        assert client.get("/advise", params={"kind": "serve", "model": "my-qwen"}).status_code == 200
        assert client.get("/faq", params={"model": "my-qwen"}).status_code == 200
