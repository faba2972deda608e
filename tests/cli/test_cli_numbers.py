"""Every numeric CLI option, given any number (``nan``, ``inf``, ``1e308``, ``-1``, 20-digit integers,
text): a result, or exit 2 with an error naming the option (``recommend``: the option itself, not the
workload field it sets) and the accepted range; never a traceback, never a silent answer to a
non-finite number.

Regression for the audit's defect 15: ``offers --gpus 99999999999999999999`` -> ``OverflowError``
traceback; ``history --days 1e308``, ``prune --older-than-days nan|1e308`` -> traceback; ``offers
--max-price -1|nan``, ``--min-vram nan``, ``--gpus 0`` accepted silently.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuscout.cli import app
from tests.cli.stores import few_h100_db

runner = CliRunner()
M = "llama-3.1-8b"

# (argv before the option, option, names the error may use for it)
OPTIONS: list[tuple[list[str], str, tuple[str, ...]]] = [
    (["offers"], "--min-vram", ()),
    (["offers"], "--gpus", ()),
    (["offers"], "--max-price", ()),
    (["offers"], "--limit", ()),
    (["history", "H100"], "--days", ()),
    (["prune"], "--older-than-days", ()),
    (["gpus"], "--min-memory", ()),
    (["estimate", M, "--gpu", "H100"], "--gpus", ()),
    (["estimate", M, "--gpu", "H100"], "--context-in", ("context_in",)),
    (["estimate", M, "--gpu", "H100"], "--context-out", ("context_out",)),
    (["estimate", M, "--gpu", "H100"], "--batch", ()),
    (["vram", M], "--context", ()),
    (["vram", M], "--gpus", ()),
    (["diagnose", M, "--gpu", "H100"], "--measured-tps", ("measured_tps",)),
    (["recommend", "serve", M], "--rps", ()),
    (["recommend", "serve", M], "--concurrency", ()),
    (["recommend", "serve", M], "--prompt", ()),
    (["recommend", "serve", M], "--ttft-ms", ()),
    (["recommend", "serve", M], "--hours-per-day", ()),
    (["recommend", "serve", M], "--monthly-tokens", ()),
    (["recommend", "serve", M], "--budget", ()),
    (["recommend", "serve", M], "--egress-gb", ()),
    (["recommend", "serve", M], "--retention-days", ()),
    (["recommend", "serve", M], "--spot-reclaims-per-hour", ()),
    (["recommend", "serve", M], "--top", ()),
    (["recommend", "batch", M], "--output-total", ()),
    (["recommend", "batch", M, "--output-total", "1e6"], "--deadline-hours", ("--deadline",)),
    (["recommend", "finetune", M], "--dataset-tokens", ()),
    (["recommend", "finetune", M, "--dataset-tokens", "1e6"], "--epochs", ()),
    (["recommend", "pretrain", M, "--gpus", "8"], "--tokens", ()),
    (["refresh", "-s", "snapshot"], "--timeout", ()),
    (["refresh", "-s", "snapshot"], "--deadline", ()),
]
STORE_COMMANDS = {"offers", "history", "prune", "recommend", "faq", "refresh"}

numbers = st.one_of(
    st.sampled_from(
        [
            "nan",
            "inf",
            "-inf",
            "1e308",
            "-1",
            "0",
            "99999999999999999999",
            "1e-300",
            "abc",
            "",
            "1e400",
            "-0",
            "0x10",
            "1_000",
        ]
    ),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**25), max_value=10**25).map(str),
)


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store with a few offers, so that a valid recommend answers quickly."""
    return few_h100_db(tmp_path_factory.mktemp("numbers") / "n.sqlite3", (1, 2, 8))


def _is_finite_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


@pytest.mark.parametrize(("prefix", "option", "names"), OPTIONS, ids=lambda v: str(v))
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=numbers)
def test_any_number_is_a_result_or_an_error_naming_the_option(
    small_db: str, prefix: list[str], option: str, names: tuple[str, ...], value: str
) -> None:
    argv = [*prefix, f"{option}={value}"]
    if prefix[0] in STORE_COMMANDS:
        argv += ["--db", small_db]
    result = runner.invoke(app, argv)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    output = result.output
    assert "Traceback" not in output
    assert result.exit_code in (0, 2), output
    if result.exit_code == 2:
        low = output.lower()
        bare = option.lstrip("-")  # the core names its argument without dashes (``gpus: 0 is out of range``)
        assert any(n.lower() in low for n in (option, f"{bare}:", f"{bare.replace('-', '_')}:", *names)), (
            output
        )
    else:
        assert _is_finite_number(value), f"{option}={value} accepted: {output[-300:]}"


@pytest.mark.parametrize(
    "argv",
    [
        ["offers", "--gpus", "99999999999999999999"],
        ["offers", "--gpus", "0"],
        ["offers", "--max-price", "-1"],
        ["offers", "--max-price", "nan"],
        ["offers", "--min-vram", "nan"],
        ["history", "H100", "--days", "1e308"],
        ["prune", "--older-than-days", "nan"],
        ["prune", "--older-than-days", "1e308"],
        ["recommend", "serve", M, "--spot-reclaims-per-hour", "inf"],
        ["refresh", "-s", "snapshot", "--timeout", "nan"],
        ["refresh", "-s", "snapshot", "--timeout", "1e-300"],
        ["refresh", "-s", "snapshot", "--timeout", "1e308"],
    ],
)
def test_the_audits_options_are_refused_with_the_range(small_db: str, argv: list[str]) -> None:
    result = runner.invoke(app, [*argv, "--db", small_db])
    assert result.exit_code == 2, result.output
    assert argv[-2] in result.output
    assert "accepted" in result.output or "Input should be" in result.output


def test_json_and_csv_together_are_refused(small_db: str) -> None:
    result = runner.invoke(app, ["recommend", "serve", M, "--json", "--csv", "--db", small_db])
    assert result.exit_code == 2 and "--json/--csv" in result.output


def test_numbers_in_range_still_work(small_db: str, tmp_path: Path) -> None:
    assert runner.invoke(app, ["offers", "--max-price", "30", "--gpus", "8", "--db", small_db]).exit_code == 0
    assert runner.invoke(app, ["history", "H100", "--days", "7", "--db", small_db]).exit_code == 0
    assert runner.invoke(app, ["prune", "--older-than-days", "90", "--db", small_db]).exit_code == 0
