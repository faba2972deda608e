"""`gpuscout recommend ...` and `gpuscout faq` on the bundled snapshot (real estimator, offline)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from tests.cli.stores import store_with

runner = CliRunner()
NEWCOMER = [
    "recommend",
    "serve",
    "llama-3.1-8b",
    "--concurrency",
    "32",
    "--prompt",
    "2000",
    "--output",
    "500",
]


def _rows(output: str) -> list[list[str]]:
    """The table's data rows, split into cells (first physical line of each row)."""
    lines = output.splitlines()
    rows = [line for line in lines if line.startswith("│") and line[1:5].strip().isdigit()]
    return [[c.strip() for c in r.strip("│").split("│")] for r in rows]


def test_newcomer_command_prints_the_trade_off_with_the_picks_and_a_reason_on_every_row() -> None:
    result = runner.invoke(app, NEWCOMER)
    assert result.exit_code == 0, result.output
    assert "on the cost / latency front, cheapest first" in result.output
    for column in ("trade-off", "TTFT", "tok/s/user", "latency", "$/month", "why"):
        assert column in result.output
    # the targets applied are said above the table, the picks' rule under it
    assert "chat defaults" in result.output and "32 simultaneous users" in result.output
    assert "balanced: the least" in result.output
    rows = _rows(result.output)
    # a row's number is its place in the whole answer: the numbers skip where --top cuts the front
    ranks = [int(r[0]) for r in rows]
    assert len(ranks) == 10 and ranks[0] == 1 and ranks == sorted(ranks)
    marks = [r[1] for r in rows]
    for pick in ("cheapest", "balanced", "fastest"):
        assert sum(pick in m for m in marks) == 1
    assert marks[0].startswith("cheapest")  # the cheapest on the front: the picks line says so (s61)
    # the front comes first; dominated rows name the row that beats them
    front = [m for m in marks if not m.startswith("beaten by")]
    assert marks[: len(front)] == front
    assert all(r[-1] for r in rows)


def test_json_rows_carry_costs_reasons_and_the_workload() -> None:
    result = runner.invoke(app, [*NEWCOMER, "--json", "--top", "5"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["workload"] == {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "prompt_tokens": 2000,
        "output_tokens": 500,
        "concurrency": 32,
    }
    recs = data["recommendations"]
    ranks = [r["rank"] for r in recs]
    assert len(ranks) == 5 and ranks[0] == 1 and ranks == sorted(ranks)
    totals = [
        r["cost"]["compute"]
        + r["cost"]["warmup"]
        + r["cost"]["storage"]
        + r["cost"]["egress"]
        + r["cost"]["interruption"]
        for r in recs
    ]
    assert totals == sorted(totals)
    assert all(r["reasons"] and r["unit_costs"]["per_million_output_tokens"] > 0 for r in recs)
    assert not any(r["config"]["spot"] for r in recs)


def test_csv_has_one_line_per_row() -> None:
    result = runner.invoke(app, [*NEWCOMER, "--csv", "--top", "3"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    ranks = [int(r["rank"]) for r in rows]
    assert len(ranks) == 3 and ranks[0] == 1 and ranks == sorted(ranks)
    assert all(float(r["total"]) > 0 and r["top_reason"] for r in rows)


def test_explain_shows_the_full_breakdown() -> None:
    result = runner.invoke(app, [*NEWCOMER, "--explain", "2"])
    assert result.exit_code == 0, result.output
    for part in (
        "#2 ",
        "compute",
        "warmup",
        "storage",
        "egress",
        "interruption",
        "total",
        "reasons",
        "assumptions",
        "spot interruptions",
        "TTFT",
        "decode step (parts overlap)",
    ):
        assert part in result.output


def test_explain_of_an_image_row_shows_no_token_notions() -> None:
    # an image pipeline keeps no KV cache and serves no users: its table said "weights / KV per GPU
    # 6.9 / 0.0 GB" and "users per replica (max) 1 (None)"
    args = ["recommend", "batch", "sdxl", "--images", "1000", "--explain", "1"]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "img/s" in result.output and "weights per GPU" in result.output
    assert "None" not in result.output and "weights / KV" not in result.output
    assert "users per replica" not in result.output


def test_explain_of_a_training_row_says_how_it_trains() -> None:
    args = ["recommend", "finetune", "llama-3.1-70b", "--method", "full", "--dataset-tokens", "1e8"]
    result = runner.invoke(app, [*args, "--explain", "1"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the console wraps long lines
    assert "training: FSDP across" in text and "activation" in text  # its recomputation choice
    assert "per instance" not in text and "weights / KV" not in text  # serving notions
    data = json.loads(runner.invoke(app, [*args, "--json", "--top", "1"]).output)
    assert data["recommendations"][0]["config"]["training"].startswith("FSDP across")
    assert "decode step" not in text and data["recommendations"][0]["estimate"]["decode_step"] is None


def test_workload_file_with_an_override(tmp_path: Path) -> None:
    f = tmp_path / "chat.yaml"
    f.write_text("kind: serve\nmodel: llama-3.1-8b\nconcurrency: 4\nbursts_per_day: 20\nburst_minutes: 6\n")
    result = runner.invoke(
        app, ["recommend", "serve", "--workload", str(f), "--concurrency", "8", "--json", "--top", "3"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["workload"]["concurrency"] == 8 and data["workload"]["bursts_per_day"] == 20
    assert all(any("bursts of 6 min" in x for x in r["reasons"]) for r in data["recommendations"])


def test_other_workload_kinds_run() -> None:
    for args in (
        ["batch", "llama-3.1-8b", "--output-total", "1e8"],
        ["finetune", "llama-3.1-8b", "--method", "qlora", "--dataset-tokens", "1e7"],
        ["pretrain", "llama-3.2-1b", "--tokens", "1e9", "--gpus", "8"],
    ):
        result = runner.invoke(app, ["recommend", *args, "--json", "--top", "2"])
        assert result.exit_code == 0, (args, result.output)
        recs = json.loads(result.output)["recommendations"]
        assert recs and recs[0]["unit_costs"]["per_run"] > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["recommend", "serve", "llama-3.1-8bb"], "closest known"),
        (["recommend", "serve", "llama-3.1-8b", "--objective", "cheap"], "objective"),
        (["recommend", "serve", "llama-3.1-8b", "--concurrency", "4", "--rps", "2"], "concurrency"),
        (["recommend", "serve", "llama-3.1-8b", "--explain", "100000"], "--explain"),
        (["recommend", "serve"], "MODEL"),
        (["recommend", "serve", "llama-3.1-8b", "--precision", "fp7"], "precision"),
    ],
)
def test_bad_input_is_one_red_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_workload_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "ft.yaml"
    f.write_text("kind: finetune\nmodel: llama-3.1-8b\ndataset_tokens: 1000000\n")
    result = runner.invoke(app, ["recommend", "serve", "--workload", str(f)])
    assert result.exit_code == 2 and "--workload" in result.output


def test_faq_answers_the_questions_for_the_users_case() -> None:
    result = runner.invoke(
        app, ["faq", "llama-3.1-8b", "--json", "--context", "8192", "--users", "16", "--gpu", "L4"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [a["key"] for a in data["answers"]] == ["vram", "card_class", "spot", "slow_generation"]
    assert data["context"] == 8192 and data["users"] == 16
    vram = data["answers"][0]["figures"]
    assert vram["bf16_gb"] > vram["fp8_gb"] > vram["int4_gb"] > 0
    assert data["answers"][3]["figures"]["gpu"] == "L4"
    human = runner.invoke(app, ["faq", "llama-3.1-8b"])
    assert human.exit_code == 0 and "How much VRAM do I need?" in human.output
    assert "24 GiB consumer card" in human.output


def test_spot_reclaim_rate_can_be_overridden() -> None:
    base = ["recommend", "finetune", "llama-3.1-8b", "--dataset-tokens", "1e8", "--json", "--top", "1"]
    calm = json.loads(runner.invoke(app, [*base, "--spot-reclaims-per-hour", "0"]).output)["recommendations"]
    rough = json.loads(runner.invoke(app, [*base, "--spot-reclaims-per-hour", "2"]).output)["recommendations"]
    # no reclaims: what is left is the GPUs' own failures (~2e-5 per GPU-hour), a sliver of the compute
    assert calm[0]["config"]["spot"] and calm[0]["cost"]["interruption"] < 1e-3 * calm[0]["cost"]["compute"]
    assert (
        rough[0]["cost"]["interruption"] > 0.01 * rough[0]["cost"]["compute"]
        or not rough[0]["config"]["spot"]
    )


# ---- the trade-off view, grouped regions, rejections (issue 9) ----------------------------------
def _store_with(tmp_path: Path, offers: list[object]) -> str:
    return store_with(tmp_path, offers)  # type: ignore[arg-type]


def test_a_job_shows_its_duration_next_to_its_cost_and_the_picks() -> None:
    result = runner.invoke(
        app,
        [
            "recommend",
            "finetune",
            "llama-3-70b",
            "--method",
            "qlora",
            "--dataset-tokens",
            "50e6",
            "--epochs",
            "2",
            "--spot",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "on the cost / time front, cheapest first" in result.output
    header = next(line for line in result.output.splitlines() if "trade-off" in line)
    assert header.index("time") < header.index("total")
    rows = _rows(result.output)
    times = [r[6] for r in rows]
    assert all(t.endswith(("h", "min", "days", "s")) for t in times)
    picked = {p.strip() for r in rows for p in r[1].removeprefix("front: ").split(",")}
    assert {"cheapest", "balanced", "fastest"} <= picked


def test_region_copies_are_one_row_with_their_regions(tmp_path: Path) -> None:
    from gpuscout.catalog.offer import Offer

    copies = [
        Offer(
            provider="runpod",
            instance_type="1x-h100",
            region=region,
            accelerator="H100-SXM",
            gpu_count=1,
            gpu_memory_gb=80.0,
            price_usd_per_hour=2.5,
            spot_price_usd_per_hour=None,
            source="test:x",
            observed_at=None,
        )
        for region in ("us-east-1", "eu-west-1", "ap-south-1")
    ]
    other = Offer(
        provider="lambda",
        instance_type="gpu_1x_h100",
        region="us-west-1",
        accelerator="H100-SXM",
        gpu_count=1,
        gpu_memory_gb=80.0,
        price_usd_per_hour=3.0,
        spot_price_usd_per_hour=None,
        source="test:y",
        observed_at=None,
    )
    url = _store_with(tmp_path, [*copies, other])
    args = ["recommend", "serve", "llama-3.1-8b", "-c", "4", "--db", url]
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    recs = data["recommendations"]
    assert len(recs) == 2
    first = recs[0]
    assert first["offer"]["provider"] == "runpod" and first["provider_name"] == "RunPod"
    assert sorted(first["regions"]) == ["ap-south-1", "eu-west-1", "us-east-1"]
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "+2)" in table.output and "RunPod" in table.output
    rows = list(csv.DictReader(io.StringIO(runner.invoke(app, [*args, "--csv"]).output)))
    assert rows[0]["regions_sold"].count(";") == 2 and rows[0]["picks"]


def test_show_rejected_lists_offers_left_out_with_reasons(tmp_path: Path) -> None:
    from gpuscout.catalog.offer import Offer

    auction = Offer(
        provider="vastai",
        instance_type="1x-h100-bid",
        region="us",
        accelerator="H100-SXM",
        gpu_count=1,
        gpu_memory_gb=80.0,
        price_usd_per_hour=1.0,
        spot_price_usd_per_hour=None,
        source="test:x",
        observed_at=None,
        price_is_interruptible=True,
    )
    small = Offer(
        provider="runpod",
        instance_type="1x-t4",
        region="us",
        accelerator="T4",
        gpu_count=1,
        gpu_memory_gb=16.0,
        price_usd_per_hour=0.2,
        spot_price_usd_per_hour=None,
        source="test:y",
        observed_at=None,
    )
    fine = Offer(
        provider="lambda",
        instance_type="gpu_1x_h100",
        region="us",
        accelerator="H100-SXM",
        gpu_count=1,
        gpu_memory_gb=80.0,
        price_usd_per_hour=3.0,
        spot_price_usd_per_hour=None,
        source="test:z",
        observed_at=None,
    )
    kepler = Offer(
        provider="runpod",
        instance_type="8x-k80",
        region="us",
        accelerator="K80",
        gpu_count=8,
        gpu_memory_gb=12.0,
        price_usd_per_hour=0.1,
        spot_price_usd_per_hour=None,
        source="test:k",
        observed_at=None,
    )
    url = _store_with(tmp_path, [auction, small, fine, kepler])
    args = [
        "recommend",
        "serve",
        "llama-3.1-70b",
        "--precision",
        "fp8",
        "-c",
        "2",
        "--db",
        url,
        "--show-rejected",
    ]
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    why = {r["offer"]["instance_type"]: r["rejected"] for r in data["rejected"]}
    assert "interruptible" in why["1x-h100-bid"] and "--spot" in why["1x-h100-bid"]
    assert why["1x-t4"]
    # feasibility before cost: no engine the support rules know runs on Kepler, so it is never ranked
    assert "not supported" in why["8x-k80"] and "compute capability" in why["8x-k80"]
    table = runner.invoke(app, args)
    assert "rows left out" in table.output and "interruptible" in table.output
    allowed = json.loads(runner.invoke(app, [*args, "--json", "--spot"]).output)
    assert any(
        r["offer"]["instance_type"] == "1x-h100-bid" and r["config"]["spot"]
        for r in allowed["recommendations"]
    )


def test_nothing_passing_says_what_binds() -> None:
    result = runner.invoke(app, ["recommend", "serve", "llama-3.1-70b", "-c", "16", "--budget", "50"])
    assert result.exit_code == 0
    assert "No offer can run this workload" in result.output and "--budget" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["recommend", "serve", "llama-3.1-8b", "--provider", "lambada"], "closest known: lambda"),
        (
            [
                "recommend",
                "serve",
                "llama-3.1-8b",
                "--hours-per-day",
                "8",
                "--bursts",
                "3",
                "--burst-minutes",
                "5",
            ],
            "--hours-per-day:",
        ),
        (["recommend", "serve", "llama-2-7b", "--prompt", "4000", "--output", "500"], "context of 4,096"),
        (
            ["recommend", "finetune", "llama-3.1-8b", "--dataset-tokens", "1e7", "--deadline", "soon"],
            "--deadline:",
        ),
        (["recommend", "serve", "llama-3.1-8b", "--latency-targets", "fast"], "--latency-targets:"),
    ],
)
def test_conflicting_or_impossible_inputs_are_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_deadline_accepts_a_duration_and_filters() -> None:
    base = ["recommend", "finetune", "llama-3.1-8b", "--method", "lora", "--dataset-tokens", "1e8", "--json"]
    data = json.loads(runner.invoke(app, [*base, "--deadline", "2h"]).output)
    assert data["recommendations"] and all(r["time_to_result_s"] <= 7200 for r in data["recommendations"])
    assert any("deadline" in t for t in data["targets"])


def test_help_states_the_defaults_the_workloads_apply() -> None:
    from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, PretrainWorkload, ServeWorkload
    from gpuscout.cli.advise_cmds import (
        AUTO_CHECKPOINT,
        AUTO_ENGINE,
        AUTO_GLOBAL_BATCH,
        AUTO_MICRO_BATCH,
        HELP_DEFAULTS,
        NATIVE_PRECISION,
    )

    fields = {
        "--precision": "precision",
        "--engine": "engine",
        "--prompt": "prompt_tokens",
        "--output": "output_tokens",
        "--hours-per-day": "hours_per_day",
        "--latency-targets": "latency_targets",
        "--width": "width",
        "--height": "height",
        "--method": "method",
        "--epochs": "epochs",
        "--seq-len": "seq_len",
        "--micro-batch": "micro_batch",
        "--global-batch": "global_batch_tokens",
        "--checkpoint-min": "checkpoint_interval_min",
        "--max-nodes": "max_nodes",
    }
    kinds = {
        "serve": ServeWorkload,
        "batch": BatchWorkload,
        "finetune": FinetuneWorkload,
        "pretrain": PretrainWorkload,
    }
    for kind, defaults in HELP_DEFAULTS.items():
        help_text = runner.invoke(app, ["recommend", kind, "--help"], env={"COLUMNS": "240"}).output
        for option, shown in defaults.items():
            default = kinds[kind].model_fields[fields[option]].default
            unset = {
                "--precision": NATIVE_PRECISION,
                "--engine": AUTO_ENGINE,
                "--micro-batch": AUTO_MICRO_BATCH,
                "--global-batch": AUTO_GLOBAL_BATCH,
                "--checkpoint-min": AUTO_CHECKPOINT,
            }
            said = unset[option] if option in unset and default is None else str(default)
            assert said.removesuffix(".0") == shown, (kind, option, default, shown)
            assert option in help_text and f"default: ({shown})]" in help_text, (kind, option)


def test_explain_never_leaks_python_none() -> None:
    result = runner.invoke(app, [*NEWCOMER, "--explain", "1"])
    assert result.exit_code == 0
    assert "None" not in result.output


def test_bad_files_and_stores_are_errors_not_tracebacks(tmp_path: Path) -> None:
    bad = tmp_path / "w.yaml"
    bad.write_bytes(b"kind: serve\nmodel: \xff\xfe\x00")
    for args in (
        ["recommend", "serve", "--workload", str(bad)],
        ["recommend", "serve", "llama-3.1-8b", "--db", "foo"],
        ["recommend", "serve", "llama-3.1-8b", "--db", "postgresql+psycopg://u:p@127.0.0.1:1/none"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code in (1, 2), (args, result.output)
        assert "error:" in result.output and "Traceback" not in result.output


def test_a_row_renting_several_instances_says_so_beside_its_hourly_price() -> None:
    """'$3.20' beside '2 x 8x RTX5090' read as the deployment's price; it is one instance's."""
    # 128 users of a 70B model: replicas of 1-4 GPU instances are among the ten rows shown
    result = runner.invoke(app, ["recommend", "serve", "llama-3.1-70b", "--concurrency", "128"])
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)  # cells: #, trade-off, provider, instance, config, $/h, ...
    several = [r for r in rows if r[4].split(" ")[1:2] == ["x"]]  # config "2 x 4x H100-SXM TP4"
    assert several, "expected a multi-instance row in this scenario"
    for r in several:
        assert r[5].startswith(f"{r[4].split(' ')[0]} x $"), r
    assert all(r[5].startswith("$") for r in rows if r not in several)


def test_request_rate_is_spelt_alike_in_recommend_and_estimate() -> None:
    # `estimate` said --request-rate, `recommend serve` --rps: each now takes the other's spelling too
    def answer(*args: str) -> object:
        result = runner.invoke(app, [*args, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    serve = ["recommend", "serve", "llama-3.1-8b", "--top", "2"]
    assert answer(*serve, "--request-rate", "3") == answer(*serve, "--rps", "3")
    est = ["estimate", "llama-3.1-8b", "--gpu", "H100"]
    assert answer(*est, "--rps", "3") == answer(*est, "--request-rate", "3")


def test_a_narrow_serve_table_keeps_the_column_cheapest_first_orders_by() -> None:
    # rows are ordered by $/month (a faster row serves more tokens for its month); at 80 columns the
    # table kept cost/unit, not the sort key, and read as unsorted under "cheapest first"
    args = ["recommend", "serve", "llama-3.1-8b", "--concurrency", "32", "--prompt", "2000"]
    env = {"TTY_COMPATIBLE": "1", "COLUMNS": "80", "NO_COLOR": "1"}  # a terminal 80 columns wide
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    assert "cheapest first" in result.output and "$/month" in result.output
    header = next(line for line in result.output.splitlines() if "provider" in line)
    assert "cost/unit" not in header
    monthly = [
        float(m.group(1).replace(",", ""))
        for line in result.output.splitlines()
        if line.startswith("│") and (m := re.search(r"\$([\d,.]+) │\s*$", line))
    ]
    assert len(monthly) >= 5 and monthly == sorted(monthly)


def test_users_is_another_name_for_concurrency() -> None:
    # a renter counts users; `--users 8` was "No such option" suggesting --bursts and --rps
    serve = runner.invoke(app, ["recommend", "serve", "llama-3.1-8b", "--users", "8", "--json", "--top", "1"])
    assert serve.exit_code == 0, serve.output
    assert json.loads(serve.output)["workload"]["concurrency"] == 8
    est = runner.invoke(app, ["estimate", "llama-3.1-8b", "--gpu", "L40S", "--users", "8", "--json"])
    assert est.exit_code == 0, est.output
    assert json.loads(est.output)["concurrency"] == 8


def test_an_estimator_error_on_the_request_shape_names_this_commands_options() -> None:
    # the estimator says context_in / context_out; recommend's options are --prompt / --output
    args = ["recommend", "serve", "llama-3.1-8b", "--engine", "vllm --max-model-len 1000", "--prompt", "2000"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "(--prompt + --output: 2,000 + 256)" in result.stderr and "context_in" not in result.stderr


def test_a_prompt_past_the_models_context_names_the_options_in_the_accepted_range_too() -> None:
    # the field read --prompt but the range still said "prompt_tokens + output_tokens <= 131,072"
    args = ["recommend", "serve", "llama-3.1-8b", "--prompt", "200000", "--output", "100"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stderr.startswith("error: --prompt: 200,000 prompt + 100 output")
    assert "(accepted: --prompt + --output <= 131,072 (or a model with a longer context))" in result.stderr
    assert "prompt_tokens" not in result.stderr and "output_tokens" not in result.stderr


def test_explaining_a_row_past_a_one_row_answer_counts_one_row(tmp_path: Path) -> None:
    from tests.catalog.helpers import make_offer

    only = make_offer(
        provider="lambda",
        instance_type="gpu_1x_h100",
        region="us-west-1",
        price_usd_per_hour=3.0,
        observed_at=None,
    )
    args = ["recommend", "serve", "llama-3.1-8b", "--db", _store_with(tmp_path, [only])]
    result = runner.invoke(app, [*args, "--explain", "2"])
    assert result.exit_code == 2, result.output
    assert "--explain: row 2 does not exist (1 row) (accepted: 1..1)" in result.stderr
