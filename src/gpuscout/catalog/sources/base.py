"""The ``Source`` contract every offer feed implements, and the errors a fetch may raise.

A source *collects*: it turns one provider feed into raw, normalized :class:`Offer` rows. It
does not validate against plausibility bands or store anything; the catalog refresh does that
(collect -> validate -> publish). A source must never raise anything but :class:`SourceError`
(or a subclass) for a problem with the feed: a missing field, a bad status, malformed JSON.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuscout.catalog.normalize import GpuMatch, Unmatched, assumed_fabric_note, interconnect_for
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.errors import GpuscoutError

if TYPE_CHECKING:  # the client is made by the refresh (catalog/sources/http.py), not imported here
    import httpx

    from gpuscout.knowledge.accelerator_types import Accelerator


def format_seconds(value: float) -> str:
    """A duration for a message: ``90s``, ``3s``, ``2.85s``, ``0.5s``."""
    return f"{value:.0f}s" if value >= 10 else f"{value:.3g}s"


#: ``Offer.extra["variant"]`` of an offer whose source does not state the GPU's variant (form factor,
#: memory or edition): the default one was assumed (the tables mark it "?").
VARIANT_KEY, VARIANT_ASSUMED = "variant", "assumed"


def stated_interconnect(accelerator: Accelerator, *, fractional: bool = False) -> Interconnect:
    """The GPU-to-GPU fabric an offer can be given from its part alone, the one rule of every source
    (live and the bundled snapshot): the part's usual one (SXM/OAM baseboards: NVLink-class, PCIe
    cards: PCIe), also where the source does not state the variant and the default one is assumed:
    the board and its fabric are one assumption (a plain "H200" timed as an H200-SXM has that part's
    NVLink baseboard, never SXM compute with its all-reduces over PCIe), and the offer's notes say so
    (:func:`~gpuscout.catalog.normalize.assumed_fabric_note`). A vGPU slice (a share of one GPU,
    joined to no other) is ``unknown``."""
    if fractional:
        return Interconnect.UNKNOWN
    return interconnect_for(accelerator)


#: What an offer's notes say where its source states NVLink on cards whose only NVLink is a bridge.
BRIDGED_PAIRS_NOTE = (
    "NVLink bridges join the cards in pairs (or small groups: {name}, {link}), not the whole box: GPUs of "
    "different groups talk over PCIe, so the offer is listed as PCIe"
)


def nvlink_stated(accelerator: Accelerator) -> tuple[Interconnect, str]:
    """The fabric (and a note, "" when none is due) of a box whose source says its GPUs have NVLink
    (Vast.ai's measured NVLink bandwidth, Shadeform's ``interconnect: nvlink``): NVLink-class where the
    part sits on a switched baseboard (SXM, OAM); PCIe where the part's NVLink is a bridge (A100 / H100
    PCIe, H100 NVL, RTX 3090, RTX A6000: two cards; H200 NVL: up to four), since bridges join pairs, not
    the box, and an offer has no fabric for "NVLink between pairs" (``Interconnect``); PCIe too, said so,
    where the table gives the part no NVLink at all (an RTX 4090, an L40S)."""
    if accelerator.has_nvlink_class_fabric:
        return Interconnect.NVLINK, ""
    link = (accelerator.interconnect or "").split(";")[0]
    if "bridge" in link.lower():
        return Interconnect.PCIE, BRIDGED_PAIRS_NOTE.format(name=accelerator.name, link=link)
    said = f" ({link})" if link else ""
    return Interconnect.PCIE, (
        f"NVLink stated by the source, but the {accelerator.name} has no NVLink fabric in the accelerator "
        f"table{said}: listed as PCIe"
    )


class SourceError(GpuscoutError):
    """A feed could not be read or parsed. ``source`` names the feed; the message says why."""

    def __init__(self, source: str, message: str) -> None:
        self.source = source
        self.reason = message
        super().__init__(f"{source}: {message}")


class CredentialsMissingError(SourceError):
    """The source needs environment variables that are not set; the refresh should skip it."""

    def __init__(self, source: str, missing: tuple[str, ...]) -> None:
        self.missing = missing
        super().__init__(source, "credentials missing: set " + ", ".join(missing))


@dataclass(frozen=True, slots=True)
class DroppedRow:
    """A feed row a source skipped: invalid (unknown GPU, bad price, missing field) or excluded by
    design (reservation row, CPU-only, a size gpuscout has no specs for).

    ``category`` is the reason without row details, for counting; ``invalid`` rows count against
    the validation gate's limit on bad rows, excluded ones do not.
    """

    row: str  # short identity of the row (instance type, SKU...)
    reason: str
    category: str = ""
    invalid: bool = True

    @property
    def key(self) -> str:
        return self.category or self.reason


class Source(ABC):
    """One offer feed.

    Subclasses set ``name`` (unique source id, e.g. ``"vastai"`` or ``"gpuhunt:aws"``),
    ``provider`` (the ``Offer.provider`` / ``ProviderTerms`` name the rows carry),
    ``endpoint`` (URL shown as provenance) and ``needs_credentials`` (env var names that must
    all be set). ``fetch`` fills ``dropped`` (rows skipped with a reason) and ``warnings``
    (non-fatal problems, e.g. one gpuhunt sub-provider failing) for the refresh to report.
    """

    name: str = ""
    provider: str = ""
    endpoint: str = ""
    kind: str = "api"  # "api" | "gpuhunt" | "snapshot" | "file"
    needs_credentials: tuple[str, ...] = ()
    timeout_s: float = 30.0  # per-request timeout the source asks the HTTP helper for
    # Which feed wins when two cover the same provider is decided by the store from the source's
    # name (``gpuscout.catalog.store.source_preference``): a provider's API over gpuhunt's catalog.

    def __init__(self) -> None:
        self.dropped: list[DroppedRow] = []
        self.warnings: list[str] = []
        self.rows_seen = 0  # feed rows read by the last fetch (the validation gate's denominator)
        # time.monotonic() by which fetch must be done; set by the refresh (None: no deadline)
        self.deadline: float | None = None

    def time_left(self) -> float | None:
        """Seconds until :attr:`deadline` (never negative), or None when there is no deadline."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def missing_credentials(self) -> tuple[str, ...]:
        """The credential env vars that are not set (empty when all are present)."""
        return tuple(v for v in self.needs_credentials if not os.environ.get(v))

    def credentials_present(self) -> bool:
        return not self.missing_credentials()

    def require_credentials(self) -> None:
        """Raise :class:`CredentialsMissingError` when a needed env var is not set."""
        missing = self.missing_credentials()
        if missing:
            raise CredentialsMissingError(self.name, missing)

    def credential(self, var: str) -> str:
        """The value of a credential env var, or :class:`CredentialsMissingError`."""
        value = os.environ.get(var)
        if not value:
            raise CredentialsMissingError(self.name, (var,))
        return value

    def reset_report(self) -> None:
        self.dropped = []
        self.warnings = []
        self.rows_seen = 0

    def drop(self, row: str, reason: str, *, category: str | None = None, invalid: bool = True) -> None:
        self.dropped.append(DroppedRow(row, reason, category or reason, invalid))

    def drop_unmatched(self, row: str, exc: Unmatched) -> None:
        """Record a row that raised :class:`Unmatched` (or its by-design subclass ``Excluded``)."""
        self.drop(row, exc.reason, category=exc.category, invalid=exc.invalid)

    @property
    def source_label(self) -> str:
        """The ``Offer.source`` string: feed name + endpoint."""
        return f"{self.name}:{self.endpoint}" if self.endpoint else self.name

    def gpu_offer(self, gpu: GpuMatch, **fields: Any) -> Offer:
        """An :class:`Offer` of this source for ``gpu``.

        Fills what every adapter sets the same way: provider and billing terms (the source's
        ``provider``), accelerator, per-GPU memory and fractional flag (from ``gpu``), the
        ``source`` label and the interconnect :func:`stated_interconnect` gives (the part's own, also
        for an assumed variant; unknown for a slice). An assumed variant is marked in ``extra``
        (:data:`VARIANT_KEY`), as the bundled snapshot marks it, and its notes say the fabric was
        assumed with it. ``fields`` gives the rest (instance type, region, prices,
        ``observed_at``...) and may override any of these; a source that states the fabric itself
        (Vast.ai's NVLink bandwidth, Shadeform's ``interconnect``) passes ``interconnect``.
        """
        defaults: dict[str, Any] = {
            "provider": self.provider,
            "accelerator": gpu.accelerator.name,
            "gpu_memory_gb": gpu.memory_gb,
            "fractional": gpu.fractional,
            "source": self.source_label,
            "interconnect": stated_interconnect(gpu.accelerator, fractional=gpu.fractional),
            "billing_terms": self.provider,
        }
        offer = defaults | fields
        if not gpu.exact:
            offer["extra"] = {**offer.get("extra", {}), VARIANT_KEY: VARIANT_ASSUMED}
            if "interconnect" not in fields and not gpu.fractional:  # the fabric came with the board
                fabric = assumed_fabric_note(gpu.accelerator)
                offer["notes"] = "; ".join(x for x in (offer.get("notes") or "", fabric) if x)
        return Offer(**offer)

    def offline_offers(self) -> list[Offer] | None:
        """The offers of a source that reads no network (a user's file), read without an HTTP client:
        the refresh's worker then makes none (nor imports httpx). ``None``, the default: the source
        needs a client, and the worker calls :meth:`fetch` with one."""
        return None

    @abstractmethod
    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        """Fetch and normalize this feed's current offers. Raise :class:`SourceError` on failure."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
