"""An offer on an Arm host (AWS G5g: Graviton2; GH200 / GB200: Grace) says so on its row: an x86-64
image or wheel of the engine does not run there. AWS g5g.16xlarge (2x T4G) was the cheapest TGI pick
with nothing said."""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.knowledge.host_arch import arm_host
from tests.advise.helpers import NOW, offer

W = ServeWorkload(model="llama-3.2-1b", concurrency=4)


def _warnings(provider: str, gpu: str, instance: str, memory: float) -> tuple[str, ...]:
    answer = advise(W, [offer(provider, gpu, 1, 1.0, memory=memory, instance=instance)], top=1, now=NOW)
    assert answer.rows, answer
    return answer.rows[0].warnings


def test_the_known_arm_hosts() -> None:
    assert arm_host("aws", "g5g.2xlarge", "T4") == "AWS Graviton2"
    assert arm_host("lambda", "gpu_1x_gh200", "GH200-96GB") == "NVIDIA Grace"
    assert arm_host("aws", "g4dn.xlarge", "T4") is None
    assert arm_host("gcp", "g5g.2xlarge", "T4") is None  # an AWS family name, not another provider's


def test_a_graviton_row_warns_and_an_x86_row_does_not() -> None:
    arm = [w for w in _warnings("aws", "T4", "g5g.2xlarge", 16.0) if w.startswith("Arm host")]
    assert arm == [
        "Arm host (AWS Graviton2, aarch64): x86-64 images and wheels do not run; check that the engine has "
        "an aarch64 build"
    ]
    assert not any(w.startswith("Arm host") for w in _warnings("aws", "T4", "g4dn.xlarge", 16.0))


def test_a_grace_hopper_row_warns() -> None:
    assert any("Arm host (NVIDIA Grace" in w for w in _warnings("lambda", "GH200-96GB", "gpu_1x_gh200", 96.0))
