"""A file ``gpuscout offers --csv`` wrote loads back as an own-offers file, and an unknown column is told
the column it most likely means.

``offers --csv`` writes ``accelerator`` (the ``Offer`` field) where the file source read ``gpu``, and
``refresh -s file:my.csv`` failed "column 4: unknown field; did you mean price_usd_per_hour?".
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.offer_fields import RECORD_COLUMNS
from gpuscout.catalog.sources.file_source import (
    ACCEPTED,
    KNOWN_COLUMNS,
    OfferFileError,
    closest_column,
    parse_offer_file,
)
from gpuscout.cli import app
from gpuscout.cli.offers_view import print_offers_csv

runner = CliRunner()


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_every_column_offers_csv_writes_is_known() -> None:
    assert {*RECORD_COLUMNS, "age"} <= KNOWN_COLUMNS


def test_the_catalog_offers_csv_writes_loads_back_as_a_file_and_writes_the_same(tmp_path: Path) -> None:
    out = runner.invoke(app, ["offers", "--csv", "--include-stale", "--limit", "100000"])
    assert out.exit_code == 0, out.output
    exported = _rows(out.output)
    assert len(exported) > 700 and "accelerator" in exported[0] and "gpu" not in exported[0]
    path = tmp_path / "my.csv"
    path.write_text(out.output, encoding="utf-8")
    done = runner.invoke(app, ["refresh", "-s", f"file:{path}", "--json"])
    assert done.exit_code == 0, done.output
    [result] = json.loads(done.output)
    assert result["status"] == "ok" and result["rows"] == len(exported), result
    # the store now holds the file's offers only (the bundled snapshot is no longer in use): written
    # again, every cell is what was written, but where the offers came from
    again = runner.invoke(app, ["offers", "--csv", "--include-stale", "--limit", "100000"])
    assert again.exit_code == 0, again.output
    rewritten = _rows(again.output)

    def key(r: dict[str, str]) -> tuple[str, ...]:
        return tuple(v for k, v in r.items() if k != "source")

    assert sorted(map(key, rewritten)) == sorted(map(key, exported))
    assert {r["source"] for r in rewritten} == {f"file:{path.resolve()}"}


def _offer(**kw: object) -> Offer:
    base: dict[str, object] = {
        "provider": "lab",
        "instance_type": "box",
        "region": "eu",
        "accelerator": "H100-SXM",
        "gpu_count": 8,
        "gpu_memory_gb": 80.0,
        "price_usd_per_hour": 16.0,
        "spot_price_usd_per_hour": None,
        "source": "test:lab",
        "observed_at": datetime(2026, 11, 1, 12, tzinfo=UTC),
        "billing_terms": "lab",  # what the file source sets where the file names none
    }
    return Offer(**{**base, **kw})  # type: ignore[arg-type]


OFFERS = [
    _offer(
        interconnect=Interconnect.NVLINK,
        internode="efa",
        availability=Availability.LIMITED,
        available_count=3,
        spot_price_usd_per_hour=6.4,
        regions=("eu-west-1", "eu-central-1"),
        region="2 regions",
        also_listed_by=("shadeform",),
        secure=True,
        vcpus=192.0,
        ram_gb=2048.0,
        disk_gb=30000.0,
        zone="eu-west-1a",
        egress_usd_per_gb=0.09,
        storage_usd_per_gb_month=0.08,
        notes="negotiated",
    ),
    # a vGPU slice: 20 GB of an 80 GB A100, whose per-GPU price is for a whole GPU's worth
    _offer(
        accelerator="A100-SXM4-80GB",
        gpu_count=1,
        gpu_memory_gb=20.0,
        fractional=True,
        price_usd_per_hour=0.5,
        spot_price_usd_per_hour=0.3,
        instance_type="slice",
    ),
    # an auction price, and a price first stated in euros; of unknown age, stale
    _offer(
        price_is_interruptible=True,
        original_currency="EUR",
        original_price_per_hour=14.5,
        original_spot_price_per_hour=None,
        observed_at=None,
        stale=True,
        secure=False,
        billing_terms="vastai",
    ),
    _offer(price_usd_per_hour=None, spot_price_usd_per_hour=3.0, instance_type="spot-only"),
]


def test_every_field_offers_csv_writes_is_read_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    print_offers_csv(OFFERS)
    text = capsys.readouterr().out
    path = tmp_path / "mine.csv"
    path.write_text(text, encoding="utf-8")
    back = parse_offer_file(path)
    assert len(back) == len(OFFERS)
    for was, now in zip(OFFERS, back, strict=True):
        # the same offer, but for where it came from
        assert now == dataclass_replace(was, source=f"file:{path}"), (was, now)
    assert back[1].price_usd_per_gpu_hour == pytest.approx(2.0)  # 0.5 for a quarter of the card
    # and written again, the same cells
    print_offers_csv(back)
    assert [{**r, "source": ""} for r in _rows(capsys.readouterr().out)] == [
        {**r, "source": ""} for r in _rows(text)
    ]


def dataclass_replace(offer: Offer, **kw: object) -> Offer:
    import dataclasses

    return dataclasses.replace(offer, **kw)  # type: ignore[arg-type]


def test_a_yaml_file_may_name_the_gpu_accelerator(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "- provider: lab\n  accelerator: H100 SXM\n  price_usd_per_hour: 2\n"
        "  age: 3 days\n  observed_at: unknown\n"
    )
    [offer] = parse_offer_file(path)
    assert offer.accelerator == "H100-SXM" and offer.observed_at is None


def test_the_gpu_named_twice_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "both.csv"
    path.write_text("provider,gpu,accelerator,price_usd_per_hour\nlab,H100 SXM,A100,2\n")
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    assert err.value.problems == [
        ("both.csv:1: column 3", "names the gpu column, which the file has too: keep one")
    ]


@pytest.mark.parametrize(
    ("cells", "field", "why"),
    [
        ("fractional", "maybe", "not true or false"),
        ("internode", "ethernet", "unknown value (accepted: efa, infiniband, roce)"),
        ("original_currency", "euro", "not an ISO 4217 currency code"),
        ("spot_price_usd_per_gpu_hour", "9", "disagrees with spot_price_usd_per_hour / gpu_count (0.5)"),
    ],
)
def test_the_columns_offers_csv_writes_are_checked(tmp_path: Path, cells: str, field: str, why: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        f"provider,gpu,gpu_count,price_usd_per_hour,spot_price_usd_per_hour,{cells}\nlab,T4,2,2,1,{field}\n"
    )
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    [(where, said)] = err.value.problems
    assert where == f"bad.csv:2: {cells}" and said.startswith(why), said
    assert field not in said.replace(why, "")  # the cell is never echoed


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("accelerators", "accelerator"),
        ("GPU", "gpu"),
        ("gpu-count", "gpu_count"),
        ("gpu_type", "gpu"),
        ("gpu_model", "gpu"),
        ("gpus", "gpu_count"),
        ("vram_gb", "gpu_memory_gb"),
        ("memory", "gpu_memory_gb"),
        ("price", "price_usd_per_hour"),
        ("cost", "price_usd_per_hour"),
        ("price_per_hour", "price_usd_per_hour"),
        ("prce_usd_per_hour", "price_usd_per_hour"),
        ("price_per_gpu_hour", "price_usd_per_gpu_hour"),
        ("spot_price", "spot_price_usd_per_hour"),
        ("regoin", "region"),
        ("region_name", "region"),
        ("observed", "observed_at"),
        ("instance", "instance_type"),
        ("foo", None),
    ],
)
def test_an_unknown_column_is_told_the_closest_column(name: str, meant: str | None) -> None:
    assert closest_column(name) == meant


def test_the_unknown_column_message_names_the_closest_column(tmp_path: Path) -> None:
    # "gpu_name" was told "did you mean price_usd_per_hour?" (and "accelerator", before it was known)
    path = tmp_path / "offers.csv"
    path.write_text("provider,gpu_name,price_usd_per_hour\nlab,T4,0.5\n")
    with pytest.raises(OfferFileError) as err:
        parse_offer_file(path)
    [(where, said)] = err.value.problems
    assert where == "offers.csv:1: column 2"
    assert said.startswith("unknown field; did you mean gpu? (accepted: provider, gpu, ")
    assert "gpu_name" not in said
    assert all(c in ACCEPTED for c in ("regions", "fractional", "price_is_interruptible"))


def test_the_one_pass_reader_reads_a_row_with_the_derived_columns_as_the_checking_reader() -> None:
    from gpuscout.catalog.sources import file_source as fs

    cells = {
        "provider": "lab",
        "gpu": "H100 SXM",
        "gpu_count": "8",
        "price_usd_per_hour": "16",
        "source": "snapshot:x",
        "total_memory_gb": "640.0",
        "age": "unknown",
    }
    now = datetime(2026, 12, 1, tzinfo=UTC)
    names = fs._Names()
    fast = fs.plain_reader(list(cells), "file:f.csv", now, now, names)(list(cells.values()), 2)
    row = fs._Row("f.csv", cells, 2, {})
    assert fast is not None and fast == fs._offer(row, "file:f.csv", now, now, names) and not row.problems
    assert fast.source == "file:f.csv"
    # a column only the checking reader reads: every row goes to it
    assert (
        fs.plain_reader([*cells, "fractional"], "file:f.csv", now, now, names)([*cells.values(), ""], 2)
        is None
    )
