"""``gpuscout gpus`` and ``gpuscout models`` through the real CLI app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.knowledge.models import all_models
from tests.conftest import REFERENCE

runner = CliRunner()


def _run(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"COLUMNS": "160"})


def test_gpus_table_has_units_and_every_accelerator() -> None:
    result = _run("gpus")
    assert result.exit_code == 0, result.output
    for unit in ("GB", "GB/s", "TFLOPS"):
        assert unit in result.stdout
    assert "H100-SXM" in result.stdout and "TPU-v5e" in result.stdout
    assert f"{len(all_accelerators())} accelerators" in result.stdout


def test_gpus_json_filters_and_sort() -> None:
    result = _run(
        "gpus", "--vendor", "nvidia", "--min-memory", "80", "--fp8", "--sort", "bandwidth", "--json"
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows and all(r["vendor"] == "NVIDIA" and r["memory_gb"] >= 80 and r["fp8_supported"] for r in rows)
    bandwidths = [r["bandwidth_gbps"] for r in rows]
    assert bandwidths == sorted(bandwidths, reverse=True)
    assert "A100-SXM4-80GB" not in {r["name"] for r in rows}  # no native FP8
    assert {"source", "confidence"} <= set(rows[0])


def test_gpus_kind_filter() -> None:
    rows = json.loads(_run("gpus", "--kind", "consumer", "--json").stdout)
    assert {r["kind"] for r in rows} == {"consumer"}
    assert "RTX4090" in {r["name"] for r in rows}


def test_gpu_detail_shows_the_usable_memory_where_recorded() -> None:
    out = _run("gpus", "L4").stdout
    assert "Usable memory" in out and "22.49 GiB" in out and "ECC" in out
    assert "Usable memory" not in _run("gpus", "H100 SXM").stdout  # not recorded for HBM parts


def test_gpu_detail_does_not_print_a_bf16_figure_as_fp16() -> None:
    """TPUs publish a BF16 rate only: the FP16 line says none is published and what fp16 work is timed at
    (it printed the BF16 918 TFLOPS under the FP16 label); a part with its own FP16 figure shows that one."""

    def words(*args: str) -> str:  # the table's cell text, whatever width the console wraps it at
        return " ".join(_run(*args).stdout.replace("│", " ").split())

    fp16_line = words("gpus", "TPU-v6e").split("FP16 (dense)")[1].split("FP8 (dense)")[0]
    assert "none published" in fp16_line and "BF16 rate, 918.0" in fp16_line
    v100 = words("gpus", "V100-SXM2-16GB")
    assert "125.0 TFLOPS" in v100.split("FP16 (dense)")[1].split("FP8 (dense)")[0]


def test_gpus_no_match_is_not_an_error() -> None:
    result = _run("gpus", "--min-memory", "100000")
    assert result.exit_code == 0
    assert "No accelerator" in result.stdout
    assert json.loads(_run("gpus", "--min-memory", "100000", "--json").stdout) == []


def test_gpu_detail_shows_source_and_resolution() -> None:
    result = _run("gpus", "A100")
    assert result.exit_code == 0, result.output
    assert "A100-SXM4-80GB" in result.stdout
    assert "not stated" in result.stdout  # bare family: says what it assumed
    assert "nvidia.com" in result.stdout  # source
    data = json.loads(_run("gpus", "NVIDIA H100 80GB HBM3", "--json").stdout)
    assert data["name"] == "H100-SXM" and data["resolution"]["exact"] is True
    assert data["bf16_tflops"] == 989.5


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("gpus", "H900-80GB-PCIe"), "A100-PCIe-80GB"),  # not in the table
        (("gpus", "RTX6000"), "ambiguous"),
        (("gpus", "--vendor", "nvdia"), "NVIDIA"),
        (("gpus", "--kind", "phone"), "datacenter"),
        (("gpus", "--sort", "price"), "bandwidth"),
        (("gpus", "--min-memory", "-1"), "--min-memory"),
        (("models", "llama-9"), "llama"),
        (("models", "--kind", "video"), "diffusion"),
        (("models", "--family", "gpt5"), "llama3"),
        (("models", "--config", "/nonexistent/config.json"), "no such file"),
    ],
)
def test_bad_input_exits_2_with_a_helpful_message_on_stderr(args: tuple[str, ...], needle: str) -> None:
    result = _run(*args)
    assert result.exit_code == 2
    assert needle in result.stderr
    assert result.stdout == ""


def test_models_table_and_json() -> None:
    result = _run("models")
    assert result.exit_code == 0, result.output
    assert "llama-3.1-8b" in result.stdout and "Params B" in result.stdout
    rows = json.loads(_run("models", "--json").stdout)
    assert len(rows) == len(all_models())
    llama = next(r for r in rows if r["name"] == "llama-3-8b")
    assert llama["params"]["total"] == 8_030_261_248
    assert llama["num_key_value_heads"] == 8


def test_models_filters() -> None:
    rows = json.loads(_run("models", "--family", "qwen3", "--json").stdout)
    assert {r["name"] for r in rows} == {
        "qwen3-0.6b",
        "qwen3-1.7b",
        "qwen3-4b",
        "qwen3-8b",
        "qwen3-14b",
        "qwen3-32b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "qwen3-coder-480b-a35b",
        # the family filter is a prefix: qwen3_next and qwen3_5_moe are Qwen3's too (stop 69)
        "qwen3-next-80b-a3b",
        "qwen3.5-27b",
        "qwen3.5-35b-a3b",
        "qwen3.5-122b-a10b",
        "qwen3.5-397b-a17b",
    }
    rows = json.loads(_run("models", "--kind", "diffusion", "--json").stdout)
    assert {r["name"] for r in rows} == {"sdxl", "flux.1-dev"}


def test_model_detail() -> None:
    result = _run("models", "DeepSeek-R1")
    assert result.exit_code == 0, result.output
    assert "deepseek-v3" in result.stdout and "MLA" in result.stdout and "fine-tune" in result.stdout
    data = json.loads(_run("models", "Llama 3.1 8B Instruct", "--json").stdout)
    assert data["name"] == "llama-3.1-8b" and data["params"]["active"] == data["params"]["total"]
    # "Weights dtype: bfloat16" alone read as if gpt-oss shipped in bf16: the published format is said
    assert "Published as" in result.stdout and "fp8-block" in result.stdout
    assert "Published as" in _run("models", "gpt-oss-120b").stdout
    assert "Published as" not in _run("models", "llama-3.1-8b").stdout  # a bf16 checkpoint: dtype says it


def test_models_config_import(tmp_path: Path) -> None:
    path = REFERENCE / "hf_configs" / "mistralai--Mixtral-8x7B-v0.1.json"
    result = _run("models", "--config", str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["imported"] is True and data["num_experts"] == 8
    assert round(data["params"]["total"] / 1e9, 1) == 46.7
    table = _run("models", "--config", str(path))
    assert table.exit_code == 0 and "Experts" in table.stdout
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096}))
    result = _run("models", "--config", str(bad))
    assert result.exit_code == 2 and "num_hidden_layers" in result.stderr


def test_models_hub_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    local = REFERENCE / "hf_configs" / "Qwen--Qwen3-8B.json"
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda repo_id, filename, **_: str(local))
    data = json.loads(_run("models", "--hub", "Qwen/Qwen3-8B", "--json").stdout)
    assert data["hf_id"] == "Qwen/Qwen3-8B" and data["head_dim"] == 128


def test_models_name_and_config_are_exclusive() -> None:
    result = _run("models", "llama-3-8b", "--config", "x.json")
    assert result.exit_code == 2


def test_gpus_and_models_take_csv_as_the_readme_says() -> None:
    import csv
    import io

    gpus = _run("gpus", "--kind", "datacenter", "--csv")
    assert gpus.exit_code == 0, gpus.output
    rows = list(csv.DictReader(io.StringIO(gpus.stdout)))
    assert rows and {"name", "memory_gb", "bandwidth_gbps", "fp8_supported"} <= set(rows[0])
    assert all(r["name"] for r in rows) and any(r["name"] == "H100-SXM" for r in rows)
    models = _run("models", "--family", "llama3", "--csv")
    assert models.exit_code == 0, models.output
    mrows = list(csv.DictReader(io.StringIO(models.stdout)))
    assert mrows and all(float(r["params_b"]) > 0 for r in mrows)
    both = _run("gpus", "--csv", "--json")
    assert both.exit_code == 2


def test_the_gpus_table_never_wraps_a_number_at_80_columns() -> None:
    # "2,250.0" TFLOPS split as "2,250." / "0" under a header wrapped to "Bandwi" / "dth"
    env = {"TTY_COMPATIBLE": "1", "COLUMNS": "80", "NO_COLOR": "1"}
    result = runner.invoke(app, ["gpus", "--kind", "datacenter", "--sort", "bandwidth"], env=env)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("│")]
    b200 = next(line for line in rows if line.startswith("│ B200 "))
    assert "2,250.0" in b200 and "8,000" in b200
    assert not [line for line in rows if line.startswith("│      ") or line.startswith("│  ")]  # no spill
    assert all(len(line) <= 80 for line in result.output.splitlines())
    assert "not shown at this width: " in " ".join(result.output.split())
