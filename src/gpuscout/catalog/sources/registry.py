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

import httpx

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.base import Source, SourceError

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
    "gpuscout.catalog.sources.verda:VerdaSource",
    "gpuscout.catalog.sources.tensordock:TensorDockSource",
    "gpuscout.catalog.sources.scaleway:ScalewaySource",
    "gpuscout.catalog.sources.akash:AkashSource",
    "gpuscout.catalog.sources.lium:LiumSource",
    "gpuscout.catalog.sources.primeintellect:PrimeIntellectSource",
    "gpuscout.catalog.sources.jarvislabs:JarvislabsSource",
    "gpuscout.catalog.sources.gpuhunt_source:gpuhunt_sources",
)

# Sources whose provider is gone: refreshing them is refused with the reason; their snapshots stay
# in the store and are still shown (``gpuscout sources`` marks them retired).
RETIRED: dict[str, str] = {
    "cudo": "Cudo Compute's public platform shut down on 2026-03-31; the adapter was removed "
    "(its stored history stays readable)",
}

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


class BrokenSource(Source):
    """Stands in for a source whose module or factory failed: refreshing it reports why."""

    kind = "api"

    def __init__(self, name: str, error: str) -> None:
        super().__init__()
        self.name = name
        self.provider = name
        self.error = error

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        raise SourceError(self.name, f"source could not be loaded: {self.error}")


def _entry_name(entry: str | Callable[[], Any]) -> str:
    if isinstance(entry, str):
        module_name = entry.partition(":")[0].rsplit(".", 1)[-1]
        return module_name.removesuffix("_source").removesuffix("_cloud")
    return getattr(entry, "__name__", repr(entry)).lower()


def all_sources() -> dict[str, Source]:
    """Fresh instances of every known source, keyed by ``Source.name`` (display order).

    A factory that fails to import or to build is replaced by a ``BrokenSource`` named after its
    module, so one broken adapter never hides the others.
    """
    sources: dict[str, Source] = {}
    entries: list[str | Callable[[], Any]] = [*BUILTIN_FACTORIES, *_extra]
    for entry in entries:
        try:
            factory = _resolve(entry) if isinstance(entry, str) else entry
            made = _instances(factory)
        except Exception as exc:  # isolation: any failure of one adapter stays with it
            made = [BrokenSource(_entry_name(entry), f"{type(exc).__name__}: {exc}")]
        for src in made:
            if src.name in sources:
                raise ValueError(f"duplicate source name {src.name!r}")
            sources[src.name] = src
    return sources


def source_state(name: str, source: Source | None) -> str:
    """A source's state for ``gpuscout sources``: ``active``, ``needs credentials``, ``retired``,
    ``not loadable`` (its module failed) or ``not configured`` (in the store only, e.g. a file no
    longer listed in ``$GPUSCOUT_OFFER_FILES``)."""
    if name in RETIRED:
        return "retired"
    if source is None:
        return "not configured"
    if isinstance(source, BrokenSource):
        return "not loadable"
    if source.missing_credentials():
        return "needs credentials"
    return "active"
