"""Turning errors into responses: JSON (``ErrorOut``) for the API, an HTML page for the pages.

Every error says what is ``accepted``: a validation error of FastAPI (a value out of a parameter's
range, of the wrong type, missing) says it from the parameter's own declaration (its range, where the
limit is kept once: ``/api/v1/estimate?concurrency=0`` accepts ``1..1000000``, as ``gpuscout estimate
--concurrency 0`` says); an error of ours without it, from the parameter the route declares under
that name, else from what it is about (a known name, with the closest)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from inspect import isclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from starlette.exceptions import HTTPException as StarletteHTTPException

from gpuscout.errors import GpuscoutError, InvalidInputError, UnknownNameError, WrongModelKind
from gpuscout.estimate.arguments import ContextPastWindow, imported_config
from gpuscout.web import model_view
from gpuscout.web.form_errors import accepted_text, strip_optional
from gpuscout.web.query_params import closest_first, query_fields
from gpuscout.web.schemas import ErrorOut
from gpuscout.web.templating import render


class NotFoundError(UnknownNameError):
    """An unknown name in the URL path (``/gpus/{name}``): answered with 404 and the closest names."""

    @classmethod
    def wrap(cls, exc: UnknownNameError) -> NotFoundError:
        return cls(exc.field, exc.name, exc.suggestions, ambiguous=exc.ambiguous, reason=exc.reason)


def wants_json(request: Request) -> bool:
    """Whether an error goes out as JSON: the API, and a file export read as JSON (``/offers.json``)."""
    path = request.url.path
    return path.startswith("/api/") or path.endswith(".json") or path == "/healthz"


#: What an unknown name of these fields may be, and where the API lists them (an engine: the error's
#: own ``accepted``, every engine name). Any other field: "a known <field> name".
NAMES_ACCEPTED: dict[str, str] = {
    "gpu": "a GPU name or alias, as GET /api/v1/gpus lists them",
    "accelerator": "a GPU name or alias, as GET /api/v1/gpus lists them",
    "accelerators": "GPU names or aliases, as GET /api/v1/gpus lists them",
    "model": "a model name, alias or Hugging Face id, as GET /api/v1/models lists them",
    "source": "a source GET /api/v1/sources lists",
    "provider": "a known provider id",
    "providers": "a known provider id",
    "region": "a known region",
    "regions": "a known region",
}


def error_body(exc: GpuscoutError, route: object = None, *, api: bool = True) -> ErrorOut:
    """``exc`` as the API's error; ``route`` (the route that raised it) says what is accepted where
    ``exc`` does not; ``api``: for the JSON API (a model of another kind is pointed to its routes), else
    for a page (to its pages). A context past the model's window names where the web app takes a
    config.json, its ``model`` parameter (a model imported from it), not the Python API's words."""
    if isinstance(exc, ContextPastWindow):
        exc = exc.given_as(imported_config("model"))
    if isinstance(exc, UnknownNameError):
        kind = "not_found" if isinstance(exc, NotFoundError) else "unknown_name"
        return ErrorOut(
            error="invalid_input" if exc.empty else kind,  # no name at all is no unknown name
            field=exc.field,
            message=str(exc),
            accepted=_names_accepted(exc),
            suggestions=exc.suggestions,
        )
    if isinstance(exc, WrongModelKind):  # where the web app answers that kind, not the CLI's commands
        words = model_view.other_kind_words(exc, api=api)
        return ErrorOut(
            error="invalid_input", field=exc.field, message=f"{exc.field}: {words}", accepted=exc.accepted
        )
    if isinstance(exc, InvalidInputError):
        # an error across fields ("give one of batch, concurrency or request_rate") accepts one of them
        across = f"one of {', '.join(exc.names)}" if exc.names else None
        accepted = exc.accepted or across or _declared(route, exc.field) or "as the message says"
        return ErrorOut(error="invalid_input", field=exc.field, message=str(exc), accepted=accepted)
    return ErrorOut(error="invalid_input", message=str(exc))


def _names_accepted(exc: UnknownNameError) -> str:
    """What an unknown name's field accepts (the error's own ``accepted``, else NAMES_ACCEPTED's words),
    with the closest known names (the matching ones where the name is ambiguous)."""
    what = exc.accepted or NAMES_ACCEPTED.get(exc.field, f"a known {exc.field.replace('_', ' ')} name")
    if exc.empty:  # no name given: a few known ones, unless the accepted words already list them all
        return f"{what} (e.g. {', '.join(exc.suggestions)})" if exc.suggestions and not exc.accepted else what
    if exc.suggestions:
        label = "matching" if exc.ambiguous else "closest"
        return f"{what} ({label}: {', '.join(exc.suggestions)})"
    return what


def _declared(route: object, name: str) -> str | None:
    """What the parameter ``name`` of ``route`` accepts by its declaration (a query parameter, or a
    field of the body's model), ``None`` when the route declares no such parameter."""
    if not isinstance(route, APIRoute):
        return None
    info = query_fields(route.dependant).get(name)
    if info is None:
        info = _body_field(route, (name,))
    return accepted_text(info) if info is not None else None


def _body_field(route: APIRoute, path: Sequence[str | int]) -> FieldInfo | None:
    """The declaration of the body field at ``path`` (a pydantic model's fields, nested)."""
    model: Any = route.body_field.field_info.annotation if route.body_field is not None else None
    info: FieldInfo | None = None
    for part in path:
        if not (isclass(model) and issubclass(model, BaseModel)) or part not in model.model_fields:
            return None
        info = model.model_fields[str(part)]
        model = strip_optional(info.annotation)
    return info


def _body_model(route: APIRoute, path: Sequence[str | int]) -> type[BaseModel] | None:
    """The pydantic model of the body object at ``path`` (``()``: the body itself)."""
    model: Any = route.body_field.field_info.annotation if route.body_field is not None else None
    if path:
        info = _body_field(route, path)
        model = strip_optional(info.annotation) if info is not None else None
    return model if isclass(model) and issubclass(model, BaseModel) else None


def validation_accepted(route: object, err: Mapping[str, Any]) -> str:
    """What the parameter of one FastAPI validation error accepts: its declaration's range and type
    (:func:`~gpuscout.web.form_errors.accepted_text`), the fields of its object for an unknown body
    field, else what pydantic's error says it expected."""
    loc = tuple(err.get("loc", ()))
    kind = str(err.get("type", ""))
    if isinstance(route, APIRoute) and len(loc) >= 2:
        where, path = loc[0], loc[1:]
        if kind == "extra_forbidden" and where == "body":
            model = _body_model(route, path[:-1])
            if model is not None:
                return ", ".join(closest_first(str(path[-1]), list(model.model_fields)))
        info = None
        if where == "query":
            info = query_fields(route.dependant).get(str(path[0]))
        elif where == "body":
            info = _body_field(route, path)
        elif where in ("path", "header", "cookie"):
            params = getattr(route.dependant, f"{where}_params")
            info = next((p.field_info for p in params if p.alias == path[0]), None)
        if info is not None:
            text = accepted_text(info)
            return f"required: {text}" if kind == "missing" else text
    return _expected(kind, err.get("ctx") or {})


def _expected(kind: str, ctx: Mapping[str, Any]) -> str:
    """What pydantic's error of ``kind`` says was expected (a parameter whose declaration is not found)."""
    for key, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
        if key in ctx:
            return f"{sign} {ctx[key]}"
    if "expected" in ctx:
        return str(ctx["expected"]).replace("'", "")
    if "pattern" in ctx:
        return f"text matching {ctx['pattern']}"
    if "max_length" in ctx:
        return f"at most {ctx['max_length']:,} characters"
    words = {
        "int_parsing": "a whole number",
        "int_from_float": "a whole number",
        "float_parsing": "a number",
        "finite_number": "a finite number",
        "bool_parsing": "true or false",
        "missing": "a value (the parameter is required)",
        "json_invalid": "a JSON body",
        "model_attributes_type": "a JSON object",
        "dict_type": "a JSON object",
        "list_type": "a JSON array",
        "string_type": "a string",
    }
    return words.get(kind, "a value of the type /docs shows")


def respond(request: Request, status: int, body: ErrorOut) -> Response:
    if wants_json(request):
        return JSONResponse(body.model_dump(), status_code=status)
    return render(request, "error.html", {"status": status, "err": body}, status_code=status)


def _gpuscout_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GpuscoutError)
    status = 404 if isinstance(exc, NotFoundError) else 422
    return respond(request, status, error_body(exc, request.scope.get("route"), api=wants_json(request)))


def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    route = request.scope.get("route")
    errors: list[dict[str, Any]] = []
    for err in exc.errors():
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, GpuscoutError):  # raised by our own parsers inside pydantic validation
            body = error_body(cause, route, api=wants_json(request))
            return respond(request, 404 if isinstance(cause, NotFoundError) else 422, body)
        if err.get("type") == "json_invalid":  # its location is a character offset, not a field
            errors.append(_json_error(err, exc.body))
            continue
        loc = [str(part) for part in err.get("loc", ())]
        empty = err.get("type") == "string_too_short" and not str(err.get("input", "x")).strip()
        errors.append(
            {
                "field": loc[-1] if loc else None,
                "location": loc,
                # an empty name is said to be empty, as the body's fields and the CLI say it, with what
                # the name may be (not pydantic's "String should have at least 1 character")
                "message": "is empty" if empty else err.get("msg", ""),
                "accepted": _empty_accepted(loc[-1] if loc else "", route, err)
                if empty
                else validation_accepted(route, err),
            }
        )
    first = (
        errors[0] if errors else {"field": None, "message": "invalid request", "accepted": "a valid request"}
    )
    body = ErrorOut(
        error="invalid_input",
        field=first["field"],
        message=f"{first['field']}: {first['message']}" if first["field"] else str(first["message"]),
        accepted=first["accepted"],
        errors=errors,
    )
    return respond(request, 422, body)


def _empty_accepted(field: str, route: object, err: Mapping[str, Any]) -> str:
    """What an empty parameter ``field`` accepts: a name of what it names (a GPU, a model, an engine),
    as an unknown name's error says it, else its declaration's words."""
    if field == "engine":
        from gpuscout.estimate.engines import engines_accepted

        return engines_accepted()
    return NAMES_ACCEPTED.get(field) or validation_accepted(route, err)


def _json_error(err: Mapping[str, Any], body: object) -> dict[str, Any]:
    """A body that is not JSON: the error names ``body`` (FastAPI's location of it is the character
    offset where reading stopped), where that is (line, column and offset) and the parser's reason."""
    reason = str((err.get("ctx") or {}).get("error") or err.get("msg") or "JSON decode error")
    loc = tuple(err.get("loc", ()))
    where = ""
    if len(loc) >= 2 and isinstance(loc[1], int):
        pos = loc[1]
        if isinstance(body, str | bytes) and 0 <= pos <= len(body):
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
            line = text.count("\n", 0, pos) + 1
            column = pos - (text.rfind("\n", 0, pos) + 1) + 1
            where = f" at line {line}, column {column} (character {pos})"
        else:
            where = f" at character {pos}"
    return {
        "field": "body",
        "location": ["body"],
        "message": f"is not valid JSON: {reason}{where}",
        "accepted": "a JSON object, as /docs shows for this route",
    }


def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    kind = {404: "not_found", 403: "forbidden", 401: "unauthorized", 405: "method_not_allowed"}
    body = ErrorOut(error=kind.get(exc.status_code, "http_error"), message=str(exc.detail))
    response = respond(request, exc.status_code, body)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(GpuscoutError, _gpuscout_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
