"""vram holds a training layout to the free-memory margin recommend holds it to: a full fine-tune of a 70B on
4 x B300 leaves 3.4 % free (3.7 % before the lm_head was counted among the gathered units), which
`recommend finetune` rejects (5 %), so vram must not call it a plain fit nor list it among the cards it
fits on."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.cli import app

ARGS = ["vram", "llama-3.1-70b", "--task", "full", "--gpus", "4", "--gpu", "B300", "--context", "2048"]


def test_a_tight_training_layout_is_said_and_not_listed() -> None:
    out = CliRunner().invoke(app, ARGS, env={"COLUMNS": "200"}).output
    assert "fits with only 3.4% of each GPU free" in out and "less than 5%" in out
    data = json.loads(CliRunner().invoke(app, [*ARGS, "--json"]).output)
    assert data["fits"] is True and data["headroom_below_margin"] is True
    assert all(row["gpu"] != "B300" or row["gpus"] != 4 for row in data["fits_on"])
    for row in data["fits_on"]:
        assert 1 - row["per_gpu_gb"] / row["usable_gb"] >= 0.05 - 1e-3


def test_inference_keeps_the_engines_own_budget() -> None:
    data = json.loads(CliRunner().invoke(app, ["vram", "llama-3.1-8b", "--gpu", "H100", "--json"]).output)
    assert "headroom_below_margin" not in data
