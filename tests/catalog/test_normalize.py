"""Every normalization rule, each checked on a recorded provider payload."""

from __future__ import annotations

import math

import pytest

from gpuscout.catalog.normalize import (
    Unmatched,
    azure_exclusion,
    azure_is_spot,
    cents_to_usd,
    compose_gcp_instance_price,
    gpu_memory_gb,
    interconnect_for,
    is_gcp_commitment,
    match_gpu,
    per_instance,
    price_or_none,
    units_nanos,
)
from gpuscout.catalog.offer import Interconnect
from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.catalog.sources.samples import sample


def test_vast_gpu_ram_mb_per_gpu_to_canonical_gb() -> None:
    offer = sample("vastai")["response"]["offers"][0]
    memory = gpu_memory_gb(offer["gpu_ram"], "MiB")
    assert memory == 24.0
    m = match_gpu(offer["gpu_name"], memory)
    assert (m.accelerator.name, m.memory_gb, m.exact) == ("RTX3090", 24.0, True)


def test_aws_a10g_22888_mib_is_the_24_gb_part() -> None:
    # AWS reports the A10G's usable memory, 22888 MiB (22.35 GB); the card is a 24 GB part.
    memory = gpu_memory_gb(22888, "MiB")
    assert memory == pytest.approx(22.35, abs=0.01)
    m = match_gpu("A10G", memory)
    assert (m.accelerator.name, m.memory_gb) == ("A10G", 24.0)


def test_runpod_memory_in_gb_is_gb_not_mib() -> None:
    t = sample("runpod")["gpu_type_with_stock_fixture"]
    m = match_gpu(t["id"], t["memoryInGb"])
    assert (m.accelerator.name, m.memory_gb) == ("H100-SXM", 80.0)
    # Reading RunPod's "80 MiB" label literally would make it a 0.08 GB card: rejected.
    with pytest.raises(Unmatched, match="matches no variant"):
        match_gpu(t["id"], gpu_memory_gb(t["memoryInGb"], "MiB"))


def test_memory_picks_the_variant_and_unknown_names_are_reasons() -> None:
    a100 = sample("runpod")["gpu_type_docs_sample"]
    assert match_gpu(a100["id"], a100["memoryInGb"]).accelerator.name == "A100-PCIe-80GB"
    m40 = match_gpu("A100", 40)  # gpuhunt-style bare name + memory
    assert m40.accelerator.name == "A100-SXM4-40GB" and not m40.exact and "assumed" in m40.note
    with pytest.raises(Unmatched, match="does not say which variant"):
        match_gpu("A100", 40, allow_assumed=False)
    with pytest.raises(Unmatched, match="unknown GPU 'Quantum 9000'"):
        match_gpu("Quantum 9000", 24)
    with pytest.raises(Unmatched, match="no GPU name"):
        match_gpu("", 24)


def test_digitalocean_total_vram_divided_per_gpu() -> None:
    size = sample("digitalocean")["response"]["sizes"][0]
    info = size["gpu_info"]
    per_gpu = gpu_memory_gb(info["vram"]["amount"], info["vram"]["unit"]) / info["count"]
    assert match_gpu(info["model"].replace("nvidia_", ""), per_gpu).accelerator.name == "H100-SXM"
    # per-instance price (DO) -> per GPU
    assert size["price_hourly"] / info["count"] == pytest.approx(2.99)


def test_vultr_vgpu_slice_is_fractional() -> None:
    plans = sample("vultr")["plans_fixture"]["plans"]
    slice_plan, full_plan = plans
    s = match_gpu("A100", slice_plan["gpu_vram_gb"], allow_fractional=True)
    assert s.fractional and s.memory_gb == 4.0 and "fractional/vGPU slice: 4 GB" in s.note
    f = match_gpu("A100", full_plan["gpu_vram_gb"], allow_fractional=True)
    assert not f.fractional and f.memory_gb == 80.0
    with pytest.raises(Unmatched):  # a slice is only accepted where the source expects slices
        match_gpu("A100", slice_plan["gpu_vram_gb"])


def test_runpod_per_gpu_price_times_count() -> None:
    t = sample("runpod")["gpu_type_with_stock_fixture"]
    assert per_instance(t["securePrice"], 8) == pytest.approx(21.52)
    assert per_instance(None, 8) is None
    with pytest.raises(ValueError, match="gpu_count"):
        per_instance(1.0, 0)


def test_cents_to_usd_lambda_and_shadeform() -> None:
    lam = sample("lambda")["response"]["data"]["gpu_1x_h100_sxm5"]["instance_type"]
    assert cents_to_usd(lam["price_cents_per_hour"]) == pytest.approx(4.29)
    shade = sample("shadeform")["response"]["instance_types"][0]
    assert cents_to_usd(shade["hourly_price"]) == pytest.approx(1.50)
    assert cents_to_usd(0) is None and cents_to_usd(None) is None


def test_units_and_nanos_gcp_and_scaleway() -> None:
    gcp = sample("gcp")["sku_sample_opencost_fixture"]["pricingInfo"][0]["pricingExpression"]
    price = gcp["tieredRates"][0]["unitPrice"]
    assert units_nanos(price["units"], price["nanos"]) == pytest.approx(2.933908)
    scw = sample("scaleway")["response_docs_sample"]["products"][0]["price"]["retail_price"]
    assert units_nanos(scw["units"], scw["nanos"]) == pytest.approx(0.0532)  # "0.0532€ per hour"


def test_azure_reservation_and_devtest_rows_excluded() -> None:
    s = sample("azure")
    consumption, reservation = s["Items_gpu_fixtures"]
    assert azure_exclusion(consumption) is None
    assert "reservation" in (azure_exclusion(reservation) or "")
    assert reservation["retailPrice"] == 42066.0 and reservation["unitOfMeasure"] == "1 Hour"  # the trap
    devtest = s["Items_docs_sample"][0]
    assert azure_exclusion(devtest) == "dev/test pricing"
    assert azure_is_spot(devtest) and not azure_is_spot(consumption)
    low = dict(consumption, meterName="NC40adsH100v5 Low Priority")
    assert azure_exclusion(low) == "low-priority meter (retiring)"


def _gcp_unit_price(sku: dict) -> float:  # type: ignore[type-arg]
    money = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][-1]["unitPrice"]
    return units_nanos(money.get("units"), money.get("nanos"))


def test_gcp_commitment_excluded() -> None:
    on_demand = sample("gcp")["sku_sample_opencost_fixture"]
    assert not is_gcp_commitment(on_demand)
    assert _gcp_unit_price(on_demand) == pytest.approx(2.933908)
    commitment = dict(on_demand, description="Commitment v1: Nvidia Tesla A100 GPU running in Americas")
    assert is_gcp_commitment(commitment)


def test_gcp_instance_is_host_plus_gpus() -> None:
    gpu_rate = _gcp_unit_price(sample("gcp")["sku_sample_opencost_fixture"])
    # a2-highgpu-1g us-central1: host 0.73948 $/h (price_snapshot.md) + 1 x A100 2.933908
    assert compose_gcp_instance_price(0.73948, gpu_rate, 1) == pytest.approx(3.67339, abs=1e-5)
    assert compose_gcp_instance_price(0.73948 * 8, gpu_rate, 8) == pytest.approx(29.38710, abs=1e-3)
    with pytest.raises(ValueError, match="host_usd_per_hour"):
        compose_gcp_instance_price(0.0, gpu_rate, 8)  # a4 host rows of 0.0: a catalog gap


def test_unknown_prices_are_none_never_zero() -> None:
    verda = sample("verda_datacrunch")["instance_types_items"][0]
    assert price_or_none(verda["price_per_hour"]) == pytest.approx(3.95)  # a string
    assert price_or_none(sample("runpod")["gpu_type_docs_sample"]["secureSpotPrice"]) is None  # null
    for bad in (0, "0.00", -1, "n/a", "", math.nan, math.inf, True):
        assert price_or_none(bad) is None


def test_interconnect_from_the_part() -> None:
    assert interconnect_for(resolve_gpu("H100 SXM")) is Interconnect.NVLINK
    assert interconnect_for(resolve_gpu("A100 PCIe 80GB")) is Interconnect.PCIE
    assert interconnect_for(resolve_gpu("RTX 4090")) is Interconnect.PCIE
    assert interconnect_for(resolve_gpu("MI300X")) is Interconnect.NVLINK  # Infinity Fabric


def test_memory_unit_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match="unit: unknown memory unit 'bytes'"):
        gpu_memory_gb(1, "bytes")


def test_an_unknown_name_costs_no_closest_name_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit's defect 12: 3,000 distinct unknown names cost a fuzzy search each (98 s on one
    loop). A feed's unknown GPU only becomes a drop reason: no suggestions are computed for it."""
    from gpuscout.knowledge import accelerators

    def forbidden(*_: object, **__: object) -> list[str]:
        raise AssertionError("closest-name search for a feed's unknown GPU")

    monkeypatch.setattr(accelerators, "closest", forbidden)
    for i in range(50):
        with pytest.raises(Unmatched) as err:
            match_gpu(f"Zorblax {i} Ultra", 80.0)
        assert err.value.category == "unknown GPU" and err.value.invalid
    # a user's typo still gets the closest names (computed when the error is raised)
    monkeypatch.undo()
    with pytest.raises(UnknownNameError) as user:
        accelerators.resolve_gpu("H1OO SXM")
    assert user.value.suggestions


def test_excluded_rows_are_not_invalid() -> None:
    from gpuscout.catalog.normalize import Excluded

    assert not Excluded("CPU-only instance type").invalid and Unmatched("x").invalid
    assert Unmatched("unknown GPU 'X'", "unknown GPU").category == "unknown GPU"
