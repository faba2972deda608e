"""A tiny thread-safe LRU cache whose entries expire after a few seconds.

The catalog only changes when a refresh lands, so the web layer keeps the rows of recently used
filter sets for ``ttl`` seconds instead of querying the store on every page view.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class TtlCache(Generic[V]):
    def __init__(self, ttl: float, max_entries: int = 64) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._data: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()
        self._inflight: dict[Hashable, threading.Lock] = {}

    def _fresh(self, key: Hashable) -> tuple[bool, V | None]:
        with self._lock:
            hit = self._data.get(key)
            if hit is not None and time.monotonic() - hit[0] < self.ttl:
                self._data.move_to_end(key)
                return True, hit[1]
        return False, None

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The cached value, or ``compute()``; concurrent misses of one key compute it once."""
        if self.ttl <= 0:
            return compute()
        found, value = self._fresh(key)
        if found:
            return value  # type: ignore[return-value]
        with self._lock:
            key_lock = self._inflight.setdefault(key, threading.Lock())
        with key_lock:
            found, value = self._fresh(key)  # computed by another thread while this one waited
            if found:
                return value  # type: ignore[return-value]
            computed = compute()
            with self._lock:
                self._data[key] = (time.monotonic(), computed)
                self._data.move_to_end(key)
                while len(self._data) > self.max_entries:
                    self._data.popitem(last=False)
                self._inflight.pop(key, None)
            return computed

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
