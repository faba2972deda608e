"""The user's imported models (``gpuscout models import``) as a face hands them to the core.

The core reads no files: the package root (``gpuscout/__init__``) installs a provider here that reads
them at the edge (``gpuscout.user_models``), so that a name the curated table does not know resolves to
an imported model wherever the core resolves names (``gpuscout.estimate("my-model", "H100")`` from
Python, as the CLI and the JSON API resolve it). Imported names never shadow a curated one
(``user_models`` refuses them), so the curated table is read first and this only on a miss. Without an
installed provider there are none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuscout.knowledge.model_types import ModelSpec

_provider: Callable[[], tuple[ModelSpec, ...]] | None = None


def install(provider: Callable[[], tuple[ModelSpec, ...]] | None) -> None:
    """Use ``provider`` (None: none) for the imported models from now on."""
    global _provider
    _provider = provider


def imported() -> tuple[ModelSpec, ...]:
    """The imported models the installed provider gives (none without one)."""
    return _provider() if _provider is not None else ()
