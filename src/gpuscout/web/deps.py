"""FastAPI dependencies: the ``WebServices`` of the running app."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gpuscout.web.services import WebServices


def get_services(request: Request) -> WebServices:
    services: WebServices = request.app.state.services
    return services


Services = Annotated[WebServices, Depends(get_services)]
