"""Workload types: what the user wants to run, validated and serialisable to/from YAML or JSON.

Four kinds share the common constraints of ``Workload`` (regions, providers, budget, spot, data to
download, egress, storage retention):

- ``ServeWorkload``: a live endpoint (concurrency or requests/s, latency targets, hours/day or bursts);
- ``BatchWorkload``: offline generation of a token or image total, optionally before a deadline;
- ``FinetuneWorkload``: LoRA / QLoRA / full fine-tuning over a dataset;
- ``PretrainWorkload``: training over a token budget on a target number of GPUs or nodes.

Validation errors are ``InvalidInputError`` naming the field and what is accepted, in the words the
estimator and the CLI use (``concurrency: 0 is out of range (accepted: ...)``, never pydantic's "Input
should be ..."). Every number is
finite and bounded: the upper bounds (``MAX_*`` below, and those shared with the estimator, stated once
in :mod:`gpuscout.estimate.arguments`) are far beyond any real job and low enough that everything
derived from them (seconds, instance-hours, dollars) stays a finite float. Booleans are not numbers here
(``concurrency: true`` is an error, not 1). A token count may be written as on the command line
(``prompt_tokens: 32k``, ``token_budget: 15T``: :data:`TOKEN_FIELDS`), a whole number in any notation
(``concurrency: 1e3``).
"""

from __future__ import annotations

import json
import math
import re
import reprlib
from types import UnionType
from typing import Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gpuscout.errors import QUOTED_NAME_CHARS, InvalidInputError
from gpuscout.estimate.arguments import (  # the limits every face shares, stated once there
    MAX_CONCURRENCY,
    MAX_CONTEXT,
    MAX_EPOCHS,
    MAX_IMAGE_PX,
    MAX_IMAGES,
    MAX_NODES,
    MAX_RATE,
    MAX_STEPS,
    MAX_TOKENS,
    MAX_TRAINING_GPUS,
    MIN_IMAGE_PX,
    MIN_RATE,
    shown_number,
    token_count,
    whole_number_text,
)

KINDS = ("serve", "batch", "finetune", "pretrain")
METHODS = ("lora", "qlora", "full")

# Upper bounds of the workload numbers (stated in the errors). Physically generous on purpose: the
# point is to refuse inf, 1e308 and typos of many digits, never a real job.
MAX_DATA_GB = 1e7  # 10 PB downloaded, moved out or checkpointed
MAX_USD = 1e10  # a $10 billion budget
MAX_RETENTION_DAYS = 3650  # data kept ten years after the job
MAX_REQUESTS_PER_S = MAX_RATE  # the estimator's request_rate bound (one limit on every face)
MIN_REQUESTS_PER_S = MIN_RATE  # the slowest load an endpoint is sized for (estimate.arguments)
MAX_LATENCY_MS = 3_600_000.0  # an hour to the first token / per output token
MIN_TTFT_MS = 1.0  # below one forward pass and a network round trip: no GPU answers that
MIN_TPOT_MS = 0.1  # 10,000 tokens/s per user, 5x the fastest published single-stream decode
MIN_DEADLINE_HOURS = 0.01  # 36 s: less than an instance takes to boot
MAX_DEADLINE_HOURS = 87_600.0  # ten years
MAX_CHECKPOINT_MIN = 525_600.0  # a year between checkpoints
#: The longest model name a workload takes (the web API's names too): far above any real name or
#: Hugging Face id, short enough that an error never echoes a pasted page.
MAX_NAME_CHARS = 200

#: The fields that count tokens: read from text by the one parser (``32k``, ``1.5M``, ``1e9``), as the
#: CLI's options and the web's inputs are (:func:`gpuscout.estimate.arguments.token_count`).
TOKEN_FIELDS = frozenset(
    {
        "prompt_tokens",
        "output_tokens",
        "monthly_output_tokens",
        "input_tokens_total",
        "output_tokens_total",
        "dataset_tokens",
        "token_budget",
        "seq_len",
        "global_batch_tokens",
    }
)

#: Latency targets a chat user expects when none are stated (``latency_targets: chat``): the first
#: token within 2 s of sending the prompt, then at least 20 tokens/s (reading speed is ~5-8 tokens/s;
#: 20 keeps a streamed answer ahead of the reader with margin for load). ``latency_targets: none``
#: drops them (an offline API, an internal tool).
CHAT_TTFT_MS = 2000.0
CHAT_TPOT_MS = 50.0
LATENCY_TARGETS = ("chat", "none")

_DURATION = re.compile(
    r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|sec|m|min|h|hr|hours?|d|days?|w|weeks?)?\s*$", re.IGNORECASE
)
_HOURS_PER_UNIT = {"s": 1 / 3600, "m": 1 / 60, "h": 1.0, "d": 24.0, "w": 168.0}


def parse_hours(value: Any, field: str = "deadline_hours") -> Any:
    """Hours from ``24``, ``"24h"``, ``"90 min"``, ``"2d"``, ``"1w"`` (a bare number is hours); other
    values pass through for the field's own validation."""
    if not isinstance(value, str):
        return value
    found = _DURATION.match(value)
    if found is None:
        raise InvalidInputError(
            field,
            f"cannot read {value[:_QUOTED]!r} as a duration",
            "hours (24) or a number with a unit: 90m, 24h, 2d, 1w",
        )
    unit = (found.group(2) or "h").lower()[0]
    return float(found.group(1)) * _HOURS_PER_UNIT[unit]


def _blank_is_none(cls: type, value: Any) -> Any:
    """A blank ``precision`` or ``engine`` (a form's "auto") is not given: the checkpoint's own format,
    the default engine."""
    return None if isinstance(value, str) and not value.strip() else value


def _deadline_hours(cls: type, value: Any) -> Any:
    """``deadline_hours`` accepts a duration with a unit ("24h", "2d") in files and forms too."""
    try:
        return parse_hours(value)
    except InvalidInputError as exc:
        raise _rule(
            "deadline_hours",
            str(exc).removeprefix("deadline_hours: ").split(" (accepted")[0],
            exc.accepted or "",
        ) from None


class Workload(BaseModel):
    """Common fields of every workload. Use one of the subclasses (or ``Workload.from_dict``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True, allow_inf_nan=False)

    kind: str
    model: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    # where and how to rent
    regions: tuple[str, ...] = ()  # substrings of the offer's region ("us-", "europe")
    providers: tuple[str, ...] = ()  # provider ids ("aws", "runpod"...)
    # GPUs to consider: names or families ("H100" covers H100-SXM, -PCIe, -NVL); () = every GPU
    accelerators: tuple[str, ...] = ()
    budget_usd: float | None = Field(default=None, gt=0, le=MAX_USD)  # cap on the total (serve: per month)
    spot_allowed: bool | None = None  # None: the kind's default (serve/pretrain: no; batch/finetune: yes)
    # data
    download_weights_gb: float | None = Field(default=None, ge=0, le=MAX_DATA_GB)  # None: the weights' size
    dataset_gb: float = Field(default=0.0, ge=0, le=MAX_DATA_GB)
    egress_gb: float = Field(default=0.0, ge=0, le=MAX_DATA_GB)  # outputs/checkpoints out (serve: per month)
    # keep data stored after the job ends
    storage_retention_days: float = Field(default=0.0, ge=0, le=MAX_RETENTION_DAYS)

    default_spot: ClassVar[bool] = False

    @model_validator(mode="before")
    @classmethod
    def _no_bool_numbers(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in _numeric_fields(cls):
                if isinstance(data.get(name), bool):
                    accepted = _accepted(cls, name) or "a number"
                    raise _rule(name, f"expected a number, got {data[name]}", accepted)
        return data

    @model_validator(mode="before")
    @classmethod
    def _numbers_as_written(cls, data: Any) -> Any:
        """A number written as text is read as the CLI reads it: a token count by the one parser
        (``prompt_tokens: 32k``; its error names the field and how a count is written), a whole number
        in any notation (``concurrency: 1e3``, which YAML reads as text); the field's range is checked
        after, in the same words whatever the notation."""
        if not isinstance(data, dict):
            return data
        whole = _whole_fields(cls)
        out = dict(data)
        for name, value in data.items():
            if not isinstance(value, str):
                continue
            if name in TOKEN_FIELDS and name in cls.model_fields:
                out[name] = token_count(value, name)
            elif name in whole:
                number = whole_number_text(value)
                out[name] = value if number is None else number
        return out

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
            raise InvalidInputError(
                "workload", f"expected a mapping, got {type(data).__name__}", "a mapping with a 'kind' key"
            )
        bad_keys = [k for k in data if not isinstance(k, str)]
        if bad_keys:
            raise InvalidInputError(
                "workload",
                f"field names must be strings, got {shown(bad_keys[0])}",
                "a mapping of field names to values",
            )
        if cls is not Workload:  # the class fixes the kind: a missing one is its own, another is refused
            data = for_kind(data, str(cls.model_fields["kind"].default))
        kind = data.get("kind")
        if kind is None:
            raise InvalidInputError("kind", "is required", ", ".join(KINDS))
        if not isinstance(kind, str) or kind not in _CLASSES:
            raise InvalidInputError("kind", f"unknown workload kind {shown(kind)}", ", ".join(KINDS))
        return _CLASSES[kind](**{**data, "kind": kind})

    @classmethod
    def from_yaml(cls, text: str) -> AnyWorkload:
        """Parse YAML (JSON is valid YAML too), bounded: see :func:`~.workload_yaml.parse_yaml`. On a
        subclass (``ServeWorkload.from_yaml``) a document without ``kind`` is of that kind."""
        return cls.from_dict(read_mapping(text))

    @classmethod
    def from_json(cls, text: str) -> AnyWorkload:
        return cls.from_dict(read_mapping(text, json_text=True))

    def to_dict(self) -> dict[str, Any]:
        """Plain values, fields left at their defaults omitted (``kind`` and ``model`` always kept)."""
        out = self.model_dump(mode="json", exclude_defaults=True)
        out = {"kind": self.kind, "model": self.model, **out}
        return out

    def to_yaml(self) -> str:
        import yaml

        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


#: The fields of a serving workload's activity pattern (its errors name them all).
_ACTIVITY = ("hours_per_day", "bursts_per_day", "burst_minutes")
#: A monthly volume within this share of what a stated request rate generates agrees with it (rounding).
RATE_VOLUME_TOLERANCE = 0.05


class ServeWorkload(Workload):
    """A live endpoint. Load is ``concurrency`` (simultaneous requests) or ``requests_per_s``.

    Activity is either ``hours_per_day`` (one start per day when < 24) or a burst pattern:
    ``bursts_per_day`` bursts of ``burst_minutes`` each (the instance is started for each burst).

    Latency targets: ``ttft_ms_max`` / ``tpot_ms_max`` when given; otherwise, with
    ``latency_targets: chat`` (the default), what a chat user expects (``CHAT_TTFT_MS``,
    ``CHAT_TPOT_MS``); ``latency_targets: none`` applies only the targets given.
    """

    kind: Literal["serve"] = "serve"
    precision: str | None = None  # None: the checkpoint's own format (models.csv native_precision)
    engine: str | None = None  # None: llama.cpp for a GGUF precision, vLLM otherwise (run_engine)
    prompt_tokens: int = Field(default=1024, ge=1, le=MAX_CONTEXT)
    output_tokens: int = Field(default=256, ge=1, le=MAX_CONTEXT)
    concurrency: int | None = Field(default=None, ge=1, le=MAX_CONCURRENCY)
    requests_per_s: float | None = Field(default=None, ge=MIN_REQUESTS_PER_S, le=MAX_REQUESTS_PER_S)
    ttft_ms_max: float | None = Field(default=None, ge=MIN_TTFT_MS, le=MAX_LATENCY_MS)
    # time per output token, per user
    tpot_ms_max: float | None = Field(default=None, ge=MIN_TPOT_MS, le=MAX_LATENCY_MS)
    hours_per_day: float = Field(default=24.0, ge=0.01, le=24)  # 36 s a day at least
    bursts_per_day: int | None = Field(default=None, ge=1, le=1440)
    burst_minutes: float | None = Field(default=None, ge=0.1, le=1440)
    monthly_output_tokens: float | None = Field(default=None, ge=1, le=MAX_TOKENS)
    days_per_month: float = Field(default=30.0, ge=1, le=31)
    latency_targets: Literal["chat", "none"] = "chat"

    _blank = field_validator("precision", "engine", mode="before")(_blank_is_none)

    @model_validator(mode="after")
    def _check(self) -> ServeWorkload:
        if self.concurrency is not None and self.requests_per_s is not None:
            raise _rule(
                "concurrency",
                "give either concurrency or requests_per_s, not both",
                "one of concurrency, requests_per_s",
                ("concurrency", "requests_per_s"),
            )
        if self.bursts_per_day is not None and "hours_per_day" in self.model_fields_set:
            raise _rule(
                "hours_per_day",
                "give hours_per_day or bursts_per_day + burst_minutes, not both "
                "(bursts set the hours up per day)",
                "one activity pattern",
                _ACTIVITY,
            )
        if (self.bursts_per_day is None) != (self.burst_minutes is None):
            raise _rule(
                "bursts_per_day", "bursts_per_day and burst_minutes go together", "both or neither", _ACTIVITY
            )
        if (
            self.bursts_per_day is not None
            and self.burst_minutes is not None
            and self.bursts_per_day * self.burst_minutes > 1440
        ):
            raise _rule(
                "burst_minutes",
                "bursts_per_day x burst_minutes exceeds 24 h",
                "a total <= 1440 min",
                _ACTIVITY,
            )
        if self.requests_per_s is not None and self.monthly_output_tokens is not None:
            # a rate fixes the volume (rate x output tokens x seconds up): a different one is a contradiction
            # that would cost one load and divide by another
            implied = self.requests_per_s * self.output_tokens * self.active_s_month
            if abs(self.monthly_output_tokens - implied) > RATE_VOLUME_TOLERANCE * implied:
                from gpuscout.wording import token_count

                raise _rule(
                    "monthly_output_tokens",
                    f"{token_count(self.monthly_output_tokens)} output tokens a month contradicts "
                    f"requests_per_s {self.requests_per_s:g} x output_tokens {self.output_tokens:,} over "
                    f"{self.active_s_month / 3600:,.0f} h up a month = {token_count(implied)}",
                    "one of them (the volume alone sets the rate), or the two in agreement",
                    ("requests_per_s", "output_tokens", "hours_per_day", "days_per_month"),
                )
        return self

    @property
    def is_bursty(self) -> bool:
        return self.bursts_per_day is not None

    @property
    def ttft_target_ms(self) -> float | None:
        """The time-to-first-token target applied: the one given, else the chat default (or none)."""
        if self.ttft_ms_max is not None:
            return self.ttft_ms_max
        return CHAT_TTFT_MS if self.latency_targets == "chat" else None

    @property
    def tpot_target_ms(self) -> float | None:
        """The time-per-output-token target applied: the one given, else the chat default (or none)."""
        if self.tpot_ms_max is not None:
            return self.tpot_ms_max
        return CHAT_TPOT_MS if self.latency_targets == "chat" else None

    @property
    def active_s_month(self) -> float:
        """Seconds the endpoint is up in a month: its hours a day over the month's days."""
        return self.active_hours_per_day * 3600.0 * self.days_per_month

    @property
    def offered_rate(self) -> float | None:
        """Requests/s arriving at the endpoint: ``requests_per_s``, else the monthly volume's over its
        active hours where no concurrency is given (1e9 output tokens a month of 256-token answers, 24 h a
        day: 1.5 requests/s), else None (a number of users)."""
        if self.requests_per_s is not None:
            return self.requests_per_s
        if self.concurrency is not None or self.monthly_output_tokens is None:
            return None
        active_s = self.active_s_month
        return self.monthly_output_tokens / active_s / self.output_tokens if active_s > 0 else None

    @property
    def stated_latency_s(self) -> float:
        """Seconds a request may take by the latency targets the renter stated (``ttft_ms_max`` or
        ``tpot_ms_max`` given; the other from the chat defaults where those apply): a latency the renter
        accepts, within the balanced pick's window (:func:`gpuscout.advise.pareto.acceptable_latency`);
        0 where no target was stated (the chat defaults alone are a floor of quality, not a statement of
        what is acceptable); infinite where one is stated and the other dropped (any whole request)."""
        from gpuscout.advise.pareto import acceptable_latency

        if self.ttft_ms_max is None and self.tpot_ms_max is None:
            return 0.0
        if self.ttft_target_ms is None or self.tpot_target_ms is None:
            return math.inf  # one stated target, the other dropped (--latency-targets none): no bound
        return acceptable_latency(self.ttft_target_ms, self.tpot_target_ms, self.output_tokens)

    @property
    def users(self) -> int:
        """Simultaneous requests the endpoint is sized for: ``concurrency``, else 1 (``requests_per_s``
        sizes it through Little's law instead)."""
        return self.concurrency or 1

    @property
    def run_engine(self) -> str:
        """The engine named, else llama.cpp for a GGUF precision and vLLM otherwise."""
        from gpuscout.estimate.engines import run_engine

        return run_engine(self.engine, self.precision)

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


#: A batch's fields that only a language model's batch (a token total) uses, and those only an image
#: batch (an image total) uses; ``precision`` and ``engine`` apply to both.
LLM_BATCH_FIELDS: tuple[str, ...] = (
    "input_tokens_total",
    "output_tokens_total",
    "prompt_tokens",
    "output_tokens",
)
IMAGE_BATCH_FIELDS: tuple[str, ...] = ("images_total", "width", "height", "steps")


class BatchWorkload(Workload):
    """Offline generation: a token total (LLM) or an image total (diffusion).

    A field of the other kind given explicitly (``prompt_tokens`` for an image total, ``width`` for a
    token total) is an input error, not a value silently ignored."""

    kind: Literal["batch"] = "batch"
    precision: str | None = None  # None: the checkpoint's own format (models.csv native_precision)
    engine: str | None = None  # None: llama.cpp for a GGUF precision, vLLM otherwise (run_engine)
    input_tokens_total: float | None = Field(default=None, ge=0, le=MAX_TOKENS)
    output_tokens_total: float | None = Field(default=None, ge=1, le=MAX_TOKENS)
    prompt_tokens: int = Field(default=1024, ge=1, le=MAX_CONTEXT)  # per request
    output_tokens: int = Field(default=256, ge=1, le=MAX_CONTEXT)  # per request
    images_total: int | None = Field(default=None, ge=1, le=MAX_IMAGES)
    # the ranges of ``gpuscout images`` and ``estimate_images``
    width: int = Field(default=1024, ge=MIN_IMAGE_PX, le=MAX_IMAGE_PX)
    height: int = Field(default=1024, ge=MIN_IMAGE_PX, le=MAX_IMAGE_PX)
    steps: int | None = Field(default=None, ge=1, le=MAX_STEPS)  # None: the model's usual step count
    deadline_hours: float | None = Field(default=None, ge=MIN_DEADLINE_HOURS, le=MAX_DEADLINE_HOURS)
    interruptible: bool = True  # work can resume after an interruption (outputs flushed as they finish)
    # work lost on interruption ~ half of it
    checkpoint_interval_min: float = Field(default=5.0, gt=0, le=MAX_CHECKPOINT_MIN)

    default_spot: ClassVar[bool] = True

    _hours = field_validator("deadline_hours", mode="before")(_deadline_hours)
    _blank = field_validator("precision", "engine", mode="before")(_blank_is_none)

    @model_validator(mode="after")
    def _check(self) -> BatchWorkload:
        if self.images_total is None and self.output_tokens_total is None:
            raise ValueError(
                "output_tokens_total|a batch needs output_tokens_total (LLM) or images_total "
                "(diffusion)|one of output_tokens_total >= 1, images_total >= 1"
            )
        if self.images_total is not None and self.output_tokens_total is not None:
            raise _rule(
                "images_total",
                "give images_total or output_tokens_total, not both",
                "one of images_total, output_tokens_total",
            )
        self._check_kind_fields()
        if self.input_tokens_total is None and self.input_tokens > MAX_TOKENS:
            raise _rule(
                "output_tokens_total",
                f"output_tokens_total / output_tokens x prompt_tokens gives "
                f"{self.input_tokens:.3g} input tokens in total",
                f"at most {MAX_TOKENS:g} input tokens: a smaller output_tokens_total or prompt_tokens, "
                f"or input_tokens_total given",
            )
        return self

    def _check_kind_fields(self) -> None:
        """The fields given (not left at their defaults, nor given as null) that do not apply to this
        batch's kind are an error naming the first (and the others), and what this kind takes."""
        images = self.is_images
        foreign = LLM_BATCH_FIELDS if images else IMAGE_BATCH_FIELDS
        given = [n for n in foreign if n in self.model_fields_set and getattr(self, n) is not None]
        if not given:
            return
        llm, image = "an LLM batch (output_tokens_total)", "an image batch (images_total)"
        others = f"; so do {', '.join(given[1:])}" if given[1:] else ""
        total = "images_total" if images else "output_tokens_total"
        own = [n for n in (IMAGE_BATCH_FIELDS if images else LLM_BATCH_FIELDS) if n != total]
        raise _rule(
            given[0],
            f"applies to {llm if images else image}, not to {image if images else llm}{others}",
            f"for {'an image' if images else 'an LLM'} batch: {', '.join(own)}",
            (*given, *own, total),
        )

    @property
    def spot_ok(self) -> bool:
        allowed = self.default_spot if self.spot_allowed is None else self.spot_allowed
        return allowed and self.interruptible

    @property
    def is_images(self) -> bool:
        return self.images_total is not None

    @property
    def run_engine(self) -> str:
        """The engine named, else llama.cpp for a GGUF precision and vLLM otherwise."""
        from gpuscout.estimate.engines import run_engine

        return run_engine(self.engine, self.precision)

    @property
    def input_tokens(self) -> float:
        """Input tokens in total: given, or derived from the request shape."""
        if self.input_tokens_total is not None:
            return self.input_tokens_total
        return (self.output_tokens_total or 0.0) / self.output_tokens * self.prompt_tokens


#: The dtype of LoRA / QLoRA adapter weights, as the training estimator names it
#: (``estimate.training_memory.ADAPTER_DTYPES``): "16bit", the compute dtype (torch autocast, torchtune,
#: NeMo; PEFT with ``autocast_adapter_dtype=False``), or "fp32", PEFT's default without torch autocast
#: (each adapted layer runs its adapter on an fp32 copy of its input: slower, more memory).
AdapterDtype = Literal["16bit", "fp32"]
#: How people also write a 16-bit adapter dtype: the error says it is written "16bit" here (the adapters
#: take the run's compute dtype, bf16 or fp16 as ``precision`` says).
_SIXTEEN_BIT_NAMES = ("bf16", "fp16", "bfloat16", "float16", "16-bit")


def _adapter_dtype(cls: type, value: Any) -> Any:
    """``adapter_dtype: bf16`` (or fp16) is an error saying the 16-bit choice is written "16bit"."""
    if isinstance(value, str) and value.strip().lower() in _SIXTEEN_BIT_NAMES:
        raise _rule(
            "adapter_dtype",
            f"{value.strip()[:_QUOTED]!r} is written 16bit: the adapters in the run's compute dtype "
            "(bf16 or fp16, as precision says)",
            ", ".join(get_args(AdapterDtype)),
            ("precision",),
        )
    return value


class FinetuneWorkload(Workload):
    """Fine-tuning with LoRA, QLoRA or full parameters over ``dataset_tokens`` x ``epochs``.

    ``adapter_dtype`` (LoRA / QLoRA only: given with ``method: full`` it is an error) is the adapters'
    dtype: "16bit" (the default) or "fp32", PEFT's default without torch autocast (``AdapterDtype``)."""

    kind: Literal["finetune"] = "finetune"
    method: Literal["lora", "qlora", "full"] = "lora"
    adapter_dtype: AdapterDtype = "16bit"
    precision: str = "bf16"
    dataset_tokens: float = Field(ge=1, le=MAX_TOKENS)
    epochs: float = Field(default=1.0, ge=0.01, le=MAX_EPOCHS)
    seq_len: int = Field(default=2048, ge=16, le=MAX_CONTEXT)
    # sequences per GPU per micro-step; None: the advisor takes the fastest that fits (see training_configs)
    micro_batch: int | None = Field(default=None, ge=1, le=4096)
    # None: estimated from the model and method
    checkpoint_gb: float | None = Field(default=None, ge=0, le=MAX_DATA_GB)
    # None: each row's own, Young's interval for its save time and interruption rate (spot.young_interval_s)
    checkpoint_interval_min: float | None = Field(default=None, gt=0, le=MAX_CHECKPOINT_MIN)
    max_nodes: int = Field(default=8, ge=1, le=MAX_NODES)
    # wall-clock limit: slower rows are rejected
    deadline_hours: float | None = Field(default=None, ge=MIN_DEADLINE_HOURS, le=MAX_DEADLINE_HOURS)

    default_spot: ClassVar[bool] = True

    _hours = field_validator("deadline_hours", mode="before")(_deadline_hours)
    _adapters = field_validator("adapter_dtype", mode="before")(_adapter_dtype)

    @model_validator(mode="after")
    def _check(self) -> FinetuneWorkload:
        # given (not left at its default) with full fine-tuning, which trains no adapters: an error, not
        # ignored, as any field that does not apply (a batch's of the other kind, pretrain's max_nodes)
        if self.method == "full" and "adapter_dtype" in self.model_fields_set:
            raise _rule(
                "adapter_dtype",
                "applies to LoRA and QLoRA adapters; full fine-tuning (method full) trains no adapters",
                "method lora or qlora with adapter_dtype, or method full without it",
                ("method", "adapter_dtype"),
            )
        return self

    @property
    def train_tokens(self) -> float:
        return self.dataset_tokens * self.epochs

    @property
    def fp32_adapters(self) -> bool:
        """LoRA / QLoRA adapters kept in fp32 beside a narrower compute dtype (``adapter_dtype: fp32``):
        slower and more memory than 16-bit ones. Under ``precision: fp32`` the whole run is fp32 anyway."""
        return self.method != "full" and self.adapter_dtype == "fp32" and not self.fp32_run

    @property
    def fp32_run(self) -> bool:
        """The whole run in fp32 (``precision: fp32``): its adapters are fp32 whatever ``adapter_dtype``."""
        return self.precision.strip().lower() == "fp32"


class PretrainWorkload(Workload):
    """Pre-training over ``token_budget`` tokens on ``gpus`` GPUs (or ``nodes`` instances).

    ``model`` names an architecture from the registry; with ``params_b`` it is only a label and a
    dense Llama-shaped stand-in of that size is trained instead (see ``advise.synthetic``).
    """

    kind: Literal["pretrain"] = "pretrain"
    params_b: float | None = Field(default=None, ge=0.001, le=5000)  # 1 million to 5 trillion
    precision: str = "bf16"
    token_budget: float = Field(ge=1, le=MAX_TOKENS)
    seq_len: int = Field(default=4096, ge=16, le=MAX_CONTEXT)
    micro_batch: int | None = Field(default=None, ge=1, le=4096)  # None: the fastest that fits
    # the most tokens per optimizer step (micro-batch x data-parallel GPUs x seq_len) a layout the advisor
    # chooses may take; None: the run's compute-optimal batch (``estimate.pretrain_batch``, DeepSeek LLM)
    global_batch_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS)
    gpus: int | None = Field(default=None, ge=1, le=MAX_TRAINING_GPUS)
    nodes: int | None = Field(default=None, ge=1, le=MAX_NODES)
    checkpoint_gb: float | None = Field(default=None, ge=0, le=MAX_DATA_GB)
    # None: each row's own, Young's interval for its save time and interruption rate (spot.young_interval_s)
    checkpoint_interval_min: float | None = Field(default=None, gt=0, le=MAX_CHECKPOINT_MIN)
    max_nodes: int = Field(default=64, ge=1, le=MAX_NODES)
    # wall-clock limit: slower rows are rejected
    deadline_hours: float | None = Field(default=None, ge=MIN_DEADLINE_HOURS, le=MAX_DEADLINE_HOURS)

    _hours = field_validator("deadline_hours", mode="before")(_deadline_hours)

    @model_validator(mode="after")
    def _check(self) -> PretrainWorkload:
        if self.gpus is not None and self.nodes is not None:
            names = ("gpus", "nodes")
            raise _rule("gpus", "give either gpus or nodes, not both", "one of gpus, nodes", names)
        self._check_max_nodes()
        if self.global_batch_tokens is not None and self.global_batch_tokens < self.seq_len:
            raise _rule(
                "global_batch_tokens",
                f"{self.global_batch_tokens:,} tokens per optimizer step is less than one sequence of "
                f"seq_len {self.seq_len:,} tokens",
                f"at least seq_len ({self.seq_len:,}), or null for the compute-optimal batch",
                ("seq_len",),
            )
        return self

    def _check_max_nodes(self) -> None:
        """``max_nodes`` given (not left at its default) with a fixed size (``gpus`` or ``nodes``) is an
        error: the advisor searches node counts only without one, so it would be ignored."""
        fixed = "nodes" if self.nodes is not None else "gpus" if self.gpus is not None else None
        if fixed is None or "max_nodes" not in self.model_fields_set:
            return
        raise _rule(
            "max_nodes",
            f"bounds the node count the advisor searches; with {fixed} given there is none to search",
            "gpus or nodes (a fixed size) or max_nodes (a bound on the search), not both",
            ("gpus", "nodes", "max_nodes"),
        )


AnyWorkload = ServeWorkload | BatchWorkload | FinetuneWorkload | PretrainWorkload

_CLASSES: dict[str, type[AnyWorkload]] = {
    "serve": ServeWorkload,
    "batch": BatchWorkload,
    "finetune": FinetuneWorkload,
    "pretrain": PretrainWorkload,
}


def read_mapping(text: str, *, json_text: bool = False) -> Any:
    """What a workload file holds, parsed (YAML, bounded: :func:`~.workload_yaml.parse_yaml`; or JSON)
    and not yet validated: a command merges its options into it and checks its kind
    (:func:`for_kind`) before the workload is built, so that a file is read as its command reads it. An
    empty document is an empty mapping."""
    if not json_text:
        from gpuscout.advise.workload_yaml import parse_yaml  # YAML only when a file is read

        data = parse_yaml(text)
        return data if data is not None else {}
    try:
        return json.loads(text, object_pairs_hook=_one_value_each)
    except json.JSONDecodeError as exc:
        raise InvalidInputError("workload", f"not valid JSON: {exc}", "a JSON object") from None
    except RecursionError:
        raise InvalidInputError(
            _deepest_json_field(text), "not valid JSON: nested too deeply", "a value or a short list"
        ) from None


def repeated_key(field: str, name: str, values: list[str]) -> InvalidInputError:
    """The error of a key ``name`` a workload file gives ``len(values)`` times, in the words of a query
    parameter given twice on the web (``concurrency: given 2 times ('3', '5') (accepted: one value)``):
    a parser would keep the last value without a word. ``field``: the top-level field it is under."""
    shown = ", ".join(repr(v[:_QUOTED]) for v in values[:4]) + (", ..." if len(values) > 4 else "")
    where = "" if field == name else f"{name!r} "
    return InvalidInputError(field, f"{where}given {len(values)} times ({shown})", "one value")


def _one_value_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict; a key it holds twice is :func:`repeated_key`'s error (a nested object's
    names the key; the top-level field is not known here)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            given = [json.dumps(v) if not isinstance(v, str) else v for k, v in pairs if k == key]
            raise repeated_key(key, key, given)
        out[key] = value
    return out


def for_kind(data: Any, kind: str, field: str = "kind", holder: str = "the workload") -> dict[str, Any]:
    """``data`` (a workload's mapping) as a workload of ``kind``, checked before any other field: with
    no ``kind`` (or ``kind: null``) it is of ``kind`` (``recommend serve -w file`` fixes the kind: a
    file need not repeat it); another kind is an error naming ``field`` ("--workload: the file holds a
    'finetune' workload, not 'serve'"), not the first field that kind lacks."""
    if not isinstance(data, dict):
        raise InvalidInputError(
            "workload", f"expected a mapping, got {type(data).__name__}", "a mapping of field names to values"
        )
    given = data.get("kind")
    if given is None:
        return {**data, "kind": kind}
    if given != kind:
        raise InvalidInputError(
            field, f"{holder} holds a {shown(given)} workload, not {kind!r}", f"a {kind} workload"
        )
    return dict(data)


def _deepest_json_field(text: str) -> str:
    """The top-level key of a JSON object under which nesting first goes beyond ``MAX_YAML_DEPTH``
    (for the error of a document too deep to parse), or ``workload``."""
    depth, key, last, in_string, escaped, start = 0, "workload", "", False, False, 0
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string, last = False, text[start + 1 : i]
        elif ch == '"':
            in_string, start = True, i
        elif ch == ":" and depth == 1:
            key = last
        elif ch in "[{":
            depth += 1
            if depth > MAX_YAML_DEPTH:
                return key
        elif ch in "]}":
            depth -= 1
    return "workload"


def _rule(field: str, message: str, accepted: str, names: tuple[str, ...] = ()) -> ValueError:
    """A model-validator error that ``_friendly`` turns into ``InvalidInputError(field, ...)``;
    ``names``: the other fields its text names (``InvalidInputError.names``)."""
    return ValueError(f"{field}|{message}|{accepted}|{','.join(names)}")


def _friendly(exc: ValidationError, cls: type[Workload]) -> InvalidInputError:
    """First pydantic error as an ``InvalidInputError`` naming the field and what is accepted, in words
    (never pydantic's type names: "'us' is a string, not a list (accepted: a list of region names
    (strings))"), quoting at most a few dozen characters of what was given."""
    err = exc.errors()[0]
    parts = [str(p) for p in err["loc"]]
    loc = ".".join(parts) or "workload"
    msg = str(err.get("msg", "invalid"))
    etype = err.get("type", "")
    cause = (err.get("ctx") or {}).get("error")
    if isinstance(cause, InvalidInputError):  # raised by a validator (a token count's parser)
        return cause
    # our model validators encode "field|message|accepted|names" (_rule)
    if etype == "value_error" and "|" in msg:
        text = msg.removeprefix("Value error, ")
        field, message, accepted, names = [*text.split("|"), "", "", ""][:4]
        listed = tuple(filter(None, names.split(",")))
        return InvalidInputError(field, message, accepted or None, names=listed)
    if etype == "extra_forbidden":
        known = ", ".join(sorted(cls.model_fields))
        named = loc if len(loc) <= _QUOTED else f"{loc[:_QUOTED]}..."  # a key is user text too
        return InvalidInputError(named, f"unknown field for a {cls.__name__}", known)
    # an item of a list ("regions.1") accepts what its list says of its items
    words = _accepted(cls, parts[0] if parts else loc)
    if etype == "missing":
        return InvalidInputError(loc, "is required", words)
    given = err.get("input")
    said = _NUMBER_ERRORS.get(etype)
    if etype == "float_type" and isinstance(given, int):  # an int too large for a float
        said = "is out of range"
    if said is not None:
        what = repr(given.strip()[:_QUOTED]) if isinstance(given, str) and said != "is out of range" else None
        return InvalidInputError(loc, f"{what or shown_number(given)} {said}", words)
    if etype in ("bool_type", "bool_parsing"):
        return InvalidInputError(loc, f"{_quoted(given)} is not true or false", words)
    expected = _TYPE_ERRORS.get(etype)
    if expected is not None:
        return InvalidInputError(loc, f"{_quoted(given)} is {_json_kind(given)}, not {expected}", words)
    if etype == "string_too_short" and given == "":
        return InvalidInputError(loc, "is empty", words)
    if etype == "string_too_long" and isinstance(given, str):
        return InvalidInputError(loc, f"{_quoted(given)} is {len(given):,} characters long", words)
    return InvalidInputError(loc, f"{msg} (got {_quoted(given)})", words)


#: pydantic's errors about the type of a value, with what was expected instead.
_TYPE_ERRORS = {
    "string_type": "a string",
    "tuple_type": "a list",
    "list_type": "a list",
    "set_type": "a list",
    "frozen_set_type": "a list",
    "iterable_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
}

#: At most this many characters of a text a user gave are quoted back in an error.
_QUOTED = QUOTED_NAME_CHARS  # how much of a user's text an error quotes: one figure (errors)


def _quoted(value: Any) -> str:
    """``value`` as an error quotes it: a text cut to ``_QUOTED`` characters, anything else ``shown``."""
    if isinstance(value, str) and len(value) > _QUOTED:
        return f"{value[:_QUOTED]!r}..."
    return shown(value)


def _json_kind(value: Any) -> str:
    """What ``value`` is, in the words of JSON and YAML: a string, a number, a list..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple | set | frozenset):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


#: pydantic's errors about a number, said as the estimator and the CLI say them ("0 is out of range").
_NUMBER_ERRORS = {
    "greater_than": "is out of range",
    "greater_than_equal": "is out of range",
    "less_than": "is out of range",
    "less_than_equal": "is out of range",
    "int_parsing": "is not a whole number",
    "int_from_float": "is not a whole number",
    "int_type": "is not a whole number",
    "float_parsing": "is not a number",
    "float_type": "is not a number",
    "finite_number": "is not a finite number",
}


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxlevel = 2
MAX_SHOWN = 100

# A workload is a flat mapping with a few short lists: these bounds are far above any real file and
# keep a few bytes of nested YAML aliases ("billion laughs") from standing for gigabytes.
MAX_YAML_VALUES = 10_000  # values (scalars, lists, mappings) once aliases are expanded
MAX_YAML_DEPTH = 20


def shown(value: Any) -> str:
    """``repr(value)`` cut to a few dozen characters, however large or deep ``value`` is (an error
    message never copies a whole input: a few bytes of YAML aliases can stand for gigabytes)."""
    text = _REPR.repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _numeric_fields(cls: type[Workload]) -> frozenset[str]:
    """The fields of ``cls`` that hold a number (``int``/``float``, optional or not)."""
    found = _NUMERIC.get(cls)
    if found is None:
        found = frozenset(
            n for n, info in cls.model_fields.items() if _types(info.annotation) <= {int, float}
        )
        _NUMERIC[cls] = found
    return found


_NUMERIC: dict[type[Workload], frozenset[str]] = {}


def _whole_fields(cls: type[Workload]) -> frozenset[str]:
    """The fields of ``cls`` that hold a whole number (``int``, optional or not)."""
    found = _WHOLE.get(cls)
    if found is None:
        found = frozenset(n for n, info in cls.model_fields.items() if _types(info.annotation) == {int})
        _WHOLE[cls] = found
    return found


_WHOLE: dict[type[Workload], frozenset[str]] = {}


def _types(annotation: Any) -> set[Any]:
    """The types an annotation allows, ``None`` left out (``float | None`` -> ``{float}``)."""
    return set(get_args(annotation) or (annotation,)) - {type(None)}


def _bound(value: float) -> str:
    """A bound as people write it: 1,440 / 10,000,000 / 0.5 / 1e+15."""
    if float(value).is_integer() and abs(value) < 1e13:
        return f"{int(value):,}"
    return f"{value:g}"


def _accepted(cls: type[Workload], field: str) -> str | None:
    """What ``field`` of ``cls`` accepts, in words a file or a JSON body is written in ("a list of
    region names (strings)", "a model name (a non-empty string of at most 200 characters)", "an integer
    >= 1 and <= 1,000,000"), read from its type and constraints (``None``: no such field)."""
    info = cls.model_fields.get(field)
    if info is None:
        return None
    ann = info.annotation
    if get_origin(ann) is Literal:
        return ", ".join(str(a) for a in get_args(ann))
    types_ = _types(ann)
    tokens = field in TOKEN_FIELDS
    if types_ <= {int, float}:
        kind = "a number of tokens" if tokens else "an integer" if types_ == {int} else "a finite number"
    elif types_ == {str}:
        return _name_words(field, info.metadata)
    else:
        kind = " or ".join(_type_words(t, field) for t in _members(ann))
    limits: list[str] = []
    for meta in info.metadata:
        for attr, sym in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            val = getattr(meta, attr, None)
            if val is not None:
                limits.append(f"{sym} {_bound(val)}")
    said = " ".join([kind, " and ".join(limits)]).strip()
    return f"{said}, like 32k or 1.5M" if tokens else said


def _name_words(field: str, metadata: list[Any]) -> str:
    """A text field: a name ("a model name (a non-empty string of at most 200 characters)")."""
    shortest = max((getattr(m, "min_length", None) or 0 for m in metadata), default=0)
    longest = min((m.max_length for m in metadata if getattr(m, "max_length", None)), default=None)
    text = "a non-empty string" if shortest else "a string"
    if longest is not None:
        text += f" of at most {longest:,} characters"
    noun = _name_of(field)
    return f"{_article(noun)} {noun} ({text})"


def _name_of(field: str) -> str:
    """What a text field holds: "model" -> "model name" ("shard_name" -> "shard name")."""
    words = field.replace("_", " ")
    return words if words == "name" or words.endswith(" name") else f"{words} name"


def _type_words(annotation: Any, field: str) -> str:
    """One type of a field in words: a list of names, a string, a number, true or false."""
    origin = get_origin(annotation)
    if origin in (tuple, list, set, frozenset):
        items = [a for a in get_args(annotation) if a is not Ellipsis]
        if not items or items[0] is str:  # a list of names: "regions" holds region names
            singular = field[:-1] if field.endswith("s") else field
            return f"a list of {_name_of(singular)}s (strings)"
        if items[0] in (int, float):
            return "a list of numbers"
        return f"a list of {_type_words(items[0], field)}"
    if get_origin(annotation) is Literal:
        return ", ".join(str(a) for a in get_args(annotation))
    if annotation is bool:
        return "true or false"
    if annotation in (int, float):
        return "a number"
    if annotation is str:
        return "a string"
    return str(getattr(annotation, "__name__", annotation)).replace("typing.", "")


def _members(annotation: Any) -> list[Any]:
    """The types of a union, ``None`` left out (``str | None`` -> ``[str]``); any other annotation
    alone (``tuple[str, ...]`` is one type, its arguments are its items')."""
    if get_origin(annotation) in (Union, UnionType):
        return [a for a in get_args(annotation) if a is not type(None)]
    return [annotation]


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"
