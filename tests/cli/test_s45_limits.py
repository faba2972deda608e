"""One limit and one error shape for every number, whatever the face (renter review F7).

Regressions: ``recommend finetune --dataset-tokens 1e30`` said "at most 10^18" (the CLI parser's own
cap) and ``1e16`` "Input should be less than or equal to 1000000000000000" (the workload's): one
limit (``MAX_TOKENS``), one message. ``recommend serve --concurrency 1e9`` printed Typer's box ("Input
should be a valid integer") with no range, and the CLI took 1..100,000 where ``gpuscout.estimate`` took
1..1,000,000: one limit (``MAX_CONCURRENCY``), refused as ``--concurrency: ... (accepted: ...)``.

The sweep gives every numeric option of ``recommend``, ``estimate``, ``vram``, ``images`` and
``transcribe`` 0, -1, 1e30 and "abc": each is an answer (0 where it is a value of the option) or one line
``error: --option: ... (accepted: ...)``, never Typer's box, pydantic's words or a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.catalog.store import Store
from gpuscout.cli import COMMANDS, app, coercion
from gpuscout.cli.lazy import load_command
from gpuscout.estimate import arguments
from gpuscout.estimate.arguments import MAX_CONCURRENCY, MAX_CONTEXT, MAX_RATE, MAX_TOKENS
from tests.cli.stores import few_h100_db

runner = CliRunner()
M = "llama-3.1-8b"

#: The house shape of an input error: one line naming the option and what it accepts.
ERROR_LINE = re.compile(
    r"^error: (?P<option>--[a-z0-9-]+|-[a-z]): (?P<message>.+) \(accepted: (?P<accepted>.+)\)$"
)


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store with a few H100 offers, so that a valid ``recommend`` answers quickly."""
    return few_h100_db(tmp_path_factory.mktemp("limits") / "l.sqlite3", (1, 8))


def _error_line(output: str) -> re.Match[str] | None:
    lines = [line for line in output.splitlines() if line.strip()]
    return ERROR_LINE.match(lines[-1]) if len(lines) == 1 else None


def _refused(argv: list[str], db: str | None = None) -> re.Match[str]:
    result = runner.invoke(app, [*argv, "--db", db] if db else argv)
    assert result.exit_code == 2, result.output
    found = _error_line(result.output)
    assert found is not None, result.output
    return found


# ---- the reported cases ---------------------------------------------------------------------------
def test_a_dataset_of_1e16_or_1e30_tokens_is_refused_by_one_limit_in_one_message(small_db: str) -> None:
    said = [
        _refused(["recommend", "finetune", M, "--dataset-tokens", value], small_db)
        for value in ("1e16", "1e30", str(MAX_TOKENS + 1))
    ]
    assert [s["option"] for s in said] == ["--dataset-tokens"] * 3
    assert [s["message"] for s in said] == [
        "1e+16 is out of range",
        "1e+30 is out of range",
        "1e+15 is out of range",  # 10^15 + 1, as a number of that size is shown
    ]
    assert len({s["accepted"] for s in said}) == 1 and "<= 1e+15" in said[0]["accepted"]  # was 10^18 / 1e+15


def test_concurrency_typed_as_1e9_is_out_of_range_not_a_typer_box(small_db: str) -> None:
    for command in (["recommend", "serve", M], ["estimate", M, "--gpu", "H100"]):
        said = _refused([*command, "--concurrency", "1e9"], small_db if command[0] == "recommend" else None)
        assert said["option"] == "--concurrency" and said["message"] == "1000000000 is out of range"
        assert f"{MAX_CONCURRENCY:,}" in said["accepted"] or f"{MAX_CONCURRENCY}" in said["accepted"]


def test_concurrency_has_one_limit_on_the_cli_the_python_api_and_a_workload_file(tmp_path: Path) -> None:
    from gpuscout import estimate
    from gpuscout.advise.workload import ServeWorkload, Workload
    from gpuscout.errors import InvalidInputError

    assert (
        ServeWorkload(model=M, concurrency=MAX_CONCURRENCY).concurrency == MAX_CONCURRENCY
    )  # was <= 100,000
    assert estimate(M, "H100", concurrency=MAX_CONCURRENCY).concurrency == MAX_CONCURRENCY
    too_many = MAX_CONCURRENCY + 1
    with pytest.raises(InvalidInputError, match=rf"^concurrency: {too_many} is out of range \(accepted: "):
        Workload.from_yaml(f"kind: serve\nmodel: {M}\nconcurrency: {too_many}\n")
    with pytest.raises(InvalidInputError, match=rf"^concurrency: {too_many} is out of range \(accepted: "):
        estimate(M, "H100", concurrency=too_many)
    assert ServeWorkload.model_fields["requests_per_s"].metadata[-1].le == MAX_RATE  # was 10^7
    assert ServeWorkload.model_fields["prompt_tokens"].metadata[-1].le == MAX_CONTEXT  # was 2,000,000


def test_the_cli_reads_token_counts_with_the_estimators_parser() -> None:
    assert coercion.token_count is arguments.token_count
    assert coercion.TOKENS_ACCEPTED == arguments.TOKENS_ACCEPTED


# ---- the sweep --------------------------------------------------------------------------------------
#: (the command's words, what it needs besides the option swept)
COMMAND_LINES: dict[str, list[str]] = {
    "recommend serve": ["recommend", "serve", M],
    "recommend batch": ["recommend", "batch", M, "--output-total", "1e6"],
    "recommend finetune": ["recommend", "finetune", M, "--dataset-tokens", "1e6"],
    "recommend pretrain": ["recommend", "pretrain", M, "--tokens", "1e9", "--gpus", "8"],
    "estimate": ["estimate", M, "--gpu", "H100"],
    "vram": ["vram", M],
    "images": ["images", "sdxl", "--gpu", "H100"],
    "transcribe": ["transcribe", "whisper-large-v3", "--gpu", "H100"],
}
#: Options that take a number but are declared as text (a count or 'max'; a duration).
TEXT_NUMBERS = {
    ("estimate", "--batch"),
    ("vram", "--batch"),
    *((f"recommend {kind}", "--deadline") for kind in ("batch", "finetune", "pretrain")),
}
#: (option, value) answered rather than refused: --top has no upper bound (1e30 rows: every row).
ANSWERED = {("--top", "1e30")}
VALUES = ("0", "-1", "1e30", "abc")


def _is_number(where: str, param: Any) -> bool:
    runtime = getattr(param, "_runtime_param", None)
    if param.param_type_name != "option" or runtime is None:
        return False
    parser = getattr(runtime.parameter_info, "parser", None)
    numeric = (
        runtime.kind in (int, float)
        or runtime.tokens is not None
        or getattr(parser, "__name__", "") == "number"
    )
    longs = [o for o in param.opts if o.startswith("--")]
    return bool(longs) and (numeric or (where, longs[0]) in TEXT_NUMBERS) and not param.is_flag


def _numeric_options() -> list[tuple[str, str]]:
    found = []
    for where in COMMAND_LINES:
        name, _, sub = where.partition(" ")
        command = load_command(COMMANDS[name], name)
        if sub:
            command = command.commands[sub]
        found += [
            (where, next(o for o in p.opts if o.startswith("--")))
            for p in command.params
            if _is_number(where, p)
        ]
    return found


NUMERIC_OPTIONS = _numeric_options()


def test_the_sweep_covers_every_command_and_its_numeric_options() -> None:
    assert {where for where, _ in NUMERIC_OPTIONS} == set(COMMAND_LINES)
    assert len(NUMERIC_OPTIONS) > 60
    expected = [
        ("recommend serve", "--concurrency"),
        ("recommend serve", "--spot-reclaims-per-hour"),
        ("recommend serve", "--top"),
        ("recommend finetune", "--dataset-tokens"),
        ("estimate", "--request-rate"),
        ("images", "--images"),
        ("transcribe", "--audio-hours"),
    ]
    for one in expected:
        assert one in NUMERIC_OPTIONS


@pytest.mark.parametrize(("where", "option"), NUMERIC_OPTIONS, ids=lambda v: str(v))
def test_every_numeric_option_refuses_a_bad_number_in_the_house_shape(
    small_db: str, where: str, option: str
) -> None:
    base = COMMAND_LINES[where]
    if option in base:  # the option swept replaces the command line's own value
        i = base.index(option)
        base = base[:i] + base[i + 2 :]
    db = ["--db", small_db] if base[0] == "recommend" else []
    for value in VALUES:
        result = runner.invoke(app, [*base, f"{option}={value}", *db])
        output = result.output
        assert "Traceback" not in output and "Input should be" not in output and "╭" not in output, output
        if result.exit_code == 0:
            assert value == "0" or (option, value) in ANSWERED, f"{where} {option}={value} was answered"
            continue
        assert result.exit_code == 2, (where, option, value, output)
        found = _error_line(output)
        assert found is not None, (where, option, value, output)
        assert found["option"] == option, (where, option, value, output)
        assert "None" not in found["message"], output


# ---- the web API reads a token count as the CLI does ---------------------------------------------------
@pytest.fixture()
def client(tmp_path: Path) -> Any:
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    Store(url).close()
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as c:
        yield c


def test_the_estimate_api_takes_32k_as_the_cli_does(client: TestClient) -> None:
    r = client.get(
        "/api/v1/estimate", params={"model": M, "gpu": "H100", "context_in": "32k", "context_out": "1k"}
    )
    assert r.status_code == 200, r.text
    assert (r.json()["context_in"], r.json()["context_out"]) == (32_000, 1000)  # was 422
    bad = client.get("/api/v1/estimate", params={"model": M, "gpu": "H100", "context_in": "32kb"})
    assert bad.status_code == 422 and bad.json()["field"] == "context_in"
    assert "32k" in (bad.json()["accepted"] or "")


def test_a_workload_file_without_a_kind_takes_the_subcommands(small_db: str, tmp_path: Path) -> None:
    path = tmp_path / "w3.yaml"
    path.write_text(f"model: {M}\nprompt_tokens: 32k\n")
    result = runner.invoke(
        app, ["recommend", "serve", "-w", str(path), "--json", "--top", "1", "--db", small_db]
    )
    assert result.exit_code == 0, result.output  # was "kind: unknown workload kind None"


def test_a_workload_file_of_another_kind_is_refused_for_its_kind_first(small_db: str, tmp_path: Path) -> None:
    path = tmp_path / "w4.yaml"
    path.write_text(f"kind: finetune\nmodel: {M}\n")  # no dataset_tokens: the kind is what is wrong
    said = _refused(["recommend", "serve", "-w", str(path), "--concurrency", "3"], small_db)
    assert said["option"] == "-w" and said["message"] == "the file holds a 'finetune' workload, not 'serve'"


def test_a_file_may_leave_a_required_field_to_the_command_line(small_db: str, tmp_path: Path) -> None:
    path = tmp_path / "ft.yaml"
    path.write_text(f"kind: finetune\nmodel: {M}\nseq_len: 4k\n")
    argv = ["recommend", "finetune", "-w", str(path), "--dataset-tokens", "10M", "--json", "--top", "1"]
    result = runner.invoke(app, [*argv, "--db", small_db])
    assert result.exit_code == 0, result.output  # was "dataset_tokens: is required": the file alone was read


def test_an_estimate_error_names_the_other_option_in_the_words_typed() -> None:
    said = _refused(["estimate", M, "--gpu", "H100", "--prompt", "2M"])
    assert (
        said["option"] == "--prompt" and said["accepted"] == "--prompt + --output <= 131072"
    )  # was --context-out
    said = _refused(["estimate", M, "--gpu", "H100", "--context-in", "2M"])
    assert said["accepted"] == "--context-in + --context-out <= 131072"


def test_the_advise_form_takes_32k_as_the_cli_does(client: TestClient) -> None:
    r = client.get("/advise", params={"kind": "serve", "model": M, "prompt_tokens": "32k", "sent": "1"})
    assert r.status_code == 200, r.text  # was 422: "Prompt tokens must be a whole number"
