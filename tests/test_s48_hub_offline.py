"""Importing a model from the Hub without a network fails fast, quietly, and says what to do.

``gpuscout models import Qwen/Qwen2.5-7B`` with no internet took 23.6 s: huggingface_hub retried the
DNS failure five times (1 s ... 8 s apart), printing a line per try, then the raw
"(LocalEntryNotFoundError: ...)". The fetch now runs under a deadline (which holds where a server takes
the connection and never answers), checks after :data:`HUB_CHECK_AFTER_S` that the Hub can be reached
at all, mutes the library's log lines while it runs, and names the model, what failed and what to do.

No test touches the network: the Hub call is replaced (``huggingface_hub.hf_hub_download``, which
``hub_config_file`` calls) and so is the reachability check, but where a local socket stands in.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout import loaders
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.loaders import HUB_INSTEAD, hub_config_file

huggingface_hub = pytest.importorskip("huggingface_hub")
_ = huggingface_hub.hf_hub_download  # imported now: its import sets the library's log level

try:
    from huggingface_hub.errors import LocalEntryNotFoundError, OfflineModeIsEnabled
except ImportError:  # huggingface_hub before 0.23
    from huggingface_hub.utils import LocalEntryNotFoundError, OfflineModeIsEnabled  # type: ignore[no-redef]
REPO = "Qwen/Qwen2.5-7B"
DNS = socket.gaierror(-2, "Name or service not known")


class _Records(logging.Handler):
    """Every record the Hub library's loggers hand on (what its own stream handler would print)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def hub_log() -> Iterator[_Records]:
    records = _Records()
    lib = logging.getLogger("huggingface_hub")
    lib.addHandler(records)
    level = lib.level
    try:
        yield records
    finally:
        lib.removeHandler(records)
        assert lib.level == level  # the mute is undone once the fetches end


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at the end of a test: a fake Hub call that blocks returns (its thread ends)."""
    event = threading.Event()
    yield event
    event.set()
    for thread in threading.enumerate():  # the fetch threads unmute as they end
        if thread.name == "gpuscout-hub":
            thread.join(10)


@pytest.fixture(autouse=True)
def _hub_at_huggingface_co(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default endpoint and deadline, whatever the environment says."""
    monkeypatch.setattr(loaders, "_hub_host", lambda: ("huggingface.co", 443))
    monkeypatch.delenv("GPUSCOUT_REFRESH_TIMEOUT", raising=False)


def _retrying(release: threading.Event, error: BaseException) -> Any:
    """A stand-in for hf_hub_download where no connection can be made: it logs the library's retry lines
    (as ``huggingface_hub.utils._http`` does) and keeps retrying until ``release``, then fails."""

    def download(repo_id: str, filename: str, **_: Any) -> str:
        log = logging.getLogger("huggingface_hub.utils._http")
        for n in range(1, 6):
            log.warning(
                f"'{error}' thrown while requesting HEAD https://huggingface.co/{repo_id}/resolve/main"
            )
            log.warning(f"Retrying in {2 ** (n - 1)}s [Retry {n}/5].")
            if release.wait(0.2):
                break
        else:
            release.wait(30)
        raise LocalEntryNotFoundError("An error happened ... local cache.") from error

    return download


def test_a_dns_failure_fails_within_seconds_without_the_retry_lines(
    monkeypatch: pytest.MonkeyPatch, hub_log: _Records, release: threading.Event
) -> None:
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", _retrying(release, DNS))
    monkeypatch.setattr(loaders, "_reach", lambda host, port, timeout: DNS)  # the name does not resolve
    started = time.monotonic()
    with pytest.raises(InvalidInputError) as err:
        hub_config_file(REPO)
    took = time.monotonic() - started
    assert took < loaders.HUB_CHECK_AFTER_S + 1.0  # not the library's 23 s of retries
    said = str(err.value)
    assert err.value.field == "hub"
    assert f"config.json of {REPO!r}" in said
    assert "no network: the name huggingface.co does not resolve (DNS: Name or service not known)" in said
    assert said.endswith(HUB_INSTEAD) and "gpuscout models import ./config.json" in said
    assert "LocalEntryNotFoundError" not in said and "An error happened" not in said
    time.sleep(0.3)  # the library goes on retrying behind: still quiet
    assert hub_log.lines == []


def test_a_server_that_never_answers_is_given_up_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch, hub_log: _Records, release: threading.Event
) -> None:
    def hangs(repo_id: str, filename: str, **_: Any) -> str:
        release.wait(60)
        raise AssertionError("never answered")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", hangs)
    monkeypatch.setattr(loaders, "_reach", lambda host, port, timeout: None)  # it takes the connection
    started = time.monotonic()
    with pytest.raises(InvalidInputError) as err:
        hub_config_file(REPO, deadline_s=0.5)
    assert 0.45 <= time.monotonic() - started < 2.0
    said = str(err.value)
    assert f"{REPO!r}" in said and "timeout: no answer from huggingface.co within 0.5 s" in said
    assert said.endswith(HUB_INSTEAD)


def test_the_deadline_follows_the_projects_network_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUSCOUT_REFRESH_TIMEOUT", "7")
    assert loaders._hub_deadline() == 7.0
    monkeypatch.setenv("GPUSCOUT_REFRESH_TIMEOUT", "600")
    assert loaders._hub_deadline() == loaders.HUB_DEADLINE_S < 60


@pytest.mark.parametrize(
    ("cause", "said"),
    [
        (DNS, "no network: the name huggingface.co does not resolve (DNS: Name or service not known)"),
        (ConnectionRefusedError(111, "Connection refused"), "no network: cannot connect to huggingface.co"),
        (TimeoutError("timed out"), "timeout: huggingface.co did not answer within 10 s"),
        (
            OfflineModeIsEnabled("offline"),
            "the Hub library is in offline mode (HF_HUB_OFFLINE is set)",
        ),
    ],
)
def test_a_network_failure_the_library_reports_is_named(
    monkeypatch: pytest.MonkeyPatch, hub_log: _Records, cause: BaseException, said: str
) -> None:
    # what the library raises once it gives up (at once in offline mode, or in versions that do not retry)
    def fails(repo_id: str, filename: str, **_: Any) -> str:
        logging.getLogger("huggingface_hub.file_download").warning("No local file found. Retrying..")
        raise LocalEntryNotFoundError("An error happened ... local cache.") from cause

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fails)
    with pytest.raises(InvalidInputError) as err:
        hub_config_file(REPO)
    text = str(err.value)
    assert said in text and f"{REPO!r}" in text and text.endswith(HUB_INSTEAD)
    assert "An error happened" not in text
    assert hub_log.lines == []


def test_another_hub_error_keeps_the_librarys_words(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(repo_id: str, filename: str, **_: Any) -> str:
        raise ValueError("404 Client Error: Repository Not Found")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", missing)
    with pytest.raises(InvalidInputError) as err:
        hub_config_file(REPO)
    text = str(err.value)
    assert "Repository Not Found" in text and "no network" not in text and "timeout" not in text


def test_the_reachability_check_on_a_local_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        assert loaders._reach("127.0.0.1", port, 2.0) is None  # it takes the connection
    refused = loaders._reach("127.0.0.1", port, 2.0)  # closed now
    assert isinstance(refused, ConnectionRefusedError)
    assert loaders._network_failure(refused, "127.0.0.1", 10.0) == (
        f"no network: cannot connect to 127.0.0.1 ({refused.strerror})"
    )
    # behind a proxy the library does not connect directly: no check
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    assert loaders._reach("127.0.0.1", port, 2.0) is None


def test_models_import_without_a_network(
    monkeypatch: pytest.MonkeyPatch, hub_log: _Records, release: threading.Event
) -> None:
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", _retrying(release, DNS))
    monkeypatch.setattr(loaders, "_reach", lambda host, port, timeout: DNS)
    started = time.monotonic()
    result = CliRunner().invoke(app, ["models", "import", REPO])
    assert time.monotonic() - started < loaders.HUB_CHECK_AFTER_S + 2.0
    assert result.exit_code != 0
    out = " ".join(result.output.split())
    assert REPO in out and "DNS" in out and "gpuscout models import ./config.json" in out
    assert "Retrying" not in out and "Retry 1/5" not in out and "LocalEntryNotFoundError" not in out
    assert hub_log.lines == []


def test_the_hub_host_is_the_endpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.undo()  # the real _hub_host
    monkeypatch.setattr(constants, "ENDPOINT", "https://hf-mirror.example:8443/")
    assert loaders._hub_host() == ("hf-mirror.example", 8443)
    monkeypatch.setattr(constants, "ENDPOINT", "http://mirror.local")
    assert loaders._hub_host() == ("mirror.local", 80)
    monkeypatch.setattr(constants, "ENDPOINT", "https://huggingface.co")
    assert loaders._hub_host() == ("huggingface.co", 443)


def test_a_cached_copy_is_used_where_the_network_check_fails(
    monkeypatch: pytest.MonkeyPatch, hub_log: _Records, release: threading.Event, tmp_path: Path
) -> None:
    """What the library would return itself (its cached copy) once its retries end: given at once."""
    cached = tmp_path / "config.json"
    cached.write_text("{}")
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", _retrying(release, DNS))
    monkeypatch.setattr(loaders, "_reach", lambda host, port, timeout: DNS)
    monkeypatch.setattr(
        huggingface_hub, "try_to_load_from_cache", lambda repo, name, revision=None: str(cached)
    )
    assert hub_config_file(REPO) == cached
