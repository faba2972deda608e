"""Pydantic response models of the JSON API (they make the OpenAPI document precise)."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from gpuscout.advise.assumption_overrides import (
    CHECKPOINT_WRITE_RANGE,
    MAX_DEADLINE_MISS_RANGE,
    MIN_HEADROOM_RANGE,
    SPOT_RECLAIMS_RANGE,
    UNLISTED_HOST_RAM_RANGE,
)
from gpuscout.advise.types import Advice, Recommendation
from gpuscout.advise.workload import (
    KINDS,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
    Workload,
)
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.offer_fields import face_fields, per_offer_type
from gpuscout.catalog.status import HistoryPoint
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.types import Estimate, MemoryBreakdown
from gpuscout.web.offer_view import OfferRow, age_hours, is_stale, source_url, to_row, variant_assumed


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
        return cls.from_offer(row.offer, row.age)

    @classmethod
    def from_offer(cls, offer: Offer, age: timedelta | None) -> OfferOutBase:
        """The API's offer for ``offer`` whose price is ``age`` old (what :func:`to_row` computes;
        only the view values the API shows are derived here, for the pages of ``/api/v1/offers``)."""
        names, read = _face_reader(type(offer))
        values = dict(zip(names, read(offer), strict=True))  # tuples validate as the JSON arrays
        values.update(
            stale=is_stale(offer, age),
            source_url=source_url(offer.source),
            age_hours=age_hours(age),
            variant_assumed=variant_assumed(offer),
        )
        return cls.model_validate(values)


@per_offer_type
def _face_reader(cls: type[Offer]) -> tuple[tuple[str, ...], Callable[[Offer], tuple[Any, ...]]]:
    """The shown field names of ``cls`` and one getter for all their values: derived once per Offer
    class, read on every offer of a page."""
    names = tuple(f.name for f in face_fields(cls))
    return names, operator.attrgetter(*names)


# The view's values next to the offer's own (``stale`` is the view's: flagged or old).
_VIEW_FIELDS: dict[str, Any] = {
    "source_url": (str | None, Field(description="the http(s) URL in `source`, if any")),
    "age_hours": (float | None, Field(description="age of the price; null when unknown")),
    "variant_assumed": (
        bool,
        Field(
            default=False,
            description="the source did not state the GPU's form factor; `accelerator` is the assumed "
            'default variant (e.g. a plain "H100" taken as H100-SXM)',
        ),
    ),
}


def _api_type(annotation: Any) -> Any:
    """The pydantic type of a field: tuples are JSON arrays (``list``), the rest as annotated."""
    if get_origin(annotation) is tuple:
        return list[get_args(annotation)[0]]  # type: ignore[misc]
    return annotation


def _offer_out_model() -> type[OfferOutBase]:
    fields: dict[str, Any] = {
        f.name: (_api_type(f.type), Field(description=f.doc or None)) for f in face_fields()
    }
    fields["stale"] = (
        bool,
        Field(
            description="flagged stale by its feed, or a live row fetched over 2 days before the "
            "catalog's newest"
        ),
    )
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


#: GPU memory as the vendor states it, which is GiB: the field keeps the vendor's "GB" in its name.
CARD_MEMORY_DOC = (
    'memory per GPU as the vendor states it ("80 GB"), which is GiB (2**30 bytes): an 80 here holds '
    "80 GiB = 85.9e9 bytes (not GB = 1e9 bytes, despite the name)"
)
#: The estimator's memory figures: GB = 1e9 bytes (the web pages and the CLI show them in GiB).
ESTIMATE_GB = "GB = 1e9 bytes (x 1e9 / 2**30 for GiB, the unit GPU memory is sold in)"


class GpuOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    name: str
    vendor: str
    kind: str
    memory_gb: float = Field(description=CARD_MEMORY_DOC)
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


class GpuResolutionOut(BaseModel):
    """How the name asked for was read, as ``gpuscout gpus NAME --json`` says it (its ``resolution``)."""

    model_config = ConfigDict(from_attributes=True)

    exact: bool = Field(description="whether the name pins this one accelerator down")
    note: str = Field(
        description='where it does not (a family name, "V100"): the variant assumed and the others it '
        "could mean; empty where exact"
    )


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
    resolution: GpuResolutionOut


class ModelOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    name: str
    hf_id: str
    family: str
    kind: str
    total_params_b: float | None
    active_params_b: float | None
    max_position_embeddings: int
    source: str
    aliases: list[str]


def dataclass_out(
    name: str, cls: type, *, computed: Mapping[str, Any] = {}, docs: Mapping[str, str] = {}
) -> type[BaseModel]:
    """A response model with the fields of the dataclass ``cls`` (tuples as lists, nested dataclasses as
    their own ``*Out`` given in ``computed``), then ``computed`` ones (``name -> type``). Instances are
    made with ``model_validate(obj, from_attributes=True)``: a core field can never be dropped."""
    hints = get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        kind = computed.get(f.name, _api_type(hints[f.name]))
        fields[f.name] = (kind, Field(description=docs.get(f.name)))
    for extra, kind in computed.items():
        fields.setdefault(extra, (kind, Field(description=docs.get(extra))))
    return create_model(name, __config__=ConfigDict(from_attributes=True), **fields)


if TYPE_CHECKING:
    MemoryOut = BaseModel
else:
    MemoryOut = dataclass_out(
        "MemoryOut",
        MemoryBreakdown,
        computed={"total_gb": float},
        docs={
            "weights_gb": f"weights held per GPU (a layer split: by its fullest GPU), {ESTIMATE_GB}",
            "kv_cache_gb": f"KV cache per GPU, {ESTIMATE_GB}",
            "activations_gb": f"activation and workspace peak per GPU, {ESTIMATE_GB}",
            "overhead_gb": f"CUDA context, allocator fragmentation and engine reserve per GPU, {ESTIMATE_GB}",
            "optimizer_gb": f"training: optimizer state per GPU, {ESTIMATE_GB}",
            "gradients_gb": f"training: gradients per GPU, {ESTIMATE_GB}",
            "adapters_gb": f"training: LoRA / QLoRA adapters with their gradients and optimizer state per "
            f"GPU, {ESTIMATE_GB}",
            "usable_gb": f"what the engine may use on this GPU (after its memory share), {ESTIMATE_GB}",
            "capacity_gb": f"the GPU's usable memory, {ESTIMATE_GB}",
            "model_weights_gb": f"the whole model's weights, one copy (0: not computed), {ESTIMATE_GB}",
            "gpus_weights_gb": f"a layer split: the weights all its GPUs hold together (0: weights_gb x "
            f"GPUs), {ESTIMATE_GB}",
            "gpus_kv_cache_gb": f"a layer split: the KV cache all its GPUs hold together (0: kv_cache_gb x "
            f"GPUs), {ESTIMATE_GB}",
            "gpus_short_gb": f"a layer split: what its GPUs lack together, each GPU's need past its usable "
            f"memory summed (0: total_gb - usable_gb on each GPU, or none), {ESTIMATE_GB}",
            "total_gb": f"everything above per GPU, {ESTIMATE_GB}",
            "kv_bytes_per_token": "KV cache bytes per token, whole model, before tensor-parallel sharding",
            "kv_layer_windows": "whether the engine keeps the sliding-window layers of a model mixing them "
            "with full layers (Gemma 2/3, gpt-oss) at their window; false: every layer holds the whole "
            "context",
        },
    )


class PrecisionMemoryOut(BaseModel):
    precision: str
    context: int
    concurrency: int
    memory: MemoryOut


class GpuFitOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    gpu: str
    memory_gb: float = Field(description=CARD_MEMORY_DOC)
    gpus_needed: int | None = Field(
        description="smallest count of this GPU that holds it; null: none <= 8, or the format is not run "
        "there (see `unsupported`)"
    )
    unsupported: str = Field(
        default="", description="why the default engine does not run the format on this GPU; empty: it does"
    )


class ImageSpeedOut(BaseModel):
    gpu: str
    gpu_memory_gb: float = Field(description=CARD_MEMORY_DOC)
    fits: bool = Field(description="the pipeline (denoiser, text encoders, VAE) fits without CPU offload")
    cpu_offload: bool = Field(
        default=False, description="timed with model CPU offload: it does not fit whole"
    )
    memory_gb: float = Field(description=f"peak per GPU as timed, {ESTIMATE_GB}")
    seconds_per_image: float | None = Field(description="null: does not fit, even with CPU offload")
    images_per_hour: float | None


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
    linear_layers: int = Field(
        default=0,
        description="layers with Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5): no KV cache, a "
        "fixed-size state per sequence (in `memory_by_precision`'s kv_cache_gb); the others attend",
    )
    memory_by_precision: list[PrecisionMemoryOut] = Field(description="empty for non-LLM models")
    fits: list[GpuFitOut] = Field(description="empty for non-LLM models")
    images: list[ImageSpeedOut] = Field(
        default_factory=list,
        description="image models: seconds per image on common GPUs (`image_setting`); empty otherwise",
    )
    image_setting: str = Field(default="", description="resolution, steps, precision, engine of `images`")


if TYPE_CHECKING:
    EstimateOut = BaseModel
else:
    EstimateOut = dataclass_out("EstimateOut", Estimate, computed={"memory": MemoryOut})


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
    model_config = ConfigDict(from_attributes=True)

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


if TYPE_CHECKING:
    HistoryPointOut = BaseModel
else:
    HistoryPointOut = dataclass_out(
        "HistoryPointOut", HistoryPoint, docs={"at": "when the prices were observed; null: unknown"}
    )


class With:
    """``obj``'s attributes and a few more, for ``Model.model_validate(With(obj, ...), from_attributes=True)``
    (a response that is a core value plus what the route adds)."""

    def __init__(self, obj: object, **extra: Any) -> None:
        self._obj = obj
        self.__dict__.update(extra)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._obj, name)


#: The workload kinds whose layouts are held to a memory headroom (``min_headroom``) and that write
#: checkpoints (``checkpoint_write_gbps``).
TRAINING_KINDS = ("finetune", "pretrain")
#: The advisor options of training workloads only (the CLI offers them on finetune and pretrain).
TRAINING_OPTIONS = ("min_headroom", "checkpoint_write_gbps", "unlisted_host_ram")
#: The workload kinds that take a deadline, and the advisor options of those only (the CLI offers them
#: on batch, finetune and pretrain).
JOB_KINDS = ("batch", "finetune", "pretrain")
JOB_OPTIONS = ("max_deadline_miss",)


class AdvisorOptionsIn(BaseModel):
    """The advisor's options beside the workload, as ``gpuscout recommend`` takes them
    (``--include-stale``, ``--spot-reclaims-per-hour``, ``--min-headroom``, ``--checkpoint-write-gbps``):
    the JSON API's body fields and the web advisor form's advanced inputs (their ranges and what each
    means)."""

    include_stale: bool = Field(
        default=False,
        description="also rank stale offers and those of defunct providers (left out by default); "
        "the CLI's --include-stale",
    )
    spot_reclaims_per_hour: float | None = Field(
        default=None,
        ge=SPOT_RECLAIMS_RANGE[0],
        le=SPOT_RECLAIMS_RANGE[1],
        allow_inf_nan=False,
        description="override the assumed spot reclaim rate (reclaims per instance-hour, all providers); "
        "null: by provider kind, 0.02-0.1 (docs/advisor.md); the CLI's --spot-reclaims-per-hour",
    )
    min_headroom: float | None = Field(
        default=None,
        ge=MIN_HEADROOM_RANGE[0],
        le=MIN_HEADROOM_RANGE[1],
        allow_inf_nan=False,
        description="finetune and pretrain only: share of each GPU's memory a training layout must leave "
        "free (0.05 = 5 %); less is rejected as an out-of-memory risk; null: 0.05; the CLI's "
        "--min-headroom",
    )
    checkpoint_write_gbps: float | None = Field(
        default=None,
        ge=CHECKPOINT_WRITE_RANGE[0],
        le=CHECKPOINT_WRITE_RANGE[1],
        allow_inf_nan=False,
        description="finetune and pretrain only: GB/s per node training checkpoints are written at, and "
        "read back at after a spot reclaim; null: 1 (a network volume; raise it for node-local NVMe or "
        "asynchronous saves); the CLI's --checkpoint-write-gbps",
    )
    unlisted_host_ram: float | None = Field(
        default=None,
        ge=UNLISTED_HOST_RAM_RANGE[0],
        le=UNLISTED_HOST_RAM_RANGE[1],
        allow_inf_nan=False,
        description="finetune and pretrain only: host RAM of an offer that lists none, as a multiple of its "
        "GPU memory (what a training layout may offload there); null: 2.15, the median host that lists "
        "RAM; the CLI's --unlisted-host-ram",
    )
    max_deadline_miss: float | None = Field(
        default=None,
        gt=MAX_DEADLINE_MISS_RANGE[0],
        lt=MAX_DEADLINE_MISS_RANGE[1],
        allow_inf_nan=False,
        description="batch, finetune and pretrain only: the chance a spot row under the deadline may have "
        "of missing it with its reclaims (0.1 = 10 %); a riskier spot row is left out; null: 0.1; the "
        "CLI's --max-deadline-miss",
    )


class RecommendIn(AdvisorOptionsIn):
    """A workload (``kind`` picks serve / batch / finetune / pretrain) and how to rank the offers."""

    model_config = ConfigDict(extra="forbid")

    workload: Annotated[
        ServeWorkload | BatchWorkload | FinetuneWorkload | PretrainWorkload, Field(discriminator="kind")
    ]
    objective: Literal["cost", "time", "latency", "balanced"] = "cost"
    top: int = Field(default=20, ge=1, le=100, description="rows to return (at most 100)")
    show_rejected: bool = Field(
        default=False,
        description="/advise: also list the offers left out, each "
        "with why (cannot run, misses a target, spot for a live endpoint...)",
    )

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

    @model_validator(mode="after")
    def _headroom_for_training(self) -> RecommendIn:
        # --min-headroom and --checkpoint-write-gbps are training options on the CLI: on a serve or batch
        # workload they would do nothing
        for name in TRAINING_OPTIONS:
            if getattr(self, name) is not None and self.workload.kind not in TRAINING_KINDS:
                raise InvalidInputError(
                    name,
                    f"applies to training only, not to a {self.workload.kind} workload",
                    "null, or a finetune or pretrain workload",
                )
        for name in JOB_OPTIONS:
            if getattr(self, name) is not None and self.workload.kind not in JOB_KINDS:
                raise InvalidInputError(
                    name,
                    f"applies to a job under a deadline only, not to a {self.workload.kind} workload",
                    "null, or a batch, finetune or pretrain workload",
                )
        return self


class ConfigOut(BaseModel):
    description: str
    instances: int
    gpus_per_instance: int
    tp: int = Field(
        description="GPUs per replica: the tensor-parallel degree where parallel is tensor; the pipeline's "
        "depth (vLLM --pipeline-parallel-size, not --tensor-parallel-size) where it is pipeline; the layer "
        "split's GPUs where it is layer"
    )
    replicas_per_instance: int
    gpus_used: int
    nodes: int
    spot: bool
    parallel: str = Field(
        default="tensor",
        description="serving and batch rows: how a replica's tp GPUs share the model, tensor (each layer "
        "sharded), layer (whole layers per GPU, taking turns: llama.cpp) or pipeline (whole layers per GPU "
        "with a batch in flight on each: vLLM's --pipeline-parallel-size, tried where the GPUs talk over "
        "PCIe); training rows: how the GPUs "
        "share the job, data (a full replica per GPU), fsdp or zero1/zero2/zero3 (sharded), or none (one "
        "GPU), as training says in words",
    )
    training: str = Field(
        default="",
        description="fine-tuning / pre-training rows: how the GPUs share the job (data parallel or FSDP, "
        "host offload, activation checkpointing, micro-batch); empty for serving and batch rows",
    )
    checkpoint_every_s: float | None = Field(
        default=None,
        description="training rows: seconds between the checkpoints saved during the run (a spot row's "
        "own, shortened by its reclaims; the asked-for interval or Young's interval for its GPUs' "
        "failures on on-demand rows); null where none is saved before the end, and on serving and batch "
        "rows",
    )


#: What a row's ``time_s`` is, kind by kind: not the time the table shows (``time_to_result_s``).
TIME_S_DESCRIPTION = (
    "the seconds the configuration works, which its compute is billed on, not the time the table "
    "shows (that is time_to_result_s); by kind: batch, the generation's seconds on all the row's "
    "instances at once, without the warm-up (boot, download, load) and spot rework; finetune and "
    "pretrain, the training run's seconds on its nodes, checkpoint writes included, without the "
    "warm-up and spot rework; serve, the seconds a day the endpoint is up (active hours per day x "
    "3600: 86400 for 24 h), not a latency; null on rejected rows"
)
#: What a row's ``time_to_result_s`` is: the time axis of the trade-off, as the table shows it.
TIME_TO_RESULT_DESCRIPTION = (
    "the time the table shows and the cost/time front trades against (time_axis names it); by kind: "
    "batch, finetune and pretrain, wall-clock seconds to finish: time_s plus the warm-up of a start "
    "(boot, download, load; the instances start together) plus what spot reclaims add per instance "
    "(rework and restarts); serve, one request's latency at the operating point, TTFT + output "
    "tokens x time per output token"
)


class RecommendationOut(BaseModel):
    rank: int | None
    offer: OfferOut
    config: ConfigOut
    fits: bool
    price_usd_per_hour: float = Field(description="paid per instance-hour (the spot price when config.spot)")
    time_s: float | None = Field(description=TIME_S_DESCRIPTION)
    total_usd: float | None = Field(description="serve: per month; jobs: per run")
    estimate: dict[str, Any] | None = Field(
        description=f"the estimate behind the row; its memory figures (memory_per_gpu_gb, "
        f"memory_capacity_gb, weights_gb, kv_cache_gb, model_weights_gb) are {ESTIMATE_GB}"
    )
    cost: dict[str, float] | None
    unit_costs: dict[str, float | None] | None
    reasons: list[str]
    warnings: list[str]
    assumptions: dict[str, str]
    provider_name: str = Field(default="", description="the provider's display name")
    regions: list[str] = Field(
        default_factory=list,
        description="every region this choice is sold in at this price (region copies merged into one row)",
    )
    time_to_result_s: float | None = Field(default=None, description=TIME_TO_RESULT_DESCRIPTION)
    pareto: bool = Field(
        default=False,
        description="on the cost/time front: no other row beats it (the rule: picks_rule of /advise; see "
        "dominated_by)",
    )
    picks: list[str] = Field(default_factory=list, description="cheapest / balanced / fastest, when named so")
    dominated_by: int | None = Field(
        default=None,
        description="off the front: the rank of a shown row that beats this one, by the advisor's rule "
        "(picks_rule of /advise): it costs no more and takes no longer (times within the tolerance count "
        "as the same), or it is so much faster that this row's saving is too small to be worth the wait. "
        "Such a row can cost less than the cheapest pick",
    )
    substitution: str | None = Field(
        default=None,
        description="what differs from what was asked so it runs (engine, precision, GPU count), and why",
    )
    fabric_assumed: bool = Field(
        default=False, description="GPUs talk over an interconnect the source does not state: costed as PCIe"
    )
    rejected: str | None = Field(default=None, description="why the offer was left out (rejected rows only)")

    @classmethod
    def from_rec(cls, rec: Recommendation) -> RecommendationOut:
        """The row with the advisor's CLI flags in its texts named as this API's fields."""
        from gpuscout.advise.option_words import translate_recommendation

        rec = translate_recommendation(rec, "api")  # "(--spot allows it)": "spot_allowed"
        c = rec.config
        cost = None
        if rec.cost is not None:
            cost = {f.name: getattr(rec.cost, f.name) for f in dataclasses.fields(rec.cost)}
            cost["total"] = rec.cost.total
        return cls(
            rank=rec.rank,
            offer=OfferOut.from_row(to_row(rec.offer)),
            config=ConfigOut(
                description=c.describe(rec.offer.accelerator),  # "8x H100-SXM", as the CLI says
                instances=c.instances,
                gpus_per_instance=c.gpus_per_instance,
                tp=c.tp,
                replicas_per_instance=c.replicas_per_instance,
                gpus_used=c.gpus_used,
                nodes=c.nodes,
                spot=c.spot,
                parallel=c.parallel,
                training=c.training,
                checkpoint_every_s=c.checkpoint_every_s,
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
            provider_name=rec.provider_name,
            regions=list(rec.regions),
            time_to_result_s=rec.time_to_result_s,
            pareto=rec.pareto,
            picks=list(rec.picks),
            dominated_by=rec.dominated_by,
            substitution=rec.substitution,
            fabric_assumed=rec.fabric_assumed,
            rejected=rec.rejected,
        )


class CalibratedRowOut(BaseModel):
    """The row an uncalibrated pick's calibrated alternative is: enough of it to act on without asking for
    more rows (``top``)."""

    number: int = Field(description="the row's rank in the answer (explain=N on the web page opens it)")
    provider: str
    provider_name: str
    instance_type: str
    accelerator: str
    gpus: int = Field(description="GPUs rented: instances x GPUs per instance")
    config: str = Field(description="the configuration as the CLI says it: '64 x 8x MI300X (64 nodes)'")
    price_usd_per_hour: float = Field(description="paid per instance-hour (the spot price when spot)")
    total_usd: float | None = Field(description="serve: per month; jobs: per run")
    time_to_result_s: float | None = Field(description=TIME_TO_RESULT_DESCRIPTION)
    in_recommendations: bool = Field(description="whether the row is among this answer's recommendations")

    @classmethod
    def of(cls, rec: Recommendation, shown: bool) -> CalibratedRowOut:
        c = rec.config
        return cls(
            number=rec.rank or 0,
            provider=rec.offer.provider,
            provider_name=rec.provider_name or rec.offer.provider,
            instance_type=rec.offer.instance_type,
            accelerator=rec.offer.accelerator,
            gpus=c.instances * c.gpus_per_instance,
            config=c.describe(rec.offer.accelerator),
            price_usd_per_hour=rec.price_usd_per_hour,
            total_usd=rec.total_usd,
            time_to_result_s=rec.time_to_result_s,
            in_recommendations=shown,
        )


class UncalibratedPickOut(BaseModel):
    pick: str = Field(description="cheapest, balanced or fastest")
    number: int = Field(description="the pick's row")
    what: str = Field(description="the hardware and the work its speed is uncalibrated for")
    calibrated: int | None = Field(
        description="the row the same pick names among the rows whose speed is calibrated; null: none"
    )
    time_ratio: float | None = Field(
        default=None, description="the calibrated row's time over the pick's row's (null: no such row)"
    )
    cost_ratio: float | None = Field(
        default=None, description="the calibrated row's cost over the pick's row's (null: no such row)"
    )
    text: str
    calibrated_row: CalibratedRowOut | None = Field(
        default=None, description="that row (null when there is none)"
    )


class MoveOut(BaseModel):
    """One way out of a dead end (no row passes)."""

    options: dict[str, Any] = Field(
        description='the workload fields it changes, e.g. {"precision": "gguf-q4_k_m", "budget_usd": 1262}; '
        "null clears a field; {} for a hint no field says (a shorter prompt); include_stale, the one "
        'request option a move sets ({"include_stale": true}), goes beside "workload" in the request, '
        "not in it"
    )
    text: str = Field(description="the move in words, with its cheapest row")
    group: str = Field(
        description='"keeps" (keeps what the work asks of each row: its latency targets, its deadline), '
        '"relaxes" (relaxes a constraint) or "last resort" (drops the latency targets); the moves come '
        "in that order, each group cheapest first"
    )
    total_usd: float | None = Field(
        default=None, description="the cheapest row it shows: its cost (a serving month, or the run)"
    )
    tpot_ms: float | None = Field(default=None, description="that row's time per output token (serving)")
    time_to_result_s: float | None = Field(default=None, description="that row's time to result")


class AdviceOut(BaseModel):
    """The advisor's whole answer (``gpuscout.advice``): the Pareto front first, then dominated rows."""

    objective: str
    time_axis: str = Field(description="what time_to_result_s measures")
    front_size: int = Field(description="rows on the whole Pareto front (shown or not)")
    picks: dict[str, int] = Field(description="cheapest / balanced / fastest -> rank of that row")
    picks_rule: str = Field(description="how the front and the picks are defined")
    targets: list[str] = Field(description="what the ranking was held to (latency targets, deadline, budget)")
    notes: list[str] = Field(description="caveats every shown row shares")
    binding: str | None = Field(description="when no row passes: what binds and what would fit")
    binding_why: str = Field(
        default="",
        description="binding in parts, where it names ways out: what binds (the counts, what the cheapest "
        'rows reach); "" otherwise',
    )
    moves: list[MoveOut] = Field(
        default_factory=list,
        description="binding in parts: the ways out it names, each with the fields it changes and its "
        "cheapest row's cost and speed",
    )
    engine_note: str = Field(
        default="",
        description="where engine was given and the default engine does the same work for at most half "
        'the cost: its cheapest row and how many times less it costs ("" otherwise)',
    )
    considered: int = Field(description="offers looked at")
    uncalibrated_picks: list[UncalibratedPickOut] = Field(
        default_factory=list,
        description="picks whose row's speed is uncalibrated on its hardware: pick, number (its row), what "
        "(hardware and work), calibrated (the row the same pick names among calibrated rows; null: none), "
        "text, and calibrated_row (that row's provider, instance, GPUs, total and time, whatever top shows)",
    )
    recommendations: list[RecommendationOut]
    rejected: list[RecommendationOut] = Field(
        default_factory=list, description="offers left out, with why (show_rejected)"
    )

    @classmethod
    def from_advice(cls, advice: Advice, further: Mapping[int, Recommendation] | None = None) -> AdviceOut:
        """The answer with the advisor's CLI flags in its texts named as this API's workload fields.
        ``further``: rows past ``top`` by number (the calibrated alternatives of picks it cut), so that each
        uncalibrated pick names its alternative in full."""
        from gpuscout.advise.option_words import translate_advice

        advice = translate_advice(advice, "api")
        shown = {r.rank: r for r in advice.rows if r.rank is not None}
        rows = {**(further or {}), **shown}

        def alternative(number: int | None) -> CalibratedRowOut | None:
            rec = rows.get(number) if number is not None else None
            return None if rec is None else CalibratedRowOut.of(rec, number in shown)

        return cls(
            objective=advice.objective,
            time_axis=advice.time_axis,
            front_size=advice.front_size,
            picks=dict(advice.picks),
            picks_rule=advice.picks_rule,
            targets=list(advice.targets),
            notes=list(advice.notes),
            binding=advice.binding,
            binding_why=advice.binding_why,
            moves=[MoveOut(**dataclasses.asdict(m)) for m in advice.moves],
            engine_note=advice.engine_note,
            considered=advice.considered,
            uncalibrated_picks=[
                UncalibratedPickOut(
                    **dataclasses.asdict(u), text=u.text, calibrated_row=alternative(u.calibrated)
                )
                for u in advice.uncalibrated_picks
            ],
            recommendations=[RecommendationOut.from_rec(r) for r in advice.rows],
            rejected=[RecommendationOut.from_rec(r) for r in advice.rejected],
        )
