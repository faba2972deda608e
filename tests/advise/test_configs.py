"""One evaluator per workload kind, and "reject this configuration" vs "abort the request" decided by the
error's type (ConfigurationRejected), not by the name of the field it carries."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.evaluators import evaluator_for
from gpuscout.advise.inference_configs import BatchImagesEvaluator, BatchTokensEvaluator, ServeEvaluator
from gpuscout.advise.rank import rank
from gpuscout.advise.training_configs import TrainingEvaluator
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, PretrainWorkload, ServeWorkload
from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.types import Estimate
from tests.advise.fakes import fake_backends, fake_images, fake_inference, fake_training
from tests.advise.helpers import NOW, offer

BE = fake_backends()


@pytest.mark.parametrize(
    ("workload", "kind"),
    [
        (ServeWorkload(model="small", concurrency=4), ServeEvaluator),
        (BatchWorkload(model="small", output_tokens_total=1e8), BatchTokensEvaluator),
        (BatchWorkload(model="small", images_total=1000), BatchImagesEvaluator),
        (FinetuneWorkload(model="small", dataset_tokens=1e7), TrainingEvaluator),
        (PretrainWorkload(model="small", token_budget=1e9), TrainingEvaluator),
    ],
)
def test_each_workload_kind_has_its_evaluator(workload: Any, kind: type) -> None:
    evaluator = evaluator_for(workload, BE, Assumptions())
    assert type(evaluator) is kind
    ev = evaluator.evaluate(offer("persec", "H100-SXM", 8, 20.0))
    assert ev.fits and ev.rejected is None
    assert evaluator.detail(ev).summary is not None


def _refusing(error: InvalidInputError, when_gpus: int) -> Any:
    """Backends whose estimators raise ``error`` for configurations of ``when_gpus`` GPUs."""

    def inference(*args: Any, gpus: int = 1, **kw: Any) -> Estimate:
        if gpus == when_gpus:
            raise error
        return fake_inference(*args, gpus=gpus, **kw)

    def training(*args: Any, gpus: int = 1, **kw: Any) -> Any:
        if gpus == when_gpus:
            raise error
        return fake_training(*args, gpus=gpus, **kw)

    def images(model: str, gpu: Any, **kw: Any) -> Any:
        if gpu.name == "H100-SXM":
            raise error
        return fake_images(model, gpu, **kw)

    return dataclasses.replace(BE, inference=inference, training=training, images=images)


WORKLOADS = [
    ServeWorkload(model="small", concurrency=1),
    BatchWorkload(model="small", output_tokens_total=1e7),
    BatchWorkload(model="small", images_total=100),
    FinetuneWorkload(model="small", dataset_tokens=1e7),
]


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: f"{w.kind}")
@pytest.mark.parametrize("field", ["gpus", "precision", "anything"])
def test_a_configuration_refusal_rejects_only_that_offer(workload: Any, field: str) -> None:
    refused = offer("persec", "H100-SXM", 1, 2.0)
    other = offer("persec", "H200-SXM", 2, 9.0)
    be = _refusing(ConfigurationRejected(field, "cannot run here"), when_gpus=1)
    recs = rank(workload, [refused, other], backends=be, now=NOW, include_rejected=True)
    ranked = [r for r in recs if r.rank is not None]
    assert [r.offer.accelerator for r in ranked] == ["H200-SXM"]
    [rejected] = [r for r in recs if r.rank is None]
    assert rejected.offer is refused and "cannot run here" in (rejected.rejected or "")


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: f"{w.kind}")
@pytest.mark.parametrize("field", ["gpus", "batch", "precision"])
def test_any_other_input_error_aborts_the_request_whatever_its_field(workload: Any, field: str) -> None:
    be = _refusing(InvalidInputError(field, "bad input"), when_gpus=1)
    with pytest.raises(InvalidInputError, match="bad input") as info:
        rank(workload, [offer("persec", "H100-SXM", 1, 2.0)], backends=be, now=NOW)
    assert not isinstance(info.value, ConfigurationRejected)


def test_the_estimators_refuse_an_impossible_configuration_by_type() -> None:
    from gpuscout import estimate
    from gpuscout.estimate.training import estimate_training

    with pytest.raises(ConfigurationRejected, match="gpus"):
        estimate("llama-3.1-8b", "H100", gpus=10_000)
    with pytest.raises(ConfigurationRejected, match="batch"):
        estimate("llama-3.1-8b", "H100", batch=10**9)
    with pytest.raises(ConfigurationRejected, match="nodes"):
        estimate_training("llama-3.1-8b", "H100", nodes=10**7)
    with pytest.raises(InvalidInputError) as info:  # the user's input, not a configuration
        estimate("llama-3.1-8b", "H100", context_in=-1)
    assert not isinstance(info.value, ConfigurationRejected)
