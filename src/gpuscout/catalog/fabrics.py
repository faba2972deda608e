"""Inter-node fabrics of well-known multi-GPU instance types.

Feeds such as the SkyPilot-derived snapshot carry no network column, yet multi-node training needs to
know whether instances of a type can be joined over RDMA. This table records what each provider's
instance documentation states for its 8-GPU training shapes. The figures were read from those pages
in the past, not captured as payloads, so each entry says where to check it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fabric:
    kind: str  # "efa", "infiniband", "roce"
    gbps_per_node: float  # Gbit/s of RDMA per instance, as the provider states it
    source_url: str


_AWS_P4 = "https://aws.amazon.com/ec2/instance-types/p4/"
_AWS_P5 = "https://aws.amazon.com/ec2/instance-types/p5/"
_AWS_P6 = "https://aws.amazon.com/ec2/instance-types/p6/"
_AWS_P3 = "https://aws.amazon.com/ec2/instance-types/p3/"
_AZ_ND = "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/"
_OCI = "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm#bm-gpu"

# (provider, instance type) -> fabric. Only shapes whose documentation names an RDMA fabric.
KNOWN_FABRICS: dict[tuple[str, str], Fabric] = {
    ("aws", "p3dn.24xlarge"): Fabric("efa", 100, _AWS_P3),
    ("aws", "p4d.24xlarge"): Fabric("efa", 400, _AWS_P4),
    ("aws", "p4de.24xlarge"): Fabric("efa", 400, _AWS_P4),
    ("aws", "p5.48xlarge"): Fabric("efa", 3200, _AWS_P5),
    ("aws", "p5e.48xlarge"): Fabric("efa", 3200, _AWS_P5),
    ("aws", "p5en.48xlarge"): Fabric("efa", 3200, _AWS_P5),
    ("aws", "p6-b200.48xlarge"): Fabric("efa", 3200, _AWS_P6),
    ("azure", "Standard_ND40rs_v2"): Fabric("infiniband", 100, _AZ_ND + "nd-family"),
    ("azure", "Standard_ND96asr_v4"): Fabric("infiniband", 1600, _AZ_ND + "nd-family"),
    ("azure", "Standard_ND96amsr_A100_v4"): Fabric("infiniband", 1600, _AZ_ND + "nd-family"),
    ("azure", "Standard_ND96isr_H100_v5"): Fabric("infiniband", 3200, _AZ_ND + "nd-family"),
    ("oci", "BM.GPU4.8"): Fabric("roce", 1600, _OCI),
    ("oci", "BM.GPU.A100-v2.8"): Fabric("roce", 1600, _OCI),
    ("oci", "BM.GPU.H100.8"): Fabric("roce", 3200, _OCI),
    ("oci", "BM.GPU.H200.8"): Fabric("roce", 3200, _OCI),
    ("oci", "BM.GPU.B200.8"): Fabric("roce", 3200, _OCI),
    ("oci", "BM.GPU.MI300X.8"): Fabric("roce", 3200, _OCI),
}


def known_fabric(provider: str, instance_type: str) -> Fabric | None:
    """The documented inter-node fabric of ``instance_type`` at ``provider``, or ``None``."""
    return KNOWN_FABRICS.get((provider.lower(), instance_type))
