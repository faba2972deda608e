"""Workload types: what the user wants to run, validated and serialisable to/from YAML or JSON.

Four kinds share the common constraints of ``Workload`` (regions, providers, budget, spot, data to
download, egress, storage retention):

- ``ServeWorkload``: a live endpoint (concurrency or requests/s, latency targets, hours/day or bursts);
- ``BatchWorkload``: offline generation of a token or image total, optionally before a deadline;
- ``FinetuneWorkload``: LoRA / QLoRA / full fine-tuning over a dataset;
- ``PretrainWorkload``: training over a token budget on a target number of GPUs or nodes.

Validation errors are ``InvalidInputError`` naming the field and what is accepted.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from gpuscout.errors import InvalidInputError

KINDS = ("serve", "batch", "finetune", "pretrain")
METHODS = ("lora", "qlora", "full")


class Workload(BaseModel):
    """Common fields of every workload. Use one of the subclasses (or ``Workload.from_dict``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    kind: str
    model: str = Field(min_length=1)
    # where and how to rent
    regions: tuple[str, ...] = ()  # substrings of the offer's region ("us-", "europe")
    providers: tuple[str, ...] = ()  # provider ids ("aws", "runpod"...)
    budget_usd: float | None = Field(default=None, gt=0)  # cap on the total (serve: per month)
    spot_allowed: bool | None = None  # None: the kind's default (serve/pretrain: no; batch/finetune: yes)
    # data
    download_weights_gb: float | None = Field(default=None, ge=0)  # None: the model's weights size
    dataset_gb: float = Field(default=0.0, ge=0)
    egress_gb: float = Field(default=0.0, ge=0)  # outputs/checkpoints moved out (serve: per month)
    storage_retention_days: float = Field(default=0.0, ge=0)  # keep data stored after the job ends

    default_spot: ClassVar[bool] = False

    def __init__(self, **data: Any) -> None:
        # Direct construction gets the same friendly errors as ``from_dict``.
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _friendly(exc, type(self)) from None

    @property
    def spot_ok(self) -> bool:
        """Whether spot / interruptible capacity may be used for this workload."""
        return self.default_spot if self.spot_allowed is None else self.spot_allowed

    # ---- (de)serialisation -------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AnyWorkload:
        """Build the right workload kind from a mapping (``kind`` picks the class)."""
        if not isinstance(data, dict):
            raise InvalidInputError("workload", f"expected a mapping, got {type(data).__name__}",
                                    "a mapping with a 'kind' key")
        kind = data.get("kind", cls.model_fields["kind"].default if cls is not Workload else None)
        bad_keys = [k for k in data if not isinstance(k, str)]
        if bad_keys:
            raise InvalidInputError("workload", f"field names must be strings, got {bad_keys[0]!r}",
                                    "a mapping of field names to values")
        if not isinstance(kind, str) or kind not in _CLASSES:
            raise InvalidInputError("kind", f"unknown workload kind {kind!r}", ", ".join(KINDS))
        target = _CLASSES[kind]
        if cls is not Workload and target is not cls:
            raise InvalidInputError("kind", f"{kind!r} given to {cls.__name__}", str(cls.model_fields["kind"]
                                                                                    .default))
        return target(**{**data, "kind": kind})

    @classmethod
    def from_yaml(cls, text: str) -> AnyWorkload:
        """Parse YAML (JSON is valid YAML too)."""
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InvalidInputError("workload", f"not valid YAML/JSON: {exc}", "YAML or JSON mapping") \
                from None
        return cls.from_dict(data if data is not None else {})

    @classmethod
    def from_json(cls, text: str) -> AnyWorkload:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError("workload", f"not valid JSON: {exc}", "a JSON object") from None
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """Plain values, fields left at their defaults omitted (``kind`` and ``model`` always kept)."""
        out = self.model_dump(mode="json", exclude_defaults=True)
        out = {"kind": self.kind, "model": self.model, **out}
        return out

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


class ServeWorkload(Workload):
    """A live endpoint. Load is ``concurrency`` (simultaneous requests) or ``requests_per_s``.

    Activity is either ``hours_per_day`` (one start per day when < 24) or a burst pattern:
    ``bursts_per_day`` bursts of ``burst_minutes`` each (the instance is started for each burst).
    """

    kind: Literal["serve"] = "serve"
    precision: str = "bf16"
    engine: str = "vllm"
    prompt_tokens: int = Field(default=1024, ge=1, le=2_000_000)
    output_tokens: int = Field(default=256, ge=1, le=1_000_000)
    concurrency: int | None = Field(default=None, ge=1, le=100_000)
    requests_per_s: float | None = Field(default=None, gt=0)
    ttft_ms_max: float | None = Field(default=None, gt=0)
    tpot_ms_max: float | None = Field(default=None, gt=0)  # time per output token, per user
    hours_per_day: float = Field(default=24.0, gt=0, le=24)
    bursts_per_day: int | None = Field(default=None, ge=1, le=1440)
    burst_minutes: float | None = Field(default=None, gt=0, le=1440)
    monthly_output_tokens: float | None = Field(default=None, gt=0)
    days_per_month: float = Field(default=30.0, gt=0, le=31)

    @model_validator(mode="after")
    def _check(self) -> ServeWorkload:
        if self.concurrency is not None and self.requests_per_s is not None:
            raise _rule("concurrency", "give either concurrency or requests_per_s, not both",
                        "one of concurrency, requests_per_s")
        if (self.bursts_per_day is None) != (self.burst_minutes is None):
            raise ValueError("bursts_per_day|bursts_per_day and burst_minutes go together|both or neither")
        if self.bursts_per_day is not None and self.burst_minutes is not None \
                and self.bursts_per_day * self.burst_minutes > 1440:
            raise ValueError("burst_minutes|bursts_per_day x burst_minutes exceeds 24 h|a total <= 1440 min")
        return self

    @property
    def is_bursty(self) -> bool:
        return self.bursts_per_day is not None

    @property
    def active_hours_per_day(self) -> float:
        if self.bursts_per_day is not None and self.burst_minutes is not None:
            return self.bursts_per_day * self.burst_minutes / 60.0
        return self.hours_per_day

    @property
    def starts_per_day(self) -> float:
        """Instance starts per day: one per burst; one a day when stopped nightly; ~0 when always on."""
        if self.bursts_per_day is not None:
            return float(self.bursts_per_day)
        return 1.0 if self.hours_per_day < 24 else 0.0


class BatchWorkload(Workload):
    """Offline generation: a token total (LLM) or an image total (diffusion)."""

    kind: Literal["batch"] = "batch"
    precision: str = "bf16"
    engine: str = "vllm"
    input_tokens_total: float | None = Field(default=None, ge=0)
    output_tokens_total: float | None = Field(default=None, gt=0)
    prompt_tokens: int = Field(default=1024, ge=1, le=2_000_000)  # per request
    output_tokens: int = Field(default=256, ge=1, le=1_000_000)  # per request
    images_total: int | None = Field(default=None, ge=1)
    width: int = Field(default=1024, ge=64, le=8192)
    height: int = Field(default=1024, ge=64, le=8192)
    steps: int | None = Field(default=None, ge=1, le=1000)  # None: the model's usual step count
    deadline_hours: float | None = Field(default=None, gt=0)
    interruptible: bool = True  # work can resume after an interruption (outputs flushed as they finish)
    checkpoint_interval_min: float = Field(default=5.0, gt=0)  # work lost on interruption ~ half of it

    default_spot: ClassVar[bool] = True

    @model_validator(mode="after")
    def _check(self) -> BatchWorkload:
        if self.images_total is None and self.output_tokens_total is None:
            raise ValueError("output_tokens_total|a batch needs output_tokens_total (LLM) or images_total "
                             "(diffusion)|one of output_tokens_total > 0, images_total >= 1")
        if self.images_total is not None and self.output_tokens_total is not None:
            raise _rule("images_total", "give images_total or output_tokens_total, not both",
                        "one of images_total, output_tokens_total")
        return self

    @property
    def spot_ok(self) -> bool:
        allowed = self.default_spot if self.spot_allowed is None else self.spot_allowed
        return allowed and self.interruptible

    @property
    def is_images(self) -> bool:
        return self.images_total is not None

    @property
    def input_tokens(self) -> float:
        """Input tokens in total: given, or derived from the request shape."""
        if self.input_tokens_total is not None:
            return self.input_tokens_total
        return (self.output_tokens_total or 0.0) / self.output_tokens * self.prompt_tokens


class FinetuneWorkload(Workload):
    """Fine-tuning with LoRA, QLoRA or full parameters over ``dataset_tokens`` x ``epochs``."""

    kind: Literal["finetune"] = "finetune"
    method: Literal["lora", "qlora", "full"] = "lora"
    precision: str = "bf16"
    dataset_tokens: float = Field(gt=0)
    epochs: float = Field(default=1.0, gt=0, le=1000)
    seq_len: int = Field(default=2048, ge=16, le=1_000_000)
    micro_batch: int = Field(default=1, ge=1, le=4096)
    checkpoint_gb: float | None = Field(default=None, ge=0)  # None: estimated from the model and method
    checkpoint_interval_min: float = Field(default=30.0, gt=0)
    max_nodes: int = Field(default=8, ge=1, le=1024)

    default_spot: ClassVar[bool] = True

    @property
    def train_tokens(self) -> float:
        return self.dataset_tokens * self.epochs


class PretrainWorkload(Workload):
    """Pre-training over ``token_budget`` tokens on ``gpus`` GPUs (or ``nodes`` instances).

    ``model`` names an architecture from the registry; with ``params_b`` it is only a label and a
    dense Llama-shaped stand-in of that size is trained instead (see ``advise.synthetic``).
    """

    kind: Literal["pretrain"] = "pretrain"
    params_b: float | None = Field(default=None, gt=0, le=5000)
    precision: str = "bf16"
    token_budget: float = Field(gt=0)
    seq_len: int = Field(default=4096, ge=16, le=1_000_000)
    micro_batch: int = Field(default=1, ge=1, le=4096)
    gpus: int | None = Field(default=None, ge=1, le=100_000)
    nodes: int | None = Field(default=None, ge=1, le=10_000)
    checkpoint_gb: float | None = Field(default=None, ge=0)
    checkpoint_interval_min: float = Field(default=60.0, gt=0)
    max_nodes: int = Field(default=64, ge=1, le=10_000)

    @model_validator(mode="after")
    def _check(self) -> PretrainWorkload:
        if self.gpus is not None and self.nodes is not None:
            raise ValueError("gpus|give either gpus or nodes, not both|one of gpus, nodes")
        return self


AnyWorkload = ServeWorkload | BatchWorkload | FinetuneWorkload | PretrainWorkload

_CLASSES: dict[str, type[AnyWorkload]] = {
    "serve": ServeWorkload,
    "batch": BatchWorkload,
    "finetune": FinetuneWorkload,
    "pretrain": PretrainWorkload,
}


def _rule(field: str, message: str, accepted: str) -> ValueError:
    """A model-validator error that ``_friendly`` turns into ``InvalidInputError(field, ...)``."""
    return ValueError(f"{field}|{message}|{accepted}")


def _friendly(exc: ValidationError, cls: type[Workload]) -> InvalidInputError:
    """First pydantic error as an ``InvalidInputError`` naming the field and what is accepted."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "workload"
    msg = str(err.get("msg", "invalid"))
    etype = err.get("type", "")
    # our model validators encode "field|message|accepted"
    if etype == "value_error" and "|" in msg:
        text = msg.removeprefix("Value error, ")
        field, message, accepted = [*text.split("|"), "", ""][:3]
        return InvalidInputError(field, message, accepted or None)
    if etype == "extra_forbidden":
        known = ", ".join(sorted(cls.model_fields))
        return InvalidInputError(loc, f"unknown field for a {cls.__name__}", known)
    if etype == "missing":
        return InvalidInputError(loc, "is required", _accepted(cls, loc))
    value = err.get("input")
    return InvalidInputError(loc, f"{msg} (got {value!r})", _accepted(cls, loc))


def _accepted(cls: type[Workload], field: str) -> str | None:
    info = cls.model_fields.get(field)
    if info is None:
        return None
    ann = info.annotation
    if get_origin(ann) is Literal:
        return ", ".join(str(a) for a in get_args(ann))
    parts = [getattr(ann, "__name__", None) or str(ann).replace("typing.", "")]
    for meta in info.metadata:
        for attr, sym in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            val = getattr(meta, attr, None)
            if val is not None:
                parts.append(f"{sym} {val}")
        if getattr(meta, "min_length", None):
            parts.append("non-empty")
    return " ".join(parts)
