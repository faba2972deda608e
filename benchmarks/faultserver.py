"""A small HTTP/1.1 server on 127.0.0.1 that misbehaves on request, for ``benchmarks/robustness.py``.

Routes are path prefixes mapped to a :class:`Behaviour`; the longest matching prefix wins and
routes can change between requests. It runs its own event loop in a daemon thread, reads each
request (headers and any body) and then does what the behaviour says: answer, hang, trickle, cut
the body short, reset the connection or redirect. It only ever binds the loopback address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

REASONS = {
    200: "OK",
    302: "Found",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class Behaviour:
    """``kind``: ``answer`` (``status``, ``body``, ``content_type``, ``headers``), ``hang`` (never
    answer), ``trickle`` (headers, then one space every ``interval_s``), ``cut`` (declare
    ``declared`` bytes, send ``body``, close), ``reset`` (RST right after the request)."""

    kind: str = "answer"
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    interval_s: float = 0.5
    declared: int = 0

    @staticmethod
    def json(payload: Any, status: int = 200, **headers: str) -> Behaviour:
        return Behaviour(status=status, body=json.dumps(payload).encode(), headers=headers)  # NaN allowed


class FaultServer:
    def __init__(self) -> None:
        self.routes: dict[str, Behaviour] = {}
        self.hits: dict[str, int] = {}
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self._run, name="faultserver", daemon=True)

    def start(self) -> FaultServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fault server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    def drop_connections(self) -> None:
        """Close every open connection (ends hanging and trickling answers)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(lambda: [w.close() for w in list(self._writers)])

    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()

        async def serve() -> None:
            server = await asyncio.start_server(self._client, "127.0.0.1", 0, backlog=256)
            self.port = int(server.sockets[0].getsockname()[1])
            self._ready.set()

        loop.run_until_complete(serve())
        loop.run_forever()

    def _route(self, path: str) -> tuple[str, Behaviour | None]:
        prefix = max((p for p in self.routes if path.startswith(p)), key=len, default="")
        return prefix, self.routes.get(prefix)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                request = await reader.readline()
                if not request:
                    return
                parts = request.decode("latin-1").split()
                if len(parts) < 2:
                    return
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip() or 0)
                if length:
                    await reader.readexactly(length)
                path = parts[1].split("?", 1)[0]
                prefix, behaviour = self._route(path)
                self.hits[prefix] = self.hits.get(prefix, 0) + 1
                if behaviour is None:
                    behaviour = Behaviour(status=404, body=b'{"error": "no route"}')
                if not await self._behave(reader, writer, behaviour):
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    @staticmethod
    def _head(status: int, content_type: str, length: int, headers: dict[str, str]) -> bytes:
        lines = [
            f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}",
            f"Content-Type: {content_type}",
            f"Content-Length: {length}",
            "Connection: keep-alive",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _behave(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, b: Behaviour) -> bool:
        """Act out ``b``; True when the connection may serve another request."""
        if b.kind == "answer":
            writer.write(self._head(b.status, b.content_type, len(b.body), b.headers) + b.body)
            await writer.drain()
            return True
        if b.kind == "hang":
            await reader.read()  # until the client gives up
            return False
        if b.kind == "trickle":
            writer.write(self._head(200, "application/json", 1_000_000, {}))
            while True:
                await writer.drain()
                await asyncio.sleep(b.interval_s)
                writer.write(b" ")
        if b.kind == "cut":
            writer.write(self._head(200, "application/json", b.declared, {}) + b.body)
            await writer.drain()
            return False
        if b.kind == "reset":
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False
        raise ValueError(f"unknown behaviour {b.kind!r}")


def closed_port() -> int:
    """A loopback port nothing listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
