"""gpuscout's configuration: every environment variable it reads, in one frozen object.

:meth:`Settings.from_env` reads the environment once; the faces (the CLI's commands, the web app
factory) pass the object down, and library functions that are called without one read it then.
Each field names its variable, its default and what it means (``metadata``); :func:`markdown_table`
renders them for the README's Configuration section, which a test keeps in step.

Provider credentials (``LAMBDA_API_KEY``...) are not settings: each source names the variables it
needs (``Source.needs_credentials``) and checks them itself.

This module is imported by the CLI on every call, so it stays cheap: the standard library only.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuscout.errors import InvalidInputError, quoted_value

#: The longest a Hub fetch of a model's ``config.json`` may take, every request and retry together
#: (``gpuscout.loaders.hub_config_file``; lowered by ``GPUSCOUT_REFRESH_TIMEOUT`` where that is shorter).
HUB_DEADLINE_S = 30.0


def _var(env: str, doc: str, default_text: str) -> dict[str, Any]:
    return {"env": env, "doc": doc, "default": default_text}


@dataclass(frozen=True, slots=True)
class Settings:
    """The environment gpuscout runs in. Every field is optional; the defaults need no set-up."""

    db_url: str | None = field(
        default=None,
        metadata=_var(
            "GPUSCOUT_DB",
            "store URL: `sqlite:///path.db` or `postgresql+psycopg://user:pass@host/db`"
            " (`--db` overrides it)",
            "SQLite file `catalog.sqlite3` in the data dir",
        ),
    )
    data_dir: Path | None = field(
        default=None,
        metadata=_var(
            "GPUSCOUT_DATA_DIR", "where the default SQLite store lives", "the platform's user data dir"
        ),
    )
    offer_files: tuple[Path, ...] = field(
        default=(),
        metadata=_var(
            "GPUSCOUT_OFFER_FILES",
            "`:`-separated (`;` on Windows) CSV/YAML files of private offers, refreshed with the other"
            " sources",
            "none",
        ),
    )
    admin_token: str | None = field(
        default=None,
        metadata=_var(
            "GPUSCOUT_ADMIN_TOKEN",
            "enables `POST /api/v1/refresh` with `Authorization: Bearer <token>` (disabled when unset)",
            "unset",
        ),
    )
    web_cache_seconds: float = field(
        default=300.0,
        metadata=_var(
            "GPUSCOUT_WEB_CACHE_SECONDS",
            "how long the web app keeps a rendered view (a refresh shows at once whatever this is)",
            "300",
        ),
    )
    gpuhunt_version: str | None = field(
        default=None,
        metadata=_var(
            "GPUSCOUT_GPUHUNT_VERSION",
            "the gpuhunt catalog version to download (e.g. `20261201`) instead of the latest",
            "the latest",
        ),
    )
    gpuhunt_catalog_dir: Path | None = field(
        default=None,
        metadata=_var(
            "GPUHUNT_CATALOG_DIR",
            "read gpuhunt's catalogs from `<dir>/<provider>.csv` instead of downloading them"
            " (gpuhunt's own variable)",
            "download",
        ),
    )
    refresh_timeout_s: float = field(
        default=120.0,
        metadata=_var(
            "GPUSCOUT_REFRESH_TIMEOUT",
            "a refresh's deadline per source, seconds (`refresh --timeout` overrides it; the web refresh"
            " endpoint uses it); the whole run ends at most 30 s later. A Hub fetch of a model's config.json"
            f" (`models import org/model`) gives up after this or {HUB_DEADLINE_S:g} s, whichever is shorter",
            "120",
        ),
    )
    eur_usd: float | None = field(
        default=None,
        metadata=_var(
            "GPUSCOUT_FX_EUR_USD",
            "USD per EUR for offers priced in euros (Scaleway), instead of the dated reference rate",
            "the ECB reference rate stated in `catalog/currency.py`",
        ),
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings in ``environ`` (default: ``os.environ``); empty values count as unset. A value
        that cannot be used is an :class:`InvalidInputError` naming the variable."""
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        data_dir = get("GPUSCOUT_DATA_DIR")
        catalog_dir = get("GPUHUNT_CATALOG_DIR")
        files = env.get("GPUSCOUT_OFFER_FILES", "")
        return cls(
            db_url=get("GPUSCOUT_DB"),
            data_dir=Path(data_dir).expanduser() if data_dir else None,
            offer_files=tuple(Path(p.strip()).expanduser() for p in files.split(os.pathsep) if p.strip()),
            admin_token=get("GPUSCOUT_ADMIN_TOKEN"),
            web_cache_seconds=_seconds(
                "GPUSCOUT_WEB_CACHE_SECONDS", get("GPUSCOUT_WEB_CACHE_SECONDS"), 300.0
            ),
            gpuhunt_version=get("GPUSCOUT_GPUHUNT_VERSION"),
            gpuhunt_catalog_dir=Path(catalog_dir).expanduser() if catalog_dir else None,
            refresh_timeout_s=_positive(
                "GPUSCOUT_REFRESH_TIMEOUT", get("GPUSCOUT_REFRESH_TIMEOUT"), "e.g. 120"
            )
            or 120.0,
            eur_usd=_positive("GPUSCOUT_FX_EUR_USD", get("GPUSCOUT_FX_EUR_USD"), "USD per EUR, e.g. 1.08"),
        )


def _seconds(name: str, raw: str | None, default: float) -> float:
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise InvalidInputError(
            name, f"expected a number of seconds >= 0, got {quoted_value(raw)}", "e.g. 300, or 0 (no cache)"
        )
    return value


def _positive(name: str, raw: str | None, example: str) -> float | None:
    """A positive finite number, ``None`` when unset."""
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvalidInputError(name, f"expected a positive number, got {quoted_value(raw)}", example)
    return value


def environment_items() -> list[tuple[str, str]]:
    """Every variable of the environment, sorted: for keys of what may depend on any of them (the CLI's
    replayed root help: colour, width and locale variables, Typer's own), not a setting."""
    return sorted(os.environ.items())


def variables() -> list[tuple[str, str, str]]:
    """``(variable, meaning, default)`` of every setting, in field order."""
    return [
        (f.metadata["env"], f.metadata["doc"], f.metadata["default"]) for f in dataclasses.fields(Settings)
    ]


def markdown_table() -> str:
    """The README's table of settings (one row per variable)."""
    lines = ["| variable | meaning | default |", "|---|---|---|"]
    lines += [f"| `{name}` | {doc} | {default} |" for name, doc, default in variables()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m gpuscout.settings: print the README table
    print(markdown_table(), end="")
