"""gpuhunt (dstack's library) as offer sources: one gpuscout source per gpuhunt provider.

* **Offline catalogs** (``gpuhunt:aws``, ``gpuhunt:azure``, ``gpuhunt:gcp``, ``gpuhunt:oci``,
  ``gpuhunt:lambda``, ``gpuhunt:nebius``, ``gpuhunt:runpod``, ``gpuhunt:verda``,
  ``gpuhunt:cloudrift``): CSVs dstack publishes. With ``GPUHUNT_CATALOG_DIR`` set, gpuhunt reads
  ``<dir>/<provider>.csv`` and nothing is downloaded (the tests use this). Otherwise the catalogs
  are downloaded once for all offline sources (pinned with ``GPUSCOUT_GPUHUNT_VERSION`` if set)
  and kept for 15 minutes; gpuhunt keeps going when one provider's download fails, and the source
  of that provider then fails alone with a :class:`SourceError`.
* **Online providers** whose credentials are in the environment (``gpuhunt:crusoe``,
  ``gpuhunt:daytona``, ``gpuhunt:hotaisle``, ``gpuhunt:seeweb``). gpuhunt's Vast.ai, Vultr,
  DigitalOcean, Lium and Jarvislabs providers are not wrapped: gpuscout's direct adapters read
  the same APIs with availability, spot tiers and per-offer terms.

**gpuhunt runs in a worker process** (:mod:`.gpuhunt_worker`): its downloads use ``urllib`` /
``requests`` without a timeout, so a server that accepts and never answers would hold a thread
for ever. The process is killed at the source's deadline and the source fails with "did not
finish within Ns"; any other gpuhunt exception becomes a :class:`SourceError` naming the provider,
so one failing gpuhunt provider never breaks another. gpuhunt lists on-demand and spot as separate
items; they are merged into one offer per (instance, location). gpuhunt names GPUs without form
factor ("A100", 80 GB); for Azure and Lambda the instance name pins the variant through the direct
adapters' tables, for AWS and OCI HGX shapes through :data:`HGX_INSTANCE_GPUS`, for Nebius and
Verda H200 names that state SXM through :data:`SXM_NAMED_INSTANCES`; elsewhere the
knowledge table's default is assumed (noted, marked, and given that board's fabric,
``base.stated_interconnect``). gpuhunt catalogs carry
no availability: every offer is ``unknown``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from gpuscout.catalog.fabrics import internode_extra, known_fabric
from gpuscout.catalog.normalize import Excluded, GpuMatch, Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.azure import AZURE_GPU_SIZES, retired_size
from gpuscout.catalog.sources.base import CredentialsMissingError, Source, SourceError, format_seconds
from gpuscout.catalog.sources.gpuhunt_worker import WorkerFailed, WorkerTimeout, run_worker
from gpuscout.catalog.sources.lambda_cloud import lambda_gpu_name
from gpuscout.settings import Settings

WORKER = "gpuscout.catalog.sources.gpuhunt_worker"
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
    "seeweb": OnlineSpec("gpuhunt.providers.seeweb", "SeewebProvider", ("SEEWEB_API_TOKEN",)),
}


def _azure_hint(instance: str) -> tuple[str, float | None] | None:
    size = AZURE_GPU_SIZES.get(instance)
    return (size.gpu, size.slice_gb) if size else None


def _lambda_hint(instance: str) -> tuple[str, float | None] | None:
    name = lambda_gpu_name(instance)
    return (name, None) if name else None


#: 8-GPU shapes whose instance pages state an NVSwitch (HGX) baseboard, where gpuhunt names only the
#: GPU ("A100", "H100", "H200", "V100"): the GPU with its form factor, as the bundled snapshot's
#: ``hgx-*`` rules (data/snapshot/rules.yaml) and its reference rows state it. Elsewhere an unstated
#: form factor stays assumed, with the assumed board's fabric (``base.stated_interconnect``).
HGX_INSTANCE_GPUS: dict[str, dict[str, str]] = {
    "aws": {  # https://aws.amazon.com/ec2/instance-types/p3/, /p4/, /p5/
        "p3dn.24xlarge": "V100 SXM2 32GB",
        "p4d.24xlarge": "A100 SXM4 40GB",
        "p4de.24xlarge": "A100 SXM4 80GB",
        "p5.48xlarge": "H100 SXM",
        "p5e.48xlarge": "H200 SXM",
        "p5en.48xlarge": "H200 SXM",
    },
    "oci": {  # https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm#bm-gpu
        "BM.GPU4.8": "A100 SXM4 40GB",
        "BM.GPU.A100-v2.8": "A100 SXM4 80GB",
        "BM.GPU.H100.8": "H100 SXM",
        "BM.GPU.H200.8": "H200 SXM",
    },
}


def _hgx_hint(provider: str) -> Callable[[str], tuple[str, float | None] | None]:
    shapes = HGX_INSTANCE_GPUS[provider]
    return lambda instance: (shapes[instance], None) if instance in shapes else None


#: Instance names that state the SXM form factor gpuhunt's plain "H200" leaves out: the bundled
#: snapshot's rule ``h200-sxm-stated-in-the-instance-name`` (data/snapshot/rules.yaml, a build input
#: that is not shipped, so the pattern is kept here too; a test keeps the H200 patterns alike). Nebius'
#: platform ``gpu-h200-sxm`` (gpuhunt names the instance ``"<platform> <preset>"``, SkyPilot
#: ``<platform>_<preset>``) and Verda's ``141S`` (S = SXM, as its ``1H100.80S.30V`` is "H100 SXM5"
#: in verda_v1.json) name the H200 SXM. The H100 names likewise: data/snapshot/price_snapshot.md lists
#: Nebius ``gpu-h100-sxm`` and Verda ``*.80S.*`` among the SXM rows (the snapshot's H100 rows carry
#: the form factor from its source, so no rule is needed there and none is compared; gpuhunt's plain
#: "H100" leaves it out).
SXM_NAMED_INSTANCES: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    "nebius": (
        (re.compile(r"gpu-h200-sxm[ _].*"), "H200 SXM"),
        (re.compile(r"gpu-h100-sxm[ _].*"), "H100 SXM"),
    ),
    "verda": (
        (re.compile(r"\d+H200\.141S\..*"), "H200 SXM"),
        (re.compile(r"\d+H100\.80S\..*"), "H100 SXM"),
    ),
}


def sxm_named_gpu(provider: str, instance: str) -> str | None:
    """The GPU, with its SXM form factor, that a gpuhunt provider's instance name states; else None."""
    for pattern, gpu in SXM_NAMED_INSTANCES.get(provider, ()):
        if pattern.fullmatch(instance):
            return gpu
    return None


def _sxm_named_hint(provider: str) -> Callable[[str], tuple[str, float | None] | None]:
    return lambda instance: (gpu, None) if (gpu := sxm_named_gpu(provider, instance)) else None


# Instance name -> (exact GPU name, slice GB) where gpuscout knows better than gpuhunt's "A100".
HINTS: dict[str, Callable[[str], tuple[str, float | None] | None]] = {
    "azure": _azure_hint,
    "lambdalabs": _lambda_hint,
    **{provider: _hgx_hint(provider) for provider in HGX_INSTANCE_GPUS},
    **{provider: _sxm_named_hint(provider) for provider in SXM_NAMED_INSTANCES},
}


Items = list[dict[str, Any]]


class _SharedCatalog:
    """The downloaded offline catalogs, shared by the offline sources of this process: loaded (in
    one worker process, for every provider at once) at most once per :attr:`reload_after_s`; a
    failed load is remembered for :attr:`retry_failed_after_s` so every offline source of one
    refresh fails fast, the same way."""

    reload_after_s = 15 * 60
    retry_failed_after_s = 60
    target = f"{WORKER}:collect_offline"  # module:function run in the worker (tests swap it)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._catalogs: dict[str, tuple[str, Items]] = {}
        self._loaded_at: float | None = None
        self._failure: tuple[float, SourceError | str] | None = None

    def get(self, provider: str, name: str, timeout_s: float) -> tuple[str, Items] | None:
        """(version, items) of ``provider``'s catalog, or None when gpuhunt could not download it."""
        started = time.monotonic()
        if not self._lock.acquire(timeout=max(0.0, timeout_s)):
            raise SourceError(
                name, f"the shared gpuhunt catalog download did not finish within {format_seconds(timeout_s)}"
            )
        try:
            now = time.monotonic()
            if self._failure is not None and now - self._failure[0] < self.retry_failed_after_s:
                raise SourceError(name, str(self._failure[1]))
            fresh = self._loaded_at is not None and now - self._loaded_at <= self.reload_after_s
            if not fresh:
                left = timeout_s - (now - started)
                version = Settings.from_env().gpuhunt_version
                try:
                    loaded = run_worker(self.target, (version,), left, "gpuhunt catalog download")
                except (WorkerTimeout, WorkerFailed) as exc:
                    self._failure = (time.monotonic(), str(exc))
                    raise SourceError(name, str(exc)) from None
                self._catalogs, self._loaded_at, self._failure = dict(loaded), time.monotonic(), None
            return self._catalogs.get(provider)
        finally:
            self._lock.release()


SHARED_CATALOG = _SharedCatalog()

# gpuhunt logs a traceback per failed download; gpuscout reports the failure per source instead.
logging.getLogger("gpuhunt").addHandler(logging.NullHandler())


class GpuhuntSource(Source):
    """Offers of one gpuhunt provider."""

    kind = "gpuhunt"
    # module:function the worker runs for an online provider / a local catalog (tests swap them)
    online_target = f"{WORKER}:collect_online"
    local_target = f"{WORKER}:collect_offline_dir"

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
        """``client`` is unused: gpuhunt does its own (synchronous) HTTP, in a worker process killed
        at the source's deadline (this coroutine blocks its own refresh worker until then)."""
        self.reset_report()
        self.require_credentials()
        left = self.time_left()
        # stop the worker a little before the source's deadline, so that its own reason is the one
        # recorded (the refresh gives up on the source at the deadline itself)
        timeout_s = self.timeout_s if left is None else max(0.1, left - min(2.0, 0.1 * left))
        items, label, observed = self._items(timeout_s)
        return self._offers(items, label, observed)

    def _items(self, timeout_s: float) -> tuple[Items, str, datetime | None]:
        what = f"gpuhunt {self.gpuhunt_provider}"
        try:
            if self.online:
                spec = ONLINE[self.gpuhunt_provider]
                args = (spec.module, spec.cls)
                items = run_worker(self.online_target, args, timeout_s, what)
                return items, f"{spec.module} (online API)", datetime.now(UTC)
            local = Settings.from_env().gpuhunt_catalog_dir
            if local:
                path = local / f"{self.gpuhunt_provider}.csv"
                if not path.is_file():
                    raise SourceError(self.name, f"no {path.name} in GPUHUNT_CATALOG_DIR={local}")
                observed = datetime.fromtimestamp(path.stat().st_mtime, UTC)
                items = run_worker(self.local_target, (self.gpuhunt_provider,), timeout_s, what)
                return items, str(path), observed
        except WorkerTimeout as exc:
            raise SourceError(self.name, str(exc)) from None
        except WorkerFailed as exc:
            if exc.kind == "missing_credentials":
                raise CredentialsMissingError(self.name, self.needs_credentials or (str(exc),)) from None
            raise SourceError(self.name, f"{what} failed: {exc}") from None
        found = SHARED_CATALOG.get(self.gpuhunt_provider, self.name, timeout_s)
        if found is None:
            raise SourceError(self.name, f"gpuhunt could not download the {self.gpuhunt_provider} catalog")
        version, items = found
        return items, f"{CATALOG_URL}/{self.gpuhunt_provider}/{version}", _version_time(version)

    # --- conversion -----------------------------------------------------------------------

    def _offers(self, items: Items, label: str, observed: datetime | None) -> list[Offer]:
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        for item in items:
            if not item.get("gpu_count"):
                continue  # CPU-only instance
            self.rows_seen += 1
            key = (str(item["instance_name"]), str(item["location"]))
            slot = groups.setdefault(key, {"item": item, "price": None, "spot": None})
            price = price_or_none(item["price"])
            which = "spot" if item["spot"] else "price"
            if price is not None and (slot[which] is None or price < slot[which]):
                slot[which] = price
            if not item["spot"]:
                slot["item"] = item
        offers = []
        source = f"{self.name}:{label}"
        for (instance, location), slot in groups.items():
            try:
                offers.append(self._offer(slot, instance, location, source, observed))
            except Unmatched as exc:
                self.drop_unmatched(f"{instance} {location}", exc)
        return offers

    def _gpu(self, item: dict[str, Any], instance: str) -> GpuMatch:
        hinter = HINTS.get(self.gpuhunt_provider)
        hint = hinter(instance) if hinter is not None else None
        if hint is not None:
            name, slice_gb = hint
            return match_gpu(name, slice_gb, allow_fractional=slice_gb is not None)
        memory = price_or_none(item["gpu_memory"])  # positive float or None (TPUs report 0)
        return match_gpu(str(item["gpu_name"] or ""), memory)

    def _offer(
        self, slot: dict[str, Any], instance: str, location: str, source: str, observed: datetime | None
    ) -> Offer:
        item = slot["item"]
        if slot["price"] is None and slot["spot"] is None:
            raise Unmatched("no positive price")
        if self.gpuhunt_provider == "azure" and (retired := retired_size(instance)) is not None:
            raise Excluded(retired.reason(), "retired size")
        count = int(item["gpu_count"])
        gpu = self._gpu(item, instance)
        region, zone = location, None
        if self.gpuhunt_provider == "gcp" and re.match(r"^[a-z]+-[a-z]+\d+-[a-z]$", location):
            region, zone = location.rsplit("-", 1)[0], location
        extra = {"gpuhunt_gpu_name": str(item["gpu_name"] or "")}
        if item["flags"]:
            extra["gpuhunt_flags"] = " ".join(item["flags"])
        fabric = known_fabric(self.provider, instance)
        if fabric is not None:
            extra.update(internode_extra(fabric))
        return self.gpu_offer(
            gpu,
            instance_type=instance,
            region=region,
            zone=zone,
            gpu_count=count,
            price_usd_per_hour=slot["price"],
            spot_price_usd_per_hour=slot["spot"],
            source=source,
            observed_at=observed,
            vcpus=_positive(item["cpu"]),
            ram_gb=_positive(item["memory"]),
            disk_gb=_positive(item["disk_size"]),
            internode=fabric.kind if fabric is not None else None,
            notes="; ".join(x for x in ("via gpuhunt; no availability data", gpu.note) if x),
            extra=extra,
        )


def _positive(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


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
