"""A row's fit reason says where the KV cache is copied on every GPU rather than split across them (stop
63, a review of ``recommend serve``): DeepSeek-V3 on 8x H200 TP8 read "weights 627 GiB + KV 2.4 GiB over
8 GPUs", as if the 2.4 GiB were shared by the eight, where MLA's latent cache is whole on each GPU (the
breakdown's "weights / KV per GPU" said 78.3 / 2.4 GiB). A cache split by heads (Llama's GQA at TP4)
still reads "over 4 GPUs"."""

from __future__ import annotations

from gpuscout.advise.reasons import gib_text
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import ServeWorkload
from tests.advise.test_s61_dead_end_moves import _answer


def _fit(row: Recommendation) -> str:
    return next(r for r in row.reasons if r.startswith("fits "))


def _tp_rows(w: ServeWorkload, tp: int) -> list[Recommendation]:
    rows = [r for r in _answer(w).rows if r.config.tp == tp and r.estimate is not None]
    assert rows, w
    return rows


def test_mla_cache_is_said_on_each_gpu() -> None:
    w = ServeWorkload(model="deepseek-v3", concurrency=32, accelerators=("H200",))
    for row in _tp_rows(w, 8):
        assert row.estimate is not None
        each = gib_text(row.estimate.kv_cache_gb)
        fit = _fit(row)
        assert "over 8 GPUs" not in fit.split("+ KV", 1)[1], fit
        assert f"weights 627 GiB over 8 GPUs + KV {each} GiB on each GPU" in fit, fit


def test_a_cache_split_by_heads_is_said_over_the_gpus() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=50, accelerators=("RTX3080",))
    for row in _tp_rows(w, 4):
        fit = _fit(row)
        assert "GiB over 4 GPUs)" in fit and "on each GPU" not in fit, fit
