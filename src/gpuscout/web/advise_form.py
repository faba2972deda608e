"""The advisor's workload form, generated from the workload types so it always has their fields.

The form state lives in the query string: ``/advise?kind=serve&model=llama-3.1-8b&concurrency=32``.
Only the chosen kind's fields are rendered (the kind is picked with plain links), so the form works
without JavaScript and never submits the same field twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args, get_origin
from urllib.parse import urlencode

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from gpuscout.advise.types import OBJECTIVES
from gpuscout.advise.workload import (
    IMAGE_BATCH_FIELDS,
    KINDS,
    LLM_BATCH_FIELDS,
    MAX_NAME_CHARS,
    TOKEN_FIELDS,
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
    Workload,
    parse_hours,
)
from gpuscout.catalog.query import region_terms
from gpuscout.errors import QUOTED_NAME_CHARS, InvalidInputError, quoted_value
from gpuscout.estimate.arguments import token_count, whole_number_text
from gpuscout.web.form_errors import (
    FieldError,
    FormErrors,
    bounds,
    gpuscout_error,
    kind_words,
    range_words,
    strip_optional,
    unknown_parameters,
)
from gpuscout.web.numbers import USE_A_DOT, decimal_comma, ungrouped
from gpuscout.web.schemas import JOB_KINDS, JOB_OPTIONS, TRAINING_KINDS, TRAINING_OPTIONS, AdvisorOptionsIn
from gpuscout.web.services import AdvisorOptions

KIND_CLASSES: dict[str, type[Workload]] = {
    "serve": ServeWorkload,
    "batch": BatchWorkload,
    "finetune": FinetuneWorkload,
    "pretrain": PretrainWorkload,
}
#: The workload kinds a model of each kind is ranked for: a language model, every kind; an image
#: (diffusion) model, a batch of images; a speech model, none (its model page times it). A kind tab of
#: the advisor carries the model typed only to a kind that ranks it (``kind_links``).
KINDS_OF_MODEL: dict[str, tuple[str, ...]] = {"llm": KINDS, "diffusion": ("batch",), "audio": ()}
COMMON_FIELDS: tuple[str, ...] = tuple(n for n in Workload.model_fields if n not in ("kind", "model"))
DEFAULT_TOP = 20
MAX_TOP = 100
#: The highest row number ``explain`` may name before the answer is known: any row of an answer (the
#: calibrated alternative of a pick may be #445), checked against the answer's rows once it is ranked
#: (``advise_view.check_explain``).
MAX_EXPLAIN = 100_000
#: The hidden input the workload form sends: a submit, whose missing fields are errors (a kind tab's
#: link sends only the kind and the model).
SENT = "sent"

#: Fields in hours that also take a duration with a unit, as the workload reads them (``parse_hours``).
DURATION_FIELDS = frozenset({"deadline_hours"})
#: Number fields that also take a unit ("32k" tokens, "24h"): a phone shows them its full keyboard, not
#: the decimal pad, which has no letters.
UNIT_FIELDS = TOKEN_FIELDS | DURATION_FIELDS

# Short help shown under some inputs.
HELP: dict[str, str] = {
    "concurrency": "simultaneous requests",
    "requests_per_s": "or a request rate",
    "ttft_ms_max": "time to first token target",
    "tpot_ms_max": "time per output token target",
    "bursts_per_day": "with burst minutes",
    "regions": "substrings, comma-separated",
    "providers": "comma-separated",
    "accelerators": "names or families (H100), comma-separated",
    "budget_usd": "per month",
    "egress_gb": "per month",
    "precision": "weight format; native: the checkpoint's own",
    "engine": "auto: llama.cpp for GGUF, else vLLM",
    "spot_allowed": "interruptible capacity",
    "download_weights_gb": "default: the model's weights",
    "dataset_gb": "fetched by each instance; 0: not costed",
    "deadline_hours": "hours (24) or a duration: 90m, 24h, 2d",
    "micro_batch": "per GPU; default: the fastest that fits",
    "global_batch_tokens": "micro-batch x GPUs x sequence; default: the compute-optimal batch (B_opt)",
    "adapter_dtype": "LoRA / QLoRA: fp32 is PEFT's default without autocast (slower, more memory)",
    "include_stale": "and defunct providers; left out by default",
    "spot_reclaims_per_hour": "all providers; default by provider: 0.02 to 0.1",
    "min_headroom": "0.05 = 5 % (the default); less is an out-of-memory risk",
    "checkpoint_write_gbps": "per node; default 1 (a network volume); more for local NVMe or async saves",
    "unlisted_host_ram": "x GPU memory, for offers that list no RAM; default 2.15 (the median host)",
    "max_deadline_miss": "spot under a deadline: 0.1 = 10 % (the default); a riskier spot row is left out",
}
#: The precision's hint where the form lists the kind's own formats (a training run's, an image
#: pipeline's), which have no "native" choice.
OWN_CHOICES_HELP = "weight format"
#: The hints of a run's kinds where they differ from an endpoint's (``HELP``): a batch, a fine-tune and a
#: pre-training run are budgeted, and move their outputs or checkpoints out, for the whole run (the
#: workload's ``budget_usd`` and ``egress_gb``), an endpoint per month.
RUN_HELP: dict[str, str] = {
    "budget_usd": "per run",
    "egress_gb": "per run",
}


#: The hints of a pre-training run where they differ from the other runs' (``RUN_HELP``): its corpus is
#: stored once and streamed, not fetched by each node (``advise.cost.streamed_dataset_gb``).
PRETRAIN_HELP: dict[str, str] = {
    "dataset_gb": "the corpus, stored once and streamed as the run trains; 0: not costed",
}
#: The hints of a batch job where they differ from the other runs' (``RUN_HELP``): its instances split
#: its input, each fetching its share (``advise.cost.split_dataset_gb``).
BATCH_HELP: dict[str, str] = {
    "dataset_gb": "its input, split between the instances (each fetches its share); 0: not costed",
}


def field_help(name: str, kind: str) -> str:
    """The hint under the input ``name`` of the form of ``kind``."""
    if kind == "pretrain" and name in PRETRAIN_HELP:
        return PRETRAIN_HELP[name]
    if kind == "batch" and name in BATCH_HELP:
        return BATCH_HELP[name]
    if kind != "serve" and name in RUN_HELP:
        return RUN_HELP[name]
    return HELP.get(name, "")


# Labels where the generated one would not read well.
LABELS: dict[str, str] = {
    "requests_per_s": "Requests per second",
    "spot_allowed": "Spot allowed",
    "accelerators": "GPUs",
    "download_weights_gb": "Download (GB)",
    "storage_retention_days": "Keep data stored (days)",
    "checkpoint_interval_min": "Checkpoint every (min)",
    "deadline_hours": "Deadline (hours)",
    "monthly_output_tokens": "Output tokens per month",
    "input_tokens_total": "Input tokens in all",
    "output_tokens_total": "Output tokens in all",
    "images_total": "Images in all",
    "max_nodes": "At most nodes",
    "gpus": "Number of GPUs",
    "nodes": "Number of nodes",
    "params_b": "Parameters (billions)",
    "micro_batch": "Micro-batch",
    "global_batch_tokens": "Global batch (tokens per step)",
    "seq_len": "Sequence length",
    "hours_per_day": "Hours per day",
    "include_stale": "Include stale offers",
    "spot_reclaims_per_hour": "Spot reclaims per hour",
    "min_headroom": "GPU memory kept free (share)",
    "checkpoint_write_gbps": "Checkpoint writes (GB/s)",
    "unlisted_host_ram": "Host RAM if not listed",
    "max_deadline_miss": "Deadline miss allowed (spot)",
}


def precision_choices() -> tuple[tuple[str, str], ...]:
    """The estimator's weight formats, the common ones first (value, label)."""
    from gpuscout.estimate.precision import accepted_precisions, resolve_precision

    names = accepted_precisions()
    first = [n for n in COMMON_PRECISIONS if n in names]
    rest = [n for n in names if n not in first]
    # the workload default (precision None): a short label that reads whole in the select, its meaning
    # in the hint under it (HELP)
    out = [("", "native")]
    for n in (*first, *rest):
        label = resolve_precision(n).label
        out.append((n, label if label.lower() == n else _short_option(f"{n} · {label}")))
    return tuple(out)


#: The longest option text the form's selects show whole (the browser clips a longer chosen option:
#: "fp8-ffn · FP8 MLP only (Meta FBGE"). Measured in Chromium: "w8a8 · INT8 W8A8 (SmoothQuant)", 30
#: characters, takes 276 of the select's 338 px at 390 px and 258 of 295 at 1440.
OPTION_CHARS = 32


def _short_option(text: str) -> str:
    """``text`` without its trailing parenthesis when it is longer than :data:`OPTION_CHARS` ("fp8-ffn ·
    FP8 MLP only" for "... (Meta FBGEMM row-wise; attention bf16)"); the answer's assumptions keep the
    format's whole label."""
    if len(text) <= OPTION_CHARS or not text.endswith(")") or " (" not in text:
        return text
    return text[: text.rindex(" (")]


def engine_choices() -> tuple[tuple[str, str], ...]:
    """The serving engines the estimator has a profile of (value, label)."""
    from gpuscout.estimate.engines import CALIBRATION, resolve_engine

    names = sorted(
        CALIBRATION,
        key=lambda n: (n not in COMMON_ENGINES, COMMON_ENGINES.index(n) if n in COMMON_ENGINES else 0, n),
    )
    auto = ("", "auto")  # the workload default (engine None), said in the hint under the select (HELP)
    return (auto, *((n, resolve_engine(n).label) for n in names))


COMMON_PRECISIONS = ("bf16", "fp8", "int8", "w8a8", "int4", "nf4", "mxfp4", "nvfp4", "fp16", "fp32")
COMMON_ENGINES = ("vllm", "sglang", "tensorrt-llm", "llama.cpp", "hf-transformers", "gpt-fast")
CHOICES = {"precision": precision_choices, "engine": engine_choices}


@dataclass(frozen=True, slots=True)
class FormField:
    name: str
    label: str
    input: str  # "number", "text", "select"
    options: tuple[tuple[str, str], ...] = ()  # (value, label) for selects
    step: str = "any"
    default: str = ""
    help: str = ""
    required: bool = False
    # a number field's phone keyboard (``inputmode``): "text" where it takes a unit (UNIT_FIELDS)
    keypad: str = "decimal"


def _label(name: str) -> str:
    if name in LABELS:
        return LABELS[name]
    text = name.replace("_", " ")
    for unit, shown in ((" usd", " ($)"), (" gb", " (GB)"), (" ms max", " max (ms)"), (" min", " (min)")):
        if text.endswith(unit):
            text = text[: -len(unit)] + shown
    for acronym in ("ttft", "tpot"):
        if text.startswith(acronym):
            text = acronym.upper() + text[len(acronym) :]
    return text[0].upper() + text[1:]


def _field(name: str, info: FieldInfo) -> FormField:
    annotation = strip_optional(info.annotation)
    default: Any = "" if info.default is None or info.is_required() else info.default

    def make(
        kind: str, options: tuple[tuple[str, str], ...] = (), step: str = "any", value: str = ""
    ) -> FormField:
        return FormField(
            name=name,
            label=_label(name),
            input=kind,
            options=options,
            step=step,
            default=value,
            help=HELP.get(name, ""),
            required=info.is_required(),
            keypad="text" if name in UNIT_FIELDS else "decimal",
        )

    yes_no = (("true", "yes"), ("false", "no"))
    if name in CHOICES:
        return make("select", CHOICES[name](), value=str(default))
    if get_origin(annotation) is Literal:
        return make("select", tuple((str(v), str(v)) for v in get_args(annotation)), value=str(default))
    if annotation is bool:
        if info.default is None:
            return make("select", (("", "default for this kind"), *yes_no))
        return make("select", yes_no, value="true" if default else "false")
    if annotation is int:
        return make("number", step="1", value=str(default))
    if annotation is float:
        return make("number", value=f"{default:g}" if default != "" else "")
    if get_origin(annotation) is tuple:
        return make("text", value=",".join(default) if default else "")
    return make("text", value=str(default))


#: A batch's inputs that only an image (diffusion) model uses, and those only a language model uses (the
#: workload's own lists; the form also leaves the serving engine off an image model's batch: its choices
#: are a language model's). The weight format applies to both, with each kind's own choices
#: (``image_precision_choices``).
IMAGE_ONLY: tuple[str, ...] = IMAGE_BATCH_FIELDS
LLM_ONLY: tuple[str, ...] = ("engine", *LLM_BATCH_FIELDS)


def image_precision_choices() -> tuple[tuple[str, str], ...]:
    """The formats an image pipeline runs in (value, label): the denoiser's weights and math."""
    from gpuscout.estimate.diffusion import PRECISIONS

    default = ("", "bf16 · the pipeline's default")  # the workload default (precision None)
    return (default, *((p, f"{p} · the denoiser in FP8" if p == "fp8" else p) for p in PRECISIONS))


#: The training method of each training kind's workload, as the estimator names it (``TrainingSetup``).
TRAINING_METHODS: dict[str, tuple[str, ...]] = {
    "finetune": tuple(str(m) for m in get_args(FinetuneWorkload.model_fields["method"].annotation)),
    "pretrain": ("pretrain",),
}


def training_precision_choices(kind: str) -> tuple[tuple[str, str], ...]:
    """The formats a training run of ``kind`` accepts (value, label): the training estimator's own
    list, less those it refuses for every method of ``kind`` (int8 is a LoRA base only: not for
    pre-training); one it refuses for some methods says which it is for."""
    from gpuscout.estimate.training_memory import PRECISIONS, TrainingSetup, validate_setup

    methods = TRAINING_METHODS[kind]
    out: list[tuple[str, str]] = []
    for precision in PRECISIONS:
        ok = []
        for method in methods:
            try:
                validate_setup(TrainingSetup(method=method, precision=precision))
            except InvalidInputError:
                continue
            ok.append(method)
        if ok:
            out.append(
                (precision, precision if ok == list(methods) else f"{precision} · {', '.join(ok)} only")
            )
    return tuple(out)


def not_applying(kind: str, model_kind: str | None) -> frozenset[str]:
    """The fields of ``kind`` that a model of ``model_kind`` ("llm", "diffusion"; None: not known yet)
    does not use, so the form leaves them out: a language model's batch has no image size, an image
    model's no token counts or serving engine."""
    if kind != "batch":
        return frozenset()
    if model_kind == "llm":
        return frozenset(IMAGE_ONLY)
    if model_kind == "diffusion":
        return frozenset(LLM_ONLY)
    return frozenset()


def shown_fields(kind: str, model_kind: str | None = None) -> set[str]:
    """The names of the inputs the form of ``kind`` shows, with their error beside them, for a model of
    ``model_kind`` (the ranking options show none: their errors go above the form)."""
    return {"model", *COMMON_FIELDS, *option_names(kind)} | {f.name for f in kind_fields(kind, model_kind)}


def kind_fields(kind: str, model_kind: str | None = None) -> list[FormField]:
    """The inputs specific to ``kind`` (in the order of the workload type), without ``model``, and
    without those a model of ``model_kind`` does not use (``not_applying``)."""
    cls = KIND_CLASSES[kind]
    skip = ("kind", "model", *COMMON_FIELDS, *not_applying(kind, model_kind))
    fields = [_field(n, f) for n, f in cls.model_fields.items() if n not in skip]
    choices = None
    if kind == "batch" and model_kind == "diffusion":  # an image pipeline's formats, not an LLM's
        choices = image_precision_choices()
    elif kind in TRAINING_METHODS:  # what training accepts, not the inference formats (GGUF, int4...)
        choices = training_precision_choices(kind)
    if choices is not None:  # with no "native" choice, the hint says none either
        own = replace(
            _field("precision", cls.model_fields["precision"]), options=choices, help=OWN_CHOICES_HELP
        )
        fields = [own if f.name == "precision" else f for f in fields]
    return fields


def common_fields(kind: str) -> list[FormField]:
    """The constraints every kind has, with the hints of ``kind`` (a budget per month or per run)."""
    cls = KIND_CLASSES[kind]
    return [replace(_field(n, cls.model_fields[n]), help=field_help(n, kind)) for n in COMMON_FIELDS]


#: The advisor's options beside the workload (``gpuscout recommend --include-stale
#: --spot-reclaims-per-hour X --min-headroom Y --checkpoint-write-gbps Z``; the API's
#: ``AdvisorOptionsIn``): the form's advanced inputs. The memory headroom and the checkpoint writes are
#: for training kinds only, as on the CLI.
OPTION_FIELDS: tuple[str, ...] = tuple(AdvisorOptionsIn.model_fields)


def option_names(kind: str) -> tuple[str, ...]:
    """The advisor options the form of ``kind`` takes."""
    training = kind in TRAINING_KINDS
    job = kind in JOB_KINDS
    return tuple(
        n for n in OPTION_FIELDS if (n not in TRAINING_OPTIONS or training) and (n not in JOB_OPTIONS or job)
    )


def option_fields(kind: str) -> list[FormField]:
    """The advanced inputs of the form of ``kind`` (their ranges are the API's)."""
    return [_field(n, AdvisorOptionsIn.model_fields[n]) for n in option_names(kind)]


@dataclass(frozen=True, slots=True)
class AdviseRequest:
    """What the advisor page was asked: the kind, the form values as typed, and the options."""

    kind: str
    values: dict[str, str]  # field -> raw value as typed (for refilling the form)
    objective: str
    top: int
    explain: int | None
    sent: bool = False  # the form's own submit (its hidden ``SENT`` input), not a link

    @property
    def has_model(self) -> bool:
        return bool(self.values.get("model"))

    def explain_url(self, number: int) -> str:
        """This answer with row ``number``'s breakdown open, scrolled to it
        (``/advise?...&explain=445#rank-445``; the row is shown past "Show" when it is further down)."""
        params: dict[str, object] = {**self.values, "kind": self.kind, "objective": self.objective}
        if self.top != DEFAULT_TOP:
            params["top"] = self.top
        params["explain"] = number
        return f"/advise?{urlencode(params)}#rank-{number}"

    def changed_url(self, options: Mapping[str, Any]) -> str:
        """This form asked again with the workload fields ``options`` changed (a dead end's way out,
        ``Move.options``; a field given ``None``, or an empty list (every GPU, provider or region), is
        cleared), as a link to this page."""
        values: dict[str, object] = dict(self.values)
        for name, value in options.items():
            if value is None or (isinstance(value, tuple | list) and not value):
                values.pop(name, None)
            else:
                values[name] = form_value(value)
        params: dict[str, object] = {**values, "kind": self.kind, "objective": self.objective}
        if self.top != DEFAULT_TOP:
            params["top"] = self.top
        return f"/advise?{urlencode(params)}"

    @property
    def submitted(self) -> bool:
        """Whether the user asked for this workload: the form was sent, or a link gives a workload field
        besides the model (``/advise?kind=batch&model=flux.1-dev&images_total=1000``). A kind tab keeps
        only the model (``/advise?kind=batch&model=llama-3.1-8b``): that is a form to fill in, and a field
        it lacks is no error yet."""
        return self.has_model and (self.sent or any(n != "model" for n in self.values))

    @property
    def advanced_fields(self) -> list[FormField]:
        """The form's advanced inputs for this kind (stale offers, the assumptions a user may change)."""
        return option_fields(self.kind)

    @property
    def advanced_open(self) -> bool:
        """Whether the advanced section starts open: an option differs from its default (or is not a
        value of its field)."""
        try:
            return self.options != AdvisorOptions()
        except InvalidInputError:
            return True

    @property
    def options(self) -> AdvisorOptions:
        """The advisor's options as typed (``InvalidInputError`` naming the input when one is not a
        value of its field: ``check_values`` says so first, at the field)."""
        values = {n: ungrouped(self.values[n]) for n in option_names(self.kind) if n in self.values}
        try:
            checked = AdvisorOptionsIn.model_validate(values)  # yes/no, true/false, 1/0 for the stale offers
        except ValidationError as exc:
            name = str(exc.errors()[0]["loc"][0])
            raise InvalidInputError(name, f"not accepted: {values.get(name, '')!r}") from None
        return AdvisorOptions.of(checked)


def form_value(value: object) -> str:
    """A workload field's value as the form takes it: "true" for yes, a whole number without ".0",
    another number whole (its ``repr``: a deadline of 0.11666666666666667 hours is not rounded under the
    time it was proposed for)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def kind_links(request: AdviseRequest, model_kind: str | None) -> dict[str, str]:
    """The link of each kind's tab: the form of that kind with the model typed, where that kind ranks
    a model of ``model_kind`` (``KINDS_OF_MODEL``; not known yet: kept), else the empty form of the kind
    (never a tab that opens on an error: "sdxl is an image model" under Serve an endpoint). A name past
    the longest a model name may be is not carried either."""
    model = request.values.get("model", "")
    if len(model) > MAX_NAME_CHARS:
        model = ""
    links: dict[str, str] = {}
    for kind in KIND_CLASSES:
        ranks = model_kind is None or kind in KINDS_OF_MODEL.get(model_kind, ())
        params = {"kind": kind, "model": model} if model and ranks else {"kind": kind}
        links[kind] = f"/advise?{urlencode(params)}"
    return links


def parse_request(params: Mapping[str, str]) -> AdviseRequest:
    """Read kind, objective, top, explain and the kind's fields from query parameters."""
    kind = (params.get("kind") or "serve").strip()
    if kind not in KIND_CLASSES:
        raise InvalidInputError("kind", f"unknown workload kind {quoted_value(kind)}", ", ".join(KINDS))
    objective = (params.get("objective") or "cost").strip()
    if objective not in OBJECTIVES:
        raise InvalidInputError(
            "objective", f"unknown objective {quoted_value(objective)}", ", ".join(OBJECTIVES)
        )
    top = _int_param(params, "top", DEFAULT_TOP, 1, MAX_TOP)
    explain = _int_param(params, "explain", None, 1, MAX_EXPLAIN)
    names = ("model", *KIND_CLASSES[kind].model_fields, *option_names(kind))
    values = {n: params[n].strip() for n in names if n != "kind" and params.get(n, "").strip()}
    sent = bool((params.get(SENT) or "").strip())
    return AdviseRequest(kind=kind, values=values, objective=objective, top=top, explain=explain, sent=sent)


#: The advisor page's own parameters beside the workload's fields and the advisor's options.
PAGE_PARAMS: tuple[str, ...] = ("kind", "objective", "top", "explain", SENT)


def accepted_params(kind: str) -> tuple[str, ...]:
    """Every query parameter the advisor page reads for ``kind`` (:func:`parse_request`)."""
    fields = (n for n in KIND_CLASSES[kind].model_fields if n != "kind")
    return tuple(dict.fromkeys((*fields, *option_names(kind), *PAGE_PARAMS)))


def stray_params(names: Iterable[str], kind: str) -> list[str]:
    """A message for each query parameter of ``names`` that the form of ``kind`` does not read, naming the
    closest it does (``/advise?prompt=2000`` is not ``prompt_tokens``: ranking the default 1,024 prompt
    tokens as if it were would answer another question); a field of another kind says which."""
    given = list(dict.fromkeys(names))
    accepted = accepted_params(kind)
    elsewhere: dict[str, str] = {}
    for name in given:
        kinds = [k for k in KIND_CLASSES if k != kind and name in accepted_params(k)]
        if kinds:
            elsewhere[name] = f"one of a {' or '.join(kinds)} workload"
    return unknown_parameters(given, accepted, f"a field of a {kind} workload", field_labels(kind), elsewhere)


def _int_param(params: Mapping[str, str], name: str, default: int | None, lo: int, hi: int) -> Any:
    raw = (params.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidInputError(
            name, f"expected an integer, got {quoted_value(raw)}", f"{lo}..{hi}"
        ) from None
    if not lo <= value <= hi:
        raise InvalidInputError(name, f"{value} is out of range", f"{lo}..{hi}")
    return value


def field_labels(kind: str) -> dict[str, str]:
    """What the form calls each field of ``kind`` (errors name fields this way)."""
    cls = KIND_CLASSES[kind]
    labels = {n: _label(n) for n in (*cls.model_fields, *option_names(kind)) if n != "kind"}
    labels.update(model="Model", objective="Rank by", top="Show", explain="Breakdown", kind="Workload kind")
    return labels


#: The total a batch of each model kind needs (the workload takes one or the other).
BATCH_TOTALS = {"llm": "output_tokens_total", "diffusion": "images_total"}


def check_values(
    request: AdviseRequest,
    model_kind: str | None = None,
    window: tuple[str, int] | None = None,
    model_error: FieldError | None = None,
) -> FormErrors:
    """Every input that is not a value of its field's type and range, in plain words at the field
    (the workload's own rules across fields are checked when it is built), a submitted batch's
    missing total where the model's kind says which one it needs, and, in the same pass, what the
    ranker would refuse next: the tokens past the model's context ``window`` ((name, tokens) of a
    language model) and the model name's own error ``model_error`` (an unknown name, with the closest
    ones). One submit says every error, not a second round once the ranges are fixed."""
    cls = KIND_CLASSES[request.kind]
    labels = field_labels(request.kind)
    errors = FormErrors()
    options = option_names(request.kind)
    for name, raw in request.values.items():
        info = AdvisorOptionsIn.model_fields[name] if name in options else cls.model_fields.get(name)
        if name == "model" and len(raw) > MAX_NAME_CHARS:  # a name is resolved later: its length first
            errors.add(
                FieldError(
                    name,
                    f"{labels[name]} must be a name of at most {MAX_NAME_CHARS:,} characters; you typed "
                    f"{len(raw):,} (“{raw[:QUOTED_NAME_CHARS]}…”)",
                )
            )
        if info is None or name == "model":
            continue
        problem = _check_one(raw, info, name)
        if problem:
            dot = f" ({USE_A_DOT})" if decimal_comma(raw) else ""
            errors.add(
                FieldError(
                    name, f"{labels[name]} must be {problem}; you typed “{raw[:QUOTED_NAME_CHARS]}”{dot}"
                )
            )
    total = BATCH_TOTALS.get(model_kind or "") if request.kind == "batch" else None
    if total and request.submitted and not any(t in request.values for t in BATCH_TOTALS.values()):
        errors.add(FieldError(total, f"{labels[total]} is required"))
    if model_error is not None:
        errors.add(model_error)
    if window is not None and (request.kind != "batch" or model_kind == "llm"):
        past = _past_window(request, window, errors)
        if past is not None:
            found = gpuscout_error(past, labels)
            if isinstance(found, FieldError):
                errors.add(found)
    return errors


def _past_window(
    request: AdviseRequest, window: tuple[str, int], errors: FormErrors
) -> InvalidInputError | None:
    """The ranker's error for the tokens of ``request`` past the model's ``window`` (the same words:
    :mod:`gpuscout.advise.window`), from the values as typed or their defaults; none while a count it
    adds up has an error of its own."""
    from gpuscout.advise.window import request_past_window, sequence_past_window

    names = ("seq_len",) if request.kind == "finetune" else ("prompt_tokens", "output_tokens")
    if request.kind not in ("serve", "batch", "finetune") or any(n in errors.by_field for n in names):
        return None
    fields = KIND_CLASSES[request.kind].model_fields
    counts = []
    for name in names:
        raw = request.values.get(name)
        counts.append(token_count(ungrouped(raw), name) if raw is not None else int(fields[name].default))
    model, limit = window
    if request.kind == "finetune":
        return sequence_past_window(counts[0], model, limit)
    return request_past_window(counts[0], counts[1], model, limit)


def _check_one(raw: str, info: FieldInfo, name: str = "") -> str:
    """ "" when ``raw`` is a value of the field, else what it must be ("a whole number from 1 to 100"); a
    token count is read as the CLI and a workload file read it (``32k``, ``1.5M``: TOKEN_FIELDS)."""
    annotation = strip_optional(info.annotation)
    what, limits = kind_words(info), range_words(info)
    expected = f"{what} {limits}".strip()
    if annotation is bool:
        return "" if raw.lower() in ("true", "false", "yes", "no", "1", "0") else "yes or no"
    if get_origin(annotation) is Literal:
        return "" if raw in {str(v) for v in get_args(annotation)} else expected
    if annotation in (int, float):
        raw = ungrouped(raw)
        try:
            value: float
            if name in TOKEN_FIELDS:  # a token count as the CLI reads it (32k); its error is a ValueError
                value = token_count(raw, name)
            elif name in DURATION_FIELDS:  # hours, or a duration as the CLI and a workload file read it
                value = float(parse_hours(raw, name))
            elif annotation is int:  # a whole number in any notation, as the CLI and a workload file read it
                whole = whole_number_text(raw)
                if whole is None:
                    return expected
                value = whole
            else:
                value = float(raw)
        except (ValueError, InvalidInputError):
            return f"{expected}, or a duration (90m, 24h, 2d)" if name in DURATION_FIELDS else expected
        if not math.isfinite(value):
            return expected
        low, high, low_open, high_open = bounds(info)
        if low is not None and (value < low or (low_open and value == low)):
            return expected
        if high is not None and (value > high or (high_open and value == high)):
            return expected
    return ""


#: Where an error about a field the form leaves out is shown: at its counterpart (a batch's token total
#: and image total stand for each other), else above the form.
COUNTERPARTS = {"output_tokens_total": "images_total", "images_total": "output_tokens_total"}


def place_errors(errors: FormErrors, shown: set[str]) -> FormErrors:
    """``errors`` with each one about a field not on the form (``not_applying``) moved where it is seen."""
    placed = FormErrors(general=list(errors.general))
    for name, error in errors.by_field.items():
        if name in shown:
            placed.add(error)
        elif COUNTERPARTS.get(name) in shown:
            placed.add(replace(error, field=COUNTERPARTS[name]))
        else:
            placed.general.append(error.message)
    return placed


def common_open(request: AdviseRequest) -> bool:
    """Whether the constraints section starts open: a common field differs from its default."""
    cls = KIND_CLASSES[request.kind]
    for name in COMMON_FIELDS:
        raw = request.values.get(name)
        if raw is None:
            continue
        field = _field(name, cls.model_fields[name])
        if raw != field.default:
            return True
    return False


def form_filled(request: AdviseRequest) -> frozenset[str]:
    """The inputs of a submitted form that the workload refuses beside what the user gave and that still
    hold the value the form filled in: the form shows every input with its default, so these are the
    form's, not the user's, and are not sent to the workload. For a batch, the inputs of the other kind
    of batch than the total given (before it knows the model the form shows prompt tokens 1024 and width
    1024 alike); for a pre-training run of a given size (GPUs or nodes), the most nodes to search (64),
    which applies only without one; for full fine-tuning, the adapters' dtype (16bit), which applies to
    LoRA and QLoRA only; for a bursty endpoint (bursts per day given), the hours up per day (24), which the
    bursts set. One the user changed, or one a link gives, is still sent, and its error says it does not
    apply."""
    if not request.sent:
        return frozenset()
    values = request.values
    if request.kind == "batch" and "images_total" in values:
        return _at_default(request, LLM_BATCH_FIELDS)
    if request.kind == "batch" and "output_tokens_total" in values:
        return _at_default(request, IMAGE_BATCH_FIELDS)
    if request.kind == "pretrain" and ("gpus" in values or "nodes" in values):
        return _at_default(request, ("max_nodes",))
    if request.kind == "finetune" and values.get("method") == "full":
        return _at_default(request, ("adapter_dtype",))
    if request.kind == "serve" and "bursts_per_day" in values:
        return _at_default(request, ("hours_per_day",))
    return frozenset()


def _at_default(request: AdviseRequest, names: tuple[str, ...]) -> frozenset[str]:
    """Those of ``names`` whose input holds the value the form fills in (its field's default)."""
    fields = KIND_CLASSES[request.kind].model_fields
    values = request.values
    return frozenset(n for n in names if n in values and values[n] == _field(n, fields[n]).default)


def build_workload(request: AdviseRequest, known_region: Callable[[str], bool] | None = None) -> AnyWorkload:
    """The validated workload (``InvalidInputError`` names the field at fault), without the inputs the
    form filled in for the other kind of batch (``form_filled``). Its ``regions`` are split as the
    catalog reads a typed region list (:func:`~gpuscout.catalog.query.region_terms`): with
    ``known_region`` (``query.region_known`` of the services' reader), a region whose own name holds a
    comma ("Texas, US") is one region; without it, every comma splits."""
    cls = KIND_CLASSES[request.kind]
    data: dict[str, Any] = {"kind": request.kind}
    skip = form_filled(request)
    for name, raw in request.values.items():
        if name in skip or name in OPTION_FIELDS:  # the advisor's options are not the workload's
            continue
        info = cls.model_fields.get(name)
        if name == "regions":
            data[name] = region_terms([raw], known_region or _no_region)
        elif info is not None and get_origin(strip_optional(info.annotation)) is tuple:
            data[name] = tuple(p.strip() for p in raw.split(",") if p.strip())
        elif info is not None and strip_optional(info.annotation) in (int, float):
            data[name] = ungrouped(raw)  # 1,000 as the form's errors read it (check_values)
        else:
            data[name] = raw
    return Workload.from_dict(data)


def _no_region(text: str) -> bool:
    """No region is known: every comma of a typed region list splits it."""
    del text
    return False
