"""A tiny thread-safe LRU cache whose entries expire after a few seconds.

The catalog only changes when a refresh lands, so the web layer keeps the rows of recently used
filter sets for ``ttl`` seconds instead of querying the store on every page view.

Bounded whatever the requests do: at most ``max_entries`` values are kept, an entry older than
``ttl`` is dropped (on its next lookup, and by a sweep at most once per ``ttl``), failures are never
cached, and the per-key locks that make concurrent misses of one key compute it once exist only
while some thread is computing or waiting for that key (a computation that raises leaves nothing
behind).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass(slots=True)
class _Flight:
    """The lock of one key being computed, and how many threads hold or wait for it."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


class TtlCache(Generic[V]):
    def __init__(
        self, ttl: float, max_entries: int = 64, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._data: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()
        self._inflight: dict[Hashable, _Flight] = {}
        self._swept_at = clock()

    def __len__(self) -> int:
        """Values held now (expired ones included until they are swept)."""
        with self._lock:
            return len(self._data)

    @property
    def inflight(self) -> int:
        """Keys being computed (or waited for) right now."""
        with self._lock:
            return len(self._inflight)

    def _fresh(self, key: Hashable) -> tuple[bool, V | None]:
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return False, None
            if self._clock() - hit[0] >= self.ttl:
                del self._data[key]
                return False, None
            self._data.move_to_end(key)
            return True, hit[1]

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The cached value, or ``compute()``; concurrent misses of one key compute it once.

        When ``compute()`` raises, nothing is stored and the exception propagates (a waiting thread
        then computes for itself).
        """
        if self.ttl <= 0:
            return compute()
        found, value = self._fresh(key)
        if found:
            return value  # type: ignore[return-value]
        with self._lock:
            flight = self._inflight.get(key)
            if flight is None:
                flight = self._inflight[key] = _Flight()
            flight.users += 1
        try:
            with flight.lock:
                found, value = self._fresh(key)  # computed by another thread while this one waited
                if found:
                    return value  # type: ignore[return-value]
                computed = compute()
                self._store(key, computed)
                return computed
        finally:
            with self._lock:
                flight.users -= 1
                if flight.users == 0 and self._inflight.get(key) is flight:
                    del self._inflight[key]

    def _store(self, key: Hashable, value: V) -> None:
        with self._lock:
            now = self._clock()
            self._data[key] = (now, value)
            self._data.move_to_end(key)
            if now - self._swept_at >= self.ttl:
                self._swept_at = now
                for old in [k for k, (at, _) in self._data.items() if now - at >= self.ttl]:
                    del self._data[old]
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
