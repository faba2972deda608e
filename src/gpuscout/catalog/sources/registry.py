"""The registry of offer sources: one place that knows every feed gpuscout can refresh.

Entries are ``"module:factory"`` strings imported lazily, so importing the registry stays cheap
and one adapter that fails to import is reported by name rather than breaking the others. A
factory is a ``Source`` subclass or a callable returning one ``Source`` or an iterable of them
(``gpuhunt_sources`` returns one source per gpuhunt provider).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from gpuscout.catalog.sources.base import Source
from gpuscout.errors import UnknownNameError, closest

# Order is display order. The bundled snapshot and the user's file source are added by the
# catalog (CATALOG owns those modules) through ``register``.
BUILTIN_FACTORIES: tuple[str, ...] = (
    "gpuscout.catalog.sources.vastai:VastAISource",
    "gpuscout.catalog.sources.runpod:RunPodSource",
    "gpuscout.catalog.sources.lambda_cloud:LambdaSource",
    "gpuscout.catalog.sources.azure:AzureSource",
    "gpuscout.catalog.sources.gcp:GcpSource",
    "gpuscout.catalog.sources.vultr:VultrSource",
    "gpuscout.catalog.sources.digitalocean:DigitalOceanSource",
    "gpuscout.catalog.sources.shadeform:ShadeformSource",
    "gpuscout.catalog.sources.cudo:CudoSource",
    "gpuscout.catalog.sources.verda:VerdaSource",
    "gpuscout.catalog.sources.tensordock:TensorDockSource",
    "gpuscout.catalog.sources.gpuhunt_source:gpuhunt_sources",
)

_extra: list[Callable[[], Any]] = []


def register(factory: Callable[[], Any]) -> None:
    """Add a source factory (a Source subclass or a callable returning Source(s))."""
    if factory not in _extra:
        _extra.append(factory)


def _resolve(entry: str) -> Callable[[], Any]:
    module_name, _, attr = entry.partition(":")
    module = importlib.import_module(module_name)
    factory: Callable[[], Any] = getattr(module, attr)
    return factory


def _instances(factory: Callable[[], Any]) -> list[Source]:
    made = factory()
    if isinstance(made, Source):
        return [made]
    if isinstance(made, Iterable):
        out = list(made)
        bad = [m for m in out if not isinstance(m, Source)]
        if bad:
            raise TypeError(f"source factory {factory!r} returned non-Source items {bad!r}")
        return out
    raise TypeError(f"source factory {factory!r} returned {made!r}, not a Source")


def all_sources() -> dict[str, Source]:
    """Fresh instances of every known source, keyed by ``Source.name`` (display order)."""
    sources: dict[str, Source] = {}
    factories = [_resolve(e) for e in BUILTIN_FACTORIES] + list(_extra)
    for factory in factories:
        for src in _instances(factory):
            if src.name in sources:
                raise ValueError(f"duplicate source name {src.name!r}")
            sources[src.name] = src
    return sources


def source_names() -> list[str]:
    return list(all_sources())


def get_source(name: str) -> Source:
    """The source called ``name``; unknown names raise ``UnknownNameError`` with the closest ones."""
    sources = all_sources()
    key = name.strip().lower()
    if key in sources:
        return sources[key]
    raise UnknownNameError("source", name, closest(name, sources))
