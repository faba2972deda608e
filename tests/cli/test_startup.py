"""Start-up: a command imports only what it uses, and the lazy command table is the whole CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gpuscout.cli import COMMANDS, app, coercion
from gpuscout.cli.lazy import load_command
from gpuscout.estimate.arguments import whole_number_text

HEAVY = ("sqlalchemy", "httpx", "yaml", "fastapi", "uvicorn", "jinja2", "gpuhunt", "rich.progress")

_PROBE = """
import json, os, sys
from gpuscout.cli import main
def _exit(code):  # the lean answer ends the process at once: see the modules it used first
    raise SystemExit(code)
os._exit = _exit
sys.argv = ["gpuscout", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def _modules(args: list[str], data_dir: Path) -> set[str]:
    env = {"GPUSCOUT_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin", "HOME": str(data_dir)}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args)], capture_output=True, text=True, env=env, timeout=120
    )
    line = out.stdout.rsplit("MODULES ", 1)[1]
    return set(json.loads(line))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules]


@pytest.fixture(scope="module")
def ready_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("data")
    subprocess.run(
        [sys.executable, "-m", "gpuscout", "offers", "--limit", "1"],
        env={"GPUSCOUT_DATA_DIR": str(data), "PATH": "/usr/bin:/bin", "HOME": str(data)},
        capture_output=True,
        check=True,
        timeout=120,
    )  # the first use creates the store and loads the bundled snapshot
    return data


def test_help_imports_no_catalog_store_no_pydantic(ready_data_dir: Path) -> None:
    modules = _modules(["--help"], ready_data_dir)
    assert _loaded(modules, (*HEAVY, "pydantic", "gpuscout.catalog.store", "gpuscout.catalog.reader")) == []


@pytest.mark.parametrize(
    "args",
    [
        ["offers", "--gpu", "H100"],
        ["offers", "--limit", "0", "--json"],
        ["offers", "--sort", "tflops_per_dollar", "--csv", "--region", "us"],
    ],
)
def test_offers_on_a_ready_store_imports_no_sqlalchemy_http_or_yaml(
    args: list[str], ready_data_dir: Path
) -> None:
    modules = _modules(args, ready_data_dir)
    assert _loaded(modules, (*HEAVY, "pydantic", "gpuscout.cli.help_cache")) == []
    assert "gpuscout.catalog.reader" in modules


@pytest.mark.parametrize(
    "args",
    [
        ["offers", "--gpu", "H100"],
        ["offers", "--limit", "0", "--json"],
        ["offers", "--gpu", "A100", "--csv", "--provider", "vast"],
    ],
)
def test_offers_on_a_pipe_imports_neither_typer_nor_rich(args: list[str], ready_data_dir: Path) -> None:
    """A renter's most common command is answered by the lean path (cli/lean.py), its table written
    for the pipe without Rich."""
    modules = _modules(args, ready_data_dir)
    assert _loaded(modules, ("typer", "click", "rich", "platformdirs")) == []
    assert "gpuscout.cli.lean" in modules


_RECOMMEND = ["recommend", "serve", "llama-3.1-8b", "-c", "32"]


def test_recommend_on_a_ready_store_imports_no_sqlalchemy_http_or_web(ready_data_dir: Path) -> None:
    modules = _modules(_RECOMMEND, ready_data_dir)
    assert _loaded(modules, tuple(n for n in HEAVY if n != "yaml")) == []
    assert "typer._adapters" not in modules  # options converted without Typer's pydantic adapters


def test_recommend_without_a_workload_file_imports_no_yaml(ready_data_dir: Path) -> None:
    assert "yaml" not in _modules(_RECOMMEND, ready_data_dir)


def test_the_command_table_lists_every_registered_command() -> None:
    """``COMMANDS`` (the lazy table) names exactly the commands each module registers."""
    by_module: dict[str, set[str]] = {}
    for name, module in COMMANDS.items():
        by_module.setdefault(module, set()).add(name)
    for module, names in by_module.items():
        registered = typer.Typer()
        __import__(module, fromlist=["register"]).register(registered)
        found = {
            info.name or typer.main.get_command_name(info.callback.__name__)  # type: ignore[union-attr]
            for info in registered.registered_commands
        } | {g.name for g in registered.registered_groups}
        assert found == names, module


def test_unknown_command_is_refused_with_the_known_ones() -> None:
    result = CliRunner().invoke(app, ["ofers"])
    assert result.exit_code == 2 and "No such command" in result.output


# ---- plain option conversion ---------------------------------------------------------------------
SAMPLES = ["0", "7", "-3", "12", "1.5", "-0.25", "1e9", "2E-3", "abc", "", " 5 ", "1_000", "+3", "007", "nan",
           "inf", "1.", ".5", "3,5", "9" * 30, "0x10", "٣"]  # fmt: skip


def _all_params() -> list[tuple[str, Any]]:
    out = []
    for name, module in COMMANDS.items():
        command = load_command(module, name)
        for sub in [command, *getattr(command, "commands", {}).values()]:
            out.extend((f"{name} {sub.name}", p) for p in sub.params)
    return out


def _typer_convert(param: Any, value: Any) -> tuple[str, Any]:
    own = coercion.build_runtime_param(param.type_descriptor)
    try:
        return "ok", own._coerce_value(value, param=param, ctx=None)
    except Exception as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.skipif(coercion.RuntimeParam is None, reason="this Typer converts through click types")
def test_every_option_converts_as_typer_converts_it() -> None:
    checked = 0
    for where, param in _all_params():
        runtime = getattr(param, "_runtime_param", None)
        if not isinstance(runtime, coercion.PlainRuntimeParam) or runtime.kind is None:
            continue
        samples: list[Any] = [*SAMPLES, [*SAMPLES[:3]], ("4", "x")] if runtime.is_list else [*SAMPLES, 3, 2.5]
        for value in samples:
            try:
                mine: tuple[str, Any] = ("ok", runtime._coerce_value(value, param=param, ctx=None))
            except Exception as exc:
                mine = (type(exc).__name__, str(exc))
            theirs = _typer_convert(param, value)
            checked += 1
            if theirs[0] != "ok" and runtime.kind in (int, float) and isinstance(value, str):  # house shape
                whole = whole_number_text(value) if runtime.kind is int and isinstance(value, str) else None
                if whole is not None:  # an int typed as 1e9 or 2.0 is that count (its range says the rest)
                    assert mine in (("ok", whole), theirs) or mine[0] == "InvalidInputError", (where, value)
                    continue
                assert mine[0] == "InvalidInputError" and "(accepted: " in mine[1], (where, value, mine)
                continue
            assert repr(mine) == repr(theirs), (where, param.name, value)  # repr: nan is nan
            assert type(mine[1]) is type(theirs[1]), (where, param.name, value)
    assert checked > 500


# ---- the root help, replayed ------------------------------------------------------------------------
def _help(args: list[str], data_dir: Path, **env: str) -> tuple[int, str, set[str]]:
    base = {"GPUSCOUT_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin", "HOME": str(data_dir), **env}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=base,
        timeout=120,
    )
    text, _, modules = out.stdout.rpartition("\nMODULES ")
    return out.returncode, text, set(json.loads(modules))


@pytest.mark.parametrize("args", [["--help"], []])
def test_the_root_help_is_replayed_byte_for_byte_without_typer(args: list[str], tmp_path: Path) -> None:
    first = _help(args, tmp_path, COLUMNS="120")
    again = _help(args, tmp_path, COLUMNS="120")
    assert "typer" in first[2] and "typer" not in again[2]  # the second is a replay
    assert again[:2] == first[:2] and "recommend" in first[1]
    other = _help(args, tmp_path, COLUMNS="90")  # another width is another render
    assert "typer" in other[2] and max(len(line) for line in other[1].splitlines()) <= 90


def test_the_root_help_works_where_it_cannot_be_kept(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    first = _help(["--help"], blocked, COLUMNS="100")
    assert "Usage" in first[1] and _help(["--help"], blocked, COLUMNS="100")[:2] == first[:2]


# ---- every help, lazily built, is the eager app's -------------------------------------------------
def _eager_app() -> typer.Typer:
    """The CLI as one eager Typer app: the root's settings and callback, every module registered."""
    from gpuscout.cli import root
    from gpuscout.cli.output import GpuscoutGroup

    eager = typer.Typer(
        name="gpuscout", cls=GpuscoutGroup, help=root.app.info.help, no_args_is_help=True,
        add_completion=False, pretty_exceptions_enable=False,
    )  # fmt: skip
    eager.callback()(root._root)
    for module in dict.fromkeys(COMMANDS.values()):
        __import__(module, fromlist=["register"]).register(eager)
    return eager


def _helps() -> list[list[str]]:
    recommend = ["serve", "batch", "finetune", "pretrain"]
    return [
        ["--help"],
        *([name, "--help"] for name in COMMANDS),
        *(["recommend", k, "--help"] for k in recommend),
    ]


@pytest.mark.parametrize("args", _helps(), ids=" ".join)
def test_every_help_is_what_the_eager_app_prints(args: list[str]) -> None:
    """The lazy root (its listing without building options, each command built alone) prints the
    same help as the whole app built at once, for the root, every command and every subcommand."""
    lazy = CliRunner().invoke(app, args, prog_name="gpuscout", env={"COLUMNS": "100"})
    eager = CliRunner().invoke(_eager_app(), args, prog_name="gpuscout", env={"COLUMNS": "100"})
    assert lazy.exit_code == eager.exit_code == 0, lazy.output
    assert "Usage: gpuscout" in lazy.output and lazy.output == eager.output


# ---- what the replayed help never serves ---------------------------------------------------------
def test_an_edited_command_module_is_a_new_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key reads the command modules' content: an edit that keeps the size and the file time (a
    checkout, an upgrade that keeps wheel times) is still a new render."""
    from gpuscout.cli import help_cache

    module = tmp_path / "offers_cmds.py"
    module.write_text('"""List offers."""\n')
    real = help_cache._files_of
    monkeypatch.setattr(help_cache, "_files_of", lambda m: [module] if m == "gpuscout.cli" else real(m))
    before = help_cache._key(["--help"], sys.stdout)
    stat = module.stat()
    module.write_text('"""Show offers."""\n')
    import os

    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert module.stat().st_size == stat.st_size and help_cache._key(["--help"], sys.stdout) != before


def test_a_failed_or_unreadable_render_is_never_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuscout.cli import help_cache

    monkeypatch.setattr(help_cache, "_folder", lambda: tmp_path)

    def broken() -> None:
        print("Usage: gpuscout")
        print("Traceback: something failed", file=sys.stderr)
        raise SystemExit(0)

    def crashed() -> None:
        print("Usage: gpuscout")
        raise RuntimeError("no")

    with pytest.raises(SystemExit):
        help_cache.record(["--help"], broken)  # wrote to stderr
    with pytest.raises(RuntimeError):
        help_cache.record(["--help"], crashed)
    with pytest.raises(SystemExit):
        help_cache.record(["--help"], lambda: (print("Usage: gpuscout"), sys.exit(1)))
    assert list(tmp_path.iterdir()) == []
    key = help_cache._key(["--help"], sys.stdout)
    for garbage in (b"", b"x\nUsage", b"1\nUsage", b"0\n"):  # torn, not a code, an error code, empty
        (tmp_path / f"{key}.out").write_bytes(garbage)
        assert help_cache.replay(["--help"]) is None
