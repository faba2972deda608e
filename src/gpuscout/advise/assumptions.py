"""The advisor's documented assumptions (see docs/advisor.md). Every one is overridable.

These are the numbers a cost depends on that no price feed gives: how fast weights arrive, how long an
instance takes to boot, how often spot capacity is reclaimed. They are deliberately round and stated
in every recommendation's ``assumptions`` so a user can see them and change them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Expected spot/interruptible reclaims per instance-hour, by provider kind (ProviderTerms.kind).
# Hyperscalers publish interruption *bands* per instance type (AWS Spot Instance Advisor: GPU types are
# often in the ">20 % per month" band, i.e. well under 0.01/h averaged, but reclaims cluster when demand
# spikes); marketplaces (Vast.ai bids, RunPod community) reclaim when outbid or when the host leaves.
# We use rates that are pessimistic for a busy day rather than a monthly average.
DEFAULT_INTERRUPTIONS_PER_HOUR: dict[str, float] = {
    "hyperscaler": 0.02,  # ~ one reclaim per 2 days of use
    "gpu-cloud": 0.05,  # ~ one per 20 h
    "marketplace": 0.10,  # ~ one per 10 h (outbid / host gone)
    "aggregator": 0.05,
    "private": 0.0,
}


@dataclass(frozen=True, slots=True)
class Assumptions:
    """Knobs of the cost model. Bandwidths are GB/s (1e9 bytes/s)."""

    download_gbps: float = 0.5  # weights/dataset from a hub or object store (~4 Gbit/s)
    load_gbps: float = 2.0  # weights from local/network disk into GPU memory
    # training checkpoints, per node (each node writes its shard at once): a sustained write to a network
    # (persistent) volume, the storage a checkpoint must be on to outlive a spot reclaim, which takes the
    # instance's local disks with it. One block volume of the hyperscalers sustains about 1 GB/s (AWS EBS
    # gp3: at most 1,000 MiB/s; Azure Premium SSD v2: 1,200 MB/s); a network filesystem scales with its
    # size. Node-local NVMe is faster (a datacenter PCIe Gen4 drive writes 2-4 GB/s sequentially, and
    # 8-GPU nodes carry several), and an asynchronous save (torch.distributed.checkpoint's async_save)
    # hides most of the write behind training: both are a higher figure (``--checkpoint-write-gbps``).
    # A spot restart reads the last checkpoint back from where it was written (``checkpoint_read_gbps``).
    checkpoint_write_gbps: float = 1.0
    boot_s: float = 90.0  # instance start until the engine can load weights
    restart_s: float = 300.0  # after a spot reclaim: get new capacity, boot (then reload weights)
    interruptions_per_hour: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_INTERRUPTIONS_PER_HOUR)
    )
    unknown_kind_interruptions_per_hour: float = 0.05
    # a training job stops on any GPU's or host's failure, on-demand capacity too: Meta counted 419
    # unexpected interruptions in 54 days of Llama 3 pre-training on up to 16,384 H100s ("The Llama 3 Herd
    # of Models", 2024, section 3.3.4): 419 / (16,384 x 54 x 24) ~ 2e-5 per GPU-hour. It sets the default
    # checkpoint interval of a run (``spot.young_interval_s``), with a spot reclaim rate on top on spot
    hardware_interruptions_per_gpu_hour: float = 419 / (16_384 * 54 * 24)
    # used only when neither the offer nor the provider terms give a figure (and a warning says so)
    fallback_storage_usd_per_gb_month: float = 0.10
    fallback_egress_usd_per_gb: float = 0.09
    max_instances: int = 64  # never propose more than this many instances of one offer
    # a spot job under a deadline is proposed only where its chance of missing it with its reclaims
    # (``spot.deadline_miss``: Poisson reclaims, each a restart, a reload and uniform rework) is at most
    # this: meeting it on average is a coin toss for a run whose slack is about one reclaim. One run in
    # ten late is what a renter who states a deadline may still take for a spot discount of 50-90 %; a
    # tighter need is on-demand capacity's (judgement, not a published figure)
    max_deadline_miss: float = 0.10
    price_age_warn_days: float = 3.0
    # training: a layout must leave this share of GPU memory free (activation peaks, fragmentation)
    min_training_headroom: float = 0.05
    # host RAM of an offer that lists none (a marketplace box, a snapshot row), as a multiple of its GPU
    # memory: an offload layout that needs more is not taken on it. The median host: of the bundled
    # snapshot's offers that list RAM (703, 2026-12) the median has 2.15x its GPU memory (quartiles 1.4x
    # and 3.4x; an 8x H100 DGX has 2 TB for 640 GB, 3.2x). A 70B full fine-tune offloaded to one node
    # needs ~1.3 TB, which an 8x V100 16 GB marketplace box (128 GB of GPU memory) rarely has.
    unlisted_host_ram_per_gpu_memory: float = 2.15
    # the named picks of the Pareto front (see gpuscout.advise.pareto)
    balanced_time_factor: float = 3.0  # the balanced pick is at most this many times the window time (pareto)
    time_tolerance: float = 0.05  # times within this share are the same speed (front, fastest pick)

    def checkpoint_read_gbps(self) -> float:
        """GB/s a spot restart reads the last checkpoint back at: from the volume it was written to, at
        the write rate (reads there are no slower), capped by ``load_gbps`` (into GPU memory)."""
        return min(self.checkpoint_write_gbps, self.load_gbps)

    def deadline_miss_words(self) -> str:
        """``max_deadline_miss`` as a percentage, to three figures ("10%", "2.5%")."""
        return f"{self.max_deadline_miss * 100:.3g}%"

    def interruption_rate(self, provider_kind: str | None) -> float:
        if provider_kind is None:
            return self.unknown_kind_interruptions_per_hour
        return self.interruptions_per_hour.get(provider_kind, self.unknown_kind_interruptions_per_hour)

    def as_dict(self) -> dict[str, str]:
        rates = ", ".join(f"{k} {v:g}/h" for k, v in sorted(self.interruptions_per_hour.items()))
        return {
            "download": f"{self.download_gbps:g} GB/s",
            "load": f"{self.load_gbps:g} GB/s",
            "checkpoint writes": (
                f"{self.checkpoint_write_gbps:g} GB/s per node to where checkpoints are kept (default: a "
                f"network volume, which outlives a spot reclaim); a spot restart reads the last one back "
                f"from there at {self.checkpoint_read_gbps():g} GB/s"
            ),
            "boot": f"{self.boot_s:g} s",
            "spot restart": f"{self.restart_s:g} s + reload (weights; training: last checkpoint, data)",
            "spot interruptions": f"{rates}; unknown kind {self.unknown_kind_interruptions_per_hour:g}/h",
            "hardware interruptions": (
                f"{self.hardware_interruptions_per_gpu_hour:.2g} per GPU-hour (Llama 3 pre-training: 419 in "
                "54 days on 16k H100s); a training run's default checkpoint interval is Young's "
                "sqrt(2 x save time x time between interruptions)"
            ),
            "spot under a deadline": (
                "proposed where its chance of missing the deadline with its reclaims (Poisson, each a "
                "restart, a reload and rework up to a checkpoint interval) is at most "
                f"{self.deadline_miss_words()}"
            ),
            "storage price if unknown": f"${self.fallback_storage_usd_per_gb_month:g}/GB-month",
            "egress price if unknown": f"${self.fallback_egress_usd_per_gb:g}/GB",
            "training memory headroom": f">= {self.min_training_headroom:.0%} of each GPU free",
            "host RAM not listed": (
                f"~{self.unlisted_host_ram_per_gpu_memory:g}x the GPU memory (training offload: the median "
                "host that lists RAM)"
            ),
            "picks": (
                f"balanced within {self.balanced_time_factor:g}x the best time of the front rows renting no "
                "more GPUs than the load needs (serve: or within the latency its stated targets allow); "
                f"fastest = cheapest within {self.time_tolerance:.0%} of the best time on the front"
            ),
        }
