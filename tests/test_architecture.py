"""The layering is a rule: the import contracts in pyproject.toml (import-linter) hold on the code, and a
deliberate violation breaks them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")


def _lint(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", str(cwd / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_contracts_hold() -> None:
    done = _lint(REPO / "src", REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "message"),
    [
        # the core reaching for a database driver
        (
            "advise/_violation.py",
            "import sqlalchemy\n",
            "gpuscout.advise is not allowed to import sqlalchemy",
        ),
        # the core touching the file system
        (
            "estimate/_violation.py",
            "from pathlib import Path\n",
            "gpuscout.estimate is not allowed to import pathlib",
        ),
        # the core using the store
        (
            "advise/_violation.py",
            "from gpuscout.catalog import store\n",
            "gpuscout.advise is not allowed to import gpuscout.catalog",
        ),
        # a lower layer importing a higher one
        (
            "knowledge/_violation.py",
            "from gpuscout.estimate import memory\n",
            "gpuscout.knowledge is not allowed to import gpuscout.estimate",
        ),
        (
            "catalog/_violation.py",
            "from gpuscout.cli import output\n",
            "gpuscout.catalog is not allowed to import gpuscout.cli",
        ),
    ],
)
def test_a_violation_breaks_a_contract(tmp_path: Path, module: str, line: str, message: str) -> None:
    shutil.copytree(REPO / "src" / "gpuscout", tmp_path / "src" / "gpuscout")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "src" / "gpuscout" / module).write_text(line, encoding="utf-8")
    done = _lint(tmp_path / "src", tmp_path)
    assert done.returncode != 0 and "0 broken" not in done.stdout, done.stdout
    assert message in done.stdout
    assert "gpuscout." + module.replace("/", ".").removesuffix(".py") in done.stdout
