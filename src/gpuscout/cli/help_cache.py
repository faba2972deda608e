"""The root help (``gpuscout``, ``gpuscout --help``) replayed from a file once Typer has rendered it.

Importing Typer and its Rich help renderer costs more than the answer is worth for the one screen a
new user asks for first. So the root help Typer writes is kept in the data dir (``help/``), under a
key of everything it depends on: the command modules' files (their content: the docstrings are the
help), the gpuscout version, the Typer, Click and Rich files installed (path, size and time), the
Python, the arguments, whether the output is a terminal and its size, and the environment (colour
and width variables, locale, the data dir). The next identical call writes the same bytes without
importing Typer. Any difference in the key is a new render, so a fresh checkout, an edited command
or an upgraded package never replays an old screen. Only a clean render is kept (exit 0 or 2, text
on stdout, nothing on stderr); a kept file that cannot be read back, or a cache that cannot be
written, is simply not used.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import IO, Any

#: Environment variables that never change what the help looks like (they change between calls).
_VOLATILE_ENV = frozenset({"PWD", "OLDPWD", "SHLVL", "_", "TMUX_PANE", "WINDOWID", "SSH_CLIENT",
                           "SSH_CONNECTION", "SSH_TTY", "TERM_SESSION_ID", "SECURITYSESSIONID"})  # fmt: skip
_KEEP = 32  # renders kept (one per terminal size / environment seen)
_FORMAT = "2"  # of the kept files and the key: a change makes every older file unused
_KEPT_CODES = (0, 2)  # ``--help`` exits 0, ``gpuscout`` alone 2 (Click's no-args help)


def _files_of(module: str) -> list[Path]:
    spec = find_spec(module)
    origin = spec.origin if spec is not None else None
    if not origin:
        return []
    return sorted(Path(origin).parent.rglob("*.py"))  # with subpackages (Typer's vendored Click)


def _key(args: list[str], stdout: Any) -> str:
    from gpuscout import __version__
    from gpuscout.settings import environment_items

    parts: list[str] = [_FORMAT, __version__, sys.version, sys.executable, repr(args)]
    own = hashlib.sha256()
    for path in _files_of("gpuscout.cli"):  # the help itself: by content, whatever the file times
        own.update(b"%s\0%s\0" % (path.name.encode(), path.read_bytes()))
    parts.append(own.hexdigest())
    for module in ("typer", "click", "rich"):
        for path in _files_of(module):
            stat = path.stat()
            parts.append(f"{path}:{stat.st_mtime_ns}:{stat.st_size}")
    try:
        tty = stdout.isatty()
        size = os.get_terminal_size(stdout.fileno()) if tty else None
    except (OSError, ValueError, AttributeError):
        tty, size = False, None
    parts += [f"tty={tty}", f"size={size}", f"encoding={getattr(stdout, 'encoding', None)}"]
    parts += [f"{k}={v}" for k, v in environment_items() if k not in _VOLATILE_ENV]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _folder() -> Path:
    from gpuscout.catalog.paths import data_dir

    return data_dir() / "help"


def replay(args: list[str]) -> int | None:
    """Write the kept render of this root help and return its exit code; ``None`` when there is none."""
    try:
        data = (_folder() / f"{_key(args, sys.stdout)}.out").read_bytes()
        head, _, text = data.partition(b"\n")
        code = int(head)
        out = sys.stdout.buffer
    except (OSError, ValueError, ImportError, AttributeError):
        return None
    if code not in _KEPT_CODES or not text:
        return None
    out.write(text)
    sys.stdout.flush()
    return code


class _Tee:
    """A stream as it is (a terminal stays a terminal for Rich), also remembering what is written."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self.written: list[str] = []

    def write(self, text: str) -> int:
        count = self._stream.write(text)  # first: click probes with bytes, which a text stream refuses
        self.written.append(text)
        return count

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def record(args: list[str], run: Any) -> None:
    """Run the CLI (``run()``, which exits) and keep the root help it writes for :func:`replay`."""
    key = _key(args, sys.stdout)
    tee, errors = _Tee(sys.stdout), _Tee(sys.stderr)
    sys.stdout, sys.stderr = tee, errors
    code: object = 0
    try:
        run()
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
        raise
    except BaseException:
        code = None  # a crash is never kept
        raise
    finally:
        sys.stdout, sys.stderr = tee._stream, errors._stream
        text = "".join(tee.written)
        if code in _KEPT_CODES and text.strip() and not "".join(errors.written):
            assert isinstance(code, int)
            _keep(key, code, text)


def _keep(key: str, code: int, text: str) -> None:
    try:
        folder = _folder()
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{key}.{os.getpid()}.tmp"
        tmp.write_bytes(b"%d\n" % code + text.encode(sys.stdout.encoding or "utf-8", "replace"))
        tmp.replace(folder / f"{key}.out")
        kept = sorted(folder.glob("*.out"), key=lambda p: p.stat().st_mtime)
        for old in kept[:-_KEEP]:
            old.unlink(missing_ok=True)
    except (OSError, ValueError, ImportError):
        pass  # a read-only data dir: the help is rendered every time
