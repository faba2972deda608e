"""Today's SGLang sizes its prefill chunk, its decode CUDA graphs and its memory share by the GPU it starts
on (0.5.23's server-argument rules, ``gpuscout.estimate.sglang_start``); a launch flag stands, and the
releases of the calibration rows (0.3, 0.4.0-0.4.3) keep their own figures."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.sglang_start import sglang_start


def test_an_h100_gets_an_8k_chunk_256_graphs_and_83_percent() -> None:
    """81,559 MiB: reserved = 512 + 1.5 x 8192 + 1024 x 1/8 + 2 x 256 + 8 x 58 captured prefill sizes
    (4 ... 8192 tokens) = 13,904 MiB (above the 10 GiB floor): (81559 - 13904) / 81559 = 0.830."""
    s = sglang_start(81559, 1)
    assert (s.chunked_prefill_size, s.decode_graph_max_bs) == (8192, 256)
    assert s.reserved_mib == pytest.approx(13904)
    assert s.mem_fraction_static == pytest.approx(0.830)


def test_a_24_gb_card_keeps_7_gb_beside_its_pool() -> None:
    """23,034 MiB (L4): chunk 4096, graphs to 48; reserved = 512 + 6144 + 128 + 96 + 8 x 50 = 7,280 MiB,
    no floor below 60 GiB: share 0.684."""
    s = sglang_start(23034, 1)
    assert (s.chunked_prefill_size, s.decode_graph_max_bs) == (4096, 48)
    assert s.reserved_mib == pytest.approx(7280)
    assert s.mem_fraction_static == pytest.approx(0.684)
    assert sglang_start(23034, 4).decode_graph_max_bs == 160


@pytest.mark.parametrize(
    ("mib", "chunk", "graphs"),
    [(15360, 2048, 8), (46068, 4096, 32), (143771, 8192, 256), (183359, 16384, 512)],
)
def test_the_tiers_by_memory(mib: float, chunk: int, graphs: int) -> None:
    s = sglang_start(mib, 1)
    assert (s.chunked_prefill_size, s.decode_graph_max_bs) == (chunk, graphs)


def test_an_mla_model_reserves_its_prefill_graphs_flat_and_a_stated_chunk_sizes_the_reserve() -> None:
    assert sglang_start(143771, 8, mla=True).reserved_mib == pytest.approx(
        max(512 + 1.5 * 8192 + 1024 + 2 * 512 + 1536, 10240)
    )
    assert sglang_start(81559, 1, chunk=16384).reserved_mib > sglang_start(81559, 1).reserved_mib


def test_todays_sglang_on_an_l4_cannot_hold_an_8b_at_its_default_share_and_says_what_would() -> None:
    e = estimate("llama-3.1-8b", "L4", engine="sglang")
    assert not e.fits
    hint = [w for w in e.warnings if "--mem-fraction-static" in w]
    assert hint and "0.68" in hint[0] and "0.70" in hint[0]
    ok = estimate("llama-3.1-8b", "L4", engine="sglang --mem-fraction-static 0.8", concurrency=8)
    assert ok.fits and ok.max_batch > 8
    assert "as stated" in ok.assumptions["memory_budget"]
    # vLLM's 0.9 holds activations inside its share and fits the same model
    assert estimate("llama-3.1-8b", "L4", engine="vllm").fits


def test_a_decode_batch_past_the_captured_graphs_runs_eager() -> None:
    """A 40 GB A100 captures decode graphs up to 32 sequences: 33 running sequences launch every layer from
    Python, and the step grows by more than a 33rd sequence costs."""
    kw = dict(context_in=1000, context_out=500)
    at32 = estimate("llama-3.1-8b", "A100-40GB", engine="sglang", concurrency=32, **kw)
    at33 = estimate("llama-3.1-8b", "A100-40GB", engine="sglang", concurrency=33, **kw)
    at31 = estimate("llama-3.1-8b", "A100-40GB", engine="sglang", concurrency=31, **kw)
    assert "CUDA graphs)" in at32.assumptions["fixed_costs"]
    assert "eager" in at33.assumptions["fixed_costs"]
    assert at33.tpot_ms - at32.tpot_ms > 3 * (at32.tpot_ms - at31.tpot_ms)


def test_the_releases_of_the_calibration_rows_keep_their_figures() -> None:
    for version in ("sglang 0.3", "sglang 0.4.2"):
        prof = resolve_engine(version).for_gpu(79.65, "H100-SXM", tp=1)
        assert prof.memory_utilization == pytest.approx(0.88)
        assert prof.prefill_chunk_tokens == 8192 and prof.graph_max_batch == 0
        assert not prof.pool_excludes_activations
    today = resolve_engine("sglang").for_gpu(79.65, "H100-SXM", tp=1)
    assert today.pool_excludes_activations and today.graph_max_batch == 256
