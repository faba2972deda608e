"""The Offer fields are defined once (the dataclass): the store mapping, the API schema, the exports and
the CLI columns follow it, and a field added in one place reaches every face."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpuscout.catalog import schema
from gpuscout.catalog.offer import COMPUTED_FIELDS, Offer
from gpuscout.catalog.offer_fields import RECORD_COLUMNS, csv_cell, face_fields, offer_record
from gpuscout.catalog.rows import OFFER_COLUMNS, offer_row, row_offer
from gpuscout.catalog.store import Store
from tests.catalog.helpers import STORE_KINDS, make_offer, temp_store
from tests.conftest import REPO

NEW_FIELDS = {
    "regions": ("us-east-1", "us-west-2", "eu-central-1"),
    "also_listed_by": ("shadeform", "gpuhunt:aws"),
    "original_currency": "EUR",
    "original_price_per_hour": 2.3,
    "original_spot_price_per_hour": 1.1,
    "price_is_interruptible": True,
}


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with temp_store(request.param, tmp_path) as s:
        yield s


def test_schema_has_a_column_for_every_offer_field() -> None:
    columns = {c.name for c in schema.offers.columns}
    fields = {f.name for f in dataclasses.fields(Offer)}
    assert fields <= columns, f"add a migration step and a schema column for {sorted(fields - columns)}"
    assert set(OFFER_COLUMNS) == fields


def test_faces_show_every_field_but_the_internal_ones() -> None:
    internal = {f.name for f in dataclasses.fields(Offer) if f.metadata.get("face") is False}
    assert internal == {"extra"}
    shown = [f.name for f in dataclasses.fields(Offer) if f.name not in internal]
    assert list(RECORD_COLUMNS) == [*shown, *(name for name, _ in COMPUTED_FIELDS)]
    assert all(f.doc for f in face_fields()), "every shown field has a description"


def test_new_fields_have_defaults_that_keep_old_calls_valid() -> None:
    offer = make_offer()
    assert offer.regions == () and offer.also_listed_by == ()
    assert offer.original_currency is None and offer.original_price_per_hour is None
    assert offer.original_spot_price_per_hour is None and offer.price_is_interruptible is False


def test_row_mapping_round_trips_without_a_database() -> None:
    offer = make_offer(**NEW_FIELDS, extra={"k": "v"})
    row = offer_row(offer, snapshot_id=7, specs={"H100-SXM": (3350.0, 989.0)})
    assert row["regions"] == list(NEW_FIELDS["regions"]) and row["snapshot_id"] == 7
    assert row["bandwidth_per_usd"] == pytest.approx(3350.0 / 2.5)
    assert row_offer(row) == offer


def test_new_fields_round_trip_through_the_store(store: Store) -> None:
    offer = make_offer(**NEW_FIELDS)
    plain = make_offer(instance_type="plain")
    store.write_snapshot("src-a", [offer, plain])
    back = {o.instance_type: o for o in store.current_offers()}
    assert back["1xH100"] == offer and back["plain"] == plain
    assert back["1xH100"].regions == NEW_FIELDS["regions"]  # a tuple again, in order
    assert isinstance(back["1xH100"].also_listed_by, tuple)


def test_region_filter_matches_any_listed_region(store: Store) -> None:
    from gpuscout.catalog.query import OfferQuery

    store.write_snapshot(
        "src-a",
        [
            make_offer(instance_type="multi", region="3 regions", regions=NEW_FIELDS["regions"]),
            make_offer(instance_type="one", region="ap-south-1"),
        ],
    )
    assert [o.instance_type for o in store.current_offers(OfferQuery(regions=("eu-central",)))] == ["multi"]
    assert [o.instance_type for o in store.current_offers(OfferQuery(regions=("ap-",)))] == ["one"]


def test_record_is_plain_values_and_csv_cells_are_safe() -> None:
    record = offer_record(make_offer(**NEW_FIELDS))
    assert record["regions"] == list(NEW_FIELDS["regions"]) and record["interconnect"] == "unknown"
    assert record["observed_at"] == "2026-11-01T12:00:00+00:00" and "extra" not in record
    assert json.loads(json.dumps(record)) == record
    assert csv_cell(record["regions"]) == "us-east-1 | us-west-2 | eu-central-1"
    assert csv_cell(["=cmd", "x"]) == "'=cmd | x" and csv_cell(None) == ""


# ---- one field added in one place reaches every face -------------------------------------------
# The script stands for a developer's change: a field on the Offer dataclass and the migration step
# (and schema column) that stores it. Nothing else is edited; the script then reads the field back
# from the store, the JSON API (and its OpenAPI schema), the CSV/JSON exports and the CLI.
_NEW_FIELD_SCRIPT = textwrap.dedent(
    """
    import dataclasses, io, json, csv, sys
    from dataclasses import dataclass, field
    from datetime import UTC, datetime

    import sqlalchemy as sa
    import gpuscout.catalog.offer as offer_module

    @dataclass(frozen=True, slots=True)
    class Offer(offer_module.Offer):
        grid_carbon_g_per_kwh: float | None = field(
            default=None, metadata={"doc": "carbon intensity of the region's grid"}
        )

    offer_module.Offer = Offer  # the dataclass, as edited
    import gpuscout.catalog.migrations as migrations
    import gpuscout.catalog.schema as schema

    schema.offers.append_column(sa.Column("grid_carbon_g_per_kwh", sa.Float, nullable=True))
    def step(conn):
        conn.execute(sa.text("ALTER TABLE offers ADD COLUMN grid_carbon_g_per_kwh FLOAT"))
    migrations.STEPS = (*migrations.STEPS, (migrations.LATEST_VERSION + 1, "carbon", step))
    migrations.LATEST_VERSION += 1

    from fastapi.testclient import TestClient
    from typer.testing import CliRunner
    from gpuscout.catalog.api import open_store
    from gpuscout.catalog.query import OfferQuery
    from gpuscout.cli import app as cli
    from gpuscout.web.app import create_app

    url = sys.argv[1]
    new = Offer(provider="carboncloud", instance_type="c1", region="r", accelerator="H100-SXM",
                gpu_count=1, gpu_memory_gb=80.0, price_usd_per_hour=2.0, spot_price_usd_per_hour=None,
                source="test:https://example.test", observed_at=datetime(2026, 11, 1, tzinfo=UTC),
                grid_carbon_g_per_kwh=123.5)
    with open_store(url) as store:
        store.write_snapshot("carbon", [new])
        [back] = store.current_offers(OfferQuery(providers=("carboncloud",)))
    client = TestClient(create_app(url))
    api = client.get("/api/v1/offers", params={"provider": "carboncloud"}).json()["items"][0]
    schema_doc = client.get("/openapi.json").json()["components"]["schemas"]["OfferOut"]["properties"]
    view = {"provider": "carboncloud"}
    export_csv = list(csv.DictReader(io.StringIO(client.get("/offers.csv", params=view).text)))
    export_json = client.get("/offers.json", params=view).json()
    runner = CliRunner()
    cli_csv = runner.invoke(cli, ["offers", "--provider", "carboncloud", "--csv", "--db", url])
    cli_json = runner.invoke(cli, ["offers", "--provider", "carboncloud", "--json", "--db", url])
    print(json.dumps({
        "store": back.grid_carbon_g_per_kwh,
        "api": api["grid_carbon_g_per_kwh"],
        "openapi": schema_doc["grid_carbon_g_per_kwh"].get("description"),
        "export_csv": export_csv[0]["grid_carbon_g_per_kwh"],
        "export_json": export_json[0]["grid_carbon_g_per_kwh"],
        "cli_csv": list(csv.DictReader(io.StringIO(cli_csv.output)))[0]["grid_carbon_g_per_kwh"],
        "cli_json": json.loads(cli_json.output)[0]["grid_carbon_g_per_kwh"],
    }))
    """
)


def test_a_field_added_to_the_dataclass_reaches_every_face(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    url = f"sqlite:///{tmp_path / 'carbon.sqlite3'}"
    done = subprocess.run(
        [sys.executable, "-c", _NEW_FIELD_SCRIPT, url], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {
        "store": 123.5,
        "api": 123.5,
        "openapi": "carbon intensity of the region's grid",
        "export_csv": "123.5",
        "export_json": 123.5,
        "cli_csv": "123.5",
        "cli_json": 123.5,
    }
