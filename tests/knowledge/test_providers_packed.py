"""The generated ``providers.json`` holds exactly the rows of ``providers.yaml``, and is used only then."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from gpuscout.knowledge import providers


def _data() -> Path:
    return Path(providers.__file__).parent / "data"


def test_the_packed_rows_are_current() -> None:
    """Regenerate with the command in gpuscout/knowledge/providers.py's docstring when this fails."""
    assert (_data() / providers.PACKED_FILE).read_text("utf-8") == providers.packed_json()


def test_the_packed_rows_parse_to_the_yaml_rows() -> None:
    source = (_data() / "providers.yaml").read_bytes()
    from_yaml = [providers._parse_row(r) for r in providers._yaml_rows(source)]
    assert [providers._parse_row(r) for r in providers._rows()] == from_yaml


def test_an_edited_yaml_is_read_as_it_is_until_the_json_is_regenerated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pkg"
    (package / "data").mkdir(parents=True)
    yaml_text = (
        (_data() / "providers.yaml")
        .read_text("utf-8")
        .replace("display_name: Amazon Web Services (EC2)", "display_name: Edited")
    )
    assert "Edited" in yaml_text
    (package / "data" / "providers.yaml").write_text(yaml_text, encoding="utf-8")
    (package / "data" / providers.PACKED_FILE).write_text(
        (_data() / providers.PACKED_FILE).read_text("utf-8"), encoding="utf-8"
    )  # stale: made from the YAML before the edit
    monkeypatch.setattr(providers.resources, "files", lambda _name: package)
    rows = providers._rows()
    assert next(r for r in rows if r["name"] == "aws")["display_name"] == "Edited"
    packed = providers.packed_json()
    assert hashlib.sha256(yaml_text.encode()).hexdigest() in packed
