"""HTML pages. They work with JavaScript disabled: filters and sorting are done on the server."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from gpuscout.advise.faq import DEFAULT_CONTEXT, DEFAULT_USERS, REFERENCE_GDDR, Faq
from gpuscout.advise.types import OBJECTIVES
from gpuscout.advise.workload import MAX_NAME_CHARS, AnyWorkload
from gpuscout.catalog.offer import Interconnect
from gpuscout.catalog.query import region_known
from gpuscout.errors import GpuscoutError, InvalidInputError, UnknownNameError, WrongModelKind, closest
from gpuscout.estimate.arguments import MAX_CONTEXT, token_count, whole_number_text, within_window
from gpuscout.web import advise_form, model_view
from gpuscout.web.advise_view import (
    answer_view,
    check_explain,
    latency_label,
    plain,
    total_label,
    unit_cost_label,
)
from gpuscout.web.api import lookup_gpu
from gpuscout.web.charts import cheapest_on_demand, price_vs_bandwidth_chart, vram_chart
from gpuscout.web.deps import Services
from gpuscout.web.errors import NotFoundError
from gpuscout.web.exports import export_rows, offers_csv, offers_json
from gpuscout.web.filters import DEFAULT_VIEW, FIELD_LABELS, OfferFilters
from gpuscout.web.form_errors import FieldError, FormErrors, gpuscout_error, unknown_parameters
from gpuscout.web.gpu_view import (
    family_page,
    gpu_family_members,
    gpu_order,
    gpu_prices,
    sibling_variants,
    variant_prices,
)
from gpuscout.web.numbers import ungrouped
from gpuscout.web.offers_view import columns, parse_filters, relaxations, with_provider_ids
from gpuscout.web.overview import Freshness, answer_cards, freshness
from gpuscout.web.query_params import StrictQueryRoute, list_fields, no_query_parameters, one_value_each
from gpuscout.web.services import WebServices, source_out
from gpuscout.web.templating import query_string, render

router = APIRouter(include_in_schema=False)


@router.get("/offers", response_class=HTMLResponse)
def offers_alias(request: Request) -> Response:
    """``/offers`` is the offers page, ``/`` (the nav's "Offers"): a redirect keeping the query."""
    query = request.url.query
    return RedirectResponse("/" + (f"?{query}" if query else ""), status_code=308)


@router.get("/", response_class=HTMLResponse)
async def offers_page(request: Request, services: Services) -> Response:
    """The answer cards, the freshness banner and the comparison table (filters at the field)."""
    # a list filter given twice adds to the list (as on the exports and the API); another is an error
    raw, repeated = one_value_each(request.query_params.multi_items(), OFFERS_LISTS)
    preset = not raw
    if preset:
        raw = dict(DEFAULT_VIEW)
    if repeated:  # said on the page (a 422), never served from the cache of the view with one value
        return await run_in_threadpool(_offers_page, request, services, raw, preset, repeated)

    # Rendered pages are kept per view and data version for at most a minute (the price ages shown).
    def body() -> tuple[int, bytes]:
        response = _offers_page(request, services, raw, preset)
        return response.status_code, bytes(response.body)

    key = ("offers-page", tuple(sorted(raw.items())), int(time.time() // 60))
    status, content = await run_in_threadpool(_cached_page, services, key, body)
    return HTMLResponse(content, status_code=status)


def _cached_page(
    services: WebServices, key: tuple[object, ...], body: Callable[[], tuple[int, bytes]]
) -> tuple[int, bytes]:
    """A page body from the view cache; error pages (422) are rendered each time, not kept."""
    status: list[int] = []

    def compute() -> bytes:
        code, content = body()
        status.append(code)
        if code != 200:
            raise _Uncached(code, content)
        return content

    try:
        content = services.cached(key, compute)
    except _Uncached as exc:
        return exc.status, exc.content
    return (status[0] if status else 200), content


class _Uncached(Exception):
    def __init__(self, status: int, content: bytes) -> None:
        self.status, self.content = status, content


def _offers_page(
    request: Request,
    services: WebServices,
    raw: dict[str, str],
    preset: bool,
    repeated: list[str] | None = None,
) -> Response:
    filters, errors = parse_filters(raw, services)
    stray = unknown_parameters(
        raw, tuple(OfferFilters.model_fields), "a filter of this page", FIELD_LABELS, aliases=OFFERS_ALIASES
    )
    stray.extend(repeated or ())
    if stray:  # a table that ignored it would answer another question than the one asked
        errors.general.extend(stray)
        filters = None
    gpu_names = sorted(a.name for a in services.gpus())
    context: dict[str, object] = {
        "title": "GPU offers",
        "raw": raw,
        "errors": errors,
        "gpu_names": gpu_names,
        "preset": preset,
        "interconnects": [i.value for i in Interconnect if i is not Interconnect.UNKNOWN],
        "labels": FIELD_LABELS,
        "page": None,
        "cards": [],
        "relax": [],
        "gpu_notes": [],
        "folded": [],
    }
    context["freshness"] = page_freshness(services)
    if filters is None:
        return render(request, "offers.html", {**context, "filters": OfferFilters()}, status_code=422)
    page = services.offer_page(filters)
    shown, folded = columns(filters, page.rows)
    context.update(
        filters=filters,
        page=page,
        columns=shown,
        folded=folded,
        gpu_notes=services.gpu_notes(filters),
        cards=answer_cards(services) if preset or not filters.is_filtered() else [],
        relax=relaxations(filters, services) if page.total == 0 else [],
    )
    return render(request, "offers.html", context)


#: ``gpuscout offers`` options that are another parameter of the offers page.
OFFERS_ALIASES = {"limit": "per_page", "spot": "pricing", "on_demand": "pricing", "no_stale": "include_stale"}
#: The offers filters that take several values (comma-separated, or the parameter repeated).
OFFERS_LISTS = list_fields(OfferFilters)


def offers_export_csv(
    services: Services,
    filters: Annotated[OfferFilters, Query()],
    scope: Literal["page", "all"] = "page",
) -> Response:
    rows = export_rows(services, with_provider_ids(filters, services), scope)
    return _download(offers_csv(rows), "text/csv; charset=utf-8", "csv")


def offers_export_json(
    services: Services,
    filters: Annotated[OfferFilters, Query()],
    scope: Literal["page", "all"] = "page",
) -> Response:
    rows = export_rows(services, with_provider_ids(filters, services), scope)
    return _download(offers_json(rows), "application/json", "json")


# The exports read their query string as the JSON API does (query_params.StrictQueryRoute): a parameter
# they do not take is a 422 naming it and those they take, and a repeated list filter adds to the list.
for _path, _export in (("/offers.csv", offers_export_csv), ("/offers.json", offers_export_json)):
    router.add_api_route(_path, _export, methods=["GET"], route_class_override=StrictQueryRoute)


def _download(body: str, media_type: str, extension: str) -> Response:
    """The export as a file the browser saves as ``gpuscout-offers.<extension>``."""
    disposition = f'attachment; filename="gpuscout-offers.{extension}"'
    return Response(body, media_type=media_type, headers={"content-disposition": disposition})


@router.get("/gpus", response_class=HTMLResponse)
def gpus_page(request: Request, services: Services) -> Response:
    """Every known accelerator with its cheapest current offer, offered ones first. The page takes no
    query parameter: one given is a 422 naming it (as ``/gpus/{name}``)."""
    no_query_parameters(request.query_params)
    accelerators = services.gpus()
    offers = services.all_offers()
    counts: dict[str, int] = {}
    for o in offers:
        if not o.stale:
            counts[o.accelerator] = counts.get(o.accelerator, 0) + 1
    best = cheapest_on_demand(offers)
    cheapest = {n: o.price_usd_per_gpu_hour for n, o in best.items()}
    ordered = sorted(accelerators, key=gpu_order)
    chart_names = set(CHART_LABELS)
    return render(
        request,
        "gpus.html",
        {
            "title": "GPUs",
            "offered": [a for a in ordered if counts.get(a.name)],
            "unoffered": [a for a in ordered if not counts.get(a.name)],
            "counts": counts,
            "cheapest": cheapest,
            "chart": price_vs_bandwidth_chart(offers, accelerators, chart_names),
            "freshness": page_freshness(services),
        },
    )


@router.get("/gpus/{name:path}", response_class=HTMLResponse)
def gpu_page(request: Request, services: Services, name: str) -> Response:
    """One accelerator (specs, prices, offers); a family name ("H100") lists the variants it covers. The
    page takes no query parameter: one given is a 422 naming it, as the API's ``/api/v1/gpus/{name}``
    answers it (``/gpus/H100-SXM?gpus=8`` shows no 8-GPU offers)."""
    no_query_parameters(request.query_params)
    members = gpu_family_members(name)
    if members is not None:
        variants = [(a, variant_prices(services, a.name)) for a in members]
        context = {"title": f"{name} variants", "family": name, "rows": variants}
        return render(request, "gpu_family.html", context)
    acc = lookup_gpu(services, name)
    if acc.name != name:
        return RedirectResponse(f"/gpus/{quote(acc.name)}", status_code=307)
    rows, total = services.offers_for_gpu(acc.name, limit=50)
    prices = gpu_prices(services, acc.name)
    return render(
        request,
        "gpu.html",
        {
            "title": acc.name,
            "acc": acc,
            "rows": rows,
            "total": total,
            # every age unknown (bundled-snapshot rows): the column is left out and said once, as on /
            "ages_unknown": bool(rows) and all(r.age is None for r in rows),
            "cheapest": prices.cheapest,
            "providers": prices.providers,
            "siblings": sibling_variants(acc),
            "family_page": family_page(acc),
            "chart": prices.chart,
        },
    )


@router.get("/sources", response_class=HTMLResponse)
def sources_page(request: Request, services: Services) -> Response:
    """Every source: the loaded ones with their freshness, then those never loaded (and what they need).
    The page takes no query parameter (one given is a 422 naming it)."""
    no_query_parameters(request.query_params)
    statuses = [source_out(s) for s in services.sources()]
    loaded = [s for s in statuses if s["row_count"] > 0 or s["last_status"]]
    waiting = [s for s in statuses if s not in loaded]
    context = {
        "title": "Sources",
        "loaded": loaded,
        "waiting": waiting,
        "health": services.health(),
        "freshness": page_freshness(services),
    }
    return render(request, "sources.html", context)


@router.get("/docs", response_class=HTMLResponse)
def docs_page(request: Request) -> Response:
    """Swagger UI for the JSON API, with its assets served locally (CSP: scripts from 'self' only). The
    page takes no query parameter (one given is a 422 naming it)."""
    no_query_parameters(request.query_params)
    return render(request, "docs.html", {"title": "API"})


@router.get("/models", response_class=HTMLResponse)
def models_page(request: Request, services: Services) -> Response:
    """The model registry with the memory of the weights at bf16 and int4 (what people look up). The page
    takes no query parameter (one given is a 422 naming it)."""
    no_query_parameters(request.query_params)
    rows = []
    for m in services.models():
        total_b, active_b = model_view.params_b(m)
        rows.append((m, model_view.model_label(m), total_b, active_b, model_view.weights_gib(m)))
    return render(request, "models.html", {"title": "Models", "rows": rows})


#: GPUs named on the bandwidth chart besides the value frontier (one per popular class).
CHART_LABELS = (
    "B200",
    "H200-SXM",
    "H100-SXM",
    "A100-SXM4-80GB",
    "L40S",
    "L4",
    "RTX4090",
    "RTX5090",
    "MI300X",
)

MODEL_LABELS = {"precision": "Precision", "context": "Context (tokens)"}
#: The model page's inputs; it also reads ``from``, the name a redirect was typed as.
MODEL_PARAMS: tuple[str, ...] = tuple(MODEL_LABELS)


@router.get("/models/{name:path}", response_class=HTMLResponse)
def model_page(request: Request, services: Services, name: str) -> Response:
    """A model's memory by precision, VRAM against context and concurrency, and the GPUs that hold
    it. A name that is not the model's own (an alias, an HF id) redirects, and the page says how it
    was read."""
    try:
        resolved = model_view.resolve_typed(name)
    except UnknownNameError as exc:
        raise NotFoundError.wrap(exc) from None
    spec = resolved.spec
    if resolved.renamed:  # every value kept, a repeated one too (the page it goes to says so)
        params: dict[str, list[str]] = {}
        for key, value in request.query_params.multi_items():
            if key != "from":
                params.setdefault(key, []).append(value)
        params["from"] = [name]
        return RedirectResponse(f"/models/{quote(spec.name)}{query_string(params)}", status_code=307)
    given, repeated = one_value_each(request.query_params.multi_items())
    typed_from = given.get("from", "")[:200]
    shown_as = model_view.resolve_typed(typed_from) if typed_from else None
    raw = {k: given.get(k, "") for k in MODEL_PARAMS}
    errors = FormErrors()
    errors.general.extend(
        unknown_parameters(given, (*MODEL_PARAMS, "from"), "a field of this page", MODEL_LABELS)
    )
    errors.general.extend(repeated)
    published = model_view.published_precision(spec)
    precisions = model_view.precisions_for(spec)
    precision = raw["precision"] or published
    if precision not in precisions:
        errors.add(
            FieldError(
                "precision",
                f"Precision must be one of {', '.join(precisions)}; you typed “{precision[:40]}”",
            )
        )
        precision = published
    context = model_view.default_context(spec)  # the model's window where shorter than the default
    if raw["context"]:
        try:  # a token count as every face reads one (32k, 1.5M), in the estimator's range
            context = token_count(ungrouped(raw["context"]), "context")
            if not 1 <= context <= MAX_CONTEXT:
                raise ValueError
        except (InvalidInputError, ValueError):
            window = spec.max_position_embeddings if spec.kind == "llm" else 0
            most = (  # the model's own limit where it has one (the estimator's longest is past it)
                f"{window:,} ({spec.name}'s context)" if 0 < window <= MAX_CONTEXT else f"{MAX_CONTEXT:,}"
            )
            message = (
                f"Context (tokens) must be a whole number from 1 to {most}; you typed “{raw['context'][:40]}”"
            )
            errors.add(FieldError("context", message))
            context = model_view.default_context(spec)
    if spec.kind == "llm":  # past the model's window: at the field, in the FAQ's words
        try:
            within_window(context, spec.name, spec.max_position_embeddings)
        except InvalidInputError as exc:
            errors.add(FieldError("context", f"{MODEL_LABELS['context']}: {exc.message}"))
            context = model_view.default_context(spec)
    total_b, active_b = model_view.params_b(spec)
    context_data: dict[str, object] = {
        "title": model_view.model_label(spec),
        "spec": spec,
        "label": model_view.model_label(spec),
        "total_b": total_b,
        "active_b": active_b,
        "precision": precision,
        "context": context,
        "context_note": "" if raw["context"] else model_view.context_note(spec, context),
        "raw": raw,
        "errors": errors,
        "precisions": precisions,
        "published": published,
        "resolved": shown_as,
        "memories": [],
        "fits": [],
        "unsupported_group": model_view.UNSUPPORTED,
        "chart": None,
        "model_label": model_view.model_label,
        "images": (),
        "speech": (),
    }
    if spec.kind == "diffusion":
        context_data["images"], context_data["image_setting"] = model_view.image_rows(spec)
        context_data["image_basis"] = model_view.image_basis()
    if spec.kind == "audio":
        context_data["speech"], context_data["speech_caveat"] = model_view.speech_rows(spec)
        context_data["speech_batch"] = model_view.SPEECH_BATCH
    if spec.kind == "llm":
        contexts, series = model_view.vram_series(spec, precision)
        context_data.update(
            memories=model_view.memory_by_precision(spec, context),
            fits=model_view.group_fits(model_view.fits(spec, precision, context)),
            chart=vram_chart(contexts, series, model_view.reference_cards(), precision, spec.name),
        )
    return render(request, "model.html", context_data, status_code=422 if errors else 200)


#: The advisor's fields that take several values (comma-separated, or the parameter repeated): a
#: workload's regions, providers and accelerators.
ADVISE_LISTS = frozenset().union(*(list_fields(cls) for cls in advise_form.KIND_CLASSES.values()))


@router.get("/advise", response_class=HTMLResponse)
def advise_page(request: Request, services: Services) -> Response:
    """The workload form and, once a model is given, the ranked offers: compact rows with a breakdown
    beside each, the caveats every row shares said once, and errors at the field they are about."""
    # a list field given twice adds to the list (regions=us&regions=eu); another is an error, not ranked
    # for its last value
    params, repeated = one_value_each(request.query_params.multi_items(), ADVISE_LISTS)
    try:
        req = advise_form.parse_request(params)
    except InvalidInputError as exc:  # an unknown kind or objective, or a bad 'top'
        req = advise_form.parse_request({k: v for k, v in params.items() if k != exc.field})
        found = gpuscout_error(exc, advise_form.field_labels(req.kind))
        errors = FormErrors(general=[found.message if isinstance(found, FieldError) else found])
        errors.general.extend(advise_form.stray_params(params, req.kind))
        errors.general.extend(repeated)
        context = _advise_context(services, req, errors, _typed_model(req)[0])
        return render(request, "advise.html", context, status_code=422)
    # the form leaves out the fields this kind of model does not use (resolved once: a disk check of the
    # imported models, and for an unknown name the closest-name search)
    model_kind, resolved, unknown = _typed_model(req)
    labels = advise_form.field_labels(req.kind)
    # the model's own error and its context are said with the ranges, in one round (not after a resubmit)
    model_error = _model_error(req, unknown, labels) if unknown is not None else None
    errors = advise_form.check_values(req, model_kind, _window(resolved), model_error)
    # a parameter the form does not read is said, not ranked without (/advise?prompt=2000: not the
    # default 1,024 prompt tokens)
    errors.general.extend(advise_form.stray_params(params, req.kind))
    errors.general.extend(repeated)
    context = _advise_context(services, req, errors, model_kind)
    if not req.has_model or errors:
        context["errors"] = _placed(req, model_kind, errors)
        return render(request, "advise.html", context, status_code=422 if errors else 200)
    try:
        if unknown is not None:
            raise unknown
        context["resolved"] = resolved
        workload = advise_form.build_workload(req, region_known(services.reader.count_offers))
    except GpuscoutError as exc:
        if not req.submitted and isinstance(exc, InvalidInputError) and exc.field != "model":
            # a kind tab (the model kept, nothing else typed): the form to fill in, no error yet
            return render(request, "advise.html", context)
        return _advise_error(request, req, model_kind, context, exc, labels)
    try:
        # the row asked to explain may be any row of the answer (a pick's calibrated alternative, #445):
        # ranked with room for it past the picks (a row's number does not depend on top), the page shows
        # what "Show" asks for and that row; one past the answer's rows is an error naming how many there are
        top = max(req.top, req.explain + 3) if req.explain else req.top
        advice = services.advice(workload, objective=req.objective, top=top, options=req.options)
        check_explain(advice, req.explain)
    except GpuscoutError as exc:
        return _advise_error(request, req, model_kind, context, exc, labels)
    answer = answer_view(advice, req.kind, top=req.top, explain=req.explain)
    if not answer.rows and not answer.binding:  # nothing passes and no diagnosis says what binds
        context["loosen"] = _loosen_words(workload)
    # a dead end's ways out, each with a link to this form asked again with its fields changed (none for
    # a hint no field says)
    context["moves"] = [(m, req.changed_url(m.options) if m.options else None) for m in answer.moves]
    images = bool(getattr(workload, "is_images", False))
    context.update(
        answer=answer,
        results=answer.rows,
        caveats=answer.caveats,
        unit_label=unit_cost_label(req.kind, images),
        total_label=total_label(req.kind),
        latency_label=latency_label(req.kind),
        workload_yaml=workload.to_yaml(),
    )
    return render(request, "advise.html", context)


def _loosen_words(workload: AnyWorkload) -> str:
    """The empty answer's fallback where the advisor said nothing of what binds, in the advisor's words
    (:func:`gpuscout.advise.answer.loosen_words`: the narrower precisions the workload's engine runs)."""
    from gpuscout.advise.answer import loosen_words
    from gpuscout.advise.backends import default_backends
    from gpuscout.user_models import registry

    return loosen_words(workload, default_backends(registry()).native_precision)


def _advise_error(
    request: Request,
    req: advise_form.AdviseRequest,
    model_kind: str | None,
    context: dict[str, object],
    exc: GpuscoutError,
    labels: dict[str, str],
) -> Response:
    """The form again with ``exc`` at its field (or above the form), 422."""
    errors = FormErrors()
    found = _error_at_field(req, exc, labels)
    if isinstance(found, FieldError):
        errors.add(found)
    else:
        errors.general.append(found)
    context["errors"] = _placed(req, model_kind, errors)
    return render(request, "advise.html", context, status_code=422)


def _error_at_field(
    req: advise_form.AdviseRequest, exc: GpuscoutError, labels: dict[str, str]
) -> FieldError | str:
    """``exc`` at its field of the form, an unknown name with a link per suggested name; a ``str`` when
    it names no field of the form."""
    found = _web_error(exc, labels, {"name": "model"})
    if isinstance(found, FieldError) and found.field in labels:
        if isinstance(exc, UnknownNameError) and found.suggestions and not found.links:
            found = replace(found, links=_suggestion_links(req, found.field, exc))
        return found
    return str(found)


def _model_error(req: advise_form.AdviseRequest, exc: GpuscoutError, labels: dict[str, str]) -> FieldError:
    """The typed model's error (an unknown name) at the model input."""
    found = _error_at_field(req, exc, labels)
    return found if isinstance(found, FieldError) else FieldError("model", found)


def _window(resolved: model_view.Resolved | None) -> tuple[str, int] | None:
    """(name, context tokens) of the typed model where it is a language model with a known window (what
    the ranker checks a workload's tokens against: ``Backends.max_context``)."""
    if resolved is None or resolved.spec.kind != "llm" or resolved.spec.max_position_embeddings <= 0:
        return None
    return resolved.spec.name, resolved.spec.max_position_embeddings


def _suggestion_links(
    req: advise_form.AdviseRequest, field: str, exc: UnknownNameError
) -> tuple[tuple[str, str], ...]:
    """A link per name ``exc`` suggests: the form with the unknown name replaced by it (in a list of
    names, "H100, H1000", only that one), every other input as typed."""
    typed = req.values.get(field, "")
    parts = [p.strip() for p in typed.split(",")]
    folded = [p.lower() for p in parts]
    at = folded.index(exc.name.strip().lower()) if exc.name.strip().lower() in folded else None
    links: list[tuple[str, str]] = []
    for name in exc.suggestions:
        value = name if at is None else ",".join(name if i == at else p for i, p in enumerate(parts) if p)
        params = {**req.values, field: value, "kind": req.kind, "objective": req.objective}
        links.append((name, "/advise" + query_string(params)))
    return tuple(links)


def _placed(req: advise_form.AdviseRequest, model_kind: str | None, errors: FormErrors) -> FormErrors:
    """``errors`` moved off the fields this form leaves out (see ``advise_form.place_errors``)."""
    return advise_form.place_errors(errors, advise_form.shown_fields(req.kind, model_kind))


def _typed_model(
    req: advise_form.AdviseRequest,
) -> tuple[str | None, model_view.Resolved | None, GpuscoutError | None]:
    """(kind, resolution, error) of the model typed: its kind ("llm", "diffusion", ...) and resolution,
    or the error naming the closest names; all None when none is typed."""
    typed = req.values.get("model")
    if not typed or len(typed) > MAX_NAME_CHARS:  # too long: said by check_values, never searched
        return None, None, None
    try:
        found = model_view.resolve_typed(typed)
    except GpuscoutError as exc:
        return None, None, exc
    return found.spec.kind, found, None


def _advise_context(
    services: WebServices, req: advise_form.AdviseRequest, errors: FormErrors, model_kind: str | None
) -> dict[str, object]:
    return {
        "title": "Advisor",
        "req": req,
        "kinds": list(advise_form.KIND_CLASSES),
        "kind_links": advise_form.kind_links(req, model_kind),
        "max_name": MAX_NAME_CHARS,  # the model input's longest value (one typed longer is cut, and said)
        "errors": errors,
        "objectives": OBJECTIVES,
        "fields": advise_form.kind_fields(req.kind, model_kind),
        "common": advise_form.common_fields(req.kind),
        "common_open": advise_form.common_open(req),
        "model_names": [m.name for m in services.models()],
        "results": None,
        "resolved": None,
        "caveats": [],
        "answer": None,
        "loosen": "",
        "freshness": page_freshness(services),
        "plain": plain,
    }


#: The FAQ's inputs, as ``gpuscout faq MODEL --context --users --gpu --precision`` takes them.
FAQ_LABELS = {
    "model": "Model",
    "context": "Context (tokens)",
    "users": "Users",
    "gpu": "Your GPU",
    "precision": "Precision",
}


@dataclass(frozen=True, slots=True)
class FaqInputs:
    """What the FAQ page was asked, read as the CLI reads its options (``None``: the default)."""

    model: str
    context: int | None = None
    users: int = DEFAULT_USERS
    gpu: str | None = None
    precision: str | None = None

    @property
    def is_default(self) -> bool:
        """Only the model given: the answers every visitor of the model's FAQ gets (kept per model)."""
        return self == FaqInputs(self.model)


@router.get("/faq", response_class=HTMLResponse)
def faq_page(request: Request, services: Services) -> Response:
    """The four questions renters ask, answered with this model's numbers at the context, load, GPU and
    precision given (those of ``gpuscout faq``) and the current offers; a bad input is a 422 with its
    error at the field."""
    given, repeated = one_value_each(request.query_params.multi_items())
    raw = {k: given.get(k, "").strip()[:200] for k in FAQ_LABELS}
    raw["model"] = raw["model"] or "llama-3.1-8b"
    stray = unknown_parameters(given, tuple(FAQ_LABELS), "a field of this page", FAQ_LABELS) + repeated
    if stray:  # said on the page (a 422), never served from the cache of the view without it
        return _faq_page(request, services, raw, stray)

    def body() -> tuple[int, bytes]:
        response = _faq_page(request, services, raw)
        return response.status_code, bytes(response.body)

    # kept per view and data version for at most a minute, as the offers page (the ages shown)
    key = ("faq-page", tuple(sorted(raw.items())), int(time.time() // 60))
    status, content = _cached_page(services, key, body)
    return HTMLResponse(content, status_code=status)


def _faq_page(
    request: Request, services: WebServices, raw: dict[str, str], stray: list[str] | None = None
) -> Response:
    errors = FormErrors(general=list(stray or ()))
    resolved = None
    answers = None
    numbers: dict[str, int | None] = {}
    for name in ("context", "users"):
        numbers[name] = _whole_number(raw[name], FAQ_LABELS[name], errors, name, tokens=name == "context")
    try:
        resolved = model_view.resolve_typed(raw["model"])
    except GpuscoutError as exc:
        _faq_error(exc, errors)
    for name, check in (("gpu", services.gpu), ("precision", _precision)):
        if raw[name]:
            try:
                check(raw[name])
            except GpuscoutError as exc:
                _faq_error(exc, errors)
    if resolved is not None and not errors:
        inputs = FaqInputs(
            resolved.spec.name,
            context=numbers["context"],
            users=DEFAULT_USERS if numbers["users"] is None else numbers["users"],
            gpu=raw["gpu"] or None,
            precision=raw["precision"] or None,
        )
        try:  # the ranges of context and users are the FAQ's own (its errors name the field)
            answers = _faq_answers(services, inputs)
        except GpuscoutError as exc:
            _faq_error(exc, errors)
    spec = resolved.spec if resolved is not None else None
    context = {
        "title": "FAQ",
        "faq": answers,
        "model": raw["model"],
        "raw": raw,
        "errors": errors,
        "resolved": resolved,
        "model_names": [m.name for m in services.models() if m.kind == "llm"],
        "gpu_names": sorted(a.name for a in services.gpus()),
        "precisions": model_view.precisions_for(spec) if spec is not None else model_view.PRECISIONS,
        "defaults": {"context": DEFAULT_CONTEXT, "users": DEFAULT_USERS, "gpu": REFERENCE_GDDR},
        "freshness": page_freshness(services),
    }
    return render(request, "faq.html", context, status_code=422 if errors else 200)


def _faq_answers(services: WebServices, inputs: FaqInputs) -> Faq:
    """The answers for ``inputs``: the services' (kept per model) for a model alone, else computed."""
    if inputs.is_default:
        return services.faq(inputs.model)
    from gpuscout.advise.backends import default_backends
    from gpuscout.advise.faq import faq
    from gpuscout.user_models import registry

    return faq(
        inputs.model,
        services.all_current_offers(),
        context=inputs.context,
        users=inputs.users,
        gpu=inputs.gpu,
        precision=inputs.precision,
        backends=default_backends(registry()),
    )


def _precision(name: str) -> None:
    """``name`` read as a weight format; an unknown one names the closest formats (links on the page:
    the estimator's list of what it accepts is too long to show)."""
    from gpuscout.estimate.precision import accepted_precisions, resolve_precision

    try:
        resolve_precision(name)
    except UnknownNameError:
        raise
    except InvalidInputError as exc:
        raise UnknownNameError(exc.field, name, closest(name, accepted_precisions())) from None


def _whole_number(
    text: str, label: str, errors: FormErrors, name: str, *, tokens: bool = False
) -> int | None:
    """``text`` as a whole number (``None`` when blank), in any notation (``1e3``); a count of ``tokens``
    as every face reads one (``32k``, ``1.5M``: ``gpuscout faq --context 32k``); else an error at the
    field (its range is the FAQ's, said when the number is out of it)."""
    if not text:
        return None
    plain = ungrouped(text)  # 1,000 or 32 000, as the advisor's form reads a number
    if tokens:
        try:
            return token_count(plain, name)
        except InvalidInputError:
            what = "a whole number of tokens (32768, 32k, 1.5M)"
    else:
        number = whole_number_text(plain)
        if number is not None:
            return number
        what = "a whole number"
    errors.add(FieldError(name, f"{label} must be {what}; you typed “{text[:40]}”"))
    return None


def _faq_error(exc: GpuscoutError, errors: FormErrors) -> None:
    found = _web_error(exc, FAQ_LABELS)
    if isinstance(found, FieldError):
        errors.add(found)
    else:
        errors.general.append(found)


def _web_error(
    exc: GpuscoutError, labels: dict[str, str], aliases: dict[str, str] | None = None
) -> FieldError | str:
    """``gpuscout_error``, except that a model of the wrong kind for the form links to the pages that
    answer it rather than naming CLI commands."""
    if isinstance(exc, WrongModelKind) and "model" in labels:
        return model_view.other_kind_error(exc, labels["model"])
    return gpuscout_error(exc, labels, aliases)


def page_freshness(services: WebServices) -> Freshness:
    offers, providers = services.offer_totals()
    return freshness(services, services.current_sources(), offers, providers)
