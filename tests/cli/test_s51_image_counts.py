"""``--images`` reads a count as renters write one (``100k``, ``1.5M``, ``1e6``), as the token options do,
in ``images`` and ``recommend batch`` alike; a bad value is refused naming the option and the forms a
count takes, a value out of range with its range."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.arguments import COUNT_ACCEPTED, MAX_IMAGES, whole_count
from tests.cli.stores import few_h100_db

runner = CliRunner()


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store with a few H100 offers, so that ``recommend`` answers quickly."""
    return few_h100_db(tmp_path_factory.mktemp("images") / "i.sqlite3", (1, 8))


@pytest.mark.parametrize(
    ("text", "count"), [("100k", 100_000), ("1.5M", 1_500_000), ("1e6", 10**6), ("2500", 2500)]
)
def test_whole_count_reads_suffixes(text: str, count: int) -> None:
    assert whole_count(text, "images") == count


@pytest.mark.parametrize("text", ["abc", "2.5", "1.5k5"])
def test_whole_count_refuses_in_words_of_a_count(text: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        whole_count(text, "images")
    assert err.value.field == "images" and "token" not in str(err.value) and "100k" in str(err.value)


def test_images_takes_100k_as_100_000() -> None:
    suffixed = runner.invoke(app, ["images", "sdxl", "--gpu", "H100-SXM", "--images", "100k", "--json"])
    plain = runner.invoke(app, ["images", "sdxl", "--gpu", "H100-SXM", "--images", "100000", "--json"])
    assert suffixed.exit_code == 0 and plain.exit_code == 0, suffixed.output
    assert json.loads(suffixed.output) == json.loads(plain.output)


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ("abc", COUNT_ACCEPTED),
        ("2.5", COUNT_ACCEPTED),
        ("0", f"a count from 1 to {MAX_IMAGES:,}"),
        ("1e30", f"a count from 1 to {MAX_IMAGES:,}"),
    ],
)
def test_images_says_what_a_count_is_or_its_range(value: str, accepted: str) -> None:
    result = runner.invoke(app, ["images", "sdxl", "--gpu", "H100", "--images", value])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].endswith(f"(accepted: {accepted})"), result.output


def test_images_refuses_a_bad_count_naming_the_option() -> None:
    bad = runner.invoke(app, ["images", "sdxl", "--gpu", "H100-SXM", "--images", "lots"])
    assert bad.exit_code == 2 and "--images: 'lots' is not a count" in bad.output
    out = runner.invoke(app, ["images", "sdxl", "--gpu", "H100-SXM", "--images", "2T"])
    assert out.exit_code == 2 and "--images: " in out.output and "out of range" in out.output


def test_recommend_batch_takes_100k_images(small_db: str) -> None:
    args = ["recommend", "batch", "sdxl", "--images", "100k", "--db", small_db, "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["workload"]["images_total"] == 100_000
