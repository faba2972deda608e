"""Which rented GPU machines have an Arm (aarch64) host CPU, from the vendors' own descriptions.

A serving or training stack ships per CPU architecture: a container image or wheel built for x86-64
does not run on an Arm host, so a renter must check that the engine has an aarch64 build before taking
such an offer. Known Arm hosts:

* NVIDIA's superchips pair each GPU with a Grace CPU (72 Arm Neoverse V2 cores): GH200, GB200, GB300
  (https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/,
  https://www.nvidia.com/en-us/data-center/gb200-nvl72/).
* AWS G5g instances run on AWS Graviton2 processors with NVIDIA T4G GPUs
  (https://aws.amazon.com/ec2/instance-types/g5g/).

Every other offer is taken as an x86-64 host (what the feeds do not state: no other GPU offer in the
bundled snapshot is known to be Arm).
"""

from __future__ import annotations

#: accelerators always hosted by an Arm CPU (the table's names, family prefix)
GRACE_HOSTED = ("GH200", "GB200", "GB300")
#: (provider, instance-type prefix, host CPU) of instance families on Arm hosts
ARM_INSTANCE_FAMILIES = (("aws", "g5g.", "AWS Graviton2"),)


def arm_host(provider: str, instance_type: str, accelerator: str) -> str | None:
    """The Arm host CPU of an offer ("NVIDIA Grace", "AWS Graviton2"), or None (taken as x86-64)."""
    if accelerator.upper().startswith(GRACE_HOSTED):
        return "NVIDIA Grace"
    for who, prefix, cpu in ARM_INSTANCE_FAMILIES:
        if provider.lower() == who and instance_type.lower().startswith(prefix):
            return cpu
    return None
