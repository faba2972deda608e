"""An unknown option is answered with the command's options about the same thing, not only those spelled
alike: `recommend batch --tokens` offered `--top`; the total is `--output-total`."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()


def _suggested(args: list[str]) -> set[str]:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.replace("│", " ").split())
    found = re.search(r"No such option: \S+ \((?:Possible options: |Did you mean )([^)]*)\)", text)
    assert found, text
    return {o.strip(" ?") for o in found.group(1).split(",")}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["recommend", "batch", "llama-3.1-8b", "--tokens", "1e9"], {"--output-total", "--input-total"}),
        (["estimate", "llama-3.1-8b", "--gpu", "H100", "--num-gpus", "2"], {"--gpus"}),
        (["recommend", "serve", "llama-3.1-8b", "--users-max", "3"], {"--concurrency"}),
    ],
)
def test_an_unknown_option_is_answered_with_options_about_the_same_thing(
    args: list[str], expected: set[str]
) -> None:
    assert expected <= _suggested(args)


def test_a_misspelled_option_still_gets_clicks_spelling_match() -> None:
    assert "--concurrency" in _suggested(["recommend", "serve", "llama-3.1-8b", "--concurency", "3"])


@pytest.mark.parametrize("command", ["prune", "sources"])
def test_an_environment_variable_in_a_help_is_not_a_word_of_it(command: str) -> None:
    """`--db`'s help names $GPUSCOUT_DB: `prune --gpu` was offered `--db` as an option about GPUs."""
    result = runner.invoke(app, [command, "--gpu", "H100"])
    assert result.exit_code == 2, result.output
    assert "--db" not in " ".join(result.output.replace("│", " ").split())
