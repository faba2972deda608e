"""An inter-node fabric as its source states it: the one value type of the catalog's table of documented
fabrics (:data:`gpuscout.catalog.fabrics.KNOWN_FABRICS`) and of the figure an offer carries, as the advisor
reads it (:func:`gpuscout.advise.training_configs.stated_internode`).

It lives on the advisor's side because the advisor may not import the catalog (beyond ``catalog.offer``),
while the catalog may import the advisor; this module imports nothing of either, so the catalog's
sources pay nothing for it.
"""

from __future__ import annotations

from dataclasses import dataclass

_FABRIC_NAMES = {"efa": "EFA", "infiniband": "InfiniBand", "roce": "RoCE"}


@dataclass(frozen=True, slots=True)
class StatedInternode:
    """An inter-node fabric as its source states it (per instance)."""

    kind: str  # "efa", "infiniband", "roce"
    gbit_per_s: float  # Gbit/s of RDMA per instance (bits, not bytes), as stated
    source: str  # where it is stated (the fabric's documentation, else the offer's source)

    @property
    def gbyte_per_s(self) -> float:
        """GB/s per node: what ``estimate_training(internode_gbps=...)`` takes."""
        from gpuscout.estimate.training import gbit_to_gbyte  # the estimator's, loaded with it

        return gbit_to_gbyte(self.gbit_per_s)

    def describe(self) -> str:
        """'400 GB/s per node (3,200 Gbit/s EFA, as stated: https://...)'."""
        gbit = f"{self.gbit_per_s:,.0f} Gbit/s {_FABRIC_NAMES.get(self.kind, self.kind)}"
        return f"{self.gbyte_per_s:,.4g} GB/s per node ({gbit}, as stated: {self.source})"
