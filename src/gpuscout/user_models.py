"""The models a user imported (``gpuscout models import``): kept in the user's data dir, read at the edge.

Each imported model is one JSON file ``<data dir>/models/<name>.json`` holding the Hugging Face
``config.json`` as it was read (plus its name, source and import time). The config is parsed again
on every load, so a later gpuscout reads it with its own parser (native quantization formats
included). Files are written atomically (a temporary file renamed into place).

The faces (CLI, web app, ``gpuscout.recommend``) call :func:`registry` and pass the resulting
:class:`~gpuscout.knowledge.model_registry.ModelRegistry` to the pure core; nothing under
``knowledge``/``estimate``/``advise`` reads these files.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gpuscout.errors import InvalidInputError, UnknownNameError, quoted_value
from gpuscout.knowledge.model_registry import ModelRegistry, name_key
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.settings import Settings

FORMAT = 1
_NAME = re.compile(r"^[a-z0-9][a-z0-9.+-]{0,79}$")


def models_dir(settings: Settings | None = None) -> Path:
    """Where imported models live: ``<data dir>/models``."""
    from gpuscout.catalog.paths import data_dir

    return data_dir(settings) / "models"


@dataclass(frozen=True, slots=True)
class Imported:
    """An imported model: its spec, the file that keeps it, and whether it replaced an older import."""

    spec: ModelSpec
    path: Path
    replaced: bool


def _check_name(name: str) -> str:
    key = name_key(name)
    if not _NAME.match(key):
        raise InvalidInputError(
            "--name",
            f"{quoted_value(name)} is not a usable model name",
            "1-80 characters: lower-case letters, digits, '.', '+' and '-', starting with a letter or digit",
        )
    return key


def _curated_owner(name: str) -> str | None:
    """The curated model ``name`` already means, if any."""
    from gpuscout.knowledge.models import resolve_model_detail

    try:
        return resolve_model_detail(name, field="--name", imported=False).model.name
    except UnknownNameError:
        return None


def _read_source(source: str) -> tuple[Mapping[str, Any], str, str]:
    """(the parsed config.json, where it came from, the Hub id or "") of a file path or a Hub repo id."""
    from gpuscout.loaders import hub_config_file, read_text

    path = Path(source).expanduser()
    is_file = path.exists() or source.lower().endswith(".json") or source.count("/") != 1
    hub_id = ""
    if is_file:
        where = f"config.json file {path.name}"
    else:
        path, hub_id, where = hub_config_file(source), source, f"Hugging Face Hub {source} config.json"
    text = read_text(path, "SOURCE", "a Hugging Face config.json")
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InvalidInputError("SOURCE", f"cannot read {path} as JSON: {exc}") from None
    if not isinstance(raw, Mapping):
        raise InvalidInputError("SOURCE", f"{path} does not hold a JSON object")
    return raw, where, hub_id


def _default_name(source: str, raw: Mapping[str, Any], hub_id: str) -> str:
    if hub_id:
        return hub_id.rsplit("/", 1)[1]
    named = str(raw.get("_name_or_path") or "").rstrip("/")
    if named:
        return named.rsplit("/", 1)[-1]
    path = Path(source)
    return (path.parent.name if path.name == "config.json" else path.stem).rsplit("--", 1)[-1]


def _spec(record: Mapping[str, Any]) -> ModelSpec:
    from dataclasses import replace

    from gpuscout.knowledge.hf_config import parse_hf_config, quantization_note_in

    config = record["config"]
    spec, window = parse_hf_config(config, name=str(record["name"]), source=str(record.get("source", "")))
    imported = f"imported {record.get('imported_at', '')} from {record.get('source', '')}".strip()
    # which context window was taken and why (RoPE scaling), as the parser read it; a quantization the
    # parser does not read (sized as 16-bit), last, as the parser worded it
    quant = quantization_note_in(spec.notes)
    return replace(
        spec,
        hf_id=str(record.get("hf_id") or spec.hf_id),
        imported=True,
        notes="; ".join(x for x in (imported, window.note, quant) if x),
    )


def import_model(
    source: str, *, name: str | None = None, force: bool = False, settings: Settings | None = None
) -> Imported:
    """Import ``source`` (a config.json path or a Hub repo id) under ``name`` and keep it."""
    raw, where, hub_id = _read_source(source)
    key = _check_name(name or _default_name(source, raw, hub_id))
    owner = _curated_owner(key)
    if owner is not None:
        raise InvalidInputError(
            "--name", f"{key!r} already names the curated model {owner}", "another name (--name my-model)"
        )
    record = {
        "format": FORMAT,
        "name": key,
        "source": where,
        "hf_id": hub_id,
        "imported_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "config": dict(raw),
    }
    spec = _spec(record)  # parse before writing: a config we cannot read is never kept
    directory = models_dir(settings)
    target = directory / f"{key}.json"
    replaced = target.exists()
    if replaced and not force:
        raise InvalidInputError(
            "--name",
            f"a model named {key!r} is already imported ({target})",
            "--force to replace it, or another --name",
        )
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=2, sort_keys=True)
        os.replace(tmp, target)
    except OSError as exc:
        raise InvalidInputError(
            "GPUSCOUT_DATA_DIR", f"cannot write {target}: {exc.strerror or exc}", "a writable data dir"
        ) from None
    return Imported(spec, target, replaced)


def remove_model(name: str, settings: Settings | None = None) -> Path:
    """Forget the imported model ``name``; returns the file removed. A curated model's name is refused
    as such (it ships with gpuscout), naming the imported ones that can be removed."""
    target = models_dir(settings) / f"{name_key(name)}.json"
    if not target.is_file():
        known = [p.stem for p in sorted(models_dir(settings).glob("*.json"))]
        owner = _curated_owner(name)
        if owner is not None:
            which = (
                f"{name!r} is the curated model {owner}" if name_key(name) != owner else f"{owner} is curated"
            )
            raise InvalidInputError(
                "NAME",
                f"{which}: curated models cannot be removed (only imported ones)",
                f"an imported model's name: {', '.join(known)}"
                if known
                else "an imported model's name; none is imported (gpuscout models import)",
            )
        raise UnknownNameError("NAME", name, known)
    target.unlink()
    return target


@dataclass(frozen=True, slots=True)
class Loaded:
    specs: tuple[ModelSpec, ...]
    problems: tuple[str, ...]  # files that could not be read, and why


_cache: dict[Path, tuple[int, Loaded]] = {}


def load_imported(settings: Settings | None = None) -> Loaded:
    """Every imported model (re-read when the folder changes); unreadable files are reported, not fatal."""
    directory = models_dir(settings)
    try:
        stamp = directory.stat().st_mtime_ns
    except OSError:
        return Loaded((), ())
    cached = _cache.get(directory)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    specs: list[ModelSpec] = []
    problems: list[str] = []
    for path in sorted(directory.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            specs.append(_spec(record))
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            problems.append(f"{path}: {exc}")
    loaded = Loaded(tuple(specs), tuple(problems))
    _cache[directory] = (stamp, loaded)
    return loaded


def registry(settings: Settings | None = None) -> ModelRegistry:
    """The curated models plus the user's imported ones, for the pure core."""
    return ModelRegistry(load_imported(settings).specs)


def resolve(name: str, *, field: str = "model", settings: Settings | None = None) -> ModelSpec:
    """The model ``name`` means, imported models included."""
    return registry(settings).resolve(name, field=field)
