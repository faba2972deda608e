"""FastAPI dependencies: the ``WebServices`` of the running app."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gpuscout.web.services import WebServices


async def get_services(request: Request) -> WebServices:
    # async: a plain attribute read, not worth a hop to the thread pool
    services: WebServices = request.app.state.services
    return services


Services = Annotated[WebServices, Depends(get_services)]
