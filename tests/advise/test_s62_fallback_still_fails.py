"""A row left out although the run put in place of the one asked was tried says that the fallback
fails too (stop 62): llama-3.1-70b on 8x V100 read "does not fit: weights (… 131 GiB, exceed … 126 GiB
…) (runs llama.cpp with GGUF BF16/F16 (native) instead)", as if the row ran on llama.cpp."""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers


def test_a_fallback_that_does_not_fit_says_it_still_does_not() -> None:
    offers = [o for o in current_offers() if o.accelerator.startswith("V100") and o.gpu_count == 8]
    assert offers
    w = Workload.from_dict({"kind": "serve", "model": "llama-3.1-70b", "concurrency": 4})
    rejected = [r.rejected or "" for r in advise(w, offers, include_rejected=True).rejected]
    unfit = [why for why in rejected if why.startswith("does not fit")]
    assert unfit, rejected
    for why in unfit:
        assert "instead)" not in why, why
        assert why.endswith(
            "(vllm does not run bf16 on V100-SXM2-16GB; with the fallback, llama.cpp with GGUF BF16/F16 "
            "(native), it still does not fit)"
        ), why
