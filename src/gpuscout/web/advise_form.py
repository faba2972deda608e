"""The advisor's workload form, generated from the workload types so it always has their fields.

The form state lives in the query string: ``/advise?kind=serve&model=llama-3.1-8b&concurrency=32``.
Only the chosen kind's fields are rendered (the kind is picked with plain links), so the form works
without JavaScript and never submits the same field twice.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo

from gpuscout.advise.types import OBJECTIVES
from gpuscout.advise.workload import (
    KINDS,
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
    Workload,
)
from gpuscout.errors import InvalidInputError

KIND_CLASSES: dict[str, type[Workload]] = {
    "serve": ServeWorkload,
    "batch": BatchWorkload,
    "finetune": FinetuneWorkload,
    "pretrain": PretrainWorkload,
}
COMMON_FIELDS: tuple[str, ...] = tuple(n for n in Workload.model_fields if n not in ("kind", "model"))
DEFAULT_TOP = 20
MAX_TOP = 100

# Short help shown next to some inputs.
HELP: dict[str, str] = {
    "concurrency": "simultaneous requests",
    "requests_per_s": "or a request rate",
    "ttft_ms_max": "time to first token target",
    "tpot_ms_max": "time per output token target",
    "bursts_per_day": "with burst minutes",
    "regions": "substrings, comma-separated",
    "providers": "comma-separated",
    "budget_usd": "serve: per month",
    "egress_gb": "serve: per month",
}


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


def _label(name: str) -> str:
    text = name.replace("_", " ")
    for unit, shown in ((" usd", " ($)"), (" gb", " (GB)"), (" ms max", " max (ms)"), (" min", " (min)")):
        if text.endswith(unit):
            text = text[: -len(unit)] + shown
    for acronym in ("ttft", "tpot"):
        if text.startswith(acronym):
            text = acronym.upper() + text[len(acronym):]
    return text[0].upper() + text[1:]


def _strip_optional(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _field(name: str, info: FieldInfo) -> FormField:
    annotation = _strip_optional(info.annotation)
    default: Any = "" if info.default is None or info.is_required() else info.default

    def make(
        kind: str, options: tuple[tuple[str, str], ...] = (), step: str = "any", value: str = ""
    ) -> FormField:
        return FormField(name=name, label=_label(name), input=kind, options=options, step=step, default=value,
                         help=HELP.get(name, ""), required=info.is_required())

    yes_no = (("true", "yes"), ("false", "no"))
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


def kind_fields(kind: str) -> list[FormField]:
    """The inputs specific to ``kind`` (in the order of the workload type), without ``model``."""
    cls = KIND_CLASSES[kind]
    return [_field(n, f) for n, f in cls.model_fields.items() if n not in ("kind", "model", *COMMON_FIELDS)]


def common_fields(kind: str) -> list[FormField]:
    cls = KIND_CLASSES[kind]
    return [_field(n, cls.model_fields[n]) for n in COMMON_FIELDS]


@dataclass(frozen=True, slots=True)
class AdviseRequest:
    """What the advisor page was asked: the kind, the form values as typed, and the options."""

    kind: str
    values: dict[str, str]  # field -> raw value as typed (for refilling the form)
    objective: str
    top: int
    explain: int | None

    @property
    def submitted(self) -> bool:
        return bool(self.values.get("model"))


def parse_request(params: Mapping[str, str]) -> AdviseRequest:
    """Read kind, objective, top, explain and the kind's fields from query parameters."""
    kind = (params.get("kind") or "serve").strip()
    if kind not in KIND_CLASSES:
        raise InvalidInputError("kind", f"unknown workload kind {kind!r}", ", ".join(KINDS))
    objective = (params.get("objective") or "cost").strip()
    if objective not in OBJECTIVES:
        raise InvalidInputError("objective", f"unknown objective {objective!r}", ", ".join(OBJECTIVES))
    top = _int_param(params, "top", DEFAULT_TOP, 1, MAX_TOP)
    explain = _int_param(params, "explain", None, 1, MAX_TOP)
    names = ("model", *KIND_CLASSES[kind].model_fields)
    values = {n: params[n].strip() for n in names if n != "kind" and params.get(n, "").strip()}
    return AdviseRequest(kind=kind, values=values, objective=objective, top=top, explain=explain)


def _int_param(params: Mapping[str, str], name: str, default: int | None, lo: int, hi: int) -> Any:
    raw = (params.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidInputError(name, f"expected an integer, got {raw!r}", f"{lo}..{hi}") from None
    if not lo <= value <= hi:
        raise InvalidInputError(name, f"{value} is out of range", f"{lo}..{hi}")
    return value


def build_workload(request: AdviseRequest) -> AnyWorkload:
    """The validated workload (``InvalidInputError`` names the field at fault)."""
    cls = KIND_CLASSES[request.kind]
    data: dict[str, Any] = {"kind": request.kind}
    for name, raw in request.values.items():
        info = cls.model_fields.get(name)
        if info is not None and get_origin(_strip_optional(info.annotation)) is tuple:
            data[name] = tuple(p.strip() for p in raw.split(",") if p.strip())
        else:
            data[name] = raw
    return Workload.from_dict(data)
