"""The file source: the user's own offers from CSV/YAML, with line-numbered errors."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.file_source import FileSource, OfferFileError, parse_offer_file

CSV_OK = """provider,instance_type,region,gpu,gpu_count,price_usd_per_hour,spot_price_usd_per_hour,\
interconnect,observed_at,notes
coreweave,reserved-8xh100,us-east,H100 SXM,8,16.0,,nvlink,2026-11-01,1-year contract
onprem,rack-2,basement,RTX 4090,1,0.12,,,,electricity + amortization
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_offers_field_by_field(tmp_path: Path) -> None:
    path = _write(tmp_path, "offers.csv", CSV_OK)
    first, second = parse_offer_file(path)
    assert first.provider == "coreweave" and first.instance_type == "reserved-8xh100"
    assert first.accelerator == "H100-SXM" and first.gpu_count == 8 and first.gpu_memory_gb == 80.0
    assert first.price_usd_per_hour == 16.0 and first.price_usd_per_gpu_hour == 2.0
    assert first.spot_price_usd_per_hour is None
    assert first.interconnect is Interconnect.NVLINK
    assert first.observed_at == datetime(2026, 11, 1, tzinfo=UTC)
    assert first.notes == "1-year contract" and first.source == f"file:{path}"
    assert second.accelerator == "RTX4090" and second.gpu_count == 1 and second.gpu_memory_gb == 24.0
    # no observed_at column value: the file's modification time, when the user wrote the price down
    assert second.observed_at == datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)


def test_yaml_offers_with_per_gpu_price(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "offers.yaml",
        """
offers:
  - provider: lambda
    gpu: A100 PCIe 80GB
    gpu_count: 4
    price_usd_per_gpu_hour: 1.1
    availability: available
    available_count: 2
""",
    )
    [offer] = parse_offer_file(path)
    assert offer.provider == "lambda" and offer.accelerator == "A100-PCIe-80GB"
    assert offer.price_usd_per_hour == pytest.approx(4.4)
    assert offer.instance_type == "4xA100-PCIe-80GB" and offer.region == "private"
    assert offer.availability is Availability.AVAILABLE and offer.available_count == 2


def test_csv_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "offers.csv",
        (
            "provider,gpu,gpu_count,price_usd_per_hour\n"
            "ok,H100 SXM,1,2.0\n"
            "\n"
            "bad,H100 SXM,1,-3\n"
            "bad,H100 SXM,two,2.0\n"
            "bad,H1OO,1,2.0\n"
            ",A10,1,\n"
        ),
    )
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    fields = [f for f, _ in err.value.problems]
    assert fields == [
        "offers.csv:4: price_usd_per_hour",
        "offers.csv:5: gpu_count",
        "offers.csv:6: gpu",
        "offers.csv:7: provider",
        "offers.csv:7: price_usd_per_hour",
    ]
    assert str(err.value).startswith("offers.csv:4: price_usd_per_hour: must be > 0")
    assert "H100-SXM" in dict(err.value.problems)["offers.csv:6: gpu"]  # closest known names


def test_unknown_column_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "offers.csv", "provider,gpu,price_per_hour\nx,T4,0.5\n")
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    fields = [f for f, _ in err.value.problems]
    assert "offers.csv:2: price_per_hour" in fields
    assert "accepted: provider, gpu, price_usd_per_hour" in str(err.value)


def test_yaml_errors_use_the_line_of_the_value(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "offers.yml",
        "- provider: a\n  gpu: T4\n  price_usd_per_hour: 0.5\n"
        "- provider: b\n  gpu: T4\n  price_usd_per_hour: free\n",
    )
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    assert err.value.problems[0][0] == "offers.yml:6: price_usd_per_hour"


def test_bad_yaml_and_bad_types(tmp_path: Path) -> None:
    with pytest.raises(OfferFileError, match=r"offers\.yaml:3: yaml: not valid YAML"):
        parse_offer_file(_write(tmp_path, "offers.yaml", "offers:\n  - [unclosed\n"))
    with pytest.raises(OfferFileError, match="list of offers"):
        parse_offer_file(_write(tmp_path, "o2.yaml", "just a string\n"))
    from gpuscout.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="unknown file type"):
        parse_offer_file(_write(tmp_path, "offers.txt", "x"))
    with pytest.raises(InvalidInputError, match="cannot read"):
        parse_offer_file(tmp_path / "missing.csv")
    with pytest.raises(OfferFileError, match="no offers"):
        parse_offer_file(_write(tmp_path, "empty.csv", "provider,gpu,price_usd_per_hour\n"))


def test_price_columns_must_agree(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "o.csv",
        "provider,gpu,gpu_count,price_usd_per_hour,price_usd_per_gpu_hour\nx,A10,2,2.0,1.5\n",
    )
    with pytest.raises(OfferFileError, match=r"o\.csv:2: price_usd_per_gpu_hour: disagrees"):
        parse_offer_file(path)


def test_file_source_fetch(tmp_path: Path) -> None:
    path = _write(tmp_path, "offers.csv", CSV_OK)
    source = FileSource(path)
    assert source.name == f"file:{path.resolve()}" and source.needs_credentials == ()

    async def go() -> int:
        async with httpx.AsyncClient() as client:
            return len(await source.fetch(client))

    assert asyncio.run(go()) == 2
