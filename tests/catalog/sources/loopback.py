"""Misbehaving HTTP servers on 127.0.0.1 for deadline tests: one that accepts and never answers, one
that trickles its body a byte at a time. Loopback only; ``stop()`` closes every connection."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


class LoopbackServer:
    """``mode``: ``"hang"`` (read the request, never answer) or ``"trickle"`` (send 200 headers with
    a Content-Length of 1 MB, then one space every ``interval_s``)."""

    def __init__(self, mode: str, interval_s: float = 0.5) -> None:
        if mode not in ("hang", "trickle"):
            raise ValueError(mode)
        self.mode = mode
        self.interval_s = interval_s
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = int(self._sock.getsockname()[1])
        self.connections = 0
        self._stop = threading.Event()
        self._clients: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for client in list(self._clients):
            with contextlib.suppress(OSError):
                client.close()
        with contextlib.suppress(OSError):
            self._sock.close()
        self._thread.join(5)

    def _accept(self) -> None:
        self._sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                client, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            self._clients.append(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with contextlib.suppress(OSError):
            client.settimeout(0.5)
            with contextlib.suppress(TimeoutError):
                client.recv(65536)  # the request (not parsed)
            if self.mode == "trickle":
                client.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
                )
            while not self._stop.wait(self.interval_s):
                if self.mode == "trickle":
                    client.sendall(b" ")


@contextlib.contextmanager
def loopback(mode: str, interval_s: float = 0.5) -> Iterator[LoopbackServer]:
    server = LoopbackServer(mode, interval_s).start()
    try:
        yield server
    finally:
        server.stop()


def closed_port() -> int:
    """A loopback port nothing listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
