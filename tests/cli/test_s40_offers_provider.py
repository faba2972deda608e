"""``gpuscout offers --provider`` with a provider no current offer is from is an error naming the
closest providers that have offers (as the web comparison page and ``/api/v1/offers``), not "0 of 0
offers" with exit code 0; the lean path (``cli/lean.py``) leaves the error to Typer."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.catalog.provider_ids import NoOffersFrom, provider_ids
from gpuscout.cli import app, lean

runner = CliRunner()


@pytest.mark.parametrize("extra", [(), ("--json",), ("--csv",)])
def test_a_misspelt_provider_is_an_error_with_the_closest_names(extra: tuple[str, ...]) -> None:
    result = runner.invoke(app, ["offers", "--provider", "lamdba", *extra])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "--provider: no current offer is from 'lamdba'; closest with offers: lambda" in text
    assert "0 of 0" not in text


def test_the_lean_path_leaves_the_error_to_typer(capsys: pytest.CaptureFixture[str]) -> None:
    assert lean.run(["offers", "--provider", "lamdba", "--json"]) is None
    assert capsys.readouterr().out == ""


def test_aliases_and_known_providers_still_list_their_offers() -> None:
    result = runner.invoke(
        app, ["offers", "--provider", "Vast.ai", "--provider", "lambda", "--limit", "0", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert {o["provider"] for o in json.loads(result.output)} == {"vastai", "lambda"}


def test_provider_ids_reads_aliases_and_names_the_first_provider_without_offers() -> None:
    have = {"vastai", "lambda"}
    assert provider_ids(["Vast.ai", "LAMBDA", "vast"], have.__contains__, lambda: have) == (
        "vastai",
        "lambda",
    )
    with pytest.raises(NoOffersFrom) as caught:
        provider_ids(["lambda", "lamdba", "nosuch"], have.__contains__, lambda: have, field="--provider")
    err = caught.value
    assert (err.field, err.name, err.suggestions) == ("--provider", "lamdba", ["lambda"])  # far ones dropped
    assert str(err) == "--provider: no current offer is from 'lamdba'; closest with offers: lambda"
