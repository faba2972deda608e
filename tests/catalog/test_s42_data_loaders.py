"""Host RAM and disk in GB from the recorded payloads: providers that state GiB (Lambda's memory_gib,
Scaleway's GiB-multiple bytes, DigitalOcean's binary "MB", Vast.ai's MiB) are converted, not taken as
GB (220 GiB is 236.22 GB, not 220)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.sources.digitalocean import SIZES_URL, DigitalOceanSource
from gpuscout.catalog.sources.lambda_cloud import INSTANCE_TYPES_URL, LambdaSource
from gpuscout.catalog.sources.scaleway import ScalewaySource, availability_url, servers_url
from gpuscout.catalog.sources.vastai import BUNDLES_URL, VastAISource
from tests.catalog.sources.samples import by_type, fetch, sample

GIB = 2**30 / 1e9  # GB per GiB
MIB = 2**20 / 1e9  # GB per MiB


@respx.mock
def test_lambda_memory_gib_and_storage_gib_are_converted_to_gb(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMBDA_API_KEY", "secret-key")
    answer: dict[str, Any] = sample("lambda")["response"]
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=answer))
    offers = fetch(LambdaSource())
    for o in offers:
        specs = answer["data"][o.instance_type]["instance_type"]["specs"]
        assert o.ram_gb == pytest.approx(specs["memory_gib"] * GIB, abs=0.01), o.instance_type
        assert o.disk_gb == pytest.approx(specs["storage_gib"] * GIB, abs=0.01), o.instance_type
    a100 = next(o for o in offers if o.instance_type == "gpu_1x_a100_sxm4")
    assert (a100.vcpus, a100.ram_gb, a100.disk_gb) == (30, 236.22, 549.76)  # 220 GiB, 512 GiB


@respx.mock
def test_scaleway_ram_bytes_are_gb_not_gib() -> None:
    body = sample("scaleway_instance")
    respx.get(servers_url("fr-par-2")).mock(return_value=httpx.Response(200, json=body))
    respx.get(availability_url("fr-par-2")).mock(
        return_value=httpx.Response(200, json=sample("scaleway_instance.availability"))
    )
    source = ScalewaySource()
    source.zones = ("fr-par-2",)
    offers = by_type(fetch(source))
    h100 = offers["H100-SXM-8-80G"]
    assert body["servers"]["H100-SXM-8-80G"]["ram"] == 960 * 2**30
    assert (h100.vcpus, h100.ram_gb) == (128, 1030.79)
    for name, o in offers.items():
        assert o.ram_gb == pytest.approx(body["servers"][name]["ram"] / 1e9, abs=0.01), name
    assert h100.gpu_memory_gb == 80  # GPU memory stays the vendor's figure (80 "GB" = 80 GiB)


@respx.mock
def test_digitalocean_binary_mb_and_gib_disk_are_converted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGITALOCEAN_TOKEN", "do-token")
    answer = sample("digitalocean")["response"]
    respx.get(SIZES_URL).mock(return_value=httpx.Response(200, json=answer))
    h100 = by_type(fetch(DigitalOceanSource()))["gpu-h100x8-640gb"]
    assert answer["sizes"][0]["memory"] == 1920 * 1024  # DigitalOcean's 1920 GiB droplet
    assert (h100.vcpus, h100.ram_gb, h100.disk_gb) == (160, 2061.58, 2196.88)  # 1920 GiB, 2046 GiB
    assert h100.price_usd_per_hour == pytest.approx(23.92)


@respx.mock
def test_digitalocean_disk_stated_in_gb_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGITALOCEAN_TOKEN", "do-token")
    answer = sample("digitalocean")["response"]
    answer["sizes"][0]["disk_info"][0]["size"] = {"amount": 500, "unit": "gb"}
    respx.get(SIZES_URL).mock(return_value=httpx.Response(200, json=answer))
    assert by_type(fetch(DigitalOceanSource()))["gpu-h100x8-640gb"].disk_gb == 500


@respx.mock
def test_vast_cpu_ram_mib_share_is_converted_to_gb() -> None:
    answer = sample("vastai")["response"]
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json=answer))
    (o,) = fetch(VastAISource())
    row = answer["offers"][0]
    assert (row["cpu_ram"], row["cpu_cores"], row["cpu_cores_effective"]) == (128556, 16, 4)
    assert o.vcpus == 4
    assert o.ram_gb == pytest.approx(128556 * MIB * 4 / 16, abs=0.01)  # 33.70 GB, not 32.14
