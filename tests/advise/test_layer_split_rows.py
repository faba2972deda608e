"""A llama.cpp row whose model spans several GPUs is a layer split (the GPUs hold whole layers and take
turns), and every face says so: the config text, the reasons, the CSV and the JSON API's config."""

from __future__ import annotations

from datetime import UTC, datetime

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.web.schemas import RecommendationOut
from tests.catalog.helpers import make_offer

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def _box(accelerator: str, memory_gb: float, price: float, interconnect: Interconnect) -> Offer:
    """A two-GPU instance of ``accelerator``, available now."""
    return make_offer(
        provider="example",
        instance_type=f"2x{accelerator}",
        region="eu-1",
        accelerator=accelerator,
        gpu_count=2,
        gpu_memory_gb=memory_gb,
        price_usd_per_hour=price,
        source="test",
        observed_at=NOW,
        interconnect=interconnect,
        availability=Availability.AVAILABLE,
    )


def _v100_box(interconnect: Interconnect) -> Offer:
    # 8B in 16-bit (16 GB) does not fit one 16 GB V100, and vLLM's default wheel has no sm_70
    # kernels: the advisor runs llama.cpp and splits the model by layers over the two GPUs
    return _box("V100-SXM2-16GB", 16.0, 0.5, interconnect)


def _row(interconnect: Interconnect):  # type: ignore[no-untyped-def]
    w = ServeWorkload(model="llama-3.1-8b", concurrency=8, prompt_tokens=2000, output_tokens=500)
    answer = advise(w, [_v100_box(interconnect)], top=5, now=NOW)
    assert answer.rows, answer.binding
    return answer.rows[0]


def test_a_llama_cpp_split_is_named_a_layer_split_not_tp() -> None:
    r = _row(Interconnect.NVLINK)
    assert r.estimate is not None and r.estimate.engine == "llama.cpp"
    assert r.config.tp == 2 and r.config.parallel == "layer"
    text = r.config.describe(r.offer.accelerator)
    assert text == "2x V100-SXM2-16GB 2-way layer split"
    assert any("split by layers over 2 GPUs" in x for x in r.reasons)
    assert not any("TP2" in x for x in r.reasons)
    out = RecommendationOut.from_rec(r)
    assert out.config.parallel == "layer" and "TP" not in out.config.description


def test_an_unstated_fabric_is_costed_as_pcie_and_said_for_a_layer_split() -> None:
    r = _row(Interconnect.UNKNOWN)
    assert r.config.parallel == "layer" and r.fabric_assumed
    assert any("layer split costed over PCIe" in x for x in r.warnings)
    assert not any("tensor-parallel" in x for x in r.warnings)


def test_llama_cpp_serves_several_users_per_replica() -> None:
    """llama-server decodes its slots together (continuous batching): 8 users need one replica, not 8."""
    r = _row(Interconnect.NVLINK)
    assert r.config.instances == 1 and r.estimate is not None
    assert r.estimate.batch_per_replica == 8


def test_hf_transformers_over_several_gpus_is_a_layer_split() -> None:
    """HF transformers spreads a model with accelerate's device_map="auto": whole layers per GPU, run in
    turn (the engine's default_parallel), as the calibration benchmark reads its multi-GPU rows."""
    from gpuscout.advise.workload import BatchWorkload

    box = _box("L4", 24.0, 1.0, Interconnect.PCIE)
    # Qwen2.5-14B in bf16 (~30 GB) needs both 24 GB cards
    w = BatchWorkload(model="qwen2.5-14b", engine="hf-transformers", output_tokens_total=1e6)
    r = advise(w, [box], top=3, now=NOW).rows[0]
    assert r.estimate is not None and r.estimate.engine == "hf-transformers"
    assert r.config.tp == 2 and r.config.parallel == "layer"
    # (as many instances as the batch's billing gives at no extra cost: rank.billing_sized)
    assert r.config.describe(r.offer.accelerator).endswith("2x L4 2-way layer split")
    assert any("split by layers over 2 GPUs" in x for x in r.reasons)
