"""The edge that reads the user's files: bounded, UTF-8 only, every failure an error naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.loaders import MAX_FILE_BYTES, model_from_hf_config, workload_from_file

WORKLOAD = "kind: serve\nmodel: llama-3.1-8b\nconcurrency: 4\n"


def test_a_workload_file_is_read_with_or_without_a_bom(tmp_path: Path) -> None:
    plain, bom = tmp_path / "w.yaml", tmp_path / "bom.yaml"
    plain.write_text(WORKLOAD, encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + WORKLOAD.encode())
    assert workload_from_file(plain) == workload_from_file(bom)
    assert workload_from_file(plain).model == "llama-3.1-8b"


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("utf16.yaml", WORKLOAD.encode("utf-16"), "not UTF-8"),
        ("binary.json", bytes(range(128, 256)), "not UTF-8"),
        ("huge.yaml", b"#" * (MAX_FILE_BYTES + 1), "larger than"),
    ],
)
def test_unreadable_workload_files_name_the_field(
    tmp_path: Path, name: str, content: bytes, said: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InvalidInputError, match=said) as info:
        workload_from_file(path)
    assert info.value.field == "workload"


def test_a_missing_file_and_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no such file") as info:
        workload_from_file(tmp_path / "missing.yaml")
    assert info.value.field == "workload"
    with pytest.raises(InvalidInputError, match="cannot read") as info:
        model_from_hf_config(tmp_path)
    assert info.value.field == "config"


def test_a_deeply_nested_config_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        model_from_hf_config(path)
    assert info.value.field == "config"
