"""Multi-GPU costs: tensor-parallel all-reduce over NVLink or PCIe, layer-split hand-offs, replicas.

Tensor parallelism (Megatron style) does two all-reduces per layer per forward pass (after attention
and after the MLP), each of ``tokens x hidden`` activations in 16 bit. A ring all-reduce moves
``2 (TP-1)/TP`` times the message over each GPU's link, plus a latency that grows by a fixed amount with
each GPU of the ring (:func:`allreduce_latency_us`). The latencies are measured ones (NVIDIA
aiconfigurator-core 0.12.0's collective tables, :data:`NVLINK_LATENCY_US`): NCCL's small-message
all-reduce takes ~8 us on NVLink at TP=2 and ~20 at TP=8, ~7 and ~25 over PCIe; the custom one-shot
all-reduce kernels vLLM, SGLang and TensorRT-LLM run under CUDA graphs on NVLink
(``EngineProfile.custom_allreduce``) take ~4.5-5 us at any TP from 2 to 8.

A batch-1 decode step of Llama-3-70B on TP4 therefore pays 2 x 80 = 160 all-reduces of 16 KiB: about
160 x 12 us = 1.9 ms over NVLink through NCCL (TGI, HF transformers), 160 x 4.7 us = 0.75 ms through
vLLM's custom kernel, 160 x 13 us = 2 ms over PCIe: a large share of a ~10 ms step.

The three ways to use several GPUs (``parallel``):

* ``tensor``: every layer split over the GPUs (vLLM, SGLang, TGI, TensorRT-LLM default): per-GPU bytes
  and FLOPs divide by TP, the all-reduces are added; thin shards keep their fixed per-layer costs, so
  the per-GPU efficiency falls as TP grows.
* ``layer`` (pipeline / llama.cpp layer split): each GPU holds a slice of the layers; one token goes
  through them in turn (no batch-1 speed-up), a hand-off per boundary.
* ``replicas`` (data parallel, ``vllm --data-parallel-size``): each GPU holds the whole model and serves
  its share of the requests: throughput adds up, per-request latency is one GPU's.

Within ``tensor``, an engine may run the attention data-parallel (``EngineProfile.dp_attention``, SGLang's
``--enable-dp-attention``): each GPU holds the whole attention and runs it for its own sequences, whose
cache only it keeps, while the MLP / MoE layers stay split (``throughput.attention_dp``).

An interconnect the table does not state is costed as PCIe Gen4 and the link says so (``assumed``).

GPUs without peer-to-peer access (GeForce RTX 30 / 40 / 50, :func:`lacks_peer_access`) pass every collective
and hand-off through host memory: :func:`collective_link` is the one place that gives a collective its
link, serving (tensor-parallel all-reduces, layer-split hand-offs) and training alike, at
``HOST_STAGED_SHARE`` of the PCIe bandwidth there.

Tensor parallelism gives each rank whole attention heads, so the servers refuse a TP degree that does not
divide ``num_attention_heads`` (vLLM: "Total number of attention heads (64) must be divisible by tensor
parallel size (3)"), and vLLM / SGLang shard the KV heads the same way below TP = ``num_key_value_heads``
and replicate them above it, which needs TP to be a multiple of them (``tp_head_conflict``). llama.cpp's
layer split (and its row split) has no such rule.
Expert parallelism (MoE experts placed whole on GPUs) is costed as tensor parallelism: the same bytes
per GPU, and the all-to-all dispatch/combine it needs is of the order of the all-reduce it replaces.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

PCIE_GBPS_UNIDIRECTIONAL = {3: 16.0, 4: 32.0, 5: 64.0, 6: 128.0}
# NCCL's all-reduce bus bandwidth over PCIe as a share of one GPU's link rate, by the GPUs in the ring.
# Measured (the aiconfigurator-core 0.12.0 tables of the latencies below, messages of 8 MB and more): two
# GPUs 0.62 (8x L40S, Gen4) and 0.57 (8x RTX PRO 6000 Server, Gen5); four 0.16 and 0.39; eight 0.05 and
# 0.37. Beyond a pair the ring crosses PCIe switches, root complexes or CPU sockets, which a box's
# topology decides and an offer does not state: the estimate takes the geometric mean of the two boxes
# (four 0.25, eight 0.14), an assumption between them. A ring of 3 takes the 4-GPU share, 5-7 the 8-GPU.
PCIE_EFFICIENCY = 0.6
#: The measured shares beyond a pair, by ring size: (the 8x L40S box, the 8x RTX PRO 6000 Server box). The
#: ring table's entries are their geometric means; the estimate's warning quotes the spread.
PCIE_RING_MEASURED = {4: (0.16, 0.39), 8: (0.05, 0.37)}
PCIE_EFFICIENCY_BY_RING = (
    (2, PCIE_EFFICIENCY),
    *((ring, round(math.sqrt(low * high), 2)) for ring, (low, high) in PCIE_RING_MEASURED.items()),
)  # ((2, 0.6), (4, 0.25), (8, 0.14))
#: Fabrics whose collectives no measured table here covers (AMD Infinity Fabric, TPU ICI, Trainium, Gaudi)
#: and the scale-out network: a collective's share of the link rate, assumed.
FABRIC_EFFICIENCY = 0.8
# NCCL over NVIDIA NVLink / NVSwitch, by the GPUs in the ring (2, up to 4, up to 8 and more), fitted on
# the NCCL tables of the same aiconfigurator-core 0.12.0 collector as the latencies below (H100 SXM, H200
# SXM, A100 SXM 80GB, B200; messages of 4 KB to 1 GB; least squared log error, each system at its own
# link rate). NCCL picks a protocol per message (its tuning model): LL, whose 8-byte stores carry 4 bytes
# of data and a 4-byte flag, starts at the small-message latency but moves data at a fraction of the link;
# Simple moves it at the link's rate after a longer start. The estimate takes the faster of the two:
# * ``NVLINK_SIMPLE_SHARE_BY_RING``: the large-message bus bandwidth over the link rate (measured 0.59-0.71
#   for two GPUs, 0.68-0.78 for four, 0.47-1.02 for eight: NVLink SHARP's in-switch reduction lifts H100 /
#   H200 eight-GPU rings above 0.9 at 256 MB and more, B200's reached 0.78);
# * ``NVLINK_LL_SHARE_BY_RING``: the share the low-latency protocol reaches (its ramp: 1-8 MB messages);
# * ``NVLINK_SIMPLE_START_US_BY_RING``: what Simple's start adds to the small-message latency.
# Before this (stop 70) the bandwidth part was one 0.8 of the link at any size and ring, 22-34 % fast
# from 64 KB to 8 MB (decode batches' all-reduces) and 25 % fast above 8 MB for two GPUs.
NVLINK_SIMPLE_SHARE_BY_RING = ((2, 0.66), (4, 0.74), (8, 0.88))
NVLINK_LL_SHARE_BY_RING = ((2, 0.22), (4, 0.36), (8, 0.42))
NVLINK_SIMPLE_START_US_BY_RING = ((2, 18.0), (4, 24.0), (8, 52.0))
# The engines' own all-reduce kernels over NVLink (vLLM, SGLang, TensorRT-LLM, all three tables together):
# a one-shot kernel, in which each GPU reads the whole message from every peer ((TP - 1) x the message
# over its links: cheap to start, dear for wide rings), and a two-shot one (reduce-scatter then
# all-gather: the ring's 2 (TP - 1) / TP x the message, one more synchronisation); the engines pick by
# size and hand messages beyond their buffers to NCCL, so the estimate takes the fastest of the three.
# Fitted on the same tables (4 KB to 1 GB, TP 2 / 4 / 8): the one-shot reads at 0.58 of the link rate, the
# two-shot moves at 0.62 after 8 us more.
ONE_SHOT_SHARE = 0.58
TWO_SHOT_SHARE = 0.62
TWO_SHOT_START_US = 8.0
# An all-reduce's latency (its time for a message of a few KB) is ``a + b x (TP - 1)`` us: a fixed part
# (launch, synchronisation) and a part per GPU of the ring. Measured, not fitted on the calibration rows:
# NVIDIA aiconfigurator-core 0.12.0 (PyPI wheel, Apache-2.0) ships the all-reduce times its collector
# measured per system (``systems/data/<system>/comm/``: NCCL 2.26-2.29 through nccl-tests-style loops, and
# vLLM / SGLang / TensorRT-LLM's own kernels under CUDA graphs), bf16, 128 to 512M elements at TP 2, 4
# and 8. The figures below are least-squares lines through the 2,048-byte points (benchmarks/
# collectives.py restates them and scores this module's all-reduce against every table):
# * NCCL over NVLink / NVSwitch, the mean of H100 SXM, H200 SXM, A100 SXM 80GB and B200 at TP 2 / 4 / 8:
#   8.2 / 12.2 / 19.7 us (H100 6.2 / 9.8 / 15.8; A100 10.0 / 14.2 / 21.5; B200 10.2 / 15.1 / 25.6).
# * NCCL over PCIe, the mean of an 8x L40S box (Gen4) and an 8x RTX PRO 6000 Server box (Gen5): 6.3 / 13.0
#   / 24.4 us (6.3 / 12.5 / 23.3 and 6.3 / 13.4 / 25.5).
# * The custom one-shot all-reduce kernels of vLLM (0.14-0.24), SGLang (0.5.9-0.5.14) and TensorRT-LLM
#   (1.0-1.3) replayed in CUDA graphs over NVLink: 2.5-7.5 us, nearly flat in TP (the medians 4.5 / 4.7 /
#   5.0 us; vLLM's on an H100 4.2 / 4.6 / 4.6). Launched eagerly the same kernels took ~20-24 us (a
#   buffer copy and the host's launch), so eager steps keep NCCL's figure. Over PCIe they run at TP=2 only
#   (vLLM's rule: more than two GPUs need full NVLink), where 2 GPUs measured 4.2-5.4 us.
NVLINK_LATENCY_US = 6.4
NVLINK_LATENCY_PER_GPU_US = 1.9
PCIE_LATENCY_US = 3.6
PCIE_LATENCY_PER_GPU_US = 3.0
CUSTOM_ALLREDUCE_LATENCY_US = 4.4
CUSTOM_ALLREDUCE_LATENCY_PER_GPU_US = 0.1
# AMD Infinity Fabric: RCCL's small-message all-reduce latency is several times NCCL's over NVSwitch
# (rccl-tests on 8x MI300X report tens of us where nccl-tests on 8x H100 report ~10); an assumption of
# 25 us at TP=2 and 45 at TP=8, not fitted on the calibration rows and not measured in the tables above
# (they hold no AMD system), so no custom all-reduce is counted on AMD either.
INFINITY_FABRIC_LATENCY_US = 21.7
INFINITY_FABRIC_LATENCY_PER_GPU_US = 3.33


# GPUs without peer-to-peer access (``lacks_peer_access``): NCCL's SHM transport stages every transfer
# through a buffer in host memory, so each byte crosses PCIe twice, written to host memory by the sender and
# read back by the receiver (a read from the host is a round trip per request, slower than a posted
# write), with the host's memory and root complex shared by all the GPUs in between: a training
# collective is timed at this share of the per-GPU PCIe bandwidth. An assumption: no calibration row
# measures a GeForce box's collectives, and the host's memory bandwidth is not known here (it would cap
# all the GPUs' traffic together). Serving and training collectives alike (:func:`collective_link`). The
# latency stays the peer-to-peer PCIe one (``PCIE_LATENCY_US``): no figure for NCCL's SHM transport is
# sourced here, so a staged all-reduce is assumed to start as fast as a peer-to-peer one.
HOST_STAGED_SHARE = 0.5

# What a host<->device copy achieves over PCIe Gen4 x16 (GB/s): offloaded weights or optimizer state read
# back each step (training's CPU offload, diffusion's model offload, the part of a model ``diagnose`` finds
# held in host memory). Other generations scale with their link (:func:`host_link_gbps`).
HOST_LINK_GBPS = 25.0

# Bytes per activation value a layer-split hand-off passes to the next GPU: llama.cpp (the engine whose
# ``pipeline_hop_us`` is fitted) keeps the residual stream in fp32 between its backends; accelerate's
# 16-bit hand-offs are over-stated by this (only where host staging adds their bandwidth time)
HANDOFF_BYTES_PER_VALUE = 4.0

# What a training estimate warns when its GPUs exchange gradients over PCIe (the advisor drops it where its
# own warning already says the unstated interconnect is costed as PCIe)
PCIE_EXCHANGE_WARNING = "GPUs talk over PCIe: gradient / parameter exchange is slow next to NVLink"


@dataclass(frozen=True, slots=True)
class Link:
    """The GPU-to-GPU path used for collectives."""

    kind: str  # "nvlink" or "pcie"
    gbps: float  # achievable unidirectional GB/s per GPU
    latency_us: float  # an NCCL all-reduce's fixed latency (:func:`allreduce_latency_us`)
    label: str
    assumed: bool = False  # True when the table states no interconnect (costed as PCIe Gen4)
    peer_access: bool = True  # False: no GPU peer-to-peer (``lacks_peer_access``), NCCL goes through host
    staged: bool = False  # True: already at the host-staged bandwidth (:func:`host_staged`)
    assumed_network: bool = False  # True: across nodes, at the assumed scale-out figures (SCALE_OUT_GBPS)
    latency_per_gpu_us: float = 0.0  # what each GPU of the ring adds to ``latency_us``
    custom_allreduce: bool = False  # an engine's custom all-reduce kernel runs here (:func:`gpu_link`)
    # NVIDIA NVLink only (measured): NCCL's low-latency protocol's GB/s and what its Simple protocol (at
    # ``gbps``) adds to the start; 0: one protocol at ``gbps`` (:func:`allreduce_seconds`)
    ll_gbps: float = 0.0
    simple_start_us: float = 0.0
    raw_gbps: float = 0.0  # the link rate per direction the shares apply to (the engines' kernels' too)


def stated_pcie_generation(acc: Accelerator) -> int | None:
    """The PCIe generation the part's interconnect text states ("PCIe Gen5 x16"), or None."""
    found = re.search(r"gen\s*(\d)", (acc.interconnect or "").lower())
    return int(found.group(1)) if found else None


def host_link_gbps(acc: Accelerator) -> float:
    """GB/s a host<->device copy achieves on ``acc``'s host link: ``HOST_LINK_GBPS`` on PCIe Gen4 x16, the
    same share of the link on other generations (:func:`host_pcie_generation`): ~12.5 on a Gen3 V100 or
    T4, ~50 on a Gen5 H100."""
    gen = host_pcie_generation(acc)
    share = HOST_LINK_GBPS / PCIE_GBPS_UNIDIRECTIONAL[4]
    return PCIE_GBPS_UNIDIRECTIONAL.get(gen, PCIE_GBPS_UNIDIRECTIONAL[4]) * share


def host_pcie_generation(acc: Accelerator) -> int:
    """The PCIe generation of the part's host link: as its table row states it, else by NVIDIA generation
    (Volta and Turing Gen3, Ampere and Ada Gen4, Hopper and Blackwell Gen5), else 4."""
    stated = stated_pcie_generation(acc)
    if stated is not None:
        return stated
    cc = acc.nvidia_cc
    if cc is None:
        return 4
    return 3 if cc < (8, 0) else 5 if cc >= (9, 0) else 4


#: GPUs of a full node: an HGX / DGX board, an AMD Instinct (OAM) platform. On a board whose fabric is a
#: full mesh of point-to-point links, each GPU has one to each of the others (AMD Instinct MI300X / MI325X:
#: "7 links x 128 GB/s"; MI355X: "8-GPU all-to-all"), with no switch: a collective among ``g`` of them
#: drives only the g - 1 links between them.
NODE_GPUS = 8


def mesh_peers(acc: Accelerator) -> int | None:
    """The peer links of a full-mesh fabric (:data:`NODE_GPUS`), read from the table's interconnect
    text; None for a switched fabric (NVSwitch) or none stated."""
    text = (acc.interconnect or "").lower()
    if "infinity fabric" not in text:
        return None
    if "all-to-all" in text or re.search(rf"\b{NODE_GPUS - 1} links x", text):
        return NODE_GPUS - 1
    return None


def gpu_link(acc: Accelerator, gpus: int) -> Link:
    """Link used between ``gpus`` of ``acc`` in one box.

    NVLink / Infinity Fabric / ICI switched fabrics are used at ``interconnect_gbps / 2`` (the table
    quotes bidirectional totals). A full mesh (:func:`mesh_peers`: a link to each other GPU of the node)
    gives a collective among ``gpus`` of them the gpus - 1 links between them: an MI300X pair all-reduces
    over one 64 GB/s-per-direction link, not the 448 of all seven. Two-card NVLink *bridges* are not
    assumed (cloud PCIe boxes rarely have them): such cards talk over PCIe, generation read from the
    interconnect text (Gen4 default), except a product sold as a bridged pair (:func:`sold_as_bridged_pair`,
    H100 NVL), whose two GPUs use the bridges; more of them than two ring over PCIe.
    """
    text = (acc.interconnect or "").lower()
    nvidia = acc.nvidia_cc is not None
    if acc.has_nvlink_class_fabric and acc.interconnect_gbps:
        if nvidia and "nvlink" in text and mesh_peers(acc) is None:
            return nvlink(acc, gpus, acc.interconnect or "")
        gbps = acc.interconnect_gbps / 2.0 * FABRIC_EFFICIENCY
        amd = "infinity" in text
        latency = INFINITY_FABRIC_LATENCY_US if amd else NVLINK_LATENCY_US
        per_gpu = INFINITY_FABRIC_LATENCY_PER_GPU_US if amd else NVLINK_LATENCY_PER_GPU_US
        peers = mesh_peers(acc)
        if peers is not None and 1 < gpus <= peers:
            gbps *= (gpus - 1) / peers
            return Link(
                "nvlink",
                gbps,
                latency,
                f"{(acc.interconnect or '').split(';')[0]}: {gpus - 1} of its {peers} peer links among "
                f"{gpus} GPUs ({gbps:.0f} GB/s/dir usable)",
                latency_per_gpu_us=per_gpu,
            )
        return Link(
            "nvlink",
            gbps,
            latency,
            f"{acc.interconnect} ({gbps:.0f} GB/s/dir usable)",
            latency_per_gpu_us=per_gpu,
        )
    if gpus == 2 and sold_as_bridged_pair(acc) and acc.interconnect_gbps:
        # the product is two cards joined by NVLink bridges (H100 NVL): a pair's collectives cross them
        return nvlink(
            acc,
            2,
            (acc.interconnect or "").split(";")[0],
            "; the card is sold as a bridged pair: the bridges are assumed installed",
        )
    gen = stated_pcie_generation(acc) or 4
    gbps = PCIE_GBPS_UNIDIRECTIONAL.get(gen, 32.0) * pcie_efficiency(gpus)
    assumed = not text.strip()
    label = f"PCIe Gen{gen} x16 ({gbps:.0f} GB/s/dir usable across {max(gpus, 2)} GPUs)"
    if assumed:
        label += ", assumed: the table states no interconnect for this GPU"
    peer = not lacks_peer_access(acc)
    return Link(
        "pcie",
        gbps,
        PCIE_LATENCY_US,
        label,
        assumed,
        peer_access=peer,
        latency_per_gpu_us=PCIE_LATENCY_PER_GPU_US,
        # vLLM's custom all-reduce over PCIe: two GPUs with peer access only (custom_all_reduce.py)
        custom_allreduce=nvidia and peer and gpus == 2,
    )


def _ring(rings: Iterable[int], gpus: int) -> int:
    """The ring of a by-ring-size table that ``gpus`` GPUs take: the first at least that large, else the
    largest."""
    ordered = sorted(rings)
    return next((ring for ring in ordered if gpus <= ring), ordered[-1])


def _by_ring(table: tuple[tuple[int, float], ...], gpus: int) -> float:
    """The entry of a by-ring-size table for ``gpus`` GPUs (:func:`_ring`)."""
    shares = dict(table)
    return shares[_ring(shares, gpus)]


def nvlink(acc: Accelerator, gpus: int, name: str, note: str = "") -> Link:
    """NVIDIA NVLink (NVSwitch, or a bridged pair) among ``gpus`` of ``acc``: NCCL's two protocols at their
    measured shares of the link rate (:data:`NVLINK_SIMPLE_SHARE_BY_RING` and neighbours), the engines'
    custom all-reduce kernels allowed."""
    raw = (acc.interconnect_gbps or 0.0) / 2.0
    gbps = raw * _by_ring(NVLINK_SIMPLE_SHARE_BY_RING, gpus)
    ll = raw * _by_ring(NVLINK_LL_SHARE_BY_RING, gpus)
    return Link(
        "nvlink",
        gbps,
        NVLINK_LATENCY_US,
        f"{name} ({gbps:.0f} GB/s/dir usable for large messages, {ll:.0f} for small ones{note})",
        latency_per_gpu_us=NVLINK_LATENCY_PER_GPU_US,
        custom_allreduce=True,
        ll_gbps=ll,
        simple_start_us=_by_ring(NVLINK_SIMPLE_START_US_BY_RING, gpus),
        raw_gbps=raw,
    )


def pcie_efficiency(gpus: int) -> float:
    """The share of the PCIe link rate an all-reduce among ``gpus`` GPUs reaches
    (:data:`PCIE_EFFICIENCY_BY_RING`; a pair's, :data:`PCIE_EFFICIENCY`, for 2 or fewer)."""
    return _by_ring(PCIE_EFFICIENCY_BY_RING, gpus)


def pcie_topology_warning(link: Link, gpus: int) -> str:
    """What the estimate cannot know about a PCIe ring beyond a pair (:data:`PCIE_RING_MEASURED`): the
    box's topology sets the all-reduce's share of the link, measured 2.5-7x apart on two 8-GPU boxes. ""
    for NVLink or the network between nodes, a pair, a ring already staged through host memory (no peer
    access), or a link the table does not state (it has its own warning)."""
    if link.kind != "pcie" or gpus <= 2 or not link.peer_access or link.assumed:
        return ""
    ring = _ring(PCIE_RING_MEASURED, gpus)
    low, high = PCIE_RING_MEASURED[ring]
    return (
        f"tensor parallel x{gpus} over PCIe: the all-reduce's share of the link depends on the box's "
        "topology (GPUs behind shared PCIe switches, or split across CPU sockets), which an offer does not "
        f"state; measured {low:.2f} and {high:.2f} of the link for {ring} GPUs on two 8-GPU boxes, timed "
        f"here at {pcie_efficiency(gpus):.2f} (their geometric mean). On a box across sockets the "
        f"all-reduces' transfers take up to {pcie_efficiency(gpus) / low:.1f}x as long as timed here; "
        "nccl-tests' all_reduce_perf on the box settles it"
    )


def sold_as_bridged_pair(acc: Accelerator) -> bool:
    """Whether ``acc`` is sold as two cards joined by NVLink bridges (H100 NVL: "NVLink 4 bridge (pair)",
    form factor "sold as bridged pair"), so that a box's pair talks over the bridges; cards whose bridge is
    an option (H100 PCIe, RTX 3090, H200 NVL's 2- or 4-way) are not assumed to have one."""
    text = f"{acc.interconnect or ''} {acc.form_factor or ''}".lower()
    return "bridge (pair)" in text or "bridged pair" in text


def host_staged(link: Link) -> Link:
    """``link`` as collectives get it: where the GPUs have no peer access, at ``HOST_STAGED_SHARE`` of its
    bandwidth (NCCL stages each transfer through host memory) with the same latency, its label saying
    so; else (or already staged) ``link`` itself."""
    if link.peer_access or link.staged:
        return link
    gbps = link.gbps * HOST_STAGED_SHARE
    return replace(
        link,
        gbps=gbps,
        label=f"{link.label}, staged through host memory: {gbps:.0f} GB/s/dir (no P2P)",
        staged=True,
        custom_allreduce=False,
    )


#: GPUs one NVLink / Infinity Fabric domain joins beyond a node of :data:`NODE_GPUS`: A100 SXM4 also comes
#: as 16 on NVSwitch (HGX A100 16-GPU: GCP a2-megagpu-16g); a GB200 / GB300 NVL72 rack joins 72. TPU ICI,
#: Trainium NeuronLink and Gaudi's RoCE are not bounded here.
NODE_GPUS_SXM4_16 = 16
NODE_GPUS_NVL72 = 72
# Between nodes a collective crosses the scale-out network: assumed one 400 Gb/s InfiniBand / RoCE NIC per
# GPU (50 GB/s per direction, at FABRIC_EFFICIENCY; training's default network per node too) and 15 us for
# the all-reduce between the nodes, added to the one inside each (~29 us in all at TP=16 on H100, the order
# of nccl-tests' two-node figures): neither is fitted, and no engine's custom all-reduce crosses nodes.
SCALE_OUT_GBPS = 50.0
SCALE_OUT_LATENCY_US = 15.0


def fabric_domain_gpus(acc: Accelerator) -> int | None:
    """How many of ``acc`` one scale-up fabric (:data:`NODE_GPUS`) joins; None where none is bounded here
    (PCIe cards, whose box is what the offer says, and TPU / Trainium / Gaudi fabrics)."""
    if not acc.has_nvlink_class_fabric:
        return None
    text = f"{acc.full_name} {acc.form_factor} {acc.name}".lower()
    if "nvl72" in text:
        return NODE_GPUS_NVL72
    ic = (acc.interconnect or "").lower()
    if not ("nvlink" in ic or "infinity" in ic):
        return None
    return NODE_GPUS_SXM4_16 if "sxm4" in text else NODE_GPUS


def node_gpus(acc: Accelerator) -> int:
    """GPUs of ``acc`` in one node, the most a tensor-parallel layout is proposed over (engines serve
    tensor parallel within a node and pipeline parallel across nodes: vLLM's distributed serving guide,
    the layout :func:`collective_link`'s network warning names): 16 on an A100 SXM4 16-GPU board (one
    fabric, :func:`fabric_domain_gpus`), else :data:`NODE_GPUS`, a PCIe box's and an NVL72 rack's too (its
    NVLink domain joins 72 GPUs, but over 18 trays of 4: not one node)."""
    return NODE_GPUS_SXM4_16 if fabric_domain_gpus(acc) == NODE_GPUS_SXM4_16 else NODE_GPUS


def collective_link(acc: Accelerator, gpus: int, *, in_one_node: bool = False) -> Link:
    """The link a collective between ``gpus`` of ``acc`` gets, serving (tensor-parallel all-reduces,
    layer-split hand-offs) and training (data parallel, FSDP, TP) alike: in one box :func:`gpu_link`,
    host-staged (:func:`host_staged`) where the GPUs lack peer access. More GPUs than one fabric joins
    (:func:`fabric_domain_gpus`; unless ``in_one_node``: training, which costs its nodes' network itself)
    cross the network between nodes: NCCL runs a ring per NIC, each carrying its share of the data over
    its own NIC between nodes, so a GPU's ring traffic moves at the node's D NICs together (D x
    ``SCALE_OUT_GBPS``, an assumption), at most its fabric's, with the network's latency. The one place
    that decides it."""
    domain = fabric_domain_gpus(acc)
    if domain is not None and gpus > domain and not in_one_node:
        nodes = math.ceil(gpus / domain)
        inside = gpu_link(acc, domain)
        nics = domain * SCALE_OUT_GBPS * FABRIC_EFFICIENCY
        gbps = min(inside.gbps, nics)
        # its latency: NCCL's all-reduce inside each node, then one between the nodes (a fixed figure: the
        # link serves this many GPUs only)
        latency = allreduce_latency_us(inside, domain) + SCALE_OUT_LATENCY_US
        return Link(
            "network",
            gbps,
            latency,
            f"{nodes} nodes of {domain}: rings between them over a 400 Gb/s InfiniBand / RoCE NIC per GPU "
            f"(assumed; {gbps:.0f} GB/s/dir usable per GPU's ring traffic)",
            assumed_network=True,
        )
    return host_staged(gpu_link(acc, gpus))


#: The first GeForce generation whose cards the stock driver gives no peer-to-peer access over PCIe:
#: Ampere's RTX 30 (compute capability 8.6) as well as Ada's RTX 40 and Blackwell's RTX 50. Recalled, not
#: read in a driver: the patched open kernel modules that re-enable P2P (tinygrad's, April 2024, and
#: its forks) are used on RTX 3090 boxes as on 4090 ones, and vLLM on two PCIe RTX 3090s logs that
#: custom all-reduce is off for lack of P2P. An RTX 3090 pair with an NVLink bridge does have peer access
#: over the bridge; an offer's interconnect does not reach this test, so such a pair is timed as staged.
GEFORCE_NO_P2P_FROM_CC = (8, 6)


def lacks_peer_access(acc: Accelerator) -> bool:
    """GeForce RTX 30 / 40 / 50 cards (Ampere, Ada, Blackwell: compute capability 8.6+,
    :data:`GEFORCE_NO_P2P_FROM_CC`): NVIDIA's driver gives them no
    GPU peer-to-peer access, so NCCL stages every all-reduce through host memory, and vLLM's custom
    all-reduce (which tests for peer access, ``custom_all_reduce.py`` ``_can_p2p``) stays off. Every
    collective, training (data parallel, FSDP) and serving (tensor-parallel all-reduces: a 4,096-token
    prefill chunk of an 8B model all-reduces 32 MB, 64 times a forward pass; layer-split hand-offs), is
    timed at ``HOST_STAGED_SHARE`` of the PCIe bandwidth (:func:`collective_link`), an assumption the
    estimates state."""
    cc = acc.nvidia_cc
    return acc.kind == "consumer" and cc is not None and cc >= GEFORCE_NO_P2P_FROM_CC


def allreduce_latency_us(link: Link, tp: int, *, custom: bool = False) -> float:
    """The latency of one all-reduce across ``tp`` GPUs on ``link``: NCCL's ``latency_us`` plus
    ``latency_per_gpu_us`` per GPU after the first; ``custom``: the engine runs its own one-shot kernel
    under a CUDA graph, which applies where the link allows it (``Link.custom_allreduce``) and is nearly
    flat in TP (:data:`CUSTOM_ALLREDUCE_LATENCY_US`)."""
    if tp <= 1:
        return 0.0
    if custom and link.custom_allreduce:
        return CUSTOM_ALLREDUCE_LATENCY_US + CUSTOM_ALLREDUCE_LATENCY_PER_GPU_US * (tp - 1)
    return link.latency_us + link.latency_per_gpu_us * (tp - 1)


def allreduce_seconds(
    link: Link, tp: int, message_bytes: float, *, latency: bool = True, custom: bool = False
) -> float:
    """Time of one all-reduce of ``message_bytes`` across ``tp`` GPUs: the latency, then the ring's
    2 (TP - 1) / TP x the message at the link's rate; on NVIDIA NVLink the faster of NCCL's two protocols
    and, with ``custom`` where the link allows it, of the engines' one-shot and two-shot kernels
    (:data:`ONE_SHOT_SHARE`). ``latency=False``: without the small-message latency, for tokens that ride
    in an all-reduce another batch pays the latency of (a larger message's extra start, Simple's or the
    two-shot's, stays: the riding tokens are what moves the message past the small-message path)."""
    if tp <= 1:
        return 0.0
    ring = 2.0 * (tp - 1) / tp * message_bytes
    nccl = allreduce_latency_us(link, tp) * 1e-6 if latency else 0.0
    if link.ll_gbps:  # NCCL on NVLink: the faster of its low-latency and Simple protocols
        nccl += min(ring / (link.ll_gbps * 1e9), link.simple_start_us * 1e-6 + ring / (link.gbps * 1e9))
    else:
        nccl += ring / (link.gbps * 1e9)
    if not (custom and link.custom_allreduce):
        return nccl
    lat = allreduce_latency_us(link, tp, custom=True) * 1e-6 if latency else 0.0
    rates = custom_kernel_gbps(link)
    if rates is None:  # two PCIe GPUs with peer access: the kernel moves the ring's bytes
        return lat + ring / (link.gbps * 1e9)
    one_gbps, two_gbps = rates
    one_shot = lat + (tp - 1) * message_bytes / (one_gbps * 1e9)
    two_shot = lat + TWO_SHOT_START_US * 1e-6 + ring / (two_gbps * 1e9)
    return min(one_shot, two_shot, nccl)


def custom_kernel_gbps(link: Link) -> tuple[float, float] | None:
    """The engines' one-shot and two-shot kernels' GB/s on ``link`` (:data:`ONE_SHOT_SHARE`,
    :data:`TWO_SHOT_SHARE` of its rate), measured on NVLink only: None elsewhere."""
    if not link.raw_gbps:
        return None
    return link.raw_gbps * ONE_SHOT_SHARE, link.raw_gbps * TWO_SHOT_SHARE


def tp_step_comm_seconds(
    acc: Accelerator,
    tp: int,
    layers: int,
    hidden: int,
    tokens: float,
    *,
    latency: bool = True,
    custom: bool = False,
) -> float:
    """All-reduce time of one forward pass over ``tokens`` tokens: 2 all-reduces per layer, 16-bit, over
    :func:`collective_link` (host-staged on GPUs without peer access); ``custom``: the engine's own
    all-reduce kernel replayed in a CUDA graph (:func:`allreduce_latency_us`)."""
    if tp <= 1:
        return 0.0
    link = collective_link(acc, tp)
    return 2 * layers * allreduce_seconds(link, tp, tokens * hidden * 2.0, latency=latency, custom=custom)


def handoff_staging_seconds(acc: Accelerator, gpus: int, tokens: float, hidden: int) -> float:
    """Time host staging adds to one layer-split hand-off of ``tokens`` tokens' activations
    (``HANDOFF_BYTES_PER_VALUE`` per value) between ``gpus`` of ``acc``: their bytes over
    :func:`collective_link` less over the peer-to-peer :func:`gpu_link`; 0 where the GPUs have peer
    access. The hand-off itself is the engine's fitted ``pipeline_hop_us``, measured on cards with peer
    access (a constant per hop, which holds the peer-to-peer transfer). A hand-off is one copy between
    neighbours, not a ring over all ``gpus``: it moves at a pair's share of the link whatever their
    number (:func:`pcie_efficiency`)."""
    pair = min(gpus, 2)
    link = collective_link(acc, pair)
    if not link.staged or tokens <= 0:
        return 0.0
    nbytes = tokens * hidden * HANDOFF_BYTES_PER_VALUE
    return nbytes / (link.gbps * 1e9) - nbytes / (gpu_link(acc, pair).gbps * 1e9)


@dataclass(frozen=True, slots=True)
class HeadRule:
    """How an engine splits attention over tensor-parallel ranks, and what it refuses."""

    kv_heads: bool  # KV heads sharded below TP = kv_heads (must divide), replicated above (TP a multiple)
    pipeline: bool  # the engine offers pipeline parallelism (a layer split) instead
    source: str
    no_pipeline_source: str = ""  # where an engine without a layer split says how it splits (pipeline False)


# Engines whose tensor parallelism needs whole attention heads per rank (hf-transformers' tp_plan and
# llama.cpp's split modes are not listed: no rule is claimed for them)
TP_HEAD_RULES: dict[str, HeadRule] = {
    "vllm": HeadRule(
        True,
        True,
        "vllm/config/model.py ModelConfig.verify_with_parallel_config (attention heads); "
        "vllm/model_executor/layers/linear.py QKVParallelLinear (KV heads: divide(kv_heads, tp) below "
        "TP = kv_heads, divide(tp, kv_heads) above)",
    ),
    "sglang": HeadRule(
        True,
        True,
        "python/sglang/srt/layers/linear.py QKVParallelLinear; models/llama.py LlamaAttention "
        "(total_num_heads % tp_size, total_num_kv_heads % tp_size or tp_size % total_num_kv_heads)",
    ),
    "tensorrt-llm": HeadRule(
        False,
        True,
        "tensorrt_llm/layers/attention.py Attention (num_attention_heads // tp_size); the checkpoint "
        "converters split the heads in tp_size equal parts",
    ),
    "tgi": HeadRule(
        False,
        False,
        "server/text_generation_server/models/custom_modeling/flash_llama_modeling.py "
        "(`num_heads` must be divisible by `num_shards`)",
        "text-generation-launcher --num-shard: the only way TGI splits a model over GPUs (tensor-parallel "
        "shards); it has no pipeline-parallel option",
    ),
    "gpt-fast": HeadRule(
        False,
        False,
        "tp.py _apply_tp_attn (n_head // world_size)",
        "tp.py: tensor parallelism (apply_tp) is gpt-fast's only multi-GPU split",
    ),
}


def tp_head_conflict(spec: ModelSpec, engine: str, tp: int) -> str:
    """Why ``engine`` refuses to start ``spec`` split ``tp`` ways by tensor parallelism; "" when it
    starts (TP 1, an engine without a rule, heads that divide)."""
    rule = TP_HEAD_RULES.get(engine)
    heads = spec.num_attention_heads
    if rule is None or tp <= 1 or heads <= 0:
        return ""
    if heads % tp:
        return f"{spec.name}'s {heads} attention heads do not divide by tensor parallel size {tp}"
    kv = spec.num_key_value_heads or heads
    if not rule.kv_heads or spec.is_mla or kv <= 0:
        return ""
    if tp < kv and kv % tp:
        return (
            f"{spec.name}'s {kv} KV heads do not divide by tensor parallel size {tp} (below TP = {kv} "
            "each rank holds whole KV heads)"
        )
    if tp > kv and tp % kv:
        return (
            f"{spec.name}'s {kv} KV heads cannot be replicated evenly over tensor parallel size {tp} "
            f"(above TP = {kv} the KV heads are copied, which needs TP to be a multiple of {kv})"
        )
    return ""


def tp_degrees_allowed(spec: ModelSpec, engine: str, most: int) -> list[int]:
    """The tensor-parallel degrees from 2 to ``most`` that ``engine`` starts ``spec`` with: the heads
    divide, and so do the MLP and expert widths (column-parallel layers split their outputs in equal
    shares: vLLM's MergedColumnParallelLinear and FusedMoE), so that no degree proposed instead of a
    refused one fails there."""
    widths = [w for w in (spec.intermediate_size, spec.moe_intermediate_size) if w > 0]
    return [
        t
        for t in range(2, most + 1)
        if not tp_head_conflict(spec, engine, t) and all(w % t == 0 for w in widths)
    ]
