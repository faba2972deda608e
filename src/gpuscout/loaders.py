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

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuscout.errors import GpuscoutError, InvalidInputError

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


def hub_config_file(repo_id: str, *, revision: str | None = None) -> Path:
    """The local path of ``config.json`` of Hub repo ``repo_id`` (fetched, or from the HF cache)."""
    if not repo_id or repo_id.count("/") != 1:
        raise InvalidInputError("hub", f"expected a repo id like 'org/model', got {repo_id!r}")
    try:
        from huggingface_hub import hf_hub_download
    except ImportError as exc:
        raise GpuscoutError(
            "reading from the Hub needs huggingface_hub: pip install 'gpuscout[hub]'"
        ) from exc
    try:
        return Path(hf_hub_download(repo_id=repo_id, filename="config.json", revision=revision))
    except Exception as exc:  # network, auth, missing repo: one clear message
        raise InvalidInputError(
            "hub", f"could not fetch config.json of {repo_id!r} ({type(exc).__name__}: {exc})"
        ) from exc


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
