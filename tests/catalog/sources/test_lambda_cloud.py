"""Lambda Cloud adapter against the recorded instance-types payload."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.lambda_cloud import INSTANCE_TYPES_URL, LambdaSource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMBDA_API_KEY", "secret-key")


def answer() -> dict[str, Any]:
    return sample("lambda")["response"]


@respx.mock
def test_one_offer_per_region_with_capacity() -> None:
    route = respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=answer()))
    offers = fetch(LambdaSource())
    assert route.calls[0].request.headers["Authorization"] == "Bearer secret-key"
    a100 = sorted((o for o in offers if o.instance_type == "gpu_1x_a100_sxm4"), key=lambda o: o.region)
    assert [o.region for o in a100] == ["us-east-1", "us-west-2"]
    o = a100[0]
    assert o.provider == "lambda"
    assert o.accelerator == "A100-SXM4-40GB"  # Lambda names the 80 GB part explicitly
    assert o.gpu_count == 1 and o.gpu_memory_gb == 40
    assert o.price_usd_per_hour == pytest.approx(1.99)  # 199 cents per instance-hour
    assert o.spot_price_usd_per_hour is None
    assert (o.vcpus, o.ram_gb, o.disk_gb) == (30, 236.22, 549.76)  # memory_gib 220, storage_gib 512, in GB
    assert o.availability is Availability.AVAILABLE
    assert o.interconnect is Interconnect.NVLINK

    (gh200,) = [o for o in offers if o.instance_type == "gpu_1x_gh200"]
    assert (gh200.accelerator, gh200.region, gh200.price_usd_per_hour) == ("GH200-96GB", "us-east-3", 2.29)
    assert gh200.extra["architecture"] == "arm64"


@respx.mock
def test_sold_out_type_is_one_unavailable_offer() -> None:
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=answer()))
    (h100,) = [o for o in fetch(LambdaSource()) if o.instance_type == "gpu_1x_h100_sxm5"]
    assert h100.region == "any"
    assert h100.availability is Availability.UNAVAILABLE
    assert h100.accelerator == "H100-SXM"
    assert h100.price_usd_per_hour == pytest.approx(4.29)


@respx.mock
def test_description_wins_over_the_name() -> None:
    data = answer()
    data["data"]["gpu_8x_h100_sxm5"] = {
        "instance_type": {
            "name": "gpu_8x_h100_sxm5",
            "description": "8x H100 (80 GB SXM5)",
            "price_cents_per_hour": 2392,
            "specs": {"vcpus": 208, "memory_gib": 1800, "storage_gib": 24780, "gpus": 8},
        },
        "regions_with_capacity_available": [{"name": "us-south-1"}],
    }
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    (o,) = [o for o in fetch(LambdaSource()) if o.instance_type == "gpu_8x_h100_sxm5"]
    assert (o.accelerator, o.gpu_count, o.price_usd_per_hour) == ("H100-SXM", 8, 23.92)
    assert o.price_usd_per_gpu_hour == pytest.approx(2.99)


def _v100(name: str) -> dict[str, Any]:
    """A Lambda V100 type. The description's shape ("<n>x Tesla <gpu> (<mem> GB)", no form factor) is
    the one gpuhunt's regex allows for (lambda.json notes: ``^(\\d)x (?:Tesla )?(.+) \\((\\d+) GB``); the
    exact text, the names (gpu_8x_v100 and gpu_8x_v100_n, also in the bundled snapshot's Lambda rows)
    and the $6.32 are those rows' and recalled, not a recorded body."""
    return {
        "instance_type": {
            "name": name,
            "description": "8x Tesla V100 (16 GB)",
            "price_cents_per_hour": 632,
            "specs": {"vcpus": 92, "memory_gib": 448, "storage_gib": 5860, "gpus": 8},
        },
        "regions_with_capacity_available": [{"name": "us-east-1"}],
    }


@respx.mock
def test_description_without_form_factor_is_not_dropped() -> None:
    """A description that names no form factor ("8x Tesla V100 (16 GB)") used to drop the type
    ("does not say which variant"): the name's token pins it where Lambda's names do (``v100``), and
    otherwise the default variant is assumed and marked, as every other source and the snapshot do."""
    data = answer()
    data["data"]["gpu_8x_v100"] = _v100("gpu_8x_v100")
    data["data"]["gpu_8x_v100_n"] = _v100("gpu_8x_v100_n")
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    src = LambdaSource()
    offers = {o.instance_type: o for o in fetch(src)}
    assert src.dropped == []
    pinned, assumed = offers["gpu_8x_v100"], offers["gpu_8x_v100_n"]
    assert (pinned.accelerator, pinned.gpu_count, pinned.gpu_memory_gb) == ("V100-SXM2-16GB", 8, 16)
    assert pinned.price_usd_per_hour == pytest.approx(6.32) and "variant" not in pinned.extra
    assert (assumed.accelerator, assumed.gpu_count) == ("V100-SXM2-16GB", 8)
    assert assumed.extra["variant"] == "assumed" and "form factor not stated" in assumed.notes


@respx.mock
def test_8x_a100_named_without_description_is_the_sxm4_part() -> None:
    """``gpu_8x_a100`` is Lambda's 8x A100 40GB SXM4 on an NVLink baseboard, its 1x/2x/4x ``a100`` are
    PCIe cards (docs.lambda.ai/public-cloud/on-demand/, as the bundled snapshot's rules
    lambda-a100-40gb-sxm4-stated and lambda-a100-40gb-is-pcie say). Read from the name alone, the
    bare ``a100`` token made the 8x box PCIe cards joined over PCIe."""
    data = answer()
    for name, gpus, cents in (("gpu_8x_a100", 8, 1032), ("gpu_4x_a100", 4, 516)):
        data["data"][name] = {
            "instance_type": {
                "name": name,
                "price_cents_per_hour": cents,
                "specs": {"vcpus": 31 * gpus, "memory_gib": 225 * gpus, "storage_gib": 512, "gpus": gpus},
            },
            "regions_with_capacity_available": [{"name": "us-east-1"}],
        }
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    offers = {o.instance_type: o for o in fetch(LambdaSource())}
    eight, four = offers["gpu_8x_a100"], offers["gpu_4x_a100"]
    assert (eight.accelerator, eight.gpu_count) == ("A100-SXM4-40GB", 8)
    assert eight.interconnect is Interconnect.NVLINK and "variant" not in eight.extra
    assert (four.accelerator, four.gpu_count, four.interconnect) == ("A100-PCIe-40GB", 4, Interconnect.PCIE)


def test_missing_key_is_reported_and_nothing_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAMBDA_API_KEY")
    src = LambdaSource()
    assert not src.credentials_present()
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(INSTANCE_TYPES_URL)
        with pytest.raises(CredentialsMissingError, match="credentials missing: set LAMBDA_API_KEY"):
            fetch(src)
        assert not route.called


@respx.mock
def test_renamed_price_field_names_it() -> None:
    data = answer()
    for entry in data["data"].values():
        entry["instance_type"]["price_usd_cents"] = entry["instance_type"].pop("price_cents_per_hour")
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    with pytest.raises(SourceError, match="price_cents_per_hour"):
        fetch(LambdaSource())


@respx.mock
def test_empty_answer() -> None:
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json={"data": {}}))
    assert fetch(LambdaSource()) == []


@respx.mock
def test_401_is_not_retried_and_says_check_credentials() -> None:
    route = respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(401, json={"error": "bad key"}))
    sleep = SleepRecorder()
    with pytest.raises(SourceError, match="check the credentials"):
        fetch(LambdaSource(sleep=sleep))
    assert route.call_count == 1 and sleep.delays == []


@respx.mock
def test_429_then_success() -> None:
    respx.get(INSTANCE_TYPES_URL).mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "2"}), httpx.Response(200, json=answer())]
    )
    sleep = SleepRecorder()
    assert len(fetch(LambdaSource(sleep=sleep))) == 4
    assert sleep.delays == [2.0]
