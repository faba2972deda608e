"""Inter-node fabrics of well-known multi-GPU instance types.

Feeds such as the SkyPilot-derived snapshot carry no network column, yet multi-node training needs to
know whether instances of a type can be joined over RDMA. This table records what each provider's
instance documentation states for its 8-GPU training shapes. The figures were read from those pages
in the past, not captured as payloads, so each entry says where to check it.

Each entry is a :class:`~gpuscout.advise.internode.StatedInternode`, the type the advisor reads an
offer's figure back into. Units: its ``gbit_per_s`` is Gbit/s (bits), as providers state it, and so is the
``extra["internode_gbps"]`` an offer carries (:func:`internode_extra`). The training estimator's
``internode_gbps`` is GB/s (bytes) per node: the advisor converts the offer's figure with
:func:`gpuscout.estimate.training.gbit_to_gbyte` before passing it.

The intra-node fabric of an NVLink-class box (``Interconnect.NVLINK``: a switched GPU-to-GPU baseboard)
is named per vendor by :func:`intra_node_fabric`: AMD's is Infinity Fabric (xGMI), not NVLink.
"""

from __future__ import annotations

from gpuscout.advise.internode import StatedInternode

_AWS_P4 = "https://aws.amazon.com/ec2/instance-types/p4/"
_AWS_P5 = "https://aws.amazon.com/ec2/instance-types/p5/"
_AWS_P6 = "https://aws.amazon.com/ec2/instance-types/p6/"
_AWS_P3 = "https://aws.amazon.com/ec2/instance-types/p3/"
_AZ_ND = "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/"
_OCI = "https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm#bm-gpu"

# (provider, instance type) -> fabric. Only shapes whose documentation names an RDMA fabric.
KNOWN_FABRICS: dict[tuple[str, str], StatedInternode] = {
    ("aws", "p3dn.24xlarge"): StatedInternode("efa", 100, _AWS_P3),
    ("aws", "p4d.24xlarge"): StatedInternode("efa", 400, _AWS_P4),
    ("aws", "p4de.24xlarge"): StatedInternode("efa", 400, _AWS_P4),
    ("aws", "p5.48xlarge"): StatedInternode("efa", 3200, _AWS_P5),
    ("aws", "p5e.48xlarge"): StatedInternode("efa", 3200, _AWS_P5),
    ("aws", "p5en.48xlarge"): StatedInternode("efa", 3200, _AWS_P5),
    ("aws", "p6-b200.48xlarge"): StatedInternode("efa", 3200, _AWS_P6),
    ("azure", "Standard_ND40rs_v2"): StatedInternode("infiniband", 100, _AZ_ND + "nd-family"),
    ("azure", "Standard_ND96asr_v4"): StatedInternode("infiniband", 1600, _AZ_ND + "nd-family"),
    ("azure", "Standard_ND96amsr_A100_v4"): StatedInternode("infiniband", 1600, _AZ_ND + "nd-family"),
    ("azure", "Standard_ND96isr_H100_v5"): StatedInternode("infiniband", 3200, _AZ_ND + "nd-family"),
    ("oci", "BM.GPU4.8"): StatedInternode("roce", 1600, _OCI),
    ("oci", "BM.GPU.A100-v2.8"): StatedInternode("roce", 1600, _OCI),
    ("oci", "BM.GPU.H100.8"): StatedInternode("roce", 3200, _OCI),
    ("oci", "BM.GPU.H200.8"): StatedInternode("roce", 3200, _OCI),
    ("oci", "BM.GPU.B200.8"): StatedInternode("roce", 3200, _OCI),
    ("oci", "BM.GPU.MI300X.8"): StatedInternode("roce", 3200, _OCI),
}


def known_fabric(provider: str, instance_type: str) -> StatedInternode | None:
    """The documented inter-node fabric of ``instance_type`` at ``provider``, or ``None``."""
    return KNOWN_FABRICS.get((provider.lower(), instance_type))


def internode_extra(fabric: StatedInternode) -> dict[str, str]:
    """What an offer's ``extra`` carries of its documented fabric: ``internode_gbps``, Gbit/s per instance
    as the provider states it (not GB/s), and ``internode_source``, where it is stated. The advisor times
    multi-node training over that figure (``advise.training_configs.stated_internode``)."""
    return {"internode_source": fabric.source, "internode_gbps": f"{fabric.gbit_per_s:g}"}


#: The switched GPU-to-GPU fabric of an NVLink-class box (``Interconnect.NVLINK``), by the GPU's vendor
#: (the ``vendor`` of the accelerator table).
INTRA_NODE_FABRICS: dict[str, str] = {
    "NVIDIA": "nvlink",
    "AMD": "infinity-fabric",  # xGMI links between the OAM modules
    "Google": "ici",  # TPU inter-chip interconnect
    "Intel": "roce",  # Gaudi: on-die RoCE v2 NICs, all-to-all inside the box
    "AWS": "neuronlink",  # Trainium / Inferentia
}
_SWITCHED = "nvlink"  # ``Interconnect.NVLINK``'s value: the class of fabric, whatever the vendor


def intra_node_fabric(interconnect: str, vendor: str) -> str:
    """What an offer's GPUs talk over inside the instance, named for the vendor: an NVLink-class box
    (``interconnect`` "nvlink") of AMD GPUs is "infinity-fabric", of NVIDIA GPUs "nvlink"; "pcie" and
    "unknown" are kept as they are (``interconnect`` is an ``Interconnect`` or its value)."""
    value = str(interconnect)
    if value != _SWITCHED:
        return value
    return INTRA_NODE_FABRICS.get(vendor, value)
