"""An MI300X node is a full mesh: each GPU has one 128 GB/s (64 per direction) Infinity Fabric link to
each of the other seven, no switch. A collective among g of them drives the g - 1 links between them, so
a TP2 all-reduce gets one link, not the 448 GB/s per direction of all seven (an NVSwitch gives every TP
the whole fabric)."""

from __future__ import annotations

import pytest

from gpuscout.estimate.parallel import FABRIC_EFFICIENCY, collective_link, mesh_peers, tp_step_comm_seconds
from gpuscout.knowledge.accelerators import find_gpu


def _acc(name: str):  # type: ignore[no-untyped-def]
    return find_gpu(name).accelerator


def test_mi300x_is_a_seven_peer_mesh_and_h100_is_switched() -> None:
    assert mesh_peers(_acc("MI300X")) == 7
    assert mesh_peers(_acc("MI355X")) == 7  # "8-GPU all-to-all"
    assert mesh_peers(_acc("H100-SXM")) is None


@pytest.mark.parametrize(("tp", "links"), [(2, 1), (4, 3), (8, 7)])
def test_a_tp_group_gets_the_links_among_its_gpus(tp: int, links: int) -> None:
    # 7 links x 128 GB/s bidirectional = 896; per direction 64 GB/s a link, used at FABRIC_EFFICIENCY
    assert collective_link(_acc("MI300X"), tp).gbps == pytest.approx(links * 64.0 * FABRIC_EFFICIENCY)


def test_a_switched_fabric_gives_every_tp_the_whole_link() -> None:
    # NVSwitch: every TP group all-reduces over the whole 450 GB/s per direction (no mesh links divided
    # among the group); NCCL's measured share of it grows with the ring (0.66 / 0.74 / 0.88, stop 71)
    h100 = _acc("H100-SXM")
    links = [collective_link(h100, tp) for tp in (2, 4, 8)]
    assert {link.raw_gbps for link in links} == {450.0}
    assert [link.gbps for link in links] == pytest.approx([297.0, 333.0, 396.0])


def test_a_70b_prefill_all_reduce_on_two_mi300x_by_hand() -> None:
    # 8,192 prompt tokens, hidden 8,192, 80 layers x 2 all-reduces of 8192 x 8192 x 2 B = 134 MB each;
    # a 2-GPU ring moves 2 (2 - 1) / 2 of it per GPU over one link at 51.2 GB/s: 2.6 ms, x 160 = 0.42 s
    link = collective_link(_acc("MI300X"), 2)
    message = 8192 * 8192 * 2.0
    bandwidth_part = 160 * message / (link.gbps * 1e9)
    assert bandwidth_part == pytest.approx(0.419, rel=0.01)
    total = tp_step_comm_seconds(_acc("MI300X"), 2, 80, 8192, 8192)
    # RCCL's assumed latency at TP2: 21.7 + 3.33 = 25 us an all-reduce
    assert total == pytest.approx(bandwidth_part + 160 * 25.03e-6, rel=1e-6)
