"""Turning errors into responses: JSON (``ErrorOut``) for the API, an HTML page for the pages."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from gpuscout.errors import GpuscoutError, InvalidInputError, UnknownNameError
from gpuscout.web.schemas import ErrorOut
from gpuscout.web.templating import render


class NotFoundError(UnknownNameError):
    """An unknown name in the URL path (``/gpus/{name}``): answered with 404 and the closest names."""

    @classmethod
    def wrap(cls, exc: UnknownNameError) -> NotFoundError:
        return cls(exc.field, exc.name, exc.suggestions, ambiguous=exc.ambiguous)


def wants_json(request: Request) -> bool:
    """Whether an error goes out as JSON: the API, and a file export read as JSON (``/offers.json``)."""
    path = request.url.path
    return path.startswith("/api/") or path.endswith(".json") or path == "/healthz"


def error_body(exc: GpuscoutError) -> ErrorOut:
    if isinstance(exc, UnknownNameError):
        return ErrorOut(
            error="not_found" if isinstance(exc, NotFoundError) else "unknown_name",
            field=exc.field,
            message=str(exc),
            accepted=exc.accepted,
            suggestions=exc.suggestions,
        )
    if isinstance(exc, InvalidInputError):
        return ErrorOut(error="invalid_input", field=exc.field, message=str(exc), accepted=exc.accepted)
    return ErrorOut(error="invalid_input", message=str(exc))


def respond(request: Request, status: int, body: ErrorOut) -> Response:
    if wants_json(request):
        return JSONResponse(body.model_dump(), status_code=status)
    return render(request, "error.html", {"status": status, "err": body}, status_code=status)


def _gpuscout_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GpuscoutError)
    status = 404 if isinstance(exc, NotFoundError) else 422
    return respond(request, status, error_body(exc))


def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors: list[dict[str, Any]] = []
    for err in exc.errors():
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, GpuscoutError):  # raised by our own parsers inside pydantic validation
            body = error_body(cause)
            return respond(request, 404 if isinstance(cause, NotFoundError) else 422, body)
        loc = [str(part) for part in err.get("loc", ())]
        errors.append({"field": loc[-1] if loc else None, "location": loc, "message": err.get("msg", "")})
    first = errors[0] if errors else {"field": None, "message": "invalid request"}
    body = ErrorOut(
        error="invalid_input",
        field=first["field"],
        message=f"{first['field']}: {first['message']}" if first["field"] else str(first["message"]),
        errors=errors,
    )
    return respond(request, 422, body)


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
