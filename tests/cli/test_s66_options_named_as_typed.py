"""An error about an option with one name names it as typed too (stop 66): ``gpuscout offers --sort foo``
said "sort: unknown sort 'foo'", the field's name, where an option with several names (``--users`` of
``--concurrency/--users/-c``) was already named as typed. A value read from a workload file keeps its
field's name: the user wrote the field there."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUSCOUT_DATA_DIR", str(tmp_path / "data"))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["offers", "--sort", "foo"], "error: --sort: unknown sort 'foo'"),
        (
            ["recommend", "serve", "llama-3.1-8b", "--concurrency", "8", "--top", "0"],
            "error: --top: 0 is out",
        ),
        (["estimate", "llama-3.1-8b", "--gpu", "H100", "--batch", "abc"], "--batch: "),
    ],
)
def test_a_one_name_option_is_named_as_typed(args: list[str], said: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split()), result.output


def test_a_value_from_a_workload_file_keeps_its_field(tmp_path: Path) -> None:
    f = tmp_path / "w.yaml"
    f.write_text("kind: serve\nmodel: llama-3.1-8b\nconcurrency: 8\nprecision: nonsense-format\n")
    result = runner.invoke(app, ["recommend", "serve", "--workload", str(f)])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "precision: " in text and "--precision" not in text.split("(accepted")[0], text
