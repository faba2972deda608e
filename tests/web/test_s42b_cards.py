"""The cheapest-per-class cards on ``/`` name a whole GPU: a vGPU slice (``Offer.fractional``, a share
of one card) that sorts first on $/GPU-h is read past, as the GPU chart does
(``charts.cheapest_on_demand``); the class's count still holds it."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.overview import answer_cards
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer


def _slice(k: int, price: float) -> Offer:
    # a twentieth of an A100 80GB at $price/h: $price x 20 per whole GPU's worth
    return make_offer(
        provider="vultr",
        instance_type=f"vcg-a100-{k}",
        accelerator="A100-SXM4-80GB",
        gpu_memory_gb=4.0,
        fractional=True,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=price / 2,
    )


def _store(tmp_path: Path, slices: int) -> str:
    url = f"sqlite:///{tmp_path / 'cards.sqlite3'}"
    whole = make_offer(
        provider="betagpu",
        instance_type="b-a100",
        accelerator="A100-SXM4-80GB",
        price_usd_per_hour=1.5,
        spot_price_usd_per_hour=0.9,
    )
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot("betagpu", [whole])
        store.write_snapshot("vultr", [_slice(k, 0.05 + k * 0.0001) for k in range(slices)])
    return url


def _a100(url: str) -> tuple[int, str | None, float | None, str | None, float | None]:
    [card] = [c for c in answer_cards(WebServices(url, cache_seconds=0)) if c.gpu_class.label == "A100 80GB"]
    od, spot = card.on_demand, card.spot
    return (
        card.offers,
        od.row.offer.instance_type if od else None,
        od.per_gpu_hour if od else None,
        spot.row.offer.instance_type if spot else None,
        spot.per_gpu_hour if spot else None,
    )


def test_a_slice_cheaper_per_gpu_is_not_the_classes_cheapest_whole_gpu(tmp_path: Path) -> None:
    url = _store(tmp_path, slices=1)  # the slice: $1.00/GPU-h on demand, $0.50 spot
    assert _a100(url) == (2, "b-a100", 1.5, "b-a100", 0.9)


def test_many_slices_first_are_read_past_page_by_page(tmp_path: Path) -> None:
    url = _store(tmp_path, slices=120)  # more than a page of slices sorts before the whole GPU
    assert _a100(url) == (121, "b-a100", 1.5, "b-a100", 0.9)


def test_a_class_of_slices_only_has_no_whole_gpu_price(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'only.sqlite3'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot("vultr", [_slice(0, 0.05)])
    assert _a100(url) == (1, None, None, None, None)


def test_the_card_on_the_page_names_the_whole_gpu(tmp_path: Path) -> None:
    url = _store(tmp_path, slices=1)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        html = client.get("/").text
    card = html.split('data-gpu="A100-80GB"', 1)[1].split("</li>", 1)[0]
    assert '<span class="per-gpu">$1.50</span>' in card and "1× A100-SXM4-80GB" in card
    assert '<span class="spot-per-gpu">$0.90</span>' in card and "2 offers" in card


def test_the_family_page_and_its_api_price_a_whole_gpu(tmp_path: Path) -> None:
    # the family page's per-variant cheapest and /api/v1/gpus read the same view: a slice cheaper per
    # GPU-hour ($1.00) is read past to the whole A100 at $1.50
    from gpuscout.web.gpu_view import cheapest_on_demand_row, variant_prices

    services = WebServices(_store(tmp_path, slices=3), cache_seconds=0)
    row = cheapest_on_demand_row(services, "A100-SXM4-80GB")
    assert row is not None and row.offer.instance_type == "b-a100"
    rows, count = variant_prices(services, "A100-SXM4-80GB")
    assert [r.offer.instance_type for r in rows] == ["b-a100"] and count == 4
