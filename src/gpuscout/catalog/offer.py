"""The one ``Offer`` type: a rentable GPU configuration at a price, with its provenance.

This dataclass is the single place the offer fields are defined. The store's row mapping, the JSON
API's ``OfferOut``, the CSV/JSON exports and the CLI's CSV columns are all derived from
``dataclasses.fields(Offer)`` (see :mod:`gpuscout.catalog.offer_fields` and
:mod:`gpuscout.catalog.rows`); each field's ``metadata["doc"]`` is its description in the API
schema. Adding a field here needs only a numbered migration step adding its column (and the column
in :mod:`gpuscout.catalog.schema`); a test checks that the schema covers every field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from fractions import Fraction
from typing import Any

#: The largest denominator a vGPU slice's share is written with (1/48: 1 GB of a 48 GB card).
_SLICE_DENOMINATOR = 128


class Availability(StrEnum):
    AVAILABLE = "available"
    LIMITED = "limited"
    UNAVAILABLE = "unavailable"
    UNKNOWN = "unknown"


class Interconnect(StrEnum):
    NVLINK = "nvlink"  # NVLink / NVSwitch / SXM baseboard / Infinity Fabric / ICI
    PCIE = "pcie"
    UNKNOWN = "unknown"


def _doc(text: str, *, face: bool = True) -> dict[str, Any]:
    """Field metadata: the description the faces show; ``face=False`` keeps a field internal (it is
    stored, but left out of the API schema and the exports)."""
    return {"doc": text, "face": face}


@dataclass(frozen=True, slots=True)
class Offer:
    """One offer. Prices are USD per hour for the *whole instance*; unknown is ``None``, never 0.

    ``observed_at`` is ``None`` when the time the price was observed is not known (the bundled
    snapshot's rows): show it as unknown age, never as "now".
    """

    provider: str = field(metadata=_doc("provider id, lower case (aws, runpod, vastai...)"))
    instance_type: str = field(metadata=_doc("the provider's name of the instance / machine type"))
    region: str = field(
        metadata=_doc("the region; a summary (e.g. '3 regions') when `regions` lists several")
    )
    accelerator: str = field(metadata=_doc("canonical accelerator name (see /api/v1/gpus)"))
    gpu_count: int = field(metadata=_doc("GPUs in the instance"))
    gpu_memory_gb: float = field(
        metadata=_doc('memory per GPU as the vendor states it ("80 GB"), which is GiB (2**30 bytes)')
    )
    price_usd_per_hour: float | None = field(
        metadata=_doc("on-demand price of the whole instance, USD/hour; null when unknown")
    )
    spot_price_usd_per_hour: float | None = field(
        metadata=_doc("spot / interruptible price of the whole instance, USD/hour; null when none")
    )
    source: str = field(metadata=_doc("the feed and its URL/endpoint the row came from"))
    observed_at: datetime | None = field(
        metadata=_doc("when the price was observed; null when unknown (bundled snapshot rows)")
    )
    zone: str | None = field(default=None, metadata=_doc("availability zone, where stated"))
    vcpus: float | None = field(default=None, metadata=_doc("vCPUs of the instance"))
    ram_gb: float | None = field(default=None, metadata=_doc("host memory, GB"))
    disk_gb: float | None = field(default=None, metadata=_doc("included local disk, GB"))
    interconnect: Interconnect = field(
        default=Interconnect.UNKNOWN, metadata=_doc("GPU-to-GPU fabric inside the instance")
    )
    internode: str | None = field(
        default=None, metadata=_doc("inter-node fabric where the provider states it: infiniband, roce, efa")
    )
    availability: Availability = field(default=Availability.UNKNOWN, metadata=_doc("capacity right now"))
    available_count: int | None = field(default=None, metadata=_doc("instances available, where stated"))
    billing_terms: str | None = field(
        default=None, metadata=_doc("provider whose billing, egress and storage terms apply")
    )
    stale: bool = field(default=False, metadata=_doc("known to come from an old feed"))
    fractional: bool = field(default=False, metadata=_doc("a vGPU / fractional slice of a GPU"))
    storage_usd_per_gb_month: float | None = field(
        default=None, metadata=_doc("this offer's storage price (marketplaces), overriding the provider's")
    )
    egress_usd_per_gb: float | None = field(
        default=None, metadata=_doc("this offer's egress price, overriding the provider's")
    )
    secure: bool | None = field(default=None, metadata=_doc("RunPod secure (true) vs community cloud"))
    notes: str = field(default="", metadata=_doc("what the source says about the row"))
    extra: dict[str, str] = field(
        default_factory=dict,
        compare=False,
        hash=False,
        metadata=_doc("source-specific details (raw names, meters...)", face=False),
    )
    regions: tuple[str, ...] = field(
        default=(),
        metadata=_doc(
            "every region this row stands for, when the source lists the same offer at the same price "
            "in several regions without per-region availability (`region` is then a summary)"
        ),
    )
    also_listed_by: tuple[str, ...] = field(
        default=(),
        metadata=_doc("aggregators that list the same capacity (the first-party row is shown once)"),
    )
    original_currency: str | None = field(
        default=None, metadata=_doc("ISO 4217 code of the price as the source stated it, before USD")
    )
    original_price_per_hour: float | None = field(
        default=None, metadata=_doc("the on-demand price in `original_currency`, as stated")
    )
    original_spot_price_per_hour: float | None = field(
        default=None, metadata=_doc("the spot price in `original_currency`, as stated")
    )
    price_is_interruptible: bool = field(
        default=False,
        metadata=_doc("even the listed on-demand price is an auction / outbid price (spot-class capacity)"),
    )

    @property
    def gpus_worth(self) -> float:
        """How many GPUs the offer is worth: its GPU count, or for a vGPU slice the share of the card
        its memory is (4 GB of an 80 GB A100: 0.05). See :func:`gpus_worth`."""
        return gpus_worth(self.accelerator, self.gpu_count, self.gpu_memory_gb, fractional=self.fractional)

    @property
    def slice_label(self) -> str:
        """A vGPU slice's share of one GPU as the tables show it, a fraction ("1/20": 4 GB of an 80 GB
        card; "5/12": 10 GB of 24); "" for whole GPUs."""
        if not self.fractional:
            return ""
        share = Fraction(self.gpus_worth / self.gpu_count).limit_denominator(_SLICE_DENOMINATOR)
        return f"{share.numerator}/{share.denominator}" if 0 < share < 1 else ""

    @property
    def price_usd_per_gpu_hour(self) -> float | None:
        """On-demand price per GPU-hour; a vGPU slice's for a whole GPU's worth (:attr:`gpus_worth`:
        $0.123/h for 1/20 of an A100 is $2.46 per GPU-hour), so that it compares and sorts with whole
        GPUs' prices."""
        if self.price_usd_per_hour is None:
            return None
        return self.price_usd_per_hour / (self.gpus_worth if self.fractional else self.gpu_count)

    @property
    def spot_price_usd_per_gpu_hour(self) -> float | None:
        """Spot price per GPU-hour, a slice's for a whole GPU's worth (as :attr:`price_usd_per_gpu_hour`)."""
        if self.spot_price_usd_per_hour is None:
            return None
        return self.spot_price_usd_per_hour / (self.gpus_worth if self.fractional else self.gpu_count)

    @property
    def firm_on_demand(self) -> bool:
        """Whether the offer has an on-demand price one can rent at without being outbid: a listed
        on-demand price that is not an auction price (``price_is_interruptible``).

        The catalog's one rule of what counts as on-demand: the cheapest on-demand figures (answer
        cards, GPU pages), the ``on-demand`` pricing filter and the on-demand price history leave the
        other rows out. An auction price is a spot-class price, as the advisor costs it
        (``advise.rank.spot_class``); the snapshot's auction rows state it as their spot price too, so
        the spot views list them. Its SQL form is :data:`gpuscout.catalog.query.FIRM_ON_DEMAND_SQL`."""
        return self.price_usd_per_hour is not None and not self.price_is_interruptible

    @property
    def interruptible_on_demand(self) -> bool:
        """Whether the listed on-demand price is an auction price (interruptible, spot-class): the rows
        the tables mark "auction" (see :attr:`firm_on_demand`)."""
        return self.price_usd_per_hour is not None and not self.firm_on_demand

    @property
    def total_memory_gb(self) -> float:
        return self.gpu_memory_gb * self.gpu_count

    @property
    def intra_node_fabric(self) -> str:
        """The GPUs' fabric inside the instance named for their vendor: ``interconnect`` is a class
        ("nvlink": NVLink / NVSwitch / Infinity Fabric / ICI), this is the fabric an AMD box has
        ("infinity-fabric"), an NVIDIA one ("nvlink"); "pcie" and "unknown" as they are."""
        from gpuscout.catalog.fabrics import intra_node_fabric
        from gpuscout.knowledge.accelerators import find_gpu

        found = find_gpu(self.accelerator)  # no closest-name search for an unknown name
        if found is None:
            return self.interconnect.value
        return intra_node_fabric(self.interconnect, found.accelerator.vendor)

    @property
    def key(self) -> tuple[str, str, str, str | None, bool | None]:
        """Identity of an offer within one source snapshot (used to collapse duplicates)."""
        return (self.provider, self.instance_type, self.region, self.zone, self.secure)


def gpus_worth(accelerator: str, gpu_count: int, gpu_memory_gb: float, *, fractional: bool) -> float:
    """How many GPUs an offer of these fields is worth: ``gpu_count``, or for a vGPU slice
    (``fractional``, memory per GPU below the card's) ``gpu_count`` x its memory / the card's (4 GB of
    an 80 GB A100: 0.05), so that its price per GPU-hour is a whole GPU's worth. A slice of a card the
    knowledge table does not hold counts as whole (no share can be computed)."""
    if not fractional:
        return float(gpu_count)
    from gpuscout.knowledge.accelerators import find_gpu

    found = find_gpu(accelerator)  # no closest-name search for an unknown name
    card = found.accelerator.memory_gb if found is not None else 0.0
    if card <= 0 or not 0 < gpu_memory_gb < card:
        return float(gpu_count)
    return gpu_count * gpu_memory_gb / card


#: Values derived from the fields that the faces show next to them (``(name, description)``).
COMPUTED_FIELDS: tuple[tuple[str, str], ...] = (
    ("total_memory_gb", "GPU memory of the whole instance, GiB (2**30 bytes), as gpu_memory_gb"),
    ("price_usd_per_gpu_hour", "on-demand price per GPU, USD/hour (a vGPU slice: for a whole GPU's worth)"),
    ("spot_price_usd_per_gpu_hour", "spot price per GPU, USD/hour (a vGPU slice: for a whole GPU's worth)"),
)
