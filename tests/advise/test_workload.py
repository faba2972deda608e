"""Workload types: validation naming the field, defaults, YAML/JSON round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuscout.advise.workload import (
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
    Workload,
)
from gpuscout.errors import InvalidInputError
from gpuscout.loaders import workload_from_file


def test_serve_round_trips_through_yaml_and_json(tmp_path: Path) -> None:
    w = ServeWorkload(
        model="llama-3.1-8b",
        concurrency=32,
        prompt_tokens=2000,
        output_tokens=500,
        bursts_per_day=20,
        burst_minutes=6,
        providers=("runpod",),
    )
    assert Workload.from_yaml(w.to_yaml()) == w
    assert Workload.from_json(w.to_json()) == w
    f = tmp_path / "w.yaml"
    f.write_text(w.to_yaml())
    assert workload_from_file(f) == w
    assert "bursts_per_day: 20" in w.to_yaml()
    assert "ttft_ms_max" not in w.to_yaml()  # defaults left out


@pytest.mark.parametrize(
    "w",
    [
        BatchWorkload(model="sdxl", images_total=10_000, steps=30),
        FinetuneWorkload(model="llama-3.1-70b", method="qlora", dataset_tokens=2e7, epochs=3),
        PretrainWorkload(model="llama-3.2-1b", token_budget=1e10, gpus=64),
    ],
)
def test_other_kinds_round_trip(w: Workload, tmp_path: Path) -> None:
    f = tmp_path / "w.json"
    f.write_text(w.to_json())
    back = workload_from_file(f)
    assert back == w
    assert type(back) is type(w)


def test_kind_picks_the_class() -> None:
    assert isinstance(
        Workload.from_dict({"kind": "finetune", "model": "m", "dataset_tokens": 1e6}), FinetuneWorkload
    )
    assert isinstance(ServeWorkload.from_dict({"model": "m"}), ServeWorkload)


@pytest.mark.parametrize(
    ("data", "field", "accepted"),
    [
        ({"kind": "serve", "model": "m", "concurrency": 0}, "concurrency", ">= 1"),
        ({"kind": "serve", "model": "m", "concurrency": 4, "requests_per_s": 2}, "concurrency", "one of"),
        ({"kind": "serve", "model": "m", "bursts_per_day": 3}, "bursts_per_day", "both or neither"),
        ({"kind": "serve", "model": "m", "hours_per_day": 25}, "hours_per_day", "<= 24"),
        ({"kind": "serve", "model": "m", "colour": "red"}, "colour", "concurrency"),
        ({"kind": "batch", "model": "m"}, "output_tokens_total", "images_total"),
        ({"kind": "finetune", "model": "m"}, "dataset_tokens", ">= 1"),
        ({"kind": "finetune", "model": "m", "dataset_tokens": 1, "method": "dora"}, "method", "qlora"),
        ({"kind": "pretrain", "model": "m", "token_budget": 1, "gpus": 8, "nodes": 1}, "gpus", "one of"),
        ({"kind": "train", "model": "m"}, "kind", "serve, batch, finetune, pretrain"),
        ({"kind": "serve", "model": ""}, "model", "non-empty"),
    ],
)
def test_bad_input_names_the_field_and_what_is_accepted(
    data: dict[str, object], field: str, accepted: str
) -> None:
    with pytest.raises(InvalidInputError) as exc:
        Workload.from_dict(data)
    assert exc.value.field == field
    assert accepted in (exc.value.accepted or "")


def test_direct_construction_gives_the_same_friendly_error() -> None:
    with pytest.raises(InvalidInputError) as exc:
        ServeWorkload(model="m", output_tokens=-3)
    assert exc.value.field == "output_tokens"


def test_unparseable_file_is_a_workload_error(tmp_path: Path) -> None:
    f = tmp_path / "w.yaml"
    f.write_text("kind: [serve\n")
    with pytest.raises(InvalidInputError, match="workload"):
        workload_from_file(f)
    with pytest.raises(InvalidInputError, match="cannot read"):
        workload_from_file(tmp_path / "missing.yaml")


def test_spot_defaults_per_kind() -> None:
    assert not ServeWorkload(model="m").spot_ok
    assert ServeWorkload(model="m", spot_allowed=True).spot_ok
    assert BatchWorkload(model="m", output_tokens_total=1e6).spot_ok
    assert not BatchWorkload(model="m", output_tokens_total=1e6, interruptible=False).spot_ok
    assert FinetuneWorkload(model="m", dataset_tokens=1).spot_ok
    assert not PretrainWorkload(model="m", token_budget=1).spot_ok


def test_serve_activity_pattern() -> None:
    bursty = ServeWorkload(model="m", bursts_per_day=20, burst_minutes=6)
    assert bursty.active_hours_per_day == pytest.approx(2.0)
    assert bursty.starts_per_day == 20
    assert ServeWorkload(model="m").starts_per_day == 0
    assert ServeWorkload(model="m", hours_per_day=8).starts_per_day == 1
    with pytest.raises(InvalidInputError, match="exceeds 24 h"):
        ServeWorkload(model="m", bursts_per_day=100, burst_minutes=30)


def test_batch_input_tokens_default_from_request_shape() -> None:
    w = BatchWorkload(model="m", output_tokens_total=1e6, prompt_tokens=1000, output_tokens=250)
    assert w.input_tokens == pytest.approx(4e6)


@pytest.mark.parametrize(
    "data", [{"kind": {}}, {"kind": ["serve"]}, {1: "x", "kind": "serve"}, {"kind": None}]
)
def test_malformed_kind_or_keys_are_input_errors_not_crashes(data: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidInputError) as err:
        Workload.from_dict(data)
    assert err.value.field in ("kind", "workload")


def test_hours_per_day_with_bursts_is_an_error_naming_the_conflict() -> None:
    with pytest.raises(InvalidInputError) as exc:
        ServeWorkload(model="m", bursts_per_day=3, burst_minutes=5, hours_per_day=8)
    assert exc.value.field == "hours_per_day" and "not both" in str(exc.value)
    # bursts alone, or hours alone, are fine
    assert ServeWorkload(model="m", bursts_per_day=3, burst_minutes=5).active_hours_per_day == 0.25
    assert ServeWorkload(model="m", hours_per_day=8).active_hours_per_day == 8


def test_serving_defaults_to_chat_latency_targets_unless_told_otherwise() -> None:
    from gpuscout.advise.workload import CHAT_TPOT_MS, CHAT_TTFT_MS

    w = ServeWorkload(model="m")
    assert (w.ttft_target_ms, w.tpot_target_ms) == (CHAT_TTFT_MS, CHAT_TPOT_MS)
    assert ServeWorkload(model="m", ttft_ms_max=500).ttft_target_ms == 500
    none = ServeWorkload(model="m", latency_targets="none")
    assert (none.ttft_target_ms, none.tpot_target_ms) == (None, None)
    assert ServeWorkload(model="m", latency_targets="none", tpot_ms_max=30).tpot_target_ms == 30
    with pytest.raises(InvalidInputError) as exc:
        ServeWorkload(model="m", latency_targets="fast")  # type: ignore[arg-type]
    assert exc.value.field == "latency_targets" and "chat" in str(exc.value)


@pytest.mark.parametrize(
    ("text", "hours"),
    [("24h", 24.0), ("90m", 1.5), ("2d", 48.0), ("1w", 168.0), ("36", 36.0), (" 1.5 hours ", 1.5), (12, 12)],
)
def test_deadlines_accept_a_duration_with_a_unit(text: object, hours: float) -> None:
    for w in (
        FinetuneWorkload(model="m", dataset_tokens=1e6, deadline_hours=text),  # type: ignore[arg-type]
        PretrainWorkload(model="m", token_budget=1e9, deadline_hours=text),  # type: ignore[arg-type]
        BatchWorkload(model="m", output_tokens_total=1e6, deadline_hours=text),
    ):  # type: ignore[arg-type]
        assert w.deadline_hours == pytest.approx(hours)


def test_a_deadline_that_is_not_a_duration_names_the_field() -> None:
    with pytest.raises(InvalidInputError) as exc:
        FinetuneWorkload(model="m", dataset_tokens=1e6, deadline_hours="soon")  # type: ignore[arg-type]
    assert exc.value.field == "deadline_hours" and "24h" in str(exc.value)
