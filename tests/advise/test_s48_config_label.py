"""A row's configuration label says replicas are per instance where there are several instances."""

from __future__ import annotations

from gpuscout.advise.types import Config


def _config(instances: int, gpus: int, tp: int) -> Config:
    replicas = gpus // tp
    return Config(
        instances=instances,
        gpus_per_instance=gpus,
        tp=tp,
        replicas_per_instance=replicas,
        gpus_used=instances * replicas * tp,
        nodes=1,
        spot=False,
    )


def test_replicas_of_several_instances_are_each() -> None:
    assert _config(2, 2, 1).describe("H100-SXM") == "2 x 2x H100-SXM 2 replicas each"
    assert _config(2, 8, 2).describe("B200") == "2 x 8x B200 TP2 4 replicas each"


def test_one_instance_keeps_its_label() -> None:
    assert _config(1, 8, 1).describe("A100") == "8x A100 8 replicas"
    assert _config(3, 1, 1).describe("L40S") == "3 x 1x L40S"
