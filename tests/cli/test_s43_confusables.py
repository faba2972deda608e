"""The command line: pasted names with look-alike characters resolve; an error about an option with
several names names the one typed.

Regressions: ``gpuscout estimate "Llama‑3.1‑8B" --gpu H100`` (U+2011) answered "unknown name ...;
closest known: llama-3.1-8b", ``--gpu H１００`` "closest known: none close", ``--gpu "RTX 4090"`` with a
no-break space, ``--provider "Lambda Labs"`` with one, likewise. And ``-c 0`` answered
"error: --concurrency: ..." (``estimate``), ``--users 0`` / ``-c 0`` to ``recommend serve``
"error: --concurrency: ...", ``--request-rate -1`` "error: --rps: ...", ``faq -c 0`` "error: users: ...",
``-o`` / ``-w`` "objective:" / "workload:": none said what was typed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app, lean

runner = CliRunner()
FULLWIDTH = str.maketrans(
    {c: chr(ord(c) + 0xFEE0) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}
)


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return res.stdout


def _error(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len(res.stderr.strip().splitlines()) == 1, res.stderr
    return res.stderr.strip()


@pytest.mark.parametrize(
    "model",
    [
        "Llama\u20113.1\u20118B",  # non-breaking hyphen
        "Llama\u20103.1\u20108B",  # hyphen
        "Llama\u20133.1\u20148B",  # en dash, em dash
        "Llama\u22123.1\u22128B",  # minus sign
        "Llama-3.1-8B".translate(FULLWIDTH),
        "Llama\u00a03.1\u202f8B",  # no-break, narrow no-break space
        "\ufeffllama-3.1-8b\u200b",  # byte-order mark, zero-width space
    ],
)
def test_estimate_takes_a_pasted_model_name(model: str) -> None:
    data = json.loads(_ok(["estimate", model, "--gpu", "H100", "--json"]))
    assert data["model"] == "llama-3.1-8b"


@pytest.mark.parametrize(
    ("gpu", "part"),
    [
        ("H100".translate(FULLWIDTH) + "\u00a0SXM", "H100-SXM"),
        ("RTX\u00a04090", "RTX4090"),
        ("RTX\u202f4090", "RTX4090"),
        ("RTX\u20134090\u200b", "RTX4090"),
    ],
)
def test_estimate_takes_a_pasted_gpu_name(gpu: str, part: str) -> None:
    data = json.loads(_ok(["estimate", "llama-3.1-8b", "--gpu", gpu, "--json"]))
    assert data["gpu"] == part


def test_estimate_takes_pasted_engine_and_precision_names() -> None:
    data = json.loads(
        _ok(
            [
                "estimate",
                "llama-3.1-8b",
                "--gpu",
                "H100 SXM",
                "--engine",
                "TensorRT\u2011LLM",
                "--precision",
                "FP8".translate(FULLWIDTH),
                "--json",
            ]
        )
    )
    assert (data["engine"], data["precision"]) == ("tensorrt-llm", "fp8")


@pytest.mark.parametrize("provider", ["Lambda\u00a0Labs", "lambda\u200b", "Lambda".translate(FULLWIDTH)])
def test_offers_takes_a_pasted_provider_name(provider: str) -> None:
    rows = json.loads(_ok(["offers", "--provider", provider, "--limit", "0", "--json"]))
    assert rows and {r["provider"] for r in rows} == {"lambda"}


def test_the_lean_offers_path_takes_it_too_or_leaves_it_to_typer(capsys: pytest.CaptureFixture[str]) -> None:
    code = lean.run(["offers", "--provider", "Lambda\u00a0Labs", "--limit", "0", "--json"])
    out = capsys.readouterr().out
    if code is not None:
        assert code == 0 and {r["provider"] for r in json.loads(out)} == {"lambda"}


def test_a_name_still_unknown_is_shown_as_typed_with_the_closest_names() -> None:
    text = _error(["estimate", "Llama\u20113.1\u20118Bx", "--gpu", "H100"])
    assert text.startswith(
        "error: model: unknown name 'Llama\u20113.1\u20118Bx'; closest known: llama-3.1-8b"
    )
    text = _error(["estimate", "llama-3.1-8bx\u200b", "--gpu", "H100"])
    assert "unknown name 'llama-3.1-8bx\\u200b'" in text  # the invisible character shows
    text = _error(["estimate", "llama-3.1-8b", "--gpu", "H1000".translate(FULLWIDTH)])
    assert text.startswith(
        "error: --gpu: unknown name '" + "H1000".translate(FULLWIDTH) + "'; closest known: H100"
    )


# ---- an option with several names is named as typed ---------------------------------------------
ESTIMATE = ["estimate", "llama-3.1-8b", "--gpu", "L4"]
SERVE = ["recommend", "serve", "llama-3.1-8b"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([*ESTIMATE, "-c", "0"], "error: -c: 0 is out of range"),
        ([*ESTIMATE, "-c0"], "error: -c: 0 is out of range"),
        ([*ESTIMATE, "--users", "0"], "error: --users: 0 is out of range"),
        ([*ESTIMATE, "--concurrency", "0"], "error: --concurrency: 0 is out of range"),
        ([*ESTIMATE, "--users", "5", "-c", "0"], "error: -c: 0 is out of range"),  # the last one counts
        ([*ESTIMATE, "--request-rate", "0"], "error: --request-rate: 0.0 is out of range"),
        ([*SERVE, "-c", "0"], "error: -c: 0 is out of range"),
        ([*SERVE, "--users", "0"], "error: --users: 0 is out of range"),
        ([*SERVE, "--concurrency", "0"], "error: --concurrency: 0 is out of range"),
        ([*SERVE, "--request-rate", "-1"], "error: --request-rate: -1 is out of range"),
        ([*SERVE, "--rps", "-1"], "error: --rps: -1 is out of range"),
        ([*SERVE, "-o", "bogus"], "error: -o: unknown objective 'bogus'"),
        ([*SERVE, "--objective", "bogus"], "error: --objective: unknown objective 'bogus'"),
        ([*SERVE, "-w", "/no/such/workload.yaml"], "error: -w: cannot read /no/such/workload.yaml"),
        (["faq", "llama-3.1-8b", "-c", "0"], "error: -c: must be 1..10,000, got 0"),
        (["faq", "llama-3.1-8b", "--users", "0"], "error: --users: must be 1..10,000, got 0"),
    ],
)
def test_an_error_names_the_option_as_typed(args: list[str], said: str) -> None:
    text = _error(args)
    assert text.startswith(said), text


def test_a_value_from_the_workload_file_keeps_its_field_name(tmp_path: Path) -> None:
    path = tmp_path / "serve.yaml"
    path.write_text("kind: serve\nmodel: llama-3.1-8b\nconcurrency: 0\n")
    assert _error(["recommend", "serve", "-w", str(path)]).startswith("error: concurrency: ")
    # typed on the command line, the option's value replaces the file's: named as typed
    assert _error(["recommend", "serve", "-w", str(path), "-c", "0"]).startswith("error: -c: ")
