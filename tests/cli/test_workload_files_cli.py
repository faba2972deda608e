"""``gpuscout recommend --workload FILE`` with hostile files: a clear error naming the file and exit 2,
never a traceback, a hang or an error that copies the file.

Regression for the audit's defects 10 (YAML alias bomb hung the command) and 14 (UTF-16 / binary
files -> ``UnicodeDecodeError`` traceback; 3,000-deep JSON -> ``RecursionError`` traceback).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuscout.cli import app
from tests.advise.test_workload_yaml import alias_bomb

runner = CliRunner()
WORKLOAD = "kind: serve\nmodel: llama-3.1-8b\nconcurrency: 4\n"


def _run(path: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["recommend", "serve", "--workload", str(path), "--top", "1"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("utf16.yaml", WORKLOAD.encode("utf-16"), "UTF-8"),
        ("utf16be.yaml", WORKLOAD.encode("utf-16-be"), "UTF-16"),  # no BOM: valid UTF-8 with NULs
        ("utf32.json", b'{"kind": "serve"}'.decode().encode("utf-32"), "UTF-8"),
        ("binary.yaml", bytes(range(256)) * 4, "UTF-8"),
        ("latin1.yaml", "kind: serve\nmodel: caf\xe9\n".encode("latin-1"), "UTF-8"),
        ("bomb.yaml", alias_bomb(9, 9).encode(), "aliases"),
        (
            "deep.json",
            b'{"kind": "serve", "model": "m", "regions": ' + b"[" * 3000 + b"]" * 3000 + b"}",
            "deep",
        ),
        ("deep.yaml", b"kind: serve\nmodel: m\nregions: " + b"[" * 5000 + b"]" * 5000 + b"\n", "deep"),
        ("control.yaml", b"kind: serve\nmodel: m\x1f\n", "#x001f"),
    ],
)
def test_hostile_workload_files_are_clear_errors(
    tmp_path: Path, name: str, content: bytes, expected: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    code, output = _run(path)
    assert code == 2, output
    assert "error:" in output and expected in output
    assert "workload" in output or "regions" in output  # the field at fault
    assert "Traceback" not in output and len(output) < 1000
    if expected == "UTF-8":
        assert name in output  # names the file


def test_a_utf8_bom_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + WORKLOAD.encode())
    code, output = _run(path)
    assert code == 0, output


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(min_size=1, max_size=2000), suffix=st.sampled_from([".yaml", ".json", ".yml"]))
def test_any_bytes_are_a_workload_or_a_clear_error(tmp_path: Path, content: bytes, suffix: str) -> None:
    path = tmp_path / f"any{suffix}"
    path.write_bytes(content)
    code, output = _run(path)
    assert code in (0, 2), output
    assert "Traceback" not in output and len(output) < 4000
