"""Form errors in plain words, shown at the field they are about.

The pages' forms (the offers filters, the advisor's workload, the model and FAQ pickers) say what is
wrong with the field's *label* ("GPUs per instance must be a whole number of at least 1; you typed
“-3”"), never the parameter name or a type expression (``int | None >= 1``). The page is rendered
again with every input as the user typed it, the field marked ``aria-invalid`` and its message
linked by ``aria-describedby``.
"""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from gpuscout.errors import QUOTED_NAME_CHARS, GpuscoutError, InvalidInputError, UnknownNameError


@dataclass(frozen=True, slots=True)
class FieldError:
    """What is wrong with one input, names that would work (for an unknown name), and pages that
    answer what was asked instead (``(text, href)``; a model of another kind)."""

    field: str
    message: str
    suggestions: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True)
class FormErrors:
    """Errors by field name; ``general`` for what belongs to no single field."""

    by_field: dict[str, FieldError] = field(default_factory=dict)
    general: list[str] = field(default_factory=list)

    def add(self, error: FieldError) -> None:
        self.by_field.setdefault(error.field, error)

    def __bool__(self) -> bool:
        return bool(self.by_field or self.general)

    def get(self, name: str) -> FieldError | None:
        return self.by_field.get(name)


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else str(value)


def _typed(value: Any) -> str:
    text = str(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"; you typed “{text}”"


def strip_optional(annotation: Any) -> Any:
    """``int | None`` -> ``int`` (a form field's type without its "not given")."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def bounds(info: FieldInfo) -> tuple[float | None, float | None, bool, bool]:
    """(low, high, low is exclusive, high is exclusive) of a pydantic field's constraints."""
    low = high = None
    low_open = high_open = False
    for meta in info.metadata:
        for attr, is_low, is_open in (
            ("ge", True, False),
            ("gt", True, True),
            ("le", False, False),
            ("lt", False, True),
        ):
            value = getattr(meta, attr, None)
            if value is None:
                continue
            if is_low:
                low, low_open = float(value), is_open
            else:
                high, high_open = float(value), is_open
    return low, high, low_open, high_open


def range_words(info: FieldInfo) -> str:
    """ "from 1 to 100,000", "of at least 0", "more than 0", "" (no bound)."""
    low, high, low_open, high_open = bounds(info)
    if low is not None and high is not None and not low_open and not high_open:
        return f"from {_number(low)} to {_number(high)}"
    parts = []
    if low is not None:
        parts.append(f"more than {_number(low)}" if low_open else f"of at least {_number(low)}")
    if high is not None:
        parts.append(f"under {_number(high)}" if high_open else f"of at most {_number(high)}")
    return " and ".join(parts)


def _plain_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def accepted_text(info: FieldInfo) -> str:
    """What a declared API parameter or body field accepts, as the API's errors say it in ``accepted``
    and the CLI says it: "1..1000000" (a whole number in range, as the estimator's ``int_in`` writes
    it), "> 0, <= 1000000", "asc, desc", "true or false", "text of 1 to 200 characters"."""
    annotation = strip_optional(info.annotation)
    if get_origin(annotation) is Literal:
        return ", ".join(str(v) for v in get_args(annotation))
    if annotation is bool:
        return "true or false"
    if annotation in (int, float):
        low, high, low_open, high_open = bounds(info)
        if annotation is int and low is not None and high is not None and not (low_open or high_open):
            return f"{_plain_number(low)}..{_plain_number(high)}"
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_open else '>='} {_plain_number(low)}")
        if high is not None:
            parts.append(f"{'<' if high_open else '<='} {_plain_number(high)}")
        return ", ".join(parts) or ("a whole number" if annotation is int else "a number")
    if annotation is str:
        return _text_words(info)
    return info.description or "a value of the type /docs shows"


def _text_words(info: FieldInfo) -> str:
    """ "text matching ^(max|[0-9]{1,7})$", "text of 1 to 200 characters", "text"."""
    shortest = longest = None
    pattern = None
    for meta in info.metadata:
        shortest = getattr(meta, "min_length", None) or shortest
        longest = getattr(meta, "max_length", None) or longest
        pattern = getattr(meta, "pattern", None) or pattern
    if pattern:
        return f"text matching {pattern}"
    if shortest and longest:
        return f"text of {shortest} to {longest:,} characters"
    if longest:
        return f"text of at most {longest:,} characters"
    return "text"


def kind_words(info: FieldInfo) -> str:
    """What a field holds, for a sentence: "a whole number", "a number", "yes or no", ..."""
    annotation = strip_optional(info.annotation)
    if annotation is bool:
        return "yes or no"
    if annotation is int:
        return "a whole number"
    if annotation is float:
        return "a number"
    if get_origin(annotation) is Literal:
        return "one of " + ", ".join(str(v) for v in get_args(annotation))
    return "text"


def plain_message(label: str, info: FieldInfo | None, error: Mapping[str, Any]) -> str:
    """One pydantic error about the field labelled ``label`` in plain words."""
    kind = str(error.get("type", ""))
    given = error.get("input")
    ctx = error.get("ctx") or {}
    if info is not None and kind in (
        "int_parsing",
        "int_from_float",
        "float_parsing",
        "finite_number",
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
        "int_type",
        "float_type",
    ):
        limits = range_words(info)
        what = kind_words(info)
        return f"{label} must be {what}{' ' + limits if limits else ''}{_typed(given)}"
    if kind in ("literal_error", "enum"):
        expected = str(ctx.get("expected", "")).replace("'", "")
        return f"{label} must be one of {expected}{_typed(given)}"
    if kind in ("bool_parsing", "bool_type"):
        return f"{label} must be yes or no{_typed(given)}"
    if kind == "string_too_long":
        return f"{label} is too long (at most {_number(ctx.get('max_length', '?'))} characters)"
    if kind == "string_too_short":
        return f"{label} is empty"
    if kind == "missing":
        return f"{label} is required"
    return f"{label}: {error.get('msg', 'not accepted')}"


def validation_errors(exc: ValidationError, model: type[BaseModel], labels: Mapping[str, str]) -> FormErrors:
    """Every error of a pydantic validation of ``model``, in plain words, by field."""
    errors = FormErrors()
    for err in exc.errors():
        loc = [str(part) for part in err.get("loc", ())]
        name = loc[0] if loc else ""
        info = model.model_fields.get(name)
        label = labels.get(name, name.replace("_", " ").capitalize() or "This form")
        if name in model.model_fields:
            errors.add(FieldError(name, plain_message(label, info, err)))
        else:
            errors.general.append(plain_message(label, info, err))
    return errors


def closest_parameters(
    name: str, accepted: Sequence[str], n: int = 3, aliases: Mapping[str, str] | None = None
) -> list[str]:
    """The accepted parameter names ``name`` most likely meant: its alias (the CLI's ``limit`` is the
    page's ``per_page``), those it starts or is a word of ("prompt" -> prompt_tokens), else the close
    spellings ("contxt" -> context); none when nothing is close."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if not key:
        return []
    if aliases and key in aliases:
        return [aliases[key]]
    starts = [a for a in accepted if a.startswith(key)]
    words = starts or [a for a in accepted if key in a.split("_")]
    return (words or difflib.get_close_matches(key, list(accepted), n, cutoff=0.6))[:n]


def unknown_parameters(
    given: Iterable[str],
    accepted: Sequence[str],
    what: str = "a field of this form",
    labels: Mapping[str, str] | None = None,
    elsewhere: Mapping[str, str] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> list[str]:
    """A message for each parameter of ``given`` (a query string's names, each once) that is not
    ``accepted``: the page must not answer as if it were not there ("prompt: not a field of this form;
    did you mean prompt_tokens?"). ``labels`` adds what the form calls a suggested field; ``elsewhere``
    says where a name is a field instead ("one of a batch workload"); ``aliases`` maps other names of a
    parameter (the CLI's) to it."""
    out: list[str] = []
    for name in dict.fromkeys(given):
        if name in accepted:
            continue
        shown = name if len(name) <= 40 else name[:37] + "..."
        text = f"{shown}: not {what}"
        if elsewhere and name in elsewhere:
            text += f" (it is {elsewhere[name]})"
        near = [n for n in closest_parameters(name, accepted, aliases=aliases) if n != name]
        if near:
            named = [f"{n} (“{labels[n]}”)" if labels and n in labels else n for n in near]
            text += "; did you mean " + (
                named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]
            )
            text += "?"
        out.append(text)
    return out


def shown_name(name: str) -> str:
    """A name a form's error quotes: at most ``QUOTED_NAME_CHARS`` characters of it (a pasted page is
    not echoed whole), with how long it was where longer."""
    if len(name) <= QUOTED_NAME_CHARS:
        return name
    return f"{name[:QUOTED_NAME_CHARS]}… ({len(name):,} characters)"


def gpuscout_error(
    exc: GpuscoutError, labels: Mapping[str, str], aliases: Mapping[str, str] | None = None
) -> FieldError | str:
    """A ``GpuscoutError`` at its field, in plain words (a ``str`` when it names no field of the form).

    ``aliases`` maps an error's field name to the form's (an ``accelerator`` error is the ``gpu``
    input's)."""
    if not isinstance(exc, InvalidInputError):
        return str(exc)
    name = (aliases or {}).get(exc.field, exc.field)
    label = labels.get(name)
    if isinstance(exc, UnknownNameError):
        what = "matches several" if exc.ambiguous else "is not a name gpuscout knows"
        text = f"“{shown_name(exc.name)}” {what}" + (f": {exc.reason}" if exc.reason else "")
        if exc.suggestions:
            ask = "; the closest it models:" if exc.reason else "; did you mean one of these?"
            text += "; pick one below" if exc.ambiguous else ask
        message = f"{label}: {text}" if label else text
        return FieldError(name, message, tuple(exc.suggestions)) if label else message
    message = _in_labels(_detail(exc), labels, exc.names)
    if label is None:
        return f"{exc.field.replace('_', ' ').capitalize()}: {message}"
    return FieldError(name, f"{label}: {message}")


def _detail(exc: InvalidInputError) -> str:
    """The message of an ``InvalidInputError`` without its ``field:`` prefix and type-expression
    ``(accepted: int | None >= 1)`` suffix (kept when it is a plain list of names)."""
    text = str(exc)
    prefix = f"{exc.field}: "
    if text.startswith(prefix):
        text = text[len(prefix) :]
    accepted = exc.accepted or ""
    suffix = f" (accepted: {accepted})"
    if accepted and text.endswith(suffix) and _looks_like_type(accepted):
        text = text[: -len(suffix)]
    return text


def _in_labels(text: str, labels: Mapping[str, str], listed: Collection[str] = ()) -> str:
    """``text`` with the form's parameter names written as its labels ("a batch needs “Output tokens
    in all” (LLM) or “Images in all”"): the names with an underscore, which are never plain words,
    and the plain-word ones the error lists (``InvalidInputError.names``: "width" as “Width (px)”)."""
    names = sorted((n for n in labels if "_" in n or n in listed), key=len, reverse=True)
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    return pattern.sub(lambda m: f"“{labels[m.group(1)]}”", text)


def _looks_like_type(accepted: str) -> bool:
    return any(token in accepted for token in ("|", ">=", "<=", " > ", " < ", "int", "float", "None"))
