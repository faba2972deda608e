"""HTML pages. They work with JavaScript disabled: filters and sorting are done on the server."""

from __future__ import annotations

import time
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from gpuscout.advise.types import OBJECTIVES
from gpuscout.catalog.offer import Interconnect
from gpuscout.errors import GpuscoutError
from gpuscout.web import advise_form, model_view
from gpuscout.web.advise_view import present, total_label, unit_cost_label
from gpuscout.web.api import lookup_gpu, lookup_model
from gpuscout.web.charts import price_history_figure, price_vs_bandwidth_figure, vram_figure
from gpuscout.web.deps import Services
from gpuscout.web.errors import error_body
from gpuscout.web.exports import offers_csv, offers_json
from gpuscout.web.filters import SORT_COLUMNS, OfferFilters
from gpuscout.web.services import WebServices, source_out
from gpuscout.web.templating import render

router = APIRouter(include_in_schema=False)

COLUMNS: tuple[tuple[str, str], ...] = (
    ("provider", "Provider"),
    ("instance", "Instance"),
    ("gpu", "GPU × count"),
    ("vram", "VRAM total"),
    ("interconnect", "Interconnect"),
    ("region", "Region"),
    ("price", "On-demand $/h"),
    ("spot_price", "Spot $/h"),
    ("price_per_gpu", "$/GPU-h"),
    ("availability", "Availability"),
    ("age", "Price age"),
    ("source", "Source"),
)
assert tuple(c for c, _ in COLUMNS if c != "gpu_count") == tuple(c for c in SORT_COLUMNS if c != "gpu_count")


@router.get("/", response_class=HTMLResponse)
async def offers_page(request: Request, services: Services, filters: Annotated[OfferFilters, Query()]
                      ) -> Response:
    # Rendered pages are kept per view and data version for at most a minute (the price ages shown).
    def body() -> bytes:
        return bytes(_offers_page(request, services, filters).body)

    key = ("offers-page", filters.model_dump_json(), int(time.time() // 60))
    content = await run_in_threadpool(services.cached, key, body)
    return HTMLResponse(content)


def _offers_page(request: Request, services: WebServices, filters: OfferFilters) -> Response:
    page = services.offer_page(filters)
    gpu_names = sorted(a.name for a in services.gpus())
    return render(
        request,
        "offers.html",
        {
            "filters": filters,
            "page": page,
            "columns": COLUMNS,
            "gpu_names": gpu_names,
            "gpu_notes": services.gpu_notes(filters),
            "interconnects": [i.value for i in Interconnect if i is not Interconnect.UNKNOWN],
            "title": "GPU offers",
        },
    )


@router.get("/offers.csv")
def offers_export_csv(
    services: Services,
    filters: Annotated[OfferFilters, Query()],
    scope: Literal["page", "all"] = "page",
) -> Response:
    return _download(offers_csv(services.export_rows(filters, scope)), "text/csv; charset=utf-8", "csv")


@router.get("/offers.json")
def offers_export_json(
    services: Services,
    filters: Annotated[OfferFilters, Query()],
    scope: Literal["page", "all"] = "page",
) -> Response:
    return _download(offers_json(services.export_rows(filters, scope)), "application/json", "json")


def _download(body: str, media_type: str, extension: str) -> Response:
    """The export as a file the browser saves as ``gpuscout-offers.<extension>``."""
    disposition = f'attachment; filename="gpuscout-offers.{extension}"'
    return Response(body, media_type=media_type, headers={"content-disposition": disposition})


@router.get("/gpus", response_class=HTMLResponse)
def gpus_page(request: Request, services: Services) -> Response:
    accelerators = services.gpus()
    offers = services.all_current_offers()
    counts: dict[str, int] = {}
    cheapest: dict[str, float] = {}
    for o in offers:
        counts[o.accelerator] = counts.get(o.accelerator, 0) + 1
        p = o.price_usd_per_gpu_hour
        if p is not None and not o.fractional and p < cheapest.get(o.accelerator, float("inf")):
            cheapest[o.accelerator] = p
    return render(
        request,
        "gpus.html",
        {
            "title": "GPUs",
            "accelerators": accelerators,
            "counts": counts,
            "cheapest": cheapest,
            "chart": price_vs_bandwidth_figure(offers, accelerators),
        },
    )


@router.get("/gpus/{name}", response_class=HTMLResponse)
def gpu_page(request: Request, services: Services, name: str) -> Response:
    acc = lookup_gpu(services, name)
    if acc.name != name:
        return RedirectResponse(f"/gpus/{quote(acc.name)}", status_code=307)
    rows, total = services.offers_for_gpu(acc.name, limit=50)
    points = services.history_points([acc.name], None, None)
    return render(
        request,
        "gpu.html",
        {
            "title": acc.name,
            "acc": acc,
            "rows": rows,
            "total": total,
            "chart": price_history_figure(points) if points else None,
            "points": len(points),
        },
    )


@router.get("/sources", response_class=HTMLResponse)
def sources_page(request: Request, services: Services) -> Response:
    statuses = [source_out(s) for s in services.sources()]
    context = {"title": "Sources", "sources": statuses, "health": services.health()}
    return render(request, "sources.html", context)


@router.get("/docs", response_class=HTMLResponse)
def docs_page(request: Request) -> Response:
    """Swagger UI for the JSON API, with its assets served locally (CSP: scripts from 'self' only)."""
    return render(request, "docs.html", {"title": "API"})


@router.get("/models", response_class=HTMLResponse)
def models_page(request: Request, services: Services) -> Response:
    rows = [(m, *model_view.params_b(m)) for m in services.models()]
    return render(request, "models.html", {"title": "Models", "rows": rows})


@router.get("/models/{name}", response_class=HTMLResponse)
def model_page(
    request: Request,
    services: Services,
    name: str,
    precision: Annotated[str, Query(max_length=40)] = "bf16",
    context: Annotated[int, Query(ge=1, le=1_048_576)] = model_view.DEFAULT_CONTEXT,
) -> Response:
    spec = lookup_model(services, name)
    if spec.name != name:
        return RedirectResponse(f"/models/{quote(spec.name)}", status_code=307)
    total_b, active_b = model_view.params_b(spec)
    context_data: dict[str, object] = {
        "title": spec.name, "spec": spec, "total_b": total_b, "active_b": active_b,
        "precision": precision, "context": context, "precisions": model_view.PRECISIONS,
        "memories": [], "fits": [], "chart": None,
    }
    if spec.kind == "llm":
        contexts, series = model_view.vram_series(spec, precision)
        context_data.update(
            memories=model_view.memory_by_precision(spec, context),
            fits=model_view.group_fits(model_view.fits(spec, precision, context)),
            chart=vram_figure(contexts, series),
        )
    return render(request, "model.html", context_data)


@router.get("/advise", response_class=HTMLResponse)
def advise_page(request: Request, services: Services) -> Response:
    """The workload form and, once a model is given, the ranked offers with their reasons."""
    req = advise_form.parse_request(request.query_params)
    context: dict[str, object] = {
        "title": "Advisor", "req": req, "kinds": list(advise_form.KIND_CLASSES),
        "objectives": OBJECTIVES, "fields": advise_form.kind_fields(req.kind),
        "common": advise_form.common_fields(req.kind), "model_names": [m.name for m in services.models()],
        "results": None, "explained": None, "error": None,
    }
    if req.submitted:
        try:
            workload = advise_form.build_workload(req)
            recs = services.recommend(workload, objective=req.objective, top=req.top)
        except GpuscoutError as exc:
            context["error"] = error_body(exc)
            return render(request, "advise.html", context, status_code=422)
        images = bool(getattr(workload, "is_images", False))
        ranked = [present(r, req.kind) for r in recs]
        context.update(
            results=ranked,
            unit_label=unit_cost_label(req.kind, images),
            total_label=total_label(req.kind),
            explained=next((r for r in ranked if r.rec.rank == req.explain), None),
            workload_yaml=workload.to_yaml(),
        )
    return render(request, "advise.html", context)


@router.get("/faq", response_class=HTMLResponse)
def faq_page(
    request: Request, services: Services, model: Annotated[str, Query(max_length=200)] = "llama-3.1-8b"
) -> Response:
    """The four questions renters ask, answered with this model's numbers and the current offers."""
    answers = services.faq(model)
    names = [m.name for m in services.models() if m.kind == "llm"]
    return render(request, "faq.html", {"title": "FAQ", "faq": answers, "model": model, "model_names": names})
