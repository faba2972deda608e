"""``gpuscout offers`` answered without Typer (:mod:`gpuscout.cli.lean`) prints what the Typer app
prints, byte for byte: stdout, stderr and exit code, for a matrix of option combinations, hostile
provider strings, bad values and errors, piped or with the environment that makes Rich treat output
as a terminal, colourless, narrow or not UTF-8. And the table written for a plain pipe
(:func:`~gpuscout.cli.offers_view.pipe_table`) is the text Rich lays out for the same rows."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from gpuscout.cli import lean, offers_view
from gpuscout.cli.markup import plain
from gpuscout.cli.table_fit import PIPE_WIDTH, Column, fitted_table
from tests.cli.hostile import FORMULAS, HTML, MARKUP, hostile_store

# ---- the table for a plain pipe is Rich's -----------------------------------------------------------


def _rich_text(title: str, columns: tuple[Column, ...], rows: list[tuple[str, ...]]) -> str:
    out = io.StringIO()
    console = Console(file=out, width=PIPE_WIDTH, no_color=True, emoji=False)  # wide_console() on a pipe
    table, left_out = fitted_table(title, columns, [tuple(plain(c) for c in row) for row in rows], None)
    assert left_out == []
    console.print(table)
    return out.getvalue()


_words = st.text(alphabet="abcxyz0189-_.:/@()", min_size=1, max_size=60)
_cell = st.one_of(
    st.lists(_words, min_size=0, max_size=5).map(" ".join),  # words, or one long one
    st.text(alphabet="ab -", max_size=30),  # runs of spaces, leading and trailing ones
    st.sampled_from(["", " ", "-", "1.000", "unknown stale"]),
)


@st.composite
def _tables(draw: st.DrawFn) -> tuple[str, tuple[Column, ...], list[tuple[str, ...]]]:
    columns = tuple(
        Column(draw(st.text(alphabet="ab $/#-", min_size=1, max_size=12)), right=draw(st.booleans()))
        for _ in range(draw(st.integers(1, 12)))
    )
    rows = draw(st.lists(st.tuples(*(_cell for _ in columns)), max_size=8))
    return draw(st.text(alphabet="ab 0-9,", max_size=40)), columns, rows


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_tables())
def test_the_pipe_table_is_the_text_rich_prints(
    table: tuple[str, tuple[Column, ...], list[tuple[str, ...]]],
) -> None:
    title, columns, rows = table
    text = offers_view.pipe_table(title, columns, rows)
    if text is not None:  # otherwise Rich prints it
        assert text == _rich_text(title, columns, rows)


def test_the_pipe_table_covers_wide_tables_that_rich_narrows_by_wrapping() -> None:
    """Tables wider than the pipe (the offers table of 30 rows is one) are written here, not left to Rich."""
    columns = offers_view.COLUMNS
    long = "sesterce:H100_668d6762247d03149a4c9474_montreal-canada-2"
    rows = [
        ("spheron", long, "H100-PCIe", "1", "80", "2.508", "2.508", "-", "montreal-canada-2", "unknown",
         "unknown", "snapshot skypilot-catalog@0082b04 v8/hyperbolic " * 2),
        ("lambda", "gpu_1x_h100_pcie", "H100-PCIe", "1", "80", "3.290", "3.290", "-",
         "all listed (17 regions) " * 3, "unknown", "5d stale", "snapshot x"),
    ]  # fmt: skip
    text = offers_view.pipe_table("2 of 2 offers, sorted by price", columns, rows)
    assert text is not None and len(text.splitlines()) > 8  # wrapped rows
    assert text == _rich_text("2 of 2 offers, sorted by price", columns, rows)


@pytest.mark.parametrize(
    "cell", ["[bold]x", "tab\there", "new\nline", "caf\u00e9", "\u5bbd", "x" * 300], ids=repr
)
def test_cells_rich_would_parse_or_measure_itself_are_left_to_rich(cell: str) -> None:
    rows = [(cell, "1")] if len(cell) < 300 else [(cell, cell)]
    columns = (Column("a"), Column("b", right=True))
    assert offers_view.pipe_table("t", columns, rows) is None


# ---- the lean answer is the Typer app's answer ---------------------------------------------------------

#: Runs each argument list through the lean path and through the Typer app (its tables printed by
#: Rich, as before the lean path) in one process, with stdout and stderr captured as a pipe would be
#: (not a terminal, UTF-8 unless PYTHONIOENCODING says).
_BATCH = r"""
import io, json, os, sys
from gpuscout.cli import lean, main
from gpuscout.cli import offers_view

def _exit(code):
    raise SystemExit(code)

os._exit = _exit
encoding = os.environ.get("PYTHONIOENCODING", "utf-8").split(":")[0]

def run(args, use_lean):
    out, err = io.BytesIO(), io.BytesIO()
    streams = [io.TextIOWrapper(b, encoding=encoding, errors="replace") for b in (out, err)]
    sys.stdout, sys.stderr = streams
    sys.argv = ["gpuscout", *args]
    real, real_table = lean.run, offers_view.pipe_table
    if not use_lean:  # the Typer app as it was: every table printed by Rich
        lean.run = lambda args: None
        offers_view.pipe_table = lambda *args: None
    answered = [False]
    if use_lean:
        def probe(args):
            code = real(args)
            answered[0] = code is not None
            return code
        lean.run = probe
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        lean.run, offers_view.pipe_table = real, real_table
        sys.stdout.flush(); sys.stderr.flush()
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    texts = [b.getvalue().decode("latin-1") for b in (out, err)]
    return {"code": code, "out": texts[0], "err": texts[1], "lean": answered[0]}

results = []
for args in json.loads(sys.argv[1]):
    results.append([run(args, True), run(args, False)])
print(json.dumps(results))
"""


def _both_ways(matrix: list[list[str]], data_dir: Path, **env: str) -> list[tuple[list[str], dict, dict]]:
    environ = {
        "GPUSCOUT_DATA_DIR": str(data_dir), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(data_dir), **env,
    }  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", _BATCH, json.dumps(matrix)],
        capture_output=True, text=True, env=environ, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.splitlines()[-1])
    return [(args, lean_run, typer_run) for args, (lean_run, typer_run) in zip(matrix, results, strict=True)]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A ready data dir (its store made by a first ``offers``) and a store of hostile provider strings."""
    folder = tmp_path_factory.mktemp("lean")
    data = folder / "data"
    subprocess.run(
        [sys.executable, "-m", "gpuscout", "offers", "--limit", "1"],
        env={"GPUSCOUT_DATA_DIR": str(data), "PATH": "/usr/bin:/bin", "HOME": str(data)},
        capture_output=True, check=True, timeout=300,
    )  # fmt: skip
    texts = [*MARKUP, *FORMULAS, HTML, "\x1b[31mred", "tab\tin", "long " * 30, "caf\u00e9", "x" * 70]
    hostile = hostile_store(folder / "hostile.sqlite3", texts)
    return {"data": str(data), "hostile": hostile}


def _matrix(hostile: str) -> list[list[str]]:
    return [
        ["offers"],
        ["offers", "--gpu", "H100"],
        ["offers", "--gpu=H100", "--gpu", "A100", "--limit", "5"],
        ["offers", "--gpu", "h100 sxm", "--min-vram", "80", "--gpus", "8", "--sort", "price_per_gpu"],
        ["offers", "--provider", "vast", "--provider=lambda", "--region", "us", "--available"],
        ["offers", "--spot", "--max-price", "2.5", "--sort", "spot_price", "--limit", "0"],
        ["offers", "--on-demand", "--interconnect", "NVLink", "--no-stale", "--limit", "3"],
        ["offers", "--limit", "0"],
        ["offers", "--limit", "0", "--sort", "age"],
        ["offers", "--sort", "tflops_per_dollar", "--csv", "--region", "us"],
        ["offers", "--gpu", "H100", "--limit", "4", "--json"],
        ["offers", "--gpu", "L4", "--csv", "--limit", "0"],
        ["offers", "--gpu", "B200", "--sort", "availability", "--sort", "provider"],  # the last one counts
        ["offers", "--gpu", "MI300X", "--min-vram", "1e3"],  # nothing matches
        ["offers", "--limit", "10", "--db", hostile],
        ["offers", "--limit", "0", "--db", hostile, "--json"],
        ["offers", "--limit", "0", "--db", hostile, "--csv"],
        ["offers", "--db", hostile, "--sort", "instance_type", "--limit", "0"],
        # errors and everything the lean path leaves to Typer
        ["offers", "--gpu", "H1OO"],
        ["offers", "--gpu", "[/x]"],
        ["offers", "--gpu", ""],
        ["offers", "--spot", "--on-demand"],
        ["offers", "--json", "--csv"],
        ["offers", "--interconnect", "infiniband"],
        ["offers", "--sort", "cheapest"],
        ["offers", "--limit", "-1"],
        ["offers", "--limit", "ten"],
        ["offers", "--limit", "1e3"],
        ["offers", "--limit", "+5"],
        ["offers", "--limit", "99999999999"],
        ["offers", "--gpus", "0"],
        ["offers", "--min-vram", "nan"],
        ["offers", "--min-vram", "inf"],
        ["offers", "--min-vram", " 80"],
        ["offers", "--max-price", "-1"],
        ["offers", "--max-price", "1_000"],
        ["offers", "--gpu"],
        ["offers", "--gpu", "--spot"],
        ["offers", "--spot=1"],
        ["offers", "--gp", "H100"],
        ["offers", "--help"],
        ["offers", "H100"],
        ["offers", "--", "--gpu"],
        ["offers", "-h"],
        ["offers", "--db", "sqlite:////nonexistent/dir/x.sqlite3"],
        ["offers", "--region", "\x00"],
        ["offers", "--db", "postgresql+psycopg://u:p@127.0.0.1:1/none"],  # left to Typer: refused there
    ]


def _check(results: list[tuple[list[str], dict, dict]], *, lean_answers: int) -> None:
    for args, lean_run, typer_run in results:
        assert lean_run["code"] == typer_run["code"], args
        assert lean_run["out"] == typer_run["out"], args
        assert lean_run["err"] == typer_run["err"], args
    answered = sum(lean_run["lean"] for _, lean_run, _ in results)
    assert answered >= lean_answers  # the matrix exercises the lean path, not only the fallback


def test_lean_answers_are_the_typer_apps_on_a_pipe(stores: dict[str, str]) -> None:
    results = _both_ways(_matrix(stores["hostile"]), Path(stores["data"]))
    _check(results, lean_answers=18)
    errors = [r for r in results if r[2]["code"] != 0]
    assert len(errors) >= 20 and all(not r[1]["lean"] for r in errors)  # errors are Typer's, as written


@pytest.mark.parametrize(
    "env",
    [
        {"FORCE_COLOR": "1", "COLUMNS": "80"},  # Rich treats the pipe as a terminal: colours, 80 columns
        {"TTY_COMPATIBLE": "1", "COLUMNS": "120", "NO_COLOR": "1"},
        {"FORCE_COLOR": "", "COLUMNS": "60"},
        {"PYTHONIOENCODING": "ascii"},  # Rich draws ASCII boxes
        {"TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "40"},
    ],
    ids=lambda env: ",".join(f"{k}={v}" for k, v in env.items()),
)
def test_lean_answers_are_the_typer_apps_whatever_the_environment(
    stores: dict[str, str], env: dict[str, str]
) -> None:
    matrix = [
        ["offers", "--gpu", "H100"],
        ["offers", "--gpu", "H100", "--spot"],  # a narrow table keeps the spot price the rows are sorted by
        ["offers", "--limit", "8", "--db", stores["hostile"]],
        ["offers", "--gpu", "A100", "--json", "--limit", "2"],
        ["offers", "--gpu", "H1OO"],
        ["offers", "--spot", "--on-demand"],
    ]
    _check(_both_ways(matrix, Path(stores["data"]), **env), lean_answers=3)


def test_the_lean_process_ends_as_the_typer_one(stores: dict[str, str]) -> None:
    """Through the real entry point (``python -m gpuscout``, which ends a lean answer with
    ``os._exit``): the same bytes and exit code as the Typer app run the same way."""
    env = {"GPUSCOUT_DATA_DIR": stores["data"], "PATH": "/usr/bin:/bin", "HOME": stores["data"]}
    typer_main = "import sys; from gpuscout.cli import _app; sys.argv[0] = 'gpuscout'; _app()()"
    lean_main = "import sys; from gpuscout.cli import main; sys.argv[0] = 'gpuscout'; main()"
    for args in (["offers", "--gpu", "H100"], ["offers", "--limit", "0", "--csv"], ["offers", "--gpu", "X9"]):
        runs = [
            subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env, timeout=300)
            for code in (lean_main, typer_main)
        ]
        assert (runs[0].returncode, runs[0].stdout, runs[0].stderr) == (
            runs[1].returncode,
            runs[1].stdout,
            runs[1].stderr,
        ), args


def test_a_closed_pipe_ends_the_lean_answer_quietly_with_exit_1(stores: dict[str, str]) -> None:
    env = {"GPUSCOUT_DATA_DIR": stores["data"], "PATH": "/usr/bin:/bin", "HOME": stores["data"]}
    with subprocess.Popen(
        [sys.executable, "-m", "gpuscout", "offers", "--limit", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    ) as proc:  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader goes away before the answer is written
        err = proc.stderr.read()
        code = proc.wait(timeout=300)
    assert code == 1 and err == b""


def test_parse_offers_reads_only_what_typer_reads_the_same_way() -> None:
    assert lean.parse_offers(["--gpu", "H100", "--gpu=A100", "--limit", "0", "--spot"]) == (
        offers_view.OffersOptions(gpu=["H100", "A100"], limit=0, spot=True)
    )
    assert lean.parse_offers([]) == offers_view.OffersOptions()
    for args in (["--limit", "007"], ["--limit", "-0"], ["--json=yes"], ["-x"], ["--gpu", "-H100"], ["x"]):
        assert lean.parse_offers(args) is None, args
    assert lean.run(["gpus"]) is None and lean.run([]) is None


def test_the_options_defaults_are_the_typer_command_s() -> None:
    """``OffersOptions`` is what both faces pass: its defaults must be the ones Typer gives."""
    import dataclasses
    import inspect

    from gpuscout.cli.catalog_cmds import offers_cmd

    typer_defaults = {}
    for name, param in inspect.signature(offers_cmd).parameters.items():
        default = param.default
        typer_defaults[name] = getattr(default, "default", default)  # typer.Option(...) or a plain value
    ours = {f.name: f.default for f in dataclasses.fields(offers_view.OffersOptions)}
    assert ours == typer_defaults


def test_ctrl_c_ends_the_lean_answer_as_the_typer_app_does(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(offers_view, "find_offers", interrupted)
    monkeypatch.setenv("GPUSCOUT_DB", "sqlite:////tmp/never-opened.sqlite3")
    assert lean.run(["offers"]) == 130  # Typer: Exit(130), nothing printed


def test_a_postgresql_store_is_left_to_the_typer_app(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(_: object) -> None:
        raise AssertionError("the lean path opened the store")

    monkeypatch.setattr(offers_view, "find_offers", never)
    monkeypatch.setenv("GPUSCOUT_DB", "postgresql+psycopg://u:p@127.0.0.1:1/none")
    assert lean.run(["offers", "--gpu", "H100"]) is None


@pytest.mark.parametrize("first", ["template", "store"])
def test_a_first_lean_answer_leaves_a_whole_store(tmp_path: Path, first: str) -> None:
    """The first ``offers`` of a fresh data dir writes its store (from the packaged template, or through
    the Store when the template cannot be used) before the lean answer ends the process at once: the
    store is whole, and the next answer, lean or Typer's, is the same."""
    data = tmp_path / "data"
    env = {"GPUSCOUT_DATA_DIR": str(data), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    if first == "store":  # a data dir whose store is an older schema's: opened (migrated) by the Store
        data.mkdir()
        subprocess.run(
            [sys.executable, "-c", "from gpuscout.catalog.store import Store; Store(None).close()"],
            env=env, check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        with sqlite3.connect(data / "catalog.sqlite3") as conn:
            conn.execute("DELETE FROM current_snapshot WHERE source = 'snapshot'")  # not ready: reloaded
    lean_main = "import sys; from gpuscout.cli import main; sys.argv[0] = 'gpuscout'; main()"
    typer_main = "import sys; from gpuscout.cli import _app; sys.argv[0] = 'gpuscout'; _app()()"
    runs = [
        subprocess.run([sys.executable, "-c", code, "offers", "--gpu", "H100"], env=env, capture_output=True,
                       timeout=300)
        for code in (lean_main, lean_main, typer_main)
    ]  # fmt: skip
    assert runs[0].returncode == 0 and runs[0].stdout.count(b"H100") >= 30
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout and not any(r.stderr for r in runs)
    with sqlite3.connect(data / "catalog.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT COUNT(*) FROM current_snapshot WHERE source = 'snapshot'").fetchone() == (
            1,
        )


def test_the_lean_options_are_the_typer_commands_own() -> None:
    """The lean reader's table of ``offers`` options (a second place for them, kept for start-up) names
    every option of the Typer command with the same parameter, flag or value, and repeatable where
    the command's is."""
    import typer

    from gpuscout.cli import _app

    group = typer.main.get_command(_app())
    command = group.get_command(typer.Context(group), "offers")  # type: ignore[attr-defined]
    declared = {
        opt: (p.name, "flag" if p.is_flag else "list" if p.multiple else "value")
        for p in command.params
        for opt in (*p.opts, *p.secondary_opts)  # --no-stale/--include-stale: both
        if p.param_type_name == "option"
    }
    lean_table = {name: (param, "flag") for name, (param, _) in lean._FLAGS.items()}
    lean_table |= {
        name: (param, "list" if kind == "list" else "value")
        for name, (param, kind, _, _) in lean._value_options().items()
    }
    assert lean_table == declared
