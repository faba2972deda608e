"""The advisor's options in each face's words.

The advisor's texts (targets, notes, what binds, a row's reasons, warnings and why it was left out) name
the options that would change the answer as ``gpuscout recommend``'s flags: "--budget 937 would show
it", "--spot allows it", "--include-stale shows them". Each other face names them its own way: the web
form by its fields' labels ("“Budget ($)” 937"), the JSON API by its workload fields
(``"budget_usd": 937``) and the Python API by the workload's fields or the keywords of
:func:`gpuscout.advice` (``budget_usd=937``, ``include_stale=True``). ``OPTION_WORDS`` is the one
table of those names; :func:`translate_advice` rewrites a whole ``Advice`` for a face, and
:func:`form_words`, :func:`api_words` and :func:`python_words` one text.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from gpuscout.advise.types import Advice, Config, EstimateSummary, Move, Recommendation

#: The faces other than the CLI (whose words the advisor's texts already are).
Face = Literal["form", "api", "python"]
FACES: tuple[str, ...] = ("form", "api", "python")

#: A face's words for a flag: a ``re.sub`` template (``\1`` the flag's value) or a function of the match.
Words = str | Callable[[re.Match[str]], str]

# a flag's name ends where no letter, digit or hyphen follows ("--spot" is not "--spot-reclaims-per-hour")
_END = r"(?![\w-])"


@dataclass(frozen=True, slots=True)
class OptionWords:
    """One option: the CLI's words for it in the advisor's texts (a pattern) and each face's words."""

    cli: str
    form: Words
    api: Words
    python: Words

    def words(self, face: Face) -> Words:
        return self.form if face == "form" else self.api if face == "api" else self.python


def _hours(minutes: re.Match[str]) -> str:
    """A deadline said in minutes ("--deadline 45min"), in hours rounded up to the hundredth: "0.75"."""
    return f"{math.ceil(int(minutes.group(1)) * 100 / 60) / 100:g}"


#: The advisor's CLI flags, in its texts, with each face's words for them. A flag with its value comes
#: before the bare flag, and a phrase before the flags it holds, which would match inside it.
OPTION_WORDS: tuple[OptionWords, ...] = (
    OptionWords(
        r"--latency-targets none",
        "“Latency targets: none”",
        '"latency_targets": "none"',
        'latency_targets="none"',
    ),
    OptionWords(r"--ttft-ms (\d+)", r"“TTFT max (ms)” \1", r'"ttft_ms_max": \1', r"ttft_ms_max=\1"),
    OptionWords(r"--tpot-ms (\d+)", r"“TPOT max (ms)” \1", r'"tpot_ms_max": \1', r"tpot_ms_max=\1"),
    OptionWords(rf"--ttft-ms{_END}", "“TTFT max (ms)”", '"ttft_ms_max"', "ttft_ms_max="),
    OptionWords(rf"--tpot-ms{_END}", "“TPOT max (ms)”", '"tpot_ms_max"', "tpot_ms_max="),
    OptionWords(r"--budget (\d+(?:\.\d+)?)", r"“Budget ($)” \1", r'"budget_usd": \1', r"budget_usd=\1"),
    OptionWords(rf"--budget{_END}", "“Budget ($)”", '"budget_usd"', "budget_usd="),
    OptionWords(
        r"--deadline (\d+)h\b", r"“Deadline (hours)” \1", r'"deadline_hours": \1', r"deadline_hours=\1"
    ),
    OptionWords(
        r"--deadline (\d+)min\b",
        lambda m: f"“Deadline (hours)” {_hours(m)}",
        lambda m: f'"deadline_hours": {_hours(m)}',
        lambda m: f"deadline_hours={_hours(m)}",
    ),
    OptionWords(rf"--deadline{_END}", "“Deadline (hours)”", '"deadline_hours"', "deadline_hours="),
    OptionWords(rf"--spot{_END}", "“Spot allowed: yes”", '"spot_allowed": true', "spot_allowed=True"),
    OptionWords(
        rf"--interruptible{_END}", "“Interruptible: yes”", '"interruptible": true', "interruptible=True"
    ),
    OptionWords(
        rf"--include-stale{_END}",
        "“Include stale offers: yes” (under Advanced)",
        '"include_stale": true',
        "include_stale=True",  # a keyword of gpuscout.advice / gpuscout.recommend
    ),
    OptionWords(
        rf"--show-rejected{_END}",
        'the JSON API\'s "show_rejected": true',
        '"show_rejected": true',
        "include_rejected=True",  # a keyword of gpuscout.advice / gpuscout.recommend
    ),
    OptionWords(
        rf"--db{_END}",
        "the server's GPUSCOUT_DB",
        "the server's GPUSCOUT_DB",
        "db=",  # a keyword of gpuscout.advice / gpuscout.recommend
    ),
    OptionWords(r"--precision ([\w.-]+)", r"“Precision” \1", r'"precision": "\1"', r'precision="\1"'),
    OptionWords(r"--engine ([\w.:/-]+)", r"“Engine” \1", r'"engine": "\1"', r'engine="\1"'),
    OptionWords(rf"--engine{_END}", "“Engine”", '"engine"', "engine="),
    OptionWords(
        r"--concurrency N or --rps R",
        "“Concurrency” or “Requests per second”",
        '"concurrency" or "requests_per_s"',
        "concurrency= or requests_per_s=",
    ),
    OptionWords(rf"--concurrency{_END}", "“Concurrency”", '"concurrency"', "concurrency="),
    OptionWords(rf"--rps{_END}", "“Requests per second”", '"requests_per_s"', "requests_per_s="),
    OptionWords(
        rf"--monthly-tokens{_END}",
        "“Output tokens per month”",
        '"monthly_output_tokens"',
        "monthly_output_tokens=",
    ),
    OptionWords(r"--egress-gb (\d+(?:\.\d+)?)", r"“Egress (GB)” \1", r'"egress_gb": \1', r"egress_gb=\1"),
    OptionWords(rf"--egress-gb{_END}", "“Egress (GB)”", '"egress_gb"', "egress_gb="),
    OptionWords(rf"--dataset-gb{_END}", "“Dataset (GB)”", '"dataset_gb"', "dataset_gb="),
    OptionWords(rf"--micro-batch{_END}", "“Micro-batch”", '"micro_batch"', "micro_batch="),
    OptionWords(
        r"--adapter-dtype (\w+)", r"“Adapter dtype” \1", r'"adapter_dtype": "\1"', r'adapter_dtype="\1"'
    ),
    OptionWords(rf"--seq-len{_END}", "“Sequence length”", '"seq_len"', "seq_len="),
)

_COMPILED: tuple[tuple[re.Pattern[str], OptionWords], ...] = tuple(
    (re.compile(o.cli), o) for o in OPTION_WORDS
)


def say(text: str, face: Face) -> str:
    """``text`` with the advisor's CLI flags named in ``face``'s words."""
    if "--" not in text:  # most texts name no option
        return text
    for pattern, option in _COMPILED:
        text = pattern.sub(option.words(face), text)
    return text


def form_words(text: str) -> str:
    """An advisor text with its CLI flags (``--budget 937``) named as the web form's fields."""
    return say(text, "form")


def api_words(text: str) -> str:
    """An advisor text with its CLI flags named as the JSON API's workload fields (``"budget_usd": 937``)."""
    return say(text, "api")


def python_words(text: str) -> str:
    """An advisor text with its CLI flags named as the Python API's workload fields and the keywords of
    ``gpuscout.advice`` (``budget_usd=937``, ``include_stale=True``)."""
    return say(text, "python")


_T = TypeVar("_T", bound=Advice | Recommendation | Config | EstimateSummary | Move)
_ADVISOR_TYPES = (Advice, Recommendation, Config, EstimateSummary, Move)
_ADVISOR_NAMES = tuple(t.__name__ for t in _ADVISOR_TYPES)


def translate_advice(advice: Advice, face: Face) -> Advice:
    """A copy of ``advice`` with every text in it (targets, notes, binding, the picks' rule, and each row's
    reasons, warnings, why it was left out, substitution and assumptions, shown and rejected rows alike)
    in ``face``'s words. The offers are the catalog's, not the advisor's words: they are kept as they are."""
    if face not in FACES:
        raise ValueError(f"face: {face!r} is not one of {', '.join(FACES)}")
    return _copy(advice, face)


def translate_recommendation(rec: Recommendation, face: Face) -> Recommendation:
    """One row of an answer in ``face``'s words, as :func:`translate_advice` gives each of its rows."""
    if face not in FACES:
        raise ValueError(f"face: {face!r} is not one of {', '.join(FACES)}")
    return _copy(rec, face)


_TEXT_FIELDS: dict[type, tuple[str, ...]] = {}


def _text_fields(kind: type) -> tuple[str, ...]:
    """The fields of an advisor type that may hold its words: a text, texts, or an advisor type holding
    them (by their annotations; not a figure, nor the catalog's ``Offer``)."""
    names = _TEXT_FIELDS.get(kind)
    if names is None:
        names = _TEXT_FIELDS[kind] = tuple(
            f.name
            for f in dataclasses.fields(kind)
            if re.search(r"\bstr\b", str(f.type)) or any(name in str(f.type) for name in _ADVISOR_NAMES)
        )
    return names


def _copy(obj: _T, face: Face) -> _T:
    changes = {}
    for name in _text_fields(type(obj)):
        value = getattr(obj, name)
        new = _value(value, face)
        if new is not value:
            changes[name] = new
    return dataclasses.replace(obj, **changes) if changes else obj


def _value(value: Any, face: Face) -> Any:
    """``value`` in ``face``'s words (the same object where nothing changes)."""
    if isinstance(value, str):
        new = say(value, face)
        return value if new == value else new
    if isinstance(value, _ADVISOR_TYPES):
        return _copy(value, face)
    if isinstance(value, tuple):
        items = tuple(_value(v, face) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = {k: _value(v, face) for k, v in value.items()}
        return value if all(pairs[k] is v for k, v in value.items()) else pairs
    return value
