"""`recommend batch`: an option of the other kind of batch (--prompt for --images, --width for
--output-total) is an error naming the option; the options left unset do not count as given."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()


def test_llm_options_on_an_image_batch_are_an_error_naming_the_options() -> None:
    args = ["recommend", "batch", "sdxl", "--images", "100", "--prompt", "512", "--output", "999"]
    result = runner.invoke(app, [*args, "--input-total", "5e6"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        "error: --input-total: applies to an LLM batch (--output-total), not to an image batch (--images); "
        "so do --prompt, --output (accepted: for an image batch: --width, --height, --steps)"
    )


def test_image_options_on_an_llm_batch_are_an_error_naming_the_option() -> None:
    args = ["recommend", "batch", "llama-3.1-8b", "--output-total", "1e8", "--width", "512", "--steps", "20"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --width: applies to an image batch (--images)")
    assert "(accepted: for an LLM batch: --input-total, --prompt, --output)" in result.stderr


def test_options_left_unset_are_not_given() -> None:
    # the command passes only the options typed: an image batch does not trip on --prompt's default
    for args in (["sdxl", "--images", "10"], ["llama-3.1-8b", "--output-total", "1e6"]):
        result = runner.invoke(app, ["recommend", "batch", *args, "--json", "--top", "1"])
        assert result.exit_code == 0, result.output


def test_a_file_field_of_the_other_kind_keeps_the_files_name(tmp_path: Path) -> None:
    f = tmp_path / "w.yaml"
    f.write_text("kind: batch\nmodel: sdxl\nimages_total: 10\nprompt_tokens: 512\n")
    result = runner.invoke(app, ["recommend", "batch", "--workload", str(f)])
    assert result.exit_code == 2, result.output
    assert "prompt_tokens: applies to an LLM batch" in result.stderr
