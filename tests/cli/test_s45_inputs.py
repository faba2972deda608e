"""Token counts as a renter writes them (``--prompt 32k``, ``--tokens 15T``) on every command's token
options, read by the one parser (``cli.coercion.token_count``); and ``gpuscout recommend --region``
naming the closest regions with offers where none is in the region, as ``gpuscout offers --region``
does (``catalog.query.check_regions``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.cli import COMMANDS, app, coercion
from gpuscout.cli.lazy import load_command
from gpuscout.errors import InvalidInputError
from tests.catalog.helpers import make_offer

runner = CliRunner()


# ---- the parser ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("32768", 32768),
        ("32k", 32_000),  # decimal: k = 1,000 (the help says so)
        ("128K", 128_000),
        ("1.5M", 1_500_000),
        ("1e9", 10**9),
        ("1E9", 10**9),
        ("1.5e3", 1500),
        ("10_000", 10_000),
        ("1,000", 1000),
        ("1,000,000", 1_000_000),
        ("2B", 2 * 10**9),
        ("2G", 2 * 10**9),
        ("15T", 15 * 10**12),
        ("0.5k", 500),
        ("4 k", 4000),
        ("1.0", 1),
        (" 64 ", 64),
        ("0", 0),
        ("-5", -5),  # read: the option's own range refuses it, saying what it takes
        ("-1.5k", -1500),
        (512, 512),  # an option's default
        (1e9, 10**9),
    ],
)
def test_a_token_count_reads_as_renters_write_it(text: Any, count: int) -> None:
    assert coercion.token_count(text, "--prompt") == count


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("32kb", "is not a token count"),
        ("1.5", "is not a whole number of tokens"),
        ("1e-3", "is not a whole number of tokens"),
        ("1.0005k", "is not a whole number of tokens"),
        ("1,5", "is not a token count"),  # a decimal comma, not thousands
        ("12,34,567", "is not a token count"),
        ("1e3k", "is not a token count"),
        ("1__0", "is not a token count"),
        ("nan", "is not a token count"),
        ("inf", "is not a token count"),
        ("0x10", "is not a token count"),
        ("", "is not a token count"),
        ("9" * 5000, "is not a token count"),  # not read at all (Python reads 4,300 digits at most)
        (float("inf"), "is not a whole number"),
        (2.5, "is not a whole number"),
    ],
)
def test_anything_else_names_the_option_and_what_is_accepted(text: Any, why: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        coercion.token_count(text, "--prompt")
    assert info.value.field == "--prompt" and why in info.value.message
    assert info.value.accepted == coercion.TOKENS_ACCEPTED
    assert "32k" in coercion.TOKENS_ACCEPTED and "k = 1,000" in coercion.TOKENS_ACCEPTED


# ---- every token option takes it ----------------------------------------------------------------
#: (command, option) of every option that is a count of tokens.
TOKEN_OPTIONS = {
    ("recommend serve", "--prompt"),
    ("recommend serve", "--output"),
    ("recommend serve", "--monthly-tokens"),
    ("recommend batch", "--prompt"),
    ("recommend batch", "--output"),
    ("recommend batch", "--output-total"),
    ("recommend batch", "--input-total"),
    ("recommend finetune", "--dataset-tokens"),
    ("recommend finetune", "--seq-len"),
    ("recommend pretrain", "--tokens"),
    ("recommend pretrain", "--seq-len"),
    ("recommend pretrain", "--global-batch"),
    ("faq", "--context"),
    ("vram", "--context"),
    ("estimate", "--context-in"),
    ("estimate", "--context-out"),
    ("diagnose", "--context"),
}


# Counts of other things, written as token counts are (--images 100k), read by the same path
COUNT_OPTIONS = {("images", "--images"), ("recommend batch", "--images")}


def _token_params(parser: object = coercion.parse_tokens) -> set[tuple[str, str]]:
    found = set()
    for name, module in COMMANDS.items():
        command = load_command(module, name)
        subs = getattr(command, "commands", {})
        for where, sub in [(name, command), *((f"{name} {k}", v) for k, v in subs.items())]:
            for param in getattr(sub, "params", ()):
                runtime = getattr(param, "_runtime_param", None)
                if getattr(runtime, "tokens", None) is not None and runtime.parameter_info.parser is parser:
                    found.add((where, param.opts[0]))
    return found


def test_every_token_option_is_read_by_the_one_parser() -> None:
    assert _token_params() == TOKEN_OPTIONS
    assert _token_params(coercion.parse_count) == COUNT_OPTIONS


def _json(args: list[str]) -> Any:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_commands_take_suffixed_counts() -> None:
    est = _json(
        ["estimate", "llama-3.1-8b", "--gpu", "H100", "--prompt", "32k", "--output", "1.5k", "--json"]
    )
    assert (est["context_in"], est["context_out"]) == (32_000, 1500)
    batch = _json(
        ["recommend", "batch", "llama-3.1-8b", "--output-total", "1.5B", "--prompt", "2k", "--json"]
    )
    assert batch["workload"]["output_tokens_total"] == 1.5e9 and batch["workload"]["prompt_tokens"] == 2000
    pretrain = _json(
        ["recommend", "pretrain", "llama-3.1-8b", "--tokens", "15T", "--seq-len", "8k", "--json"]
    )
    assert pretrain["workload"]["token_budget"] == 15e12 and pretrain["workload"]["seq_len"] == 8000
    serve = _json(["recommend", "serve", "llama-3.1-8b", "--prompt", "128K", "--output", "1,000", "--json"])
    assert (serve["workload"]["prompt_tokens"], serve["workload"]["output_tokens"]) == (128_000, 1000)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["recommend", "serve", "llama-3.1-8b", "--prompt", "32kb"],
            "error: --prompt: '32kb' is not a token count (accepted: a whole number like 32768, 32k, 1.5M",
        ),
        (
            ["recommend", "batch", "llama-3.1-8b", "--output-total", "1.5 MB"],
            "error: --output-total: '1.5 MB' is not a token count",
        ),
        (  # a negative count is refused by the option's own range
            ["estimate", "llama-3.1-8b", "--gpu", "H100", "--output", "-2k"],
            "error: --output: -2000 is out of range (accepted: 0..10000000)",
        ),
        (
            ["estimate", "llama-3.1-8b", "--gpu", "H100", "--prompt", "1.5"],
            "error: --prompt: '1.5' is not a whole",
        ),
        (
            ["estimate", "llama-3.1-8b", "--gpu", "H100", "--context-in", "x"],
            "error: --context-in: 'x' is not a",
        ),
        (
            ["vram", "llama-3.1-8b", "--context", "0"],
            "error: --context: 0 is out of range (accepted: a token count",
        ),
    ],
)
def test_a_bad_count_is_one_line_naming_the_option_as_typed(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output and "Input should be" not in result.output


@pytest.mark.parametrize("args", [["recommend", "serve", "--help"], ["estimate", "--help"]])
def test_the_help_says_k_is_a_thousand(args: list[str]) -> None:
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "32k = 32,000" in result.output


# ---- recommend --region -------------------------------------------------------------------------
def _db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'regions.sqlite3'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)  # no bundled rows
    store.write_snapshot(
        "testcloud",
        [
            make_offer(instance_type="west", region="eu-west-1"),
            make_offer(instance_type="east", region="us-east-1"),
        ],
    )
    store.close()
    return url


def _recommend(db: str, *extra: str) -> Any:
    return runner.invoke(app, ["recommend", "serve", "llama-3.1-8b", "--db", db, *extra])


def test_recommend_names_the_closest_regions_where_none_has_offers(tmp_path: Path) -> None:
    db = _db(tmp_path)
    result = _recommend(db, "--region", "eu-wset")
    assert result.exit_code == 2, result.output  # was 0: "no offer of eu-wset can run it"
    text = " ".join(result.output.split())
    assert "error: --region: no current offer is in a region matching 'eu-wset'" in text
    assert "closest with offers: eu-west-1" in text
    offers = runner.invoke(app, ["offers", "--db", db, "--region", "eu-wset"])  # the same words
    assert " ".join(offers.output.split()) == text


def test_a_workload_files_regions_are_named_as_the_files_field(tmp_path: Path) -> None:
    db = _db(tmp_path)
    path = tmp_path / "w.yaml"
    path.write_text("kind: serve\nmodel: llama-3.1-8b\nregions: [Mars]\n")
    result = _recommend(db, "-w", str(path), "--json")
    assert result.exit_code == 2
    assert "error: regions: no current offer is in a region matching 'Mars'" in " ".join(
        result.output.split()
    )


def test_a_region_list_with_offers_somewhere_is_ranked(tmp_path: Path) -> None:
    db = _db(tmp_path)
    result = _recommend(db, "--region", "Mars,eu-west", "--json", "-c", "2")
    assert result.exit_code == 0, result.output
    shown = {r["offer"]["instance_type"] for r in json.loads(result.output)["recommendations"]}
    assert shown == {"west"}
