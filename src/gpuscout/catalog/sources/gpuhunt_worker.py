"""gpuhunt in a worker process that can be stopped: the parent waits up to a hard deadline, then
kills it.

gpuhunt is synchronous and downloads with ``urllib`` / ``requests`` calls that have no timeout, so
a server that accepts a connection and never answers (or trickles its body) would hold a thread
for ever, and a thread cannot be stopped. A process can: :func:`run_worker` starts one (``spawn``,
so no lock of the parent's threads is inherited), waits for its answer up to the deadline, and
terminates (then kills) it if it is not done. gpuhunt's items come back as plain dicts.

The ``collect_*`` functions run *inside* the worker; they import nothing of gpuscout beyond this
module.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
from collections.abc import Callable
from typing import Any

from gpuscout.catalog.sources.base import format_seconds as seconds

ITEM_FIELDS = (
    "instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "gpu_memory",
    "spot", "disk_size", "flags",
)  # fmt: skip
KILL_GRACE_S = 2.0


class WorkerTimeout(Exception):
    """The worker did not answer by its deadline and was stopped."""


class WorkerFailed(Exception):
    """The worker raised (``kind`` is the exception's type name, ``missing_credentials`` for gpuhunt's
    MissingCredsError) or died."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)


# --- inside the worker -------------------------------------------------------------------------


def _plain(item: Any) -> dict[str, Any]:
    out = {f: getattr(item, f, None) for f in ITEM_FIELDS}
    out["flags"] = [str(f) for f in (out["flags"] or [])]
    return out


def _gpu_items(items: Any) -> list[dict[str, Any]]:
    return [_plain(i) for i in items if getattr(i, "gpu_count", 0)]


def collect_offline_dir(provider: str) -> list[dict[str, Any]]:
    """One provider's catalog from ``$GPUHUNT_CATALOG_DIR/<provider>.csv`` (nothing downloaded)."""
    import gpuhunt

    return _gpu_items(gpuhunt.Catalog(balance_resources=False, auto_reload=False).query(provider=provider))


def collect_offline(version: str | None) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Download every offline catalog gpuhunt publishes: provider -> (version, GPU items). A provider
    whose download failed is missing (gpuhunt keeps going); none at all raises gpuhunt's error."""
    import gpuhunt

    catalog = gpuhunt.Catalog(balance_resources=False, auto_reload=False)
    catalog.load(version=version)
    out: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for provider, loaded in catalog.catalog.items():
        out[provider] = (str(loaded.version), _gpu_items(catalog.query(provider=provider)))
    return out


def collect_online(module: str, cls: str) -> list[dict[str, Any]]:
    """One online provider's current items (its credentials come from the environment)."""
    import gpuhunt

    provider_cls = getattr(importlib.import_module(module), cls)
    try:
        provider = provider_cls.from_env()
    except gpuhunt.MissingCredsError as exc:
        raise WorkerFailed("missing_credentials", str(exc)) from exc
    return _gpu_items(provider.get(query_filter=gpuhunt.QueryFilter(), balance_resources=True))


def _describe(exc: BaseException) -> str:
    """``Type: message``, followed by the root cause gpuhunt wraps (e.g. the network error)."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc:
        text += f" (cause: {type(cause).__name__}: {cause})"
    return text[:600]


def _child(conn: Any, target: str, args: tuple[Any, ...]) -> None:
    logging.getLogger("gpuhunt").addHandler(logging.NullHandler())
    logging.getLogger("gpuhunt").propagate = False  # gpuscout reports failures per source instead
    module, _, name = target.partition(":")
    try:
        fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
        conn.send(("ok", fn(*args)))
    except WorkerFailed as exc:
        conn.send(("error", exc.kind, str(exc)))
    except BaseException as exc:
        conn.send(("error", type(exc).__name__, _describe(exc)))
    finally:
        conn.close()


# --- in the parent -----------------------------------------------------------------------------


def run_worker(target: str, args: tuple[Any, ...], timeout_s: float, what: str) -> Any:
    """Run ``module:function(*args)`` in a new process and return its value; at ``timeout_s`` the
    process is terminated (then killed) and :class:`WorkerTimeout` raised. The child's exception
    comes back as :class:`WorkerFailed`."""
    ctx = multiprocessing.get_context("spawn")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(sender, target, args), name=f"gpuscout-{what}", daemon=True)
    proc.start()
    sender.close()
    finished = False
    try:
        if not receiver.poll(max(0.0, timeout_s)):
            raise WorkerTimeout(
                f"{what} did not finish within {seconds(timeout_s)}; its worker process was stopped"
            )
        try:
            answer = receiver.recv()
        except (EOFError, OSError):
            proc.join(KILL_GRACE_S)
            raise WorkerFailed("died", f"{what}: the worker process exited (code {proc.exitcode})") from None
        finished = True
    finally:
        receiver.close()
        _stop(proc, finished)
    if answer[0] == "ok":
        return answer[1]
    _, kind, message = answer
    raise WorkerFailed(kind, message)


def _stop(proc: Any, finished: bool) -> None:
    """Reap a worker that answered (it exits by itself); terminate, then kill, one that did not."""
    if finished:
        proc.join(KILL_GRACE_S)
    if proc.is_alive():
        proc.terminate()
        proc.join(KILL_GRACE_S / 4)
    if proc.is_alive():
        proc.kill()
        proc.join(KILL_GRACE_S)
    if not proc.is_alive():
        proc.close()
