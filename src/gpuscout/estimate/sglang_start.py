"""What today's SGLang picks from the GPU it starts on, as its server arguments resolve them.

Read from the published SGLang 0.5.23 wheel (``sglang/srt/arg_groups/memory_hook.py``
``handle_gpu_memory_settings`` and ``reserve_for_graph_mb``; ``cuda_graph_hook.py`` for the captured sizes;
``model_executor/cuda_graph_config.py``: prefill steps run under breakable CUDA graphs on CUDA):

* by the device's memory (MiB, as the driver reports it): ``chunked_prefill_size`` and the largest decode
  batch its CUDA graphs capture (``max_bs``; a larger decode batch runs eager):

  ========================  =====  =========================
  memory                    chunk  decode graphs up to
  ========================  =====  =========================
  < 20 GiB (T4, 4080)       2048   8
  < 35 GiB (A10, 4090)      4096   48 below TP4, 160 from TP4
  < 60 GiB (A100 40, L40)   4096   32 below TP4, 160 from TP4
  < 90 GiB (H100, A100 80)  8192   256 below TP4, 512 from TP4
  < 160 GiB (H20, H200)     8192   256 below TP4, 512 from TP4
  more (B200, MI300X)       16384  512
  ========================  =====  =========================

* ``mem_fraction_static`` = (memory - reserved) / memory, the share that holds the weights and the KV
  pool; reserved (MiB) = 512 + 1.5 x max(chunk, 2048) + 1024 x TP / 8 + the graphs' (2 x max_bs, plus
  8 per captured prefill size, or 1536 for an MLA model), at least 10 GiB on a GPU of more than 60 GiB.
  The activations live in the reserved part, not in the pool.

Data-parallel attention divides the chunk per rank and reserves more for its graphs; the estimate keeps
its variant's own figures there (``engines``: the ``dp-attention`` variant)."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 2**20

# (memory below, MiB) -> (chunked_prefill_size, decode graph max_bs below TP4, from TP4)
_TIERS: tuple[tuple[float, int, int, int], ...] = (
    (20 * 1024, 2048, 8, 8),
    (35 * 1024, 4096, 48, 160),
    (60 * 1024, 4096, 32, 160),
    (90 * 1024, 8192, 256, 512),
    (160 * 1024, 8192, 256, 512),
)
_LARGEST = (16384, 512, 512)
# the captured prefill sizes (tokens), cuda_graph_hook.generate_prefill_cuda_graph_batch_sizes
_PREFILL_SIZES = (
    list(range(4, 33, 4))
    + list(range(48, 257, 16))
    + list(range(288, 513, 32))
    + list(range(576, 1025, 64))
    + list(range(1280, 4097, 256))
)


@dataclass(frozen=True, slots=True)
class SglangStart:
    """The GPU-dependent defaults SGLang starts with."""

    chunked_prefill_size: int
    decode_graph_max_bs: int
    mem_fraction_static: float
    reserved_mib: float


def _prefill_sizes(max_bs: int) -> int:
    extra = list(range(4608, max_bs + 1, 512))
    return sum(1 for s in _PREFILL_SIZES if s <= max_bs) + len(extra)


def sglang_start(
    memory_mib: float, tp: int = 1, *, mla: bool = False, chunk: int | None = None
) -> SglangStart:
    """SGLang's start-up defaults on a GPU of ``memory_mib`` with ``tp`` tensor-parallel ranks; ``chunk``:
    a ``--chunked-prefill-size`` given at launch (the reserve then follows it)."""
    for below, size, small_tp, large_tp in _TIERS:
        if memory_mib < below:
            tier_chunk, max_bs = size, (small_tp if tp < 4 else large_tp)
            break
    else:
        tier_chunk, max_bs, _ = _LARGEST
    chunk = chunk or tier_chunk
    prefill_graph = 1536.0 if mla else 8.0 * _prefill_sizes(chunk)
    reserved = 512.0 + 1.5 * max(chunk, 2048) + 1024.0 * tp / 8.0 + 2.0 * max_bs + prefill_graph
    if memory_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024.0)
    fraction = round((memory_mib - reserved) / memory_mib, 3)
    return SglangStart(chunk, max_bs, fraction, reserved)


__all__ = ["MIB", "SglangStart", "sglang_start"]
