"""The JSON API under ``/api/v1`` (plus ``/healthz``)."""

from __future__ import annotations

import hmac
import logging
import math
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, BackgroundTasks, Header, HTTPException, Path, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from pydantic import BeforeValidator, Field, WithJsonSchema

from gpuscout.advise.types import PICKS, Recommendation
from gpuscout.advise.workload import MAX_NAME_CHARS
from gpuscout.catalog.query import OfferQuery, check_regions, offer_regions
from gpuscout.catalog.reader import SqliteReader
from gpuscout.catalog.status import HISTORY_DAYS_ACCEPTED, history_provider
from gpuscout.errors import InvalidInputError, UnknownNameError, quoted_name
from gpuscout.estimate.arguments import (
    MAX_CONCURRENCY,
    MAX_CONTEXT,
    MAX_GPUS,
    MAX_RATE,
    MAX_TOKEN_TEXT,
    TOKEN_COUNT,
    token_count,
)
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.web import model_view
from gpuscout.web.deps import Services
from gpuscout.web.errors import NotFoundError
from gpuscout.web.filters import MAX_REGION_CHARS, ApiOfferFilters, OfferFilters
from gpuscout.web.offer_json import page_json
from gpuscout.web.offer_view import age
from gpuscout.web.offers_view import with_provider_ids
from gpuscout.web.query_params import COMMA_LIST, StrictQueryRoute, folded
from gpuscout.web.schemas import (
    AdviceOut,
    ErrorOut,
    EstimateOut,
    GpuDetailOut,
    GpuFitOut,
    GpuOut,
    HealthOut,
    HistoryPointOut,
    ImageSpeedOut,
    MemoryOut,
    ModelDetailOut,
    ModelOut,
    OfferOut,
    OfferPageOut,
    PrecisionMemoryOut,
    RecommendationOut,
    RecommendIn,
    RefreshOut,
    SourceOut,
    With,
)
from gpuscout.web.services import AdvisorOptions, OfferPage, WebServices, resolve_gpu_names, source_out

ADMIN_TOKEN_ENV = "GPUSCOUT_ADMIN_TOKEN"
logger = logging.getLogger(__name__)

ERRORS: dict[int | str, dict[str, object]] = {
    404: {"model": ErrorOut, "description": "unknown name (with the closest known names)"},
    422: {"model": ErrorOut, "description": "invalid input: `field` names the parameter at fault"},
}

# a parameter a route does not take, or one value given twice, is a 422 naming it (query_params.py)
router = APIRouter(prefix="/api/v1", responses=ERRORS, route_class=StrictQueryRoute)
health_router = APIRouter()

NameInPath = Annotated[str, Path(min_length=1, max_length=MAX_NAME_CHARS)]


@router.get("/offers", response_model=OfferPageOut, tags=["offers"], summary="Current offers, filtered")
async def api_offers(services: Services, filters: Annotated[ApiOfferFilters, Query()]) -> Response:
    """Current offers with the same filters, sort and pages as the comparison page. A parameter given
    blank (``gpu=``) is a 422 naming it: left out, it is not a filter."""
    # The store is synchronous: one hop to the thread pool for it. (A plain query string of a SQLite
    # store is answered before this route, on the event loop: ``web/lean_offers.py``.)
    content = await run_in_threadpool(offers_body, services, filters)
    return Response(content, media_type="application/json")


def offers_body(services: WebServices, filters: OfferFilters, reader: SqliteReader | None = None) -> bytes:
    """The JSON body of ``/api/v1/offers`` for ``filters``; SQLite rows are read by ``reader`` (default:
    the services' reader). The body of a view is kept with the data version it came from (ages are
    rounded to the minute) while the web cache is on, so repeated views are cheap."""

    def body() -> bytes:
        # a provider no current offer is from is a 422 with the closest names, as on the page
        checked = with_provider_ids(filters, services, reader)
        rows = services.page_rows(checked, reader)
        if rows is None:  # not read with sqlite3: the offers, validated and dumped
            page = offer_page_out(services, checked)
            if not page.total:
                check_offer_regions(services, checked, reader)
            return page.model_dump_json().encode()
        found, total = rows
        if not total:
            check_offer_regions(services, checked, reader)
        pages = OfferPage.page_count(total, checked.per_page)
        return page_json(found, total=total, page=checked.page, per_page=checked.per_page, pages=pages)

    key = ("offers", filters.model_dump_json(), int(time.time() // 60))
    return services.cached(key, body)


def check_offer_regions(
    services: WebServices, filters: OfferFilters, reader: SqliteReader | None = None
) -> None:
    """For filters that matched no offer: a region no current offer is in is a 422 naming ``region``
    and the closest regions with offers, as ``gpuscout offers --region`` answers it
    (:func:`~gpuscout.catalog.query.check_regions`); a provider no offer is from is answered so by
    :func:`with_provider_ids`. The regions are listed only for the error, and not on the event loop
    (``reader`` given: ``lean_offers`` hands the error to the route, which lists them)."""
    read = reader or services.reader
    check_regions(
        filters.region_names(),
        read.count_offers,
        lambda: () if reader is not None else offer_regions(services.all_offers()),
        field="region",
    )


def check_workload_regions(services: WebServices, regions: tuple[str, ...]) -> None:
    """A workload whose ``regions`` no current offer is in is a 422 naming ``regions`` and the closest
    regions with offers, as ``gpuscout recommend --region`` answers it; a list some of whose regions
    have offers is ranked on those."""
    for region in regions:  # no region name is this long (a paste gone wrong): not searched or echoed
        if len(region) > MAX_REGION_CHARS:
            raise InvalidInputError(
                "regions",
                f"{quoted_name(region)} is not a region name",
                f"region names or parts of them, each of at most {MAX_REGION_CHARS} characters",
            )
    read = services.reader
    if regions and read.count_offers(OfferQuery(regions=regions)) == 0:
        check_regions(
            regions, read.count_offers, lambda: offer_regions(services.all_offers()), field="regions"
        )


def offer_page_out(services: WebServices, filters: OfferFilters) -> OfferPageOut:
    offers, total = services.page_offers(filters)
    now = datetime.now(UTC)
    return OfferPageOut(
        total=total,
        page=filters.page,
        per_page=filters.per_page,
        pages=OfferPage.page_count(total, filters.per_page),
        items=[OfferOut.from_offer(o, age(o, now)) for o in offers],
    )


@router.get("/gpus", response_model=list[GpuOut], tags=["knowledge"], summary="Known accelerators")
def api_gpus(services: Services) -> list[GpuOut]:
    return [GpuOut.model_validate(a) for a in services.gpus()]


@router.get("/gpus/{name:path}", response_model=GpuDetailOut, tags=["knowledge"], summary="One accelerator")
def api_gpu(services: Services, name: NameInPath) -> GpuDetailOut:
    """Specs with their source, and how many current offers there are, the name resolved as the CLI's
    ``gpuscout gpus NAME`` resolves it: a family name ("V100", "H100") answers for the variant it reads
    as (H100-SXM), ``resolution`` saying so and naming the others (``exact`` false), as the CLI's
    ``--json`` and ``/api/v1/estimate?gpu=V100`` do; a name that means several parts alike ("RTX 6000")
    is a 422 naming them. The page ``/gpus/H100`` compares the variants; ``/offers`` or ``/history``
    cover the family, each row its own variant."""
    from gpuscout.knowledge.accelerators import resolve_gpu_detail
    from gpuscout.web.gpu_view import cheapest_on_demand_row

    try:
        found = resolve_gpu_detail(name)
    except UnknownNameError as exc:
        raise (exc if exc.ambiguous else NotFoundError.wrap(exc)) from None
    acc = found.accelerator
    _, total = services.offers_for_gpu(acc.name, limit=1)
    row = cheapest_on_demand_row(services, acc.name)  # an auction price is not an on-demand one
    cheapest = row.offer.price_usd_per_gpu_hour if row is not None else None
    resolution = {"exact": found.exact, "note": found.note}
    out = With(acc, offers_total=total, cheapest_usd_per_gpu_hour=cheapest, resolution=resolution)
    return GpuDetailOut.model_validate(out)


@router.get("/history", response_model=list[HistoryPointOut], tags=["offers"], summary="Price history")
def api_history(
    services: Services,
    gpu: Annotated[str, Query(min_length=1, max_length=MAX_NAME_CHARS, description="GPU name")],
    provider: Annotated[str | None, Query(max_length=100)] = None,
    days: Annotated[
        float | None,
        Query(description=f"only the last N days: {HISTORY_DAYS_ACCEPTED} (0.5 is 12 hours)"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=5000, description="most recent points to return")] = 1000,
) -> list[HistoryPointOut]:
    """Min and median on-demand $/GPU-h per provider and stored snapshot, oldest first (points whose
    observation time is unknown come first); at most ``limit``, the most recent ones.

    ``days`` is read by the catalog's one rule, as ``gpuscout history --days`` is (a number above 0, up
    to 36,500: ``gpuscout.catalog.status.check_history_days``; else 422 naming it). ``provider`` is a
    name or an alias ("Vast.ai"); one that is neither a known provider nor one with stored prices of
    the GPU is a 422 naming the closest providers, and a known provider without such prices answers
    ``[]``."""
    names = resolve_gpu_names(gpu)
    points = services.history_points(names, None, days)
    if provider is not None:
        pid = history_provider(provider, {p.provider for p in points}, field="provider")
        points = [p for p in points if p.provider == pid]
    return [HistoryPointOut.model_validate(p, from_attributes=True) for p in points[-limit:]]


@router.get("/sources", response_model=list[SourceOut], tags=["offers"], summary="Sources and freshness")
def api_sources(services: Services) -> list[SourceOut]:
    return [SourceOut.model_validate(source_out(s)) for s in services.sources()]


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
    source: Annotated[
        str | None,
        COMMA_LIST,  # repeated: added to the list, as the CLI's repeatable refresh --source
        Query(max_length=500, description="sources, comma-separated or the parameter repeated"),
    ] = None,
) -> RefreshOut:
    """Starts a refresh in the background. Requires ``Authorization: Bearer $GPUSCOUT_ADMIN_TOKEN``;
    disabled (403) when that variable is unset on the server.

    Only the sources configured on this server can be named: the registered adapters, ``snapshot``,
    and ``file:PATH`` for the offer files of its ``$GPUSCOUT_OFFER_FILES`` (as ``/api/v1/sources``
    lists them). Any other name is refused at once (422, with the closest names), before anything
    starts. The refresh runs in a worker thread and ends by its deadline, whatever the providers do.
    """
    check_admin(authorization, services.settings.admin_token)
    # a blank name is refused naming the field, as `gpuscout refresh --source ''` is (not every source)
    asked = [] if source is None else [s.strip() for s in source.split(",")]
    names = configured_sources(asked)
    if services.refresh_lock.locked():
        raise HTTPException(409, "a refresh is already running")
    background.add_task(_run_refresh, services, names)
    return RefreshOut(status="started", sources=names)


def configured_sources(names: list[str]) -> list[str]:
    """``names`` checked against what this server may refresh: the registered adapters, ``snapshot``
    and its configured offer files (the catalog's list). A ``file:`` name must be one the server
    lists, compared as given: a path a caller names is never resolved or opened."""
    from gpuscout.catalog.refresh import configured_source_names, resolve_sources

    files = {n for n in configured_source_names() if n.startswith("file:")}
    for name in names:
        if name.lower().startswith("file:") and name not in files:
            raise InvalidInputError(
                "source",
                "only the offer files configured on this server can be refreshed over HTTP",
                "a file: source of GPUSCOUT_OFFER_FILES, named as /api/v1/sources lists it",
            )
    resolve_sources(names, configured_only=True)  # unknown or retired: UnknownNameError, InvalidInputError
    return list(dict.fromkeys(names))


def _run_refresh(services: WebServices, names: list[str]) -> None:
    try:
        services.refresh(names or None)
    except Exception:  # a background task has no one to answer: one log record, not a crash
        logger.exception("refresh of %s failed", ", ".join(names) or "every source")


def check_admin(authorization: str | None, token: str | None) -> None:
    """Accept only ``Bearer <token>`` (compared in constant time); 403 when no token is configured."""
    if not token:
        raise HTTPException(403, f"refresh over HTTP is disabled: {ADMIN_TOKEN_ENV} is not set on the server")
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise HTTPException(401, "missing or wrong bearer token", headers={"www-authenticate": "Bearer"})


@health_router.get(
    "/healthz",
    response_model=HealthOut,
    tags=["admin"],
    summary="Store and data freshness",
    responses={503: {"model": HealthOut}},
)
def healthz(services: Services) -> JSONResponse:
    health = HealthOut(**services.health())
    return JSONResponse(health.model_dump(mode="json"), status_code=503 if health.status == "error" else 200)


def lookup_gpu(services: WebServices, name: str) -> Accelerator:
    try:
        return services.gpu(name)
    except UnknownNameError as exc:
        raise NotFoundError.wrap(exc) from None


@router.get("/models", response_model=list[ModelOut], tags=["knowledge"], summary="Known models")
def api_models(services: Services) -> list[ModelOut]:
    return [ModelOut.model_validate(_model_with_params(m)) for m in services.models()]


Context = Annotated[
    int | None,
    Query(
        ge=1,
        le=model_view.MAX_CONTEXT,
        description="tokens per sequence; default 4,096, or the model's context window where shorter",
    ),
]


@router.get("/models/{name:path}", response_model=ModelDetailOut, tags=["knowledge"], summary="One model")
def api_model(
    services: Services,
    name: NameInPath,
    precision: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=40,
            description="weight format for the fits: bf16, fp8, int4...; default: the checkpoint's own "
            "format (FP8 for DeepSeek-V3/R1, MXFP4 experts for gpt-oss, bf16 for most)",
        ),
    ] = None,
    context: Context = None,
) -> ModelDetailOut:
    """Architecture, memory by precision (one sequence of ``context`` tokens; the published format first
    where it is not bf16) and which GPUs hold it."""
    spec = lookup_model(services, name)
    if context is None:  # not given: the default, or the model's window where shorter (falcon-40b: 2,048)
        context = model_view.default_context(spec)
    precision = precision or model_view.published_precision(spec)
    total_b, active_b = model_view.params_b(spec)
    memories: list[PrecisionMemoryOut] = []
    fits: list[GpuFitOut] = []
    if spec.kind == "llm":
        memories = [
            PrecisionMemoryOut(
                precision=p, context=context, concurrency=1, memory=MemoryOut.model_validate(mem)
            )
            for p, mem in model_view.memory_by_precision(spec, context)
        ]
        fits = [
            GpuFitOut(
                gpu=f.gpu.name,
                memory_gb=f.gpu.memory_gb,
                gpus_needed=f.gpus_needed,
                unsupported=f.unsupported,
            )
            for f in model_view.sort_fits(model_view.fits(spec, precision, context))
        ]
    images: list[ImageSpeedOut] = []
    image_setting = ""
    if spec.kind == "diffusion":
        rows, image_setting = model_view.image_rows(spec)
        images = [
            ImageSpeedOut(
                gpu=r.gpu.name,
                gpu_memory_gb=r.gpu.memory_gb,
                fits=r.fits,
                cpu_offload=r.cpu_offload,
                memory_gb=r.memory_gb,
                seconds_per_image=r.seconds_per_image,
                images_per_hour=r.images_per_hour,
            )
            for r in rows
        ]
    return ModelDetailOut.model_validate(
        With(
            spec,
            total_params_b=total_b,
            active_params_b=active_b,
            precision=precision,
            context=context,
            memory_by_precision=memories,
            fits=fits,
            images=images,
            image_setting=image_setting,
        )
    )


#: The most arrivals per second a finite ``request_rate`` may be (the estimator's own cap).
MAX_REQUEST_RATE = int(MAX_RATE)
#: ``request_rate`` of ``/estimate``: arrivals per second, or ``inf`` -- every request at once, as vLLM's
#: benchmark (``--request-rate inf``) and ``gpuscout estimate --request-rate inf`` take it.
RequestRate = Annotated[float, Field(gt=0, le=MAX_REQUEST_RATE, allow_inf_nan=False)] | Literal["inf"]
_INFINITE = frozenset({"inf", "+inf", "infinity", "+infinity"})
_RATE_ACCEPTED = f"a number > 0 and <= {MAX_REQUEST_RATE:,}, or inf with num_requests (all requests at once)"


def request_rate_value(raw: object) -> object:
    """``request_rate`` as typed, checked here so that an error names the parameter and what it accepts
    (pydantic's union would name its branches): a number in range, or ``"inf"`` (any spelling Python's
    ``float`` reads as +infinity, as the CLI's option does)."""
    if raw is None:
        return None
    text = str(raw).strip()
    if text.lower() in _INFINITE:
        return "inf"
    try:
        value = float(text)
    except ValueError:
        raise InvalidInputError("request_rate", f"{text[:40]!r} is not a number", _RATE_ACCEPTED) from None
    if math.isinf(value) and value > 0:
        return "inf"
    if not math.isfinite(value):
        raise InvalidInputError("request_rate", f"{text[:40]} is not a finite number or inf", _RATE_ACCEPTED)
    if not 0 < value <= MAX_REQUEST_RATE:
        raise InvalidInputError("request_rate", f"{value:g} is out of range", _RATE_ACCEPTED)
    return value


def _tokens(field: str) -> Callable[[object], object]:
    """The ``BeforeValidator`` of a token count: read by the CLI's parser (``32k``, ``1.5M``, ``1e9``),
    its error naming ``field`` and how a count is written; the range is the parameter's own."""

    def read(raw: object) -> object:
        return None if raw is None else token_count(raw, field)

    return read


#: A token count written as text, as the CLI reads it (``32k``, ``1.5M``, ``1e6``, ``32,768``), in the
#: dialect of JSON Schema (ECMA-262): the parser's own grammar with its groups unnamed, and as it, not an
#: exponent and a unit together (``1e6k``); spaces around it are read, as the parser strips them. A
#: negative count is left out (the range starts at 0).
TOKEN_TEXT_PATTERN = (
    r"^\s*(?!.*[eE].*[kKmMbBgGtT])(?:" + re.sub(r"\(\?P<\w+>", "(?:", TOKEN_COUNT.pattern) + r")\s*$"
)
_TOKEN_WORDS = (
    f"0 to {MAX_CONTEXT:,}: a whole number (32768) or, as the CLI writes it, 32k, 1.5M or 1e6 (k = 1,000)"
)
_CONTEXT_IN = f"prompt tokens, {_TOKEN_WORDS}"
_CONTEXT_OUT = f"generated tokens, {_TOKEN_WORDS}"


def _token_schema(description: str) -> WithJsonSchema:
    """The OpenAPI schema of a token count parameter: an integer in its range, or the text of one (its
    range checked once read), so that a generated client sends ``32k`` as the route reads it."""
    return WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT},
                {"type": "string", "pattern": TOKEN_TEXT_PATTERN, "maxLength": MAX_TOKEN_TEXT},
            ],
            "description": description,
        }
    )


@router.get("/estimate", response_model=EstimateOut, tags=["estimate"], summary="Memory and speed estimate")
def api_estimate(
    model: Annotated[str, Query(min_length=1, max_length=MAX_NAME_CHARS)],
    gpu: Annotated[str, Query(min_length=1, max_length=MAX_NAME_CHARS)],
    gpus: Annotated[int, Query(ge=1, le=MAX_GPUS)] = 1,
    precision: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=40,
            description="weight format: bf16, fp8, int4, mxfp4, q4_k_m...; default: the checkpoint's own "
            "format (FP8 for DeepSeek-V3/R1, MXFP4 experts for gpt-oss, bf16 for most)",
        ),
    ] = None,
    engine: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=200,
            description="an engine, its version and launch flags ('vllm', 'vllm 0.6.3', 'vllm --max-num-seqs "
            "512 --gpu-memory-utilization 0.95'); default: llama.cpp for a GGUF precision, else vllm",
        ),
    ] = None,
    batch: Annotated[
        str | None,
        BeforeValidator(folded),  # "MAX", " max ": as the CLI and gpuscout.estimate read it
        Query(
            pattern=r"^(max|[0-9]{1,7})$",
            description=f"concurrent sequences, 1..{MAX_CONCURRENCY} (requests in flight, as concurrency), "
            "or max (one load at most)",
        ),
    ] = None,
    concurrency: Annotated[
        int | None, Query(ge=1, le=MAX_CONCURRENCY, description="requests in flight (closed loop)")
    ] = None,
    request_rate: Annotated[
        RequestRate | None,
        BeforeValidator(request_rate_value),
        Query(
            description="arrivals per second (open loop); with num_requests, a run; inf: all num_requests "
            "requests at once, as vLLM's benchmark and `gpuscout estimate --request-rate inf` take it"
        ),
    ] = None,
    num_requests: Annotated[
        int | None,
        Query(
            ge=1,
            le=MAX_CONCURRENCY,
            description="requests in the run (finite runs), with concurrency, request_rate (inf: a burst) "
            "or batch",
        ),
    ] = None,
    context_in: Annotated[
        int,
        BeforeValidator(_tokens("context_in")),
        _token_schema(_CONTEXT_IN),
        Query(ge=0, le=MAX_CONTEXT, description=_CONTEXT_IN),
    ] = 512,
    context_out: Annotated[
        int,
        BeforeValidator(_tokens("context_out")),
        _token_schema(_CONTEXT_OUT),
        Query(ge=0, le=MAX_CONTEXT, description=_CONTEXT_OUT),
    ] = 512,
    kv_dtype: Annotated[str | None, Query(max_length=20)] = None,
    parallel: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=40,
            description="how a model spreads over several GPUs: tensor, layer or replicas (also tp, "
            "pipeline, pp, data-parallel..., any case, read as the CLI and gpuscout.estimate read them); "
            "default: the engine's own (layer for llama.cpp and hf-transformers, else tensor)",
        ),
    ] = None,
) -> EstimateOut:
    """``gpuscout.estimate`` over HTTP: does the model fit on ``gpus`` x ``gpu``, can the engine run it, and
    how fast at the load (``batch``, ``concurrency`` or ``request_rate``; default one request): TTFT,
    TPOT, tokens/s, requests/s and the binding limit."""
    from gpuscout.estimate.api import estimate

    est = estimate(
        model,
        gpu,
        gpus=gpus,
        precision=precision,
        engine=engine,
        batch=None if batch is None else "max" if batch == "max" else int(batch),
        concurrency=concurrency,
        request_rate=math.inf if request_rate == "inf" else request_rate,
        num_requests=num_requests,
        context_in=context_in,
        context_out=context_out,
        kv_dtype=kv_dtype or None,
        parallel=parallel,
    )
    return EstimateOut.model_validate(est)


def _model_with_params(spec: ModelSpec) -> With:
    total_b, active_b = model_view.params_b(spec)
    return With(spec, total_params_b=total_b, active_params_b=active_b)


def lookup_model(services: WebServices, name: str) -> ModelSpec:
    try:
        return services.model(name)
    except UnknownNameError as exc:
        raise NotFoundError.wrap(exc) from None


@router.post(
    "/recommend",
    response_model=list[RecommendationOut],
    tags=["advise"],
    summary="Rank current offers for a workload",
)
def api_recommend(services: Services, body: RecommendIn) -> list[RecommendationOut]:
    """``gpuscout.recommend`` over HTTP: the ranked offers that can run the workload, best first,
    each with its configuration, speed, cost breakdown, unit costs, reasons and warnings. An empty list
    says no offer passes; ``POST /api/v1/advise`` with the same body says what binds and what would fit
    (and, with ``show_rejected``, why each offer was left out)."""
    check_workload_regions(services, body.workload.regions)
    recs = services.recommend(
        body.workload, objective=body.objective, top=body.top, options=AdvisorOptions.of(body)
    )
    return [RecommendationOut.from_rec(r) for r in recs]


@router.post(
    "/advise",
    response_model=AdviceOut,
    tags=["advise"],
    summary="The advisor's answer: the cost/time Pareto front with its picks",
)
def api_advise(services: Services, body: RecommendIn) -> AdviceOut:
    """``gpuscout.advice`` over HTTP: the rows of ``/recommend`` (the Pareto front of cost against time
    first, with the cheapest, balanced and fastest picks, then dominated rows) plus the targets applied,
    the caveats every row shares and, when nothing passes, what binds and what would fit."""
    check_workload_regions(services, body.workload.regions)
    options = AdvisorOptions.of(body)
    advice = services.advice(
        body.workload,
        objective=body.objective,
        top=body.top,
        include_rejected=body.show_rejected,
        options=options,
    )
    # an uncalibrated pick's calibrated alternative past ``top`` (#445): its row, ranked with room for it
    # past the picks, which come first (a row keeps its number whatever top is), so that the answer names
    # it in full
    shown = {r.rank for r in advice.rows}
    wanted = {u.calibrated for u in advice.uncalibrated_picks if u.calibrated is not None} - shown
    further: dict[int, Recommendation] = {}
    if wanted:
        top = max(wanted) + len(PICKS)
        wider = services.advice(body.workload, objective=body.objective, top=top, options=options)
        further = {r.rank: r for r in wider.rows if r.rank in wanted}
    return AdviceOut.from_advice(advice, further)
