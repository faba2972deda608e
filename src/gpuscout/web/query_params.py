"""The query strings of the JSON API, read strictly: a parameter the route does not take, or one that
takes one value given twice, is a 422 naming it, as an unknown field of a POST body is.

FastAPI by itself drops a parameter it does not know (``/api/v1/estimate?prompt=4000`` computed at the
default 512 input tokens) and keeps the last of a repeated one (``gpus=2&gpus=4`` used 4).
:class:`StrictQueryRoute`, the route class of the ``/api/v1`` router, checks the query string against
the parameters the route declares before FastAPI reads it:

- a name the route does not declare: :class:`UnknownParameterError`, with every accepted name, the
  closest first;
- a name given more than once: accepted when the route declares a list (FastAPI reads every value), or
  a comma-separated list marked :data:`COMMA_LIST` (the values are joined with commas, as the CLI's
  repeatable option adds to its list: ``gpu=H100&gpu=A100`` is ``gpu=H100,A100``, as ``gpuscout offers
  --gpu H100 --gpu A100``); any other: :class:`RepeatedParameterError`.

The parameters are read from the route's dependencies (its own, those it depends on, and the fields of
a pydantic model given as ``Query()``), so a route states its parameters once, where FastAPI reads them.

The HTML pages read their query strings by the same rules, said their own way: a form page
(:func:`one_value_each`) puts what is wrong above its form, in the words of these errors
(``model: given 2 times ('a', 'b') (accepted: one value)``), a list field's repeats joined as here; a page
that takes no parameters (:func:`no_query_parameters`) answers the error page.
"""

from __future__ import annotations

import collections.abc
import difflib
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from inspect import isclass
from typing import Any, get_origin
from urllib.parse import parse_qsl, urlencode

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from starlette.types import Receive, Scope, Send

from gpuscout.errors import InvalidInputError
from gpuscout.web.form_errors import strip_optional


class CommaList:
    """Marks a query parameter holding a comma-separated list (``Annotated[str | None, COMMA_LIST]``):
    given more than once, its values are joined with commas."""

    def __repr__(self) -> str:
        return "COMMA_LIST"


COMMA_LIST = CommaList()


class UnknownParameterError(InvalidInputError):
    """A query parameter the route does not take; ``accepted`` lists those it takes, the closest first."""

    def __init__(self, name: str, accepted: Sequence[str]) -> None:
        if not accepted:
            super().__init__(name, "unknown parameter: this route takes no query parameters")
            self.accepted = "no query parameters"  # said in the message already
        else:
            super().__init__(name, "unknown parameter", ", ".join(closest_first(name, accepted)))


class RepeatedParameterError(InvalidInputError):
    """A query parameter that takes one value, given more than once."""

    def __init__(self, name: str, values: Sequence[str]) -> None:
        shown = ", ".join(repr(v[:40]) for v in values[:4]) + (", ..." if len(values) > 4 else "")
        super().__init__(name, f"given {len(values)} times ({shown})", "one value")


def closest_first(name: str, names: Sequence[str]) -> list[str]:
    """``names`` ordered by their likeness to ``name`` (case-insensitive), the closest first; equally
    close names keep their order."""
    key = name.lower()
    ranked = sorted(
        enumerate(names), key=lambda p: (-difflib.SequenceMatcher(None, key, p[1].lower()).ratio(), p[0])
    )
    return [n for _, n in ranked]


@dataclass(frozen=True, slots=True)
class QuerySpec:
    """What a route reads from the query string: its parameter names (in declared order), those that
    take several values (FastAPI lists) and the comma-separated lists whose repeats are joined."""

    names: tuple[str, ...]
    lists: frozenset[str] = frozenset()
    joined: frozenset[str] = frozenset()


def query_spec(dependant: Dependant) -> QuerySpec:
    """The query parameters of a route's dependant (see the module docstring)."""
    names: dict[str, None] = {}
    lists: set[str] = set()
    joined: set[str] = set()
    for name, info in _query_fields(dependant):
        names[name] = None
        if any(isinstance(m, CommaList) for m in info.metadata):
            joined.add(name)
        elif _is_sequence(info.annotation):
            lists.add(name)
    return QuerySpec(tuple(names), frozenset(lists), frozenset(joined))


def query_fields(dependant: Dependant) -> dict[str, FieldInfo]:
    """Every query parameter a route's dependant reads, by its name in the query string, with its
    declaration (type, range, length): what the API's errors say is accepted."""
    return dict(_query_fields(dependant))


def _query_fields(dependant: Dependant) -> Iterator[tuple[str, FieldInfo]]:
    """(name in the query string, declaration) of every query parameter ``dependant`` reads."""
    for field in dependant.query_params:
        info = field.field_info
        model = strip_optional(info.annotation)
        if isclass(model) and issubclass(model, BaseModel):  # a pydantic model read as Query()
            for name, inner in model.model_fields.items():
                yield inner.alias or name, inner
        else:
            yield field.alias, info
    for sub in dependant.dependencies:
        yield from _query_fields(sub)


def _is_sequence(annotation: Any) -> bool:
    origin = get_origin(strip_optional(annotation))
    return (
        isclass(origin)
        and issubclass(origin, collections.abc.Sequence | collections.abc.Set)
        and (origin not in (str, bytes))
    )


def checked_query(query_string: bytes, spec: QuerySpec) -> bytes:
    """``query_string`` when every parameter is one ``spec`` takes, given once unless it takes several;
    with the repeats of a comma-separated list joined. Otherwise :class:`UnknownParameterError` or
    :class:`RepeatedParameterError` for the first parameter at fault."""
    # read as Starlette reads it for the route (QueryParams): Latin-1 text, blank values kept
    items = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    values: dict[str, list[str]] = {}
    for name, value in items:
        if name not in spec.names:
            raise UnknownParameterError(name, spec.names)
        values.setdefault(name, []).append(value)
    repeated = [n for n, v in values.items() if len(v) > 1 and n not in spec.lists]
    for name in repeated:
        if name not in spec.joined:
            raise RepeatedParameterError(name, values[name])
    if not repeated:
        return query_string
    out: list[tuple[str, str]] = []
    for name, given in values.items():
        if name in repeated:
            out.append((name, ",".join(p for v in given for p in [v.strip()] if p)))
        else:
            out.extend((name, v) for v in given)
    return urlencode(out).encode("ascii")


class StrictQueryRoute(APIRoute):
    """An API route whose query string holds only the parameters it declares (module docstring)."""

    @cached_property
    def query_spec(self) -> QuerySpec:
        return query_spec(self.dependant)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") in (self.methods or ()):
            checked = checked_query(scope.get("query_string", b""), self.query_spec)
            if checked is not scope.get("query_string"):
                scope = {**scope, "query_string": checked}
        await super().handle(scope, receive, send)


# ---- the HTML pages -------------------------------------------------------------------------------------
def list_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of ``model`` that hold several values: a comma-separated list (:data:`COMMA_LIST`: the
    offers filters' ``gpu``, ``provider``, ``region``) or a sequence (a workload's ``regions``)."""
    return frozenset(
        name
        for name, info in model.model_fields.items()
        if any(isinstance(m, CommaList) for m in info.metadata) or _is_sequence(info.annotation)
    )


def one_value_each(
    items: Iterable[tuple[str, str]], lists: Collection[str] = ()
) -> tuple[dict[str, str], list[str]]:
    """A page's query parameters (``request.query_params.multi_items()``), one value each, and an error for
    each parameter given more than once that takes one value (in :class:`RepeatedParameterError`'s words:
    the page must not answer for the last value as if the others were not there). A parameter of
    ``lists`` (comma-separated) given more than once has its values joined with commas, as the API joins
    a :data:`COMMA_LIST`'s (``gpu=H100&gpu=A100`` is ``gpu=H100,A100``); a repeated one keeps its last
    value, for the form to show."""
    values: dict[str, list[str]] = {}
    for name, value in items:
        values.setdefault(name, []).append(value)
    out: dict[str, str] = {}
    errors: list[str] = []
    for name, given in values.items():
        if len(given) > 1 and name in lists:
            out[name] = ",".join(p for v in given for p in [v.strip()] if p)
            continue
        if len(given) > 1:
            errors.append(str(RepeatedParameterError(name, given)))
        out[name] = given[-1]
    return out, errors


def no_query_parameters(names: Iterable[str]) -> None:
    """Nothing when ``names`` (a page's query parameters) is empty; else an :class:`InvalidInputError`
    naming the first, for the error page: a page that takes no parameters must not answer as if one
    given were not there (``/gpus/H100-SXM?gpus=8`` shows no 8-GPU offers)."""
    given = next(iter(names), None)
    if given is not None:
        raise InvalidInputError(
            given[:40], "not a parameter of this page, which takes none", "no query parameters"
        )


def folded(value: object) -> object:
    """A keyword value as the CLI reads it (``NVLink``, `` MAX ``): lower case, no surrounding space; any
    other value as it is, for the field's own check."""
    return value.strip().lower() if isinstance(value, str) else value
