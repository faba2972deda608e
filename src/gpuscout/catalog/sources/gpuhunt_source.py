"""gpuhunt (dstack's library) as offer sources: one gpuscout source per gpuhunt provider.

* **Offline catalogs** (``gpuhunt:aws``, ``gpuhunt:azure``, ``gpuhunt:gcp``, ``gpuhunt:oci``,
  ``gpuhunt:lambda``, ``gpuhunt:nebius``, ``gpuhunt:runpod``, ``gpuhunt:verda``,
  ``gpuhunt:cloudrift``): CSVs dstack publishes, read through ``gpuhunt.Catalog(auto_reload=False)``.
  With ``GPUHUNT_CATALOG_DIR`` set, gpuhunt reads ``<dir>/<provider>.csv`` and nothing is
  downloaded (the tests use this). Otherwise one shared catalog is ``load()``-ed (pinned with
  ``GPUSCOUT_GPUHUNT_VERSION`` if set); gpuhunt keeps going when one provider's download fails,
  and the source of that provider then fails alone with a :class:`SourceError`.
* **Online providers** whose credentials are in the environment (``gpuhunt:crusoe``,
  ``gpuhunt:daytona``, ``gpuhunt:hotaisle``, ``gpuhunt:jarvislabs``, ``gpuhunt:lium``,
  ``gpuhunt:seeweb``). gpuhunt's Vast.ai, Vultr and DigitalOcean providers are not wrapped:
  gpuscout's direct adapters read the same APIs with availability and per-offer terms.

Each source runs gpuhunt (synchronous) in a thread and turns any exception into a
:class:`SourceError` naming the provider, so one failing gpuhunt provider never breaks another
(gpuhunt's own ``query`` over several providers fails as a whole). gpuhunt lists on-demand and
spot as separate items; they are merged into one offer per (instance, location). gpuhunt names
GPUs without form factor ("A100", 80 GB); for Azure and Lambda the instance name pins the
variant through the direct adapters' tables, elsewhere the knowledge table's default is used
and noted. gpuhunt catalogs carry no availability: every offer is ``unknown``.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from gpuscout.catalog.fabrics import known_fabric
from gpuscout.catalog.normalize import GpuMatch, Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.azure import AZURE_GPU_SIZES
from gpuscout.catalog.sources.base import CredentialsMissingError, Source, SourceError
from gpuscout.catalog.sources.lambda_cloud import LAMBDA_GPU_TOKENS
from gpuscout.settings import Settings

CATALOG_URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3"
VERSION_ENV = "GPUSCOUT_GPUHUNT_VERSION"

# gpuhunt provider name -> gpuscout provider name (ProviderTerms / Offer.provider)
OFFLINE: dict[str, str] = {
    "aws": "aws",
    "azure": "azure",
    "gcp": "gcp",
    "oci": "oci",
    "lambdalabs": "lambda",
    "nebius": "nebius",
    "runpod": "runpod",
    "verda": "verda",
    "cloudrift": "cloudrift",
}


@dataclass(frozen=True, slots=True)
class OnlineSpec:
    module: str
    cls: str
    credentials: tuple[str, ...]


ONLINE: dict[str, OnlineSpec] = {
    "crusoe": OnlineSpec(
        "gpuhunt.providers.crusoe",
        "CrusoeProvider",
        ("CRUSOE_ACCESS_KEY", "CRUSOE_SECRET_KEY", "CRUSOE_PROJECT_ID"),
    ),
    "daytona": OnlineSpec("gpuhunt.providers.daytona", "DaytonaProvider", ("DAYTONA_API_KEY",)),
    "hotaisle": OnlineSpec(
        "gpuhunt.providers.hotaisle", "HotAisleProvider", ("HOTAISLE_API_KEY", "HOTAISLE_TEAM_HANDLE")
    ),
    "jarvislabs": OnlineSpec("gpuhunt.providers.jarvislabs", "JarvisLabsProvider", ("JL_API_KEY",)),
    "lium": OnlineSpec("gpuhunt.providers.lium", "LiumProvider", ()),
    "seeweb": OnlineSpec("gpuhunt.providers.seeweb", "SeewebProvider", ("SEEWEB_API_TOKEN",)),
}

_LAMBDA_NAME = re.compile(r"^gpu_\d+x_(?P<gpu>.+)$")


def _azure_hint(instance: str) -> tuple[str, float | None] | None:
    size = AZURE_GPU_SIZES.get(instance)
    return (size.gpu, size.slice_gb) if size else None


def _lambda_hint(instance: str) -> tuple[str, float | None] | None:
    m = _LAMBDA_NAME.match(instance)
    name = LAMBDA_GPU_TOKENS.get(m["gpu"]) if m else None
    return (name, None) if name else None


# Instance name -> (exact GPU name, slice GB) where gpuscout knows better than gpuhunt's "A100".
HINTS: dict[str, Callable[[str], tuple[str, float | None] | None]] = {
    "azure": _azure_hint,
    "lambdalabs": _lambda_hint,
}


class _SharedCatalog:
    """One ``gpuhunt.Catalog`` per process, loaded at most once per refresh interval."""

    reload_after_s = 15 * 60
    retry_failed_after_s = 60

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._catalog: Any = None
        self._loaded_at: datetime | None = None
        self._failure: tuple[datetime, Exception] | None = None

    def get(self) -> Any:
        import gpuhunt

        if Settings.from_env().gpuhunt_catalog_dir:
            return gpuhunt.Catalog(balance_resources=False, auto_reload=False)
        with self._lock:
            now = datetime.now(UTC)
            if (
                self._failure is not None
                and (now - self._failure[0]).total_seconds() < self.retry_failed_after_s
            ):
                raise self._failure[1]  # every gpuhunt source of this refresh fails fast, the same way
            stale = self._loaded_at is None or (now - self._loaded_at).total_seconds() > self.reload_after_s
            if self._catalog is None or stale:
                catalog = self._catalog or gpuhunt.Catalog(balance_resources=False, auto_reload=False)
                try:
                    catalog.load(version=Settings.from_env().gpuhunt_version)
                except Exception as exc:
                    self._failure = (now, exc)
                    raise
                self._catalog, self._loaded_at, self._failure = catalog, now, None
            return self._catalog


SHARED_CATALOG = _SharedCatalog()

# gpuhunt logs a traceback per failed download; gpuscout reports the failure per source instead.
logging.getLogger("gpuhunt").addHandler(logging.NullHandler())


class GpuhuntSource(Source):
    """Offers of one gpuhunt provider."""

    kind = "gpuhunt"

    def __init__(self, gpuhunt_provider: str) -> None:
        super().__init__()
        if gpuhunt_provider not in OFFLINE and gpuhunt_provider not in ONLINE:
            raise ValueError(f"gpuhunt_provider: unknown {gpuhunt_provider!r}")
        self.gpuhunt_provider = gpuhunt_provider
        self.online = gpuhunt_provider in ONLINE
        self.provider = OFFLINE.get(gpuhunt_provider, gpuhunt_provider)
        self.name = f"gpuhunt:{self.provider}"
        self.needs_credentials = ONLINE[gpuhunt_provider].credentials if self.online else ()
        self.endpoint = (
            f"gpuhunt {gpuhunt_provider} (online API)" if self.online else f"{CATALOG_URL}/{gpuhunt_provider}"
        )
        self.timeout_s = 120.0

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        """``client`` is unused: gpuhunt does its own (synchronous) HTTP, run in a thread."""
        self.reset_report()
        self.require_credentials()
        try:
            items, label, observed = await asyncio.to_thread(self._items)
        except (SourceError, CredentialsMissingError):
            raise
        except Exception as exc:  # gpuhunt / network / CSV errors of this provider only
            raise SourceError(self.name, f"gpuhunt {self.gpuhunt_provider} failed: {_describe(exc)}") from exc
        return self._offers(items, label, observed)

    # --- gpuhunt calls (in a worker thread) ---------------------------------------------

    def _items(self) -> tuple[list[Any], str, datetime | None]:
        if self.online:
            return self._online_items()
        catalog = SHARED_CATALOG.get()
        local = Settings.from_env().gpuhunt_catalog_dir
        observed: datetime | None
        if local:
            path = Path(local) / f"{self.gpuhunt_provider}.csv"
            if not path.is_file():
                raise SourceError(self.name, f"no {path.name} in GPUHUNT_CATALOG_DIR={local}")
            observed = datetime.fromtimestamp(path.stat().st_mtime, UTC)
            label = str(path)
        else:
            loaded = catalog.catalog.get(self.gpuhunt_provider)
            if loaded is None:
                raise SourceError(
                    self.name, f"gpuhunt could not download the {self.gpuhunt_provider} catalog"
                )
            observed = _version_time(loaded.version)
            label = f"{CATALOG_URL}/{self.gpuhunt_provider}/{loaded.version}"
        items = catalog.query(provider=self.gpuhunt_provider)
        return list(items), label, observed

    def _online_items(self) -> tuple[list[Any], str, datetime | None]:
        import gpuhunt

        spec = ONLINE[self.gpuhunt_provider]
        cls = getattr(importlib.import_module(spec.module), spec.cls)
        try:
            provider = cls.from_env()
        except gpuhunt.MissingCredsError as exc:
            raise CredentialsMissingError(self.name, spec.credentials or (str(exc),)) from exc
        items = provider.get(query_filter=gpuhunt.QueryFilter(), balance_resources=True)
        return list(items), f"{spec.module} (online API)", datetime.now(UTC)

    # --- conversion -----------------------------------------------------------------------

    def _offers(self, items: list[Any], label: str, observed: datetime | None) -> list[Offer]:
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        for item in items:
            if not getattr(item, "gpu_count", 0):
                continue  # CPU-only instance
            key = (str(item.instance_name), str(item.location))
            slot = groups.setdefault(key, {"item": item, "price": None, "spot": None})
            price = price_or_none(item.price)
            which = "spot" if item.spot else "price"
            if price is not None and (slot[which] is None or price < slot[which]):
                slot[which] = price
            if not item.spot:
                slot["item"] = item
        offers = []
        source = f"{self.name}:{label}"
        for (instance, location), slot in groups.items():
            try:
                offers.append(self._offer(slot, instance, location, source, observed))
            except Unmatched as exc:
                self.drop(f"{instance} {location}", exc.reason)
        return offers

    def _gpu(self, item: Any, instance: str) -> GpuMatch:
        hinter = HINTS.get(self.gpuhunt_provider)
        hint = hinter(instance) if hinter is not None else None
        if hint is not None:
            name, slice_gb = hint
            return match_gpu(name, slice_gb, allow_fractional=slice_gb is not None)
        memory = price_or_none(item.gpu_memory)  # positive float or None (TPUs report 0)
        return match_gpu(str(item.gpu_name or ""), memory)

    def _offer(
        self, slot: dict[str, Any], instance: str, location: str, source: str, observed: datetime | None
    ) -> Offer:
        item = slot["item"]
        if slot["price"] is None and slot["spot"] is None:
            raise Unmatched("no positive price")
        gpu = self._gpu(item, instance)
        region, zone = location, None
        if self.gpuhunt_provider == "gcp" and re.match(r"^[a-z]+-[a-z]+\d+-[a-z]$", location):
            region, zone = location.rsplit("-", 1)[0], location
        extra = {"gpuhunt_gpu_name": str(item.gpu_name or "")}
        if item.flags:
            extra["gpuhunt_flags"] = " ".join(item.flags)
        fabric = known_fabric(self.provider, instance)
        if fabric is not None:
            extra["internode_source"] = fabric.source_url
        return self.gpu_offer(
            gpu,
            instance_type=instance,
            region=region,
            zone=zone,
            gpu_count=int(item.gpu_count),
            price_usd_per_hour=slot["price"],
            spot_price_usd_per_hour=slot["spot"],
            source=source,
            observed_at=observed,
            vcpus=float(item.cpu) if item.cpu else None,
            ram_gb=float(item.memory) if item.memory else None,
            disk_gb=float(item.disk_size) if item.disk_size else None,
            internode=fabric.kind if fabric is not None else None,
            notes="; ".join(x for x in ("via gpuhunt; no availability data", gpu.note) if x),
            extra=extra,
        )


def _describe(exc: BaseException) -> str:
    """``Type: message``, followed by the root cause gpuhunt wraps (e.g. the network error)."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc:
        text += f" (cause: {type(cause).__name__}: {cause})"
    return text


def _version_time(version: str) -> datetime | None:
    """gpuhunt catalog versions are dates (``20240801``, possibly with a time); None otherwise."""
    digits = re.sub(r"\D", "", version or "")
    for fmt, size in (("%Y%m%d%H%M%S", 14), ("%Y%m%d%H%M", 12), ("%Y%m%d", 8)):
        if len(digits) >= size:
            try:
                return datetime.strptime(digits[:size], fmt).replace(tzinfo=UTC)
            except ValueError:
                continue
    return None


def gpuhunt_sources() -> list[Source]:
    """One source per gpuhunt offline catalog and per wrapped online provider (registry factory)."""
    return [GpuhuntSource(p) for p in (*OFFLINE, *ONLINE)]
