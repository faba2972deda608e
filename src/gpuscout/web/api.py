"""The JSON API under ``/api/v1`` (plus ``/healthz``)."""

from __future__ import annotations

import hmac
import os
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Header, HTTPException, Path, Query
from fastapi.responses import JSONResponse

from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.web.deps import Services
from gpuscout.web.errors import NotFoundError
from gpuscout.web.filters import OfferFilters
from gpuscout.web.schemas import (
    ErrorOut,
    GpuDetailOut,
    GpuOut,
    HealthOut,
    HistoryPointOut,
    OfferOut,
    OfferPageOut,
    RefreshOut,
    SourceOut,
    gpu_detail_out,
    gpu_out,
)
from gpuscout.web.services import WebServices, resolve_gpu_names, source_out

ADMIN_TOKEN_ENV = "GPUSCOUT_ADMIN_TOKEN"

ERRORS: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorOut, "description": "unknown name (with the closest known names)"},
    422: {"model": ErrorOut, "description": "invalid input: `field` names the parameter at fault"},
}

router = APIRouter(prefix="/api/v1", responses=ERRORS)
health_router = APIRouter()

NameInPath = Annotated[str, Path(min_length=1, max_length=200)]


@router.get("/offers", response_model=OfferPageOut, tags=["offers"], summary="Current offers, filtered")
def api_offers(services: Services, filters: Annotated[OfferFilters, Query()]) -> OfferPageOut:
    """Current offers with the same filters, sort and pages as the comparison page."""
    page = services.offer_page(filters)
    return OfferPageOut(
        total=page.total,
        page=page.page,
        per_page=page.per_page,
        pages=page.pages,
        items=[OfferOut.from_row(r) for r in page.rows],
    )


@router.get("/gpus", response_model=list[GpuOut], tags=["knowledge"], summary="Known accelerators")
def api_gpus(services: Services) -> list[GpuOut]:
    return [GpuOut(**gpu_out(a)) for a in services.gpus()]


@router.get("/gpus/{name}", response_model=GpuDetailOut, tags=["knowledge"], summary="One accelerator")
def api_gpu(services: Services, name: NameInPath) -> GpuDetailOut:
    """Specs with their source, and how many current offers there are (name resolved like the CLI)."""
    acc = lookup_gpu(services, name)
    rows, total = services.offers_for_gpu(acc.name, limit=1)
    cheapest = rows[0].offer.price_usd_per_gpu_hour if rows else None
    return gpu_detail_out(acc, total, cheapest)


@router.get("/history", response_model=list[HistoryPointOut], tags=["offers"], summary="Price history")
def api_history(
    services: Services,
    gpu: Annotated[str, Query(min_length=1, max_length=200, description="GPU name")],
    provider: Annotated[str | None, Query(max_length=100)] = None,
    days: Annotated[int | None, Query(ge=1, le=3650)] = None,
) -> list[HistoryPointOut]:
    """Min and median on-demand $/GPU-h per provider and stored snapshot."""
    names = resolve_gpu_names(gpu)
    points = services.history_points(names, provider, days)
    return [HistoryPointOut.model_validate(p, from_attributes=True) for p in points]


@router.get("/sources", response_model=list[SourceOut], tags=["offers"], summary="Sources and freshness")
def api_sources(services: Services) -> list[SourceOut]:
    return [SourceOut(**source_out(s)) for s in services.sources()]


@router.post(
    "/refresh",
    response_model=RefreshOut,
    status_code=202,
    tags=["admin"],
    summary="Start a refresh (needs the admin token)",
    responses={401: {"model": ErrorOut}, 403: {"model": ErrorOut}, 409: {"model": ErrorOut}},
)
def api_refresh(
    services: Services,
    background: BackgroundTasks,
    authorization: Annotated[str | None, Header()] = None,
    source: Annotated[str | None, Query(max_length=500, description="sources, comma-separated")] = None,
) -> RefreshOut:
    """Starts a refresh in the background. Requires ``Authorization: Bearer $GPUSCOUT_ADMIN_TOKEN``;
    disabled (403) when that variable is unset on the server."""
    check_admin(authorization)
    names = [s.strip() for s in (source or "").split(",") if s.strip()]
    if services.refresh_lock.locked():
        raise HTTPException(409, "a refresh is already running")
    background.add_task(_run_refresh, services, names)
    return RefreshOut(status="started", sources=names)


def _run_refresh(services: WebServices, names: list[str]) -> None:
    services.refresh(names or None)


def check_admin(authorization: str | None) -> None:
    token = os.environ.get(ADMIN_TOKEN_ENV, "")
    if not token:
        raise HTTPException(403, f"refresh over HTTP is disabled: {ADMIN_TOKEN_ENV} is not set on the server")
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise HTTPException(401, "missing or wrong bearer token", headers={"www-authenticate": "Bearer"})


@health_router.get("/healthz", response_model=HealthOut, tags=["admin"], summary="Store and data freshness",
                   responses={503: {"model": HealthOut}})
def healthz(services: Services) -> JSONResponse:
    health = HealthOut(**services.health())
    return JSONResponse(health.model_dump(mode="json"), status_code=503 if health.status == "error" else 200)


def lookup_gpu(services: WebServices, name: str) -> Accelerator:
    try:
        return services.gpu(name)
    except UnknownNameError as exc:
        raise NotFoundError.wrap(exc) from None
