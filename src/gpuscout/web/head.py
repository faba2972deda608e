"""``HEAD`` on every page: answered as the ``GET`` it stands for, with its headers and no body.

FastAPI routes declared with ``@router.get`` answer ``HEAD`` with 405 (Starlette adds ``HEAD`` to plain
routes, FastAPI's do not). Link checkers, uptime probes and caches use ``HEAD``; this pure ASGI
middleware runs the request as ``GET`` and drops the body, keeping ``content-length`` (the size a
``GET`` would send).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGetMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest follows; send one empty final body
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)
