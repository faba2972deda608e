"""Documented inter-node fabrics reach the offers that multi-node training needs."""

from __future__ import annotations

from gpuscout.catalog.fabrics import KNOWN_FABRICS, known_fabric
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.knowledge.providers import provider_terms


def test_known_training_shapes_name_their_fabric_and_source() -> None:
    p5 = known_fabric("aws", "p5.48xlarge")
    assert p5 is not None and p5.kind == "efa" and p5.gbit_per_s == 3200
    assert known_fabric("aws", "g5.48xlarge") is None  # no EFA RDMA between g5 boxes is assumed
    assert all(f.source.startswith("https://") for f in KNOWN_FABRICS.values())
    assert all(provider_terms(p).name == p for p, _ in KNOWN_FABRICS)


def test_bundled_snapshot_rows_carry_the_fabric_only_where_documented() -> None:
    offers = SnapshotSource().offers()
    p5 = [o for o in offers if o.instance_type == "p5.48xlarge"]
    assert p5 and all(o.internode == "efa" for o in p5)
    assert all(o.extra.get("internode_source") for o in p5)
    nd = [o for o in offers if o.instance_type == "Standard_ND96isr_H100_v5"]
    assert nd and all(o.internode == "infiniband" for o in nd)
    lambda_8x = [o for o in offers if o.provider == "lambda" and o.instance_type == "gpu_8x_h100_sxm5"]
    assert lambda_8x and all(o.internode is None for o in lambda_8x)
