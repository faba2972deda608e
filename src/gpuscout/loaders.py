"""Reading what users keep in files, and model configs from the Hugging Face Hub: the edge between the
file system / network and the pure core.

* :func:`model_from_hf_config`: a ``config.json`` file (or an already-parsed mapping) -> ``ModelSpec``;
* :func:`model_from_hub`: fetch only ``config.json`` of a Hub repo (never weights) -> ``ModelSpec``;
* :func:`workload_from_file`: a ``.yaml``/``.yml``/``.json`` workload file -> a workload.

The parsing itself is the core's (:func:`gpuscout.knowledge.hf_config.spec_from_hf_config`,
:meth:`gpuscout.advise.workload.Workload.from_yaml`); this module only reads, and turns every read
failure into an :class:`~gpuscout.errors.InvalidInputError` naming the field.
"""

from __future__ import annotations

import errno
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuscout import settings
from gpuscout.errors import GpuscoutError, InvalidInputError, quoted_value

if TYPE_CHECKING:
    from gpuscout.advise.workload import AnyWorkload
    from gpuscout.knowledge.model_types import ModelSpec

#: Larger files are not a config or a workload someone wrote (and are not read into memory).
MAX_FILE_BYTES = 10_000_000


def read_text(path: Path, field: str, what: str) -> str:
    """The UTF-8 text of a user's file, or an error naming ``field`` (missing, unreadable, too large,
    not text)."""
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise InvalidInputError(field, f"cannot read {path}: no such file", what) from None
    except OSError as exc:
        raise InvalidInputError(field, f"cannot read {path}: {exc.strerror or exc}", what) from None
    if len(data) > MAX_FILE_BYTES:
        raise InvalidInputError(field, f"{path} is larger than {MAX_FILE_BYTES:,} bytes", what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInputError(
            field, f"{path} is not UTF-8 text (UTF-16, or a binary file?)", what
        ) from None


def model_from_hf_config(
    path_or_dict: str | Path | Mapping[str, Any], *, name: str | None = None
) -> ModelSpec:
    """Build a ``ModelSpec`` from a Hugging Face ``config.json`` given as a path or an already-parsed dict.

    A file's model name defaults to its folder (``.../Qwen--Qwen3-8B/config.json`` -> ``qwen3-8b``) or
    its stem when the config has no ``_name_or_path``.
    """
    from gpuscout.knowledge.hf_config import spec_from_hf_config

    if isinstance(path_or_dict, Mapping):
        return spec_from_hf_config(path_or_dict, name=name)
    path = Path(path_or_dict)
    text = read_text(path, "config", "path to a Hugging Face config.json")
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InvalidInputError("config", f"cannot read {path} as JSON: {exc}") from None
    if not isinstance(raw, Mapping):
        raise InvalidInputError("config", f"{path} does not hold a JSON object")
    if name is None and not raw.get("_name_or_path"):
        stem = path.parent.name if path.name == "config.json" else path.stem
        name = stem.rsplit("--", 1)[-1].lower() or None
    return spec_from_hf_config(raw, name=name, source=f"config.json file {path.name}")


#: The longest a Hub fetch of ``config.json`` may take (``settings.HUB_DEADLINE_S``, one place): the Hub
#: library waits up to 10 s for each request and, where no copy is cached, retries a failed one five times
#: over about 23 s (printing each try); a config of a few kB arrives in a second. Lowered by
#: ``GPUSCOUT_REFRESH_TIMEOUT`` (the project's deadline of a network fetch) where that is shorter.
HUB_DEADLINE_S = settings.HUB_DEADLINE_S
#: A fetch still running after this long may be retrying a request that could not connect: the Hub's
#: host is then looked up and connected to once (:func:`_reach`), and where that fails the fetch fails
#: at once, saying why, rather than after the library's retries.
HUB_CHECK_AFTER_S = 1.0
#: The longest that check waits for the name lookup and the connection.
HUB_CHECK_TIMEOUT_S = 5.0
#: What the error of a fetch that failed says to do instead.
HUB_INSTEAD = (
    "download the model's config.json (the repo's Files tab) and import the file: "
    "gpuscout models import ./config.json"
)

_mute_lock = threading.Lock()
_mute_count = 0
_mute_level = 0  # logging.NOTSET (logging is imported by a fetch only)


@contextmanager
def _hub_logging_muted() -> Iterator[None]:
    """The Hub library's log records (its "Retrying in 1s [Retry 1/5]" lines) dropped while a fetch runs:
    gpuscout says what failed, once. Counted, so that fetches running at once (or one still retrying
    after its caller gave up) unmute only when the last ends; its retries never use ``warnings``."""
    import logging

    global _mute_count, _mute_level
    hub_log = logging.getLogger("huggingface_hub")
    with _mute_lock:
        if _mute_count == 0:
            _mute_level = hub_log.level
            hub_log.setLevel(logging.CRITICAL + 1)
        _mute_count += 1
    try:
        yield
    finally:
        with _mute_lock:
            _mute_count -= 1
            if _mute_count == 0:
                hub_log.setLevel(_mute_level)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it was raised from or during, once each."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        stack += [e.__cause__, e.__context__]


#: The errno values of a connection that could not be made (no route, refused, reset).
_NO_CONNECTION = frozenset(
    {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ECONNREFUSED, errno.ECONNRESET, errno.ENETDOWN}
)


def _network_failure(exc: BaseException, host: str, timeout_s: float) -> str | None:
    """What failed, where ``exc`` (or what it was raised from) is a network failure: the host's name did
    not resolve (DNS), no connection could be made, no answer came in time, or the Hub library is in
    offline mode; None for any other error (a missing or gated repo, a refused token)."""
    import socket

    causes = list(_chain(exc))
    names = {type(e).__name__ for e in causes}
    if "OfflineModeIsEnabled" in names:
        return "the Hub library is in offline mode (HF_HUB_OFFLINE is set) and has no copy of it cached"
    for e in causes:
        if isinstance(e, socket.gaierror):
            return f"no network: the name {host} does not resolve (DNS: {e.strerror or e})"
    if any(isinstance(e, TimeoutError) or "Timeout" in type(e).__name__ for e in causes):
        return f"timeout: {host} did not answer within {timeout_s:g} s"
    for e in causes:
        if isinstance(e, ConnectionError) or (isinstance(e, OSError) and e.errno in _NO_CONNECTION):
            return f"no network: cannot connect to {host} ({e.strerror or e})"
        if type(e).__name__ in ("ConnectError", "ConnectionError", "NetworkError"):
            return f"no network: cannot connect to {host} ({e})"
    return None


def _hub_host() -> tuple[str, int]:
    """The Hub's host and port (``HF_ENDPOINT``, else huggingface.co)."""
    from urllib.parse import urlsplit

    try:
        from huggingface_hub import constants

        endpoint = str(constants.ENDPOINT)
    except (ImportError, AttributeError):
        endpoint = "https://huggingface.co"
    url = urlsplit(endpoint)
    try:
        port = url.port
    except ValueError:
        port = None
    return url.hostname or "huggingface.co", port or (80 if url.scheme == "http" else 443)


def _reach(host: str, port: int, timeout_s: float) -> BaseException | None:
    """The error of looking ``host`` up and connecting to it once (None where that works, or where a
    proxy is set: the library connects through it, and a direct connection says nothing)."""
    import socket
    from urllib.request import getproxies  # http.client, ssl, email: only when a fetch is under way

    if any(k in getproxies() for k in ("http", "https", "all")):
        return None
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as exc:
        return exc
    return None


def _in_thread(fn: Callable[[], Any]) -> tuple[threading.Event, dict[str, Any]]:
    """``fn`` run in a daemon thread (which a caller that stops waiting leaves behind; it cannot keep
    the process alive): (set when it ends, its ``result`` or ``error``)."""
    done = threading.Event()
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = fn()
        except BaseException as exc:  # handed to the caller
            out["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="gpuscout-hub", daemon=True).start()
    return done, out


def _hub_deadline() -> float:
    from gpuscout.settings import Settings

    try:
        project = Settings.from_env().refresh_timeout_s
    except GpuscoutError:
        project = HUB_DEADLINE_S  # a bad setting is the refresh's to report
    return min(HUB_DEADLINE_S, project)


def _cached_config(repo_id: str, revision: str | None) -> Path | None:
    """The repo's ``config.json`` in the local HF cache (a copy fetched before), else None: what the Hub
    library returns itself when the network fails, used where gpuscout gives up on the network first."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    except Exception:  # a cache the library cannot read is no copy
        return None
    return Path(found) if isinstance(found, str) else None


def hub_config_file(repo_id: str, *, revision: str | None = None, deadline_s: float | None = None) -> Path:
    """The local path of ``config.json`` of Hub repo ``repo_id`` (fetched, or from the HF cache).

    Bounded: the fetch (every request and retry of the Hub library) gives up after ``deadline_s``
    (default :func:`_hub_deadline`), even where the server takes the connection and never answers; one
    that cannot reach the Hub (the name does not resolve, no connection) fails after about
    :data:`HUB_CHECK_AFTER_S`, not after the library's retries, whose log lines are not shown. The
    error names the repo, what failed and what to do instead (:data:`HUB_INSTEAD`)."""
    if not repo_id or repo_id.count("/") != 1:
        raise InvalidInputError("hub", f"expected a repo id like 'org/model', got {quoted_value(repo_id)}")
    try:
        from huggingface_hub import hf_hub_download
    except ImportError as exc:
        raise GpuscoutError(
            "reading from the Hub needs huggingface_hub: pip install 'gpuscout[hub]'"
        ) from exc
    deadline = _hub_deadline() if deadline_s is None else deadline_s
    per_request = min(10.0, deadline)  # the library's own wait per request, at most the deadline
    host, port = _hub_host()
    what = f"could not fetch config.json of {repo_id!r} from the Hugging Face Hub"

    def fetch() -> str:
        with _hub_logging_muted():
            return str(
                hf_hub_download(
                    repo_id=repo_id, filename="config.json", revision=revision, etag_timeout=per_request
                )
            )

    started = time.monotonic()
    done, out = _in_thread(fetch)
    if not done.wait(min(HUB_CHECK_AFTER_S, deadline)):
        # still at it: where the Hub cannot be reached at all, the library is retrying in vain
        check_done, check = _in_thread(lambda: _reach(host, port, min(HUB_CHECK_TIMEOUT_S, deadline)))
        left = deadline - (time.monotonic() - started)
        check_done.wait(max(0.0, min(HUB_CHECK_TIMEOUT_S, left)))
        failed = check.get("result")
        if failed is not None and not done.is_set():
            cached = _cached_config(repo_id, revision)  # what the library would fall back to, in time
            if cached is not None:
                return cached
            wait = min(HUB_CHECK_TIMEOUT_S, deadline)
            unreachable = _network_failure(failed, host, wait) or f"cannot reach {host} ({failed})"
            raise InvalidInputError("hub", f"{what}: {unreachable}; {HUB_INSTEAD}")
        left = deadline - (time.monotonic() - started)
        if not done.wait(max(0.0, left)):
            cached = _cached_config(repo_id, revision)
            if cached is not None:
                return cached
            raise InvalidInputError(
                "hub", f"{what}: timeout: no answer from {host} within {deadline:g} s; {HUB_INSTEAD}"
            )
    error = out.get("error")
    if error is None:
        return Path(out["result"])
    if not isinstance(error, Exception):
        raise error
    why = _network_failure(error, host, per_request)
    if why is not None:
        raise InvalidInputError("hub", f"{what}: {why}; {HUB_INSTEAD}") from error
    # a missing or gated repo, a refused token: the library's words
    raise InvalidInputError("hub", f"{what} ({type(error).__name__}: {error})") from error


def model_from_hub(repo_id: str, *, revision: str | None = None, name: str | None = None) -> ModelSpec:
    """Fetch only ``config.json`` of ``repo_id`` from the Hugging Face Hub (never weights) and import it.

    Needs the optional ``huggingface_hub`` package (``pip install gpuscout[hub]``) and network access
    (or a warm local HF cache). Gated repos need ``HF_TOKEN`` in the environment.
    """
    local = hub_config_file(repo_id, revision=revision)
    spec = model_from_hf_config(local, name=name or repo_id.rsplit("/", 1)[1].lower())
    return replace(spec, hf_id=repo_id, source=f"Hugging Face Hub {repo_id} config.json")


def workload_from_file(path: str | Path) -> AnyWorkload:
    """Read a workload from a ``.yaml``/``.yml``/``.json`` file the user keeps."""
    from gpuscout.advise.workload import Workload

    p = Path(path)
    text = read_text(p, "workload", "a readable YAML or JSON workload file")
    return Workload.from_json(text) if p.suffix.lower() == ".json" else Workload.from_yaml(text)
