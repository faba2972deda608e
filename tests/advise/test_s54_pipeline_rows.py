"""The advisor tries a pipeline (vLLM's --pipeline-parallel-size) where the GPUs talk over PCIe: a batch job
takes it where it finishes clearly sooner than tensor parallelism, a live endpoint where it needs fewer
instances; over NVLink, and for a lead within the pipeline's uncalibrated margin, tensor parallelism stays."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.configs import fabric_accelerator
from gpuscout.advise.inference_configs import PIPELINE_LEAD
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.estimate import estimate
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.web.schemas import RecommendationOut
from tests.advise.helpers import offer

NOW = datetime(2026, 12, 5, tzinfo=UTC)


def _box(accelerator: str, gpus: int, memory_gb: float, price: float, interconnect: Interconnect) -> Offer:
    return offer(
        "example", accelerator, gpus, price, memory=memory_gb, interconnect=interconnect,
        availability=Availability.AVAILABLE, observed_at=NOW,
    )  # fmt: skip


def _rate(model: str, gpu: str, gpus: int, parallel: str, precision: str | None, interconnect: str) -> float:
    """The estimator's output tokens/s at a full batch, on the GPU as the offer installs it."""
    acc = fabric_accelerator(resolve_gpu(gpu), interconnect)
    e = estimate(
        model, acc, gpus=gpus, precision=precision, engine="vllm", batch="max", parallel=parallel,
        context_in=1024, context_out=256,
    )  # fmt: skip
    assert e.fits
    return e.output_tokens_per_s_total


def test_a_batch_job_on_pcie_cards_runs_as_a_pipeline_when_it_finishes_clearly_sooner() -> None:
    # 70B AWQ on 4x RTX 4090 (no peer-to-peer: every all-reduce is staged through host memory)
    tp = _rate("llama-3.1-70b", "RTX4090", 4, "tensor", "awq", "pcie")
    pp = _rate("llama-3.1-70b", "RTX4090", 4, "layer", "awq", "pcie")
    assert pp > tp / (1.0 - PIPELINE_LEAD)  # the estimator's own lead, beyond the margin
    w = BatchWorkload(model="llama-3.1-70b", precision="awq", engine="vllm", output_tokens_total=5e7)
    box = _box("RTX4090", 4, 24.0, 1.4, Interconnect.PCIE)
    r = advise(w, [box], top=3, now=NOW).rows[0]
    assert r.config.tp == 4 and r.config.parallel == "pipeline"
    assert r.config.describe(r.offer.accelerator).endswith("4x RTX4090 PP4")
    assert r.estimate is not None and r.estimate.throughput == pytest.approx(
        pp * r.config.instances, rel=1e-6
    )
    split = next(x for x in r.reasons if "split by layers" in x)
    assert "as a pipeline (PP4, --pipeline-parallel-size 4 on vllm" in split
    assert "where its fastest tensor-parallel split (TP4) takes" in split
    assert not any("tensor-parallel decode" in x for x in r.warnings)  # no all-reduce to warn of
    assert any("no calibration row runs a pipeline" in x for x in r.warnings)
    out = RecommendationOut.from_rec(r)
    assert out.config.parallel == "pipeline" and "PP4" in out.config.description


def test_over_nvlink_tensor_parallelism_stays_though_the_physics_favours_the_pipeline() -> None:
    """No measurement tells the two apart over NVLink, where the all-reduces are cheap and vLLM's advice
    is tensor parallelism within a node: the estimator's (uncalibrated) pipeline lead is not acted on."""
    tp = _rate("llama-3.1-70b", "H100-SXM", 8, "tensor", None, "nvlink")
    pp = _rate("llama-3.1-70b", "H100-SXM", 8, "layer", None, "nvlink")
    assert pp > tp / (1.0 - PIPELINE_LEAD)
    w = BatchWorkload(model="llama-3.1-70b", engine="vllm", output_tokens_total=5e7)
    r = advise(w, [_box("H100-SXM", 8, 80.0, 20.0, Interconnect.NVLINK)], top=3, now=NOW).rows[0]
    assert r.config.parallel == "tensor"


def test_a_pipeline_lead_within_the_margin_keeps_tensor_parallelism() -> None:
    # Qwen2.5-32B AWQ on 2x A10G: the pipeline is a few percent faster by the estimator's physics, less
    # than the margin its missing calibration asks for
    tp = _rate("qwen2.5-32b", "A10G", 2, "tensor", "awq", "pcie")
    pp = _rate("qwen2.5-32b", "A10G", 2, "layer", "awq", "pcie")
    assert tp < pp < tp / (1.0 - PIPELINE_LEAD)
    w = BatchWorkload(model="qwen2.5-32b", precision="awq", engine="vllm", output_tokens_total=5e7)
    r = advise(w, [_box("A10G", 2, 24.0, 2.0, Interconnect.PCIE)], top=3, now=NOW).rows[0]
    assert r.config.tp == 2 and r.config.parallel == "tensor"


def _serve_rows(*offers: Offer):  # type: ignore[no-untyped-def]
    # relaxed targets (an internal tool): the batch a replica takes is set by memory, not latency
    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", concurrency=400, tpot_ms_max=150.0,
        ttft_ms_max=10_000.0,
    )  # fmt: skip
    return advise(w, list(offers), top=10, now=NOW).rows


def test_an_endpoint_takes_a_pipeline_only_where_it_needs_fewer_instances() -> None:
    two = _box("L40S", 2, 48.0, 0.8, Interconnect.PCIE)
    (r,) = _serve_rows(two)
    assert r.config.tp == 2 and r.config.parallel == "pipeline"
    split = next(x for x in r.reasons if "split by layers" in x)
    assert f"a pipeline carries the load on {r.config.instances} instances where TP2 needs" in split
    tp_needs = int(split.rsplit("TP2 needs ", 1)[1].split()[0].rstrip(")"))
    assert tp_needs > r.config.instances
    # the operating point and the capacity shown are the pipeline's (every later estimate of the split)
    assert r.estimate is not None and r.estimate.engine == "vllm"
    assert any("pipeline parallelism" in x for x in r.warnings)


def test_one_box_pipeline_does_not_leak_into_another_box_of_the_same_gpu() -> None:
    """A 2-GPU box's PP2 and a 4-GPU box's TP2 replicas are decided apart: the 4-GPU row is labelled as it
    runs (a vLLM split is tensor parallel or a pipeline, never llama.cpp's layer split)."""
    rows = _serve_rows(
        _box("L40S", 2, 48.0, 0.8, Interconnect.PCIE), _box("L40S", 4, 48.0, 1.6, Interconnect.PCIE)
    )
    assert len(rows) == 2
    for r in rows:
        assert r.config.parallel in ("tensor", "pipeline"), r.config
        assert (r.config.parallel == "pipeline") == any("pipeline parallelism" in x for x in r.warnings)


def test_chat_targets_keep_tensor_parallelism_for_an_endpoint() -> None:
    """At chat targets a replica holds few users: the pipeline saves no instance, tensor parallelism
    answers each request sooner."""
    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", concurrency=400, latency_targets="chat"
    )
    rows = advise(w, [_box("L40S", 4, 48.0, 1.6, Interconnect.PCIE)], top=3, now=NOW).rows
    assert rows and all(r.config.parallel == "tensor" for r in rows)


def test_a_batch_pipeline_must_beat_the_fastest_tensor_split_of_any_width() -> None:
    """8x RTX A6000, Qwen2.5-32B in 16-bit: PP8 is far faster than TP8 (a ring of 8 PCIe GPUs all-reduces
    at a small share of the link), and two PP4 replicas ~8 % faster than four TP2 ones: within the margin
    of the fastest tensor split, so the four TP2 replicas run it."""
    tp2 = _rate("qwen2.5-32b", "A6000", 2, "tensor", None, "pcie") * 4
    tp8 = _rate("qwen2.5-32b", "A6000", 8, "tensor", None, "pcie")
    pp8 = _rate("qwen2.5-32b", "A6000", 8, "layer", None, "pcie")
    pp4 = _rate("qwen2.5-32b", "A6000", 4, "layer", None, "pcie") * 2
    assert pp8 > tp8 / (1.0 - PIPELINE_LEAD)
    assert tp2 < max(pp8, pp4) < tp2 / (1.0 - PIPELINE_LEAD)
    w = BatchWorkload(model="qwen2.5-32b", engine="vllm", output_tokens_total=5e7)
    r = advise(w, [_box("A6000", 8, 48.0, 6.0, Interconnect.PCIE)], top=3, now=NOW).rows[0]
    assert (r.config.tp, r.config.replicas_per_instance, r.config.parallel) == (2, 4, "tensor")


def test_a_pipeline_row_is_marked_uncalibrated_and_its_pick_says_why() -> None:
    w = BatchWorkload(model="llama-3.1-70b", precision="awq", engine="vllm", output_tokens_total=5e7)
    answer = advise(w, [_box("RTX4090", 4, 24.0, 1.4, Interconnect.PCIE)], top=3, now=NOW)
    r = answer.rows[0]
    assert r.config.parallel == "pipeline" and r.estimate is not None and not r.estimate.speed_calibrated
    assert any("as a pipeline" in p.text for p in answer.uncalibrated_picks)


def test_no_pipeline_for_a_past_engine_version_or_an_nvlink_part_on_an_unstated_fabric() -> None:
    # vLLM before 0.5.1 had no pipeline parallelism: a version named keeps its tensor split
    w = BatchWorkload(model="qwen2.5-32b", engine="vllm 0.4", output_tokens_total=5e7)
    rows = advise(w, [_box("L40S", 4, 48.0, 3.0, Interconnect.PCIE)], top=3, now=NOW).rows
    assert rows and all(r.config.parallel != "pipeline" for r in rows)
    # an 8x H100-SXM box whose source does not state its fabric: costed over PCIe, but no pipeline
    w = BatchWorkload(model="llama-3.1-70b", engine="vllm", output_tokens_total=5e7)
    r = advise(w, [_box("H100-SXM", 8, 80.0, 20.0, Interconnect.UNKNOWN)], top=3, now=NOW).rows[0]
    assert r.fabric_assumed and r.config.parallel == "tensor"


def test_an_endpoint_keeps_tensor_parallelism_for_a_saving_within_the_margin() -> None:
    """2,000 users on 2x L40S: a pipeline needs one instance fewer of ~46 (2 %): not worth the slower
    first token on an uncalibrated speed."""
    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", concurrency=2000, tpot_ms_max=150.0,
        ttft_ms_max=10_000.0,
    )  # fmt: skip
    rows = advise(w, [_box("L40S", 2, 48.0, 0.8, Interconnect.PCIE)], top=3, now=NOW).rows
    assert rows and all(r.config.parallel == "tensor" for r in rows)


def test_a_layout_flag_in_the_engine_tells_the_advisor_user_to_leave_it_out() -> None:
    """The estimator's answer (--gpus N --parallel layer) names options the advisor does not have."""
    from gpuscout.errors import InvalidInputError

    w = BatchWorkload(model="llama-3.1-8b", engine="vllm -pp 2", output_tokens_total=1e6)
    with pytest.raises(InvalidInputError) as err:
        advise(w, [_box("L40S", 2, 48.0, 0.8, Interconnect.PCIE)], top=3, now=NOW)
    assert err.value.field == "engine"
    assert (
        "which the advisor chooses for each offer" in err.value.message
        and "leave it out" in err.value.message
    )
    assert "--parallel" not in str(err.value)


def test_the_estimate_calls_a_vllm_layer_split_a_pipeline() -> None:
    e = estimate(
        "llama-3.1-70b", "RTX4090", gpus=4, precision="awq", engine="vllm", parallel="layer", batch=8
    )
    assert str(e.assumptions["parallel"]).startswith(
        "pipeline over 4 GPUs (whole layers per GPU, a batch in flight"
    )
    e = estimate("llama-3.1-70b", "RTX4090", gpus=4, precision="gguf-q4_k_m", engine="llama.cpp", batch=8)
    assert str(e.assumptions["parallel"]).startswith("layer split over 4 GPUs")


def test_a_pipeline_runs_on_every_gpu_of_a_box_tensor_parallelism_leaves_partly_idle() -> None:
    """5x RTX 4090: TP4 (or PP4) leaves a paid GPU idle; a pipeline has no head count to divide: PP5."""
    pp4 = _rate("llama-3.1-70b", "RTX4090", 4, "layer", "awq", "pcie")
    pp5 = _rate("llama-3.1-70b", "RTX4090", 5, "layer", "awq", "pcie")
    assert pp5 > pp4
    w = BatchWorkload(model="llama-3.1-70b", precision="awq", engine="vllm", output_tokens_total=5e7)
    r = advise(w, [_box("RTX4090", 5, 24.0, 2.0, Interconnect.PCIE)], top=3, now=NOW).rows[0]
    assert (r.config.tp, r.config.parallel, r.config.idle_per_instance) == (5, "pipeline", 0)
    assert r.config.describe(r.offer.accelerator).endswith("5x RTX4090 PP5")
    assert r.estimate is not None and r.estimate.throughput == pytest.approx(
        pp5 * r.config.instances, rel=1e-6
    )


def test_an_endpoint_on_a_five_gpu_box_runs_one_pipeline_over_all_five() -> None:
    """125 users of a 70B AWQ within relaxed targets: TP4 leaves the fifth 4090 idle and needs two boxes; a
    pipeline over all five carries them on one."""
    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", concurrency=125, tpot_ms_max=350.0,
        ttft_ms_max=5000.0,
    )  # fmt: skip
    (r,) = advise(w, [_box("RTX4090", 5, 24.0, 2.0, Interconnect.PCIE)], top=3, now=NOW).rows
    assert (r.config.tp, r.config.parallel, r.config.instances, r.config.idle_per_instance) == (
        5,
        "pipeline",
        1,
        0,
    )
    assert any("PP5 carries the load on 1 instance where the 4-GPU split needs 2" in x for x in r.reasons)


def test_an_endpoint_takes_a_pipeline_that_answers_clearly_sooner_on_as_many_instances() -> None:
    """200 users on an 8x 4090 box with no latency targets: two TP4 replicas (all-reduces staged through host
    memory) take ~2 min a request, one PP8 about half that, on the same single box."""
    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", concurrency=200, latency_targets="none"
    )
    (r,) = advise(w, [_box("RTX4090", 8, 24.0, 2.8, Interconnect.PCIE)], top=3, now=NOW).rows
    assert (r.config.tp, r.config.parallel, r.config.instances) == (8, "pipeline", 1)
    split = next(x for x in r.reasons if "split by layers" in x)
    assert "PP8 answers sooner: a request takes" in split and "where the 4-GPU split takes" in split


def test_a_wider_pipeline_is_compared_with_the_split_it_replaces() -> None:
    """6x RTX 4090, 800 users: PP3 x 2 beats TP4 (9 boxes to 11) and PP6 beats both (8). The reason compares
    PP6 with the 4-GPU split it replaces (11), not with the PP3 x 2 it beat on the way (9)."""
    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", concurrency=800, ttft_ms_max=10_000.0,
        tpot_ms_max=200.0,
    )  # fmt: skip
    (r,) = advise(w, [_box("RTX4090", 6, 24.0, 2.4, Interconnect.PCIE)], top=3, now=NOW).rows
    assert (r.config.tp, r.config.parallel, r.config.instances) == (6, "pipeline", 8)
    split = next(x for x in r.reasons if "split by layers" in x)
    assert split.endswith("PP6 carries the load on 8 instances where the 4-GPU split needs 11")


@pytest.mark.parametrize(
    ("engine", "pipelined"), [("vllm 0.6", True), ("sglang 0.4", False), ("sglang 0.5", True)]
)
def test_a_named_release_has_a_pipeline_from_its_first_release_on(engine: str, pipelined: bool) -> None:
    w = BatchWorkload(model="llama-3.1-70b", precision="awq", engine=engine, output_tokens_total=5e7)
    r = advise(w, [_box("RTX4090", 4, 24.0, 1.4, Interconnect.PCIE)], top=3, now=NOW).rows[0]
    assert (r.config.parallel == "pipeline") is pipelined


def test_the_estimate_itself_says_a_pipeline_is_uncalibrated() -> None:
    pp = estimate(
        "llama-3.1-70b", "RTX4090", gpus=4, precision="awq", engine="vllm", parallel="layer", batch=8
    )
    tp = estimate("llama-3.1-70b", "RTX4090", gpus=4, precision="awq", engine="vllm", batch=8)
    split = estimate("llama-3.1-70b", "RTX4090", gpus=4, precision="gguf-q4_k_m", engine="llama.cpp", batch=8)
    assert not pp.speed_calibrated and tp.speed_calibrated and split.speed_calibrated


def test_near_tied_pipelines_take_the_narrower_with_more_replicas() -> None:
    """8x RTX 4090: PP8 is ~3 % faster than two PP4 replicas by the (uncalibrated) physics; within the 5 %
    that counts as the same speed, two replicas keep half the box serving if a GPU fails."""
    pp4 = _rate("llama-3.1-70b", "RTX4090", 4, "layer", "awq", "pcie") * 2
    pp8 = _rate("llama-3.1-70b", "RTX4090", 8, "layer", "awq", "pcie")
    assert pp4 < pp8 < pp4 * 1.05
    w = BatchWorkload(model="llama-3.1-70b", precision="awq", engine="vllm", output_tokens_total=5e7)
    r = advise(w, [_box("RTX4090", 8, 24.0, 2.8, Interconnect.PCIE)], top=3, now=NOW).rows[0]
    assert (r.config.tp, r.config.replicas_per_instance, r.config.parallel) == (4, 2, "pipeline")


def test_a_monthly_volume_is_served_at_its_rate_not_at_one_user() -> None:
    """1e9 output tokens a month, no users given: the rows' speeds are at the volume's 1.5 requests/s
    spread over the replicas (it showed one idle user's TTFT and speed)."""
    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", monthly_output_tokens=1e9, ttft_ms_max=5000.0,
        tpot_ms_max=350.0,
    )  # fmt: skip
    assert w.offered_rate == pytest.approx(1e9 / (30 * 86400) / 256)
    answer = advise(w, [_box("RTX4090", 5, 24.0, 2.0, Interconnect.PCIE)], top=3, now=NOW)
    (r,) = answer.rows
    assert any(t.startswith("load: 1.5 requests/s on average") for t in answer.targets)
    one_user = estimate(
        "llama-3.1-70b", fabric_accelerator(resolve_gpu("RTX4090"), "pcie"), gpus=5, precision="awq",
        engine="vllm", parallel="layer", batch=1, context_in=1024, context_out=256,
    )  # fmt: skip
    assert r.estimate is not None and r.estimate.tpot_ms is not None
    assert r.estimate.tpot_ms > 1.5 * one_user.tpot_ms  # a loaded replica, not an idle one
