"""Python's cyclic garbage collector paused around a bulk step over offers (reading, checking or storing
100,000 of them; ranking them).

Such a step makes a few hundred thousand objects that stay alive through it (the offers, their
``extra`` mappings, the row tuples; the ranking's groups and rows); the collector, triggered by
allocations, traverses them again and again while they grow, each full collection walking every
live object (the 100,000 offers too): ~10% of an ingest's time, and a full collection in about
every other ranking of 100,000 offers (~70 ms of it on the 2-core machine). It finds nothing to
free. The pause is counted across threads: the collector runs again when the last paused step
ends, and only if it was enabled when the first began. Reference cycles made during a step (the
steps are loops over offers that make few) are freed by the next collection after it. Standard
library only: the core (``advise``) uses it too.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False

#: Below this many offers a step allocates too little for the collector to matter.
MIN_OFFERS = 5_000


@contextmanager
def collection_paused(offers: int = MIN_OFFERS) -> Iterator[None]:
    """The collector paused while the block runs, for a step over ``offers`` offers (not paused for
    fewer than :data:`MIN_OFFERS`)."""
    global _depth, _was_enabled
    if offers < MIN_OFFERS:
        yield
        return
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
