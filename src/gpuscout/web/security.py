"""Security headers on every response: a strict Content-Security-Policy and friends.

Everything the pages use is served by the app itself (CSS, our JS, Plotly, Swagger UI), so scripts
are limited to ``'self'`` and there is no inline script anywhere: chart data travels in
``<script type="application/json">`` blocks (not executed) that our own JS parses. Inline *styles*
are allowed because Plotly and Swagger UI set ``style`` attributes on the elements they draw.

``Permissions-Policy`` turns off the device and payment features no page uses (nothing embedded can
ask for them either). The ``Server`` header is not sent: ``gpuscout serve`` starts uvicorn with
``server_header=False`` (see ``cli/web_cmds.py``) and the middleware drops one an app layer adds.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", PERMISSIONS_POLICY.encode()),
)
HIDDEN_HEADERS = frozenset({b"server", b"x-powered-by"})


class SecurityHeadersMiddleware:
    """Pure ASGI middleware (cheaper than ``BaseHTTPMiddleware``) adding ``SECURITY_HEADERS``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in HIDDEN_HEADERS]
                present = {name.lower() for name, _ in headers}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message["headers"] = [*headers, *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)
