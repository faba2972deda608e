"""The bounds of the offer filters, one place for the CLI (``gpuscout offers``) and the web (the offers
page and ``/api/v1/offers``): a value beyond them is refused with the range, on every face alike. They
lie far past any real offer (the largest instances sold have 8 to 64 GPUs and 288 GB per GPU)."""

from __future__ import annotations

#: GPUs in one instance (``--gpus`` / ``gpus``).
MAX_GPUS_PER_OFFER = 10_000
#: Memory per GPU, GiB (``--min-vram`` / ``min_vram``).
MAX_GPU_MEMORY_GB = 10_000.0
#: Instance price, $/h (``--max-price`` / ``max_price``).
MAX_PRICE_USD_PER_HOUR = 1_000_000.0
