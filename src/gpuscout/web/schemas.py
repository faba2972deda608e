"""Pydantic response models of the JSON API (they make the OpenAPI document precise)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import (
    KINDS,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
    Workload,
)
from gpuscout.catalog.offer_fields import face_fields
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.types import Estimate, MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.web.offer_view import OfferRow, to_row


class ErrorOut(BaseModel):
    """Every error of the API: the field at fault, what went wrong, and what is accepted."""

    error: str = Field(description="kind: invalid_input, unknown_name, not_found, forbidden, ...")
    field: str | None = Field(default=None, description="the parameter at fault (query, path or body field)")
    message: str
    accepted: str | None = None
    suggestions: list[str] = Field(default_factory=list, description="closest known names")
    errors: list[dict[str, Any]] = Field(default_factory=list, description="every validation error")


class OfferOutBase(BaseModel):
    """What every offer of the API carries: each shown ``Offer`` field and computed value (derived
    from the dataclass, described by its ``metadata["doc"]``), then the view's values."""

    @classmethod
    def from_row(cls, row: OfferRow) -> OfferOutBase:
        offer = row.offer
        values: dict[str, Any] = {
            f.name: _api_value(getattr(offer, f.name)) for f in face_fields(type(offer))
        }
        values.update(
            stale=row.stale,
            source_url=row.source_url,
            age_hours=row.age_hours,
            variant_assumed=row.variant_assumed,
        )
        return cls.model_validate(values)


# The view's values next to the offer's own (``stale`` is the view's: flagged or old).
_VIEW_FIELDS: dict[str, Any] = {
    "source_url": (str | None, Field(description="the http(s) URL in `source`, if any")),
    "age_hours": (float | None, Field(description="age of the price; null when unknown")),
    "variant_assumed": (
        bool,
        Field(
            default=False,
            description="the source did not state the GPU's form factor; `accelerator` is the assumed "
            "default variant (e.g. a plain \"H100\" taken as H100-SXM)",
        ),
    ),
}


def _api_type(annotation: Any) -> Any:
    """The pydantic type of a field: tuples are JSON arrays (``list``), the rest as annotated."""
    if get_origin(annotation) is tuple:
        return list[get_args(annotation)[0]]  # type: ignore[misc]
    return annotation


def _api_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _offer_out_model() -> type[OfferOutBase]:
    fields: dict[str, Any] = {
        f.name: (_api_type(f.type), Field(description=f.doc or None)) for f in face_fields()
    }
    fields["stale"] = (bool, Field(description="flagged stale by the catalog or observed over 2 days ago"))
    fields.update(_VIEW_FIELDS)
    return create_model("OfferOut", __base__=OfferOutBase, **fields)


if TYPE_CHECKING:
    OfferOut = OfferOutBase
else:
    OfferOut = _offer_out_model()


class OfferPageOut(BaseModel):
    total: int = Field(description="offers matching the filters, all pages")
    page: int
    per_page: int
    pages: int
    items: list[OfferOut]


class GpuOut(BaseModel):
    name: str
    vendor: str
    kind: str
    memory_gb: float
    memory_type: str
    bandwidth_gbps: float
    bf16_tflops: float | None
    fp8_tflops: float | None
    fp4_tflops: float | None
    fp8_supported: bool
    interconnect: str | None
    release_year: int | None
    source: str
    confidence: str
    aliases: list[str]


class GpuDetailOut(GpuOut):
    fp32_tflops: float | None
    tf32_tflops: float | None
    fp16_tflops: float | None
    int8_tops: float | None
    fp4_supported: bool
    interconnect_gbps: float | None
    tdp_w: float | None
    form_factor: str
    notes: str
    offers_total: int = Field(description="current offers for this GPU")
    cheapest_usd_per_gpu_hour: float | None


class ModelOut(BaseModel):
    name: str
    hf_id: str
    family: str
    kind: str
    total_params_b: float | None
    active_params_b: float | None
    max_position_embeddings: int
    source: str
    aliases: list[str]


class MemoryOut(BaseModel):
    weights_gb: float
    kv_cache_gb: float
    activations_gb: float
    overhead_gb: float
    optimizer_gb: float
    gradients_gb: float
    adapters_gb: float
    total_gb: float
    usable_gb: float
    capacity_gb: float
    kv_bytes_per_token: float


class PrecisionMemoryOut(BaseModel):
    precision: str
    context: int
    concurrency: int
    memory: MemoryOut


class GpuFitOut(BaseModel):
    gpu: str
    memory_gb: float
    gpus_needed: int | None = Field(description="smallest count of this GPU that holds it; null: none <= 8")


class ModelDetailOut(ModelOut):
    precision: str = Field(description="precision used for `fits`")
    context: int = Field(description="context length used for the memory figures and `fits`")
    num_hidden_layers: int
    hidden_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int
    num_experts: int
    experts_per_token: int
    memory_by_precision: list[PrecisionMemoryOut] = Field(description="empty for non-LLM models")
    fits: list[GpuFitOut] = Field(description="empty for non-LLM models")


class EstimateOut(BaseModel):
    model: str
    gpu: str
    gpus: int
    precision: str
    engine: str
    task: str
    parallel: str
    batch: int
    context_in: int
    context_out: int
    kv_dtype: str
    fits: bool
    binding_constraint: str
    memory: MemoryOut
    max_batch: int
    decode_tokens_per_s: float
    output_tokens_per_s_total: float
    prefill_tokens_per_s: float
    ttft_ms: float
    bound: str
    assumptions: dict[str, str]
    warnings: list[str]


class HealthOut(BaseModel):
    status: str = Field(description="ok, degraded (data stale or a source failing) or error")
    store: str = Field(description="reachable or the error")
    offers: int
    newest_data_age_hours: float | None = Field(description="age of the freshest source; null: unknown")
    sources: int
    failing_sources: list[str]
    checked_at: datetime


class RefreshOut(BaseModel):
    status: str = Field(description="started")
    sources: list[str] = Field(description="sources asked for; empty: every source")


class SourceOut(BaseModel):
    source: str
    row_count: int
    stale_rows: int
    data_observed_at: datetime | None = Field(description="when the current data was observed; null: unknown")
    age_s: float | None
    age: str
    loaded_at: datetime | None
    last_attempt_at: datetime | None
    last_status: str | None
    last_error: str | None
    last_reason: str | None
    credentials_present: bool | None
    needs_credentials: list[str]
    fallback: bool


class HistoryPointOut(BaseModel):
    at: datetime | None = Field(description="when the prices were observed; null: unknown")
    recorded_at: datetime
    provider: str
    accelerator: str
    source: str
    offers: int
    min_usd_per_gpu_hour: float
    median_usd_per_gpu_hour: float


def gpu_out(acc: Accelerator) -> dict[str, Any]:
    return {
        "name": acc.name,
        "vendor": acc.vendor,
        "kind": acc.kind,
        "memory_gb": acc.memory_gb,
        "memory_type": acc.memory_type,
        "bandwidth_gbps": acc.bandwidth_gbps,
        "bf16_tflops": acc.bf16_tflops,
        "fp8_tflops": acc.fp8_tflops,
        "fp4_tflops": acc.fp4_tflops,
        "fp8_supported": acc.fp8_supported,
        "interconnect": acc.interconnect,
        "release_year": acc.release_year,
        "source": acc.source,
        "confidence": acc.confidence,
        "aliases": list(acc.aliases),
    }


def gpu_detail_out(acc: Accelerator, offers_total: int, cheapest: float | None) -> GpuDetailOut:
    return GpuDetailOut(
        **gpu_out(acc),
        fp32_tflops=acc.fp32_tflops,
        tf32_tflops=acc.tf32_tflops,
        fp16_tflops=acc.fp16_tflops,
        int8_tops=acc.int8_tops,
        fp4_supported=acc.fp4_supported,
        interconnect_gbps=acc.interconnect_gbps,
        tdp_w=acc.tdp_w,
        form_factor=acc.form_factor,
        notes=acc.notes,
        offers_total=offers_total,
        cheapest_usd_per_gpu_hour=cheapest,
    )


def memory_out(m: MemoryBreakdown) -> MemoryOut:
    return MemoryOut(
        weights_gb=m.weights_gb,
        kv_cache_gb=m.kv_cache_gb,
        activations_gb=m.activations_gb,
        overhead_gb=m.overhead_gb,
        optimizer_gb=m.optimizer_gb,
        gradients_gb=m.gradients_gb,
        adapters_gb=m.adapters_gb,
        total_gb=m.total_gb,
        usable_gb=m.usable_gb,
        capacity_gb=m.capacity_gb,
        kv_bytes_per_token=m.kv_bytes_per_token,
    )


def estimate_out(e: Estimate) -> EstimateOut:
    return EstimateOut(
        model=e.model, gpu=e.gpu, gpus=e.gpus, precision=e.precision, engine=e.engine, task=e.task,
        parallel=e.parallel, batch=e.batch, context_in=e.context_in, context_out=e.context_out,
        kv_dtype=e.kv_dtype, fits=e.fits, binding_constraint=e.binding_constraint,
        memory=memory_out(e.memory),
        max_batch=e.max_batch, decode_tokens_per_s=e.decode_tokens_per_s,
        output_tokens_per_s_total=e.output_tokens_per_s_total, prefill_tokens_per_s=e.prefill_tokens_per_s,
        ttft_ms=e.ttft_ms, bound=e.bound, assumptions=dict(e.assumptions), warnings=list(e.warnings),
    )


def model_out(spec: ModelSpec, total_b: float | None, active_b: float | None) -> dict[str, Any]:
    return {
        "name": spec.name,
        "hf_id": spec.hf_id,
        "family": spec.family,
        "kind": spec.kind,
        "total_params_b": total_b,
        "active_params_b": active_b,
        "max_position_embeddings": spec.max_position_embeddings,
        "source": spec.source,
        "aliases": list(spec.aliases),
    }


class RecommendIn(BaseModel):
    """A workload (``kind`` picks serve / batch / finetune / pretrain) and how to rank the offers."""

    model_config = ConfigDict(extra="forbid")

    workload: Annotated[
        ServeWorkload | BatchWorkload | FinetuneWorkload | PretrainWorkload, Field(discriminator="kind")
    ]
    objective: Literal["cost", "time", "latency", "balanced"] = "cost"
    top: int = Field(default=20, ge=1, le=100, description="rows to return (at most 100)")

    @field_validator("workload", mode="before")
    @classmethod
    def _workload(cls, value: Any) -> Any:
        # The workload types' own parser names the field at fault (``InvalidInputError``); the API's
        # error handler reports that field.
        if isinstance(value, dict):
            kind = value.get("kind", "serve")
            if not isinstance(kind, str):
                got = type(kind).__name__
                raise InvalidInputError("kind", f"expected a string, got {got}", ", ".join(KINDS))
            return Workload.from_dict(value)
        return value


class ConfigOut(BaseModel):
    description: str
    instances: int
    gpus_per_instance: int
    tp: int
    replicas_per_instance: int
    gpus_used: int
    nodes: int
    spot: bool


class RecommendationOut(BaseModel):
    rank: int | None
    offer: OfferOut
    config: ConfigOut
    fits: bool
    price_usd_per_hour: float = Field(description="paid per instance-hour (the spot price when config.spot)")
    time_s: float | None = Field(description="job duration, or active seconds per day for serve")
    total_usd: float | None = Field(description="serve: per month; jobs: per run")
    estimate: dict[str, Any] | None
    cost: dict[str, float] | None
    unit_costs: dict[str, float | None] | None
    reasons: list[str]
    warnings: list[str]
    assumptions: dict[str, str]

    @classmethod
    def from_rec(cls, rec: Recommendation) -> RecommendationOut:
        c = rec.config
        cost = None
        if rec.cost is not None:
            cost = {f.name: getattr(rec.cost, f.name) for f in dataclasses.fields(rec.cost)}
            cost["total"] = rec.cost.total
        return cls(
            rank=rec.rank,
            offer=OfferOut.from_row(to_row(rec.offer)),
            config=ConfigOut(
                description=c.describe(), instances=c.instances, gpus_per_instance=c.gpus_per_instance,
                tp=c.tp, replicas_per_instance=c.replicas_per_instance, gpus_used=c.gpus_used,
                nodes=c.nodes, spot=c.spot,
            ),
            fits=rec.fits,
            price_usd_per_hour=rec.price_usd_per_hour,
            time_s=rec.time_s,
            total_usd=rec.total_usd,
            estimate=dataclasses.asdict(rec.estimate) if rec.estimate is not None else None,
            cost=cost,
            unit_costs=dataclasses.asdict(rec.unit_costs) if rec.unit_costs is not None else None,
            reasons=list(rec.reasons),
            warnings=list(rec.warnings),
            assumptions=dict(rec.assumptions),
        )
