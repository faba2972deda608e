"""``--batch`` is refused at the range its help states, the same on ``vram`` and ``estimate`` (stop 62):
``vram --batch 5000`` was sized while ``estimate --batch 5000`` said "accepted: 1..4096", though an
estimate's batch is the requests in flight over every replica, as ``--concurrency`` is (which took 5000);
``diagnose --help`` showed ``[1<=x<=1000000]`` where ``diagnose --batch 5000`` said "1..4096". A
diagnosis times all its sequences in one step of one engine, so its range is the most one engine runs at
once (MAX_BATCH), said by its help too."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate
from gpuscout.estimate.arguments import MAX_BATCH, MAX_CONCURRENCY
from gpuscout.estimate.diagnose import diagnose

runner = CliRunner()
M = "llama-3.1-8b"
COMMANDS = {
    "vram": ["vram", M],
    "estimate": ["estimate", M, "--gpu", "H100"],
    "diagnose": ["diagnose", M, "--gpu", "H100", "--measured-tps", "20"],
}
HIGH = {"vram": MAX_CONCURRENCY, "estimate": MAX_CONCURRENCY, "diagnose": MAX_BATCH}


def _help_range(command: str) -> str:
    """The range ``--batch``'s line of ``command --help`` states: ``[1<=x<=N]`` as typer prints an integer
    option's bounds, else the ``1..N`` its help text says."""
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "--batch" in x)
    found = re.search(r"\b1<=x<=(\d+)|\b1\.\.(\d+)", line)
    assert found is not None, line
    return f"1..{found.group(1) or found.group(2)}"


def _accepted(argv: list[str]) -> str:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    found = re.search(r"\(accepted: ([^)]*)\)", result.output)
    assert found is not None, result.output
    return found.group(1)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_help_states_the_range_the_error_says(command: str) -> None:
    high = HIGH[command]
    assert _help_range(command) == f"1..{high}"  # diagnose's was 1..1000000, estimate's and vram's unsaid
    for value in ("0", str(high + 1)):
        assert _accepted([*COMMANDS[command], "--batch", value]) == f"1..{high}", value


def test_an_estimate_takes_the_batch_vram_sizes_as_it_takes_that_concurrency() -> None:
    result = runner.invoke(app, [*COMMANDS["estimate"], "--batch", "5000", "--json"])
    assert result.exit_code == 0, result.output  # was "accepted: 1..4096"
    batch = estimate(M, "H100", batch=5000)
    same = estimate(M, "H100", concurrency=5000)
    assert (
        batch.concurrency == same.concurrency == 5000
        and batch.output_tokens_per_s_total == same.output_tokens_per_s_total
    )


def test_a_diagnosis_refuses_more_than_one_engine_runs_at_once_naming_batch() -> None:
    with pytest.raises(InvalidInputError) as err:
        diagnose(M, "H100", measured_tps=20, batch=MAX_BATCH + 1)
    assert err.value.field == "batch" and err.value.accepted == f"1..{MAX_BATCH}"
