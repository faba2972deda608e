"""vLLM refuses to start when its KV cache cannot hold one request of max_model_len (V1's
``check_enough_kv_cache_memory``; ``--max-model-len``, by default the model's context window): the
estimate says so and names the launch flag that starts it; a stated ``--max-model-len`` too long for
the cache is not supported, with that reason.

Regression: Llama-3.1-8B on one L4 (2,000 + 500 tokens, 8 users) was "fits" without a word, though its
~3.6 GiB of KV cache holds ~29k tokens, not the 131,072 vLLM starts with by default.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

import gpuscout
from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.offer import Availability
from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.api import memory_needed
from tests.catalog.helpers import make_offer

LOAD = {"context_in": 2000, "context_out": 500, "concurrency": 8}
ADVICE = re.compile(r"start it with --max-model-len (\d+) or less")


def _refusals(warnings: list[str]) -> list[str]:
    return [w for w in warnings if "refuses to start at" in w]


def test_vllm_at_its_default_max_model_len_is_warned_with_the_flag_to_start_it() -> None:
    est = gpuscout.estimate("llama-3.1-8b", "L4", **LOAD)
    assert est.supported and est.fits and est.engine == "vllm"
    [warning] = _refusals(est.warnings)
    assert "its default max_model_len 131,072" in warning and "16.0 GiB of KV cache" in warning
    m = ADVICE.search(warning)
    assert m is not None
    longest = int(m.group(1))
    assert 2500 < longest < 131_072
    # the figure is exact: started with it, vLLM holds one request; a block (16 tokens) more, it does not
    ok = gpuscout.estimate("llama-3.1-8b", "L4", engine=f"vllm --max-model-len {longest}", **LOAD)
    assert ok.supported and not _refusals(ok.warnings)
    assert ok.output_tokens_per_s_total == pytest.approx(est.output_tokens_per_s_total)
    over = gpuscout.estimate("llama-3.1-8b", "L4", engine=f"vllm --max-model-len {longest + 16}", **LOAD)
    assert not over.supported


def test_a_stated_max_model_len_the_cache_cannot_hold_is_not_supported() -> None:
    engine = "vllm --max-model-len 65536"
    est = gpuscout.estimate("llama-3.1-8b", "L4", engine=engine, **LOAD)
    assert not est.supported and est.unsupported_field == "engine"
    assert "refuses to start at its max_model_len 65,536" in est.unsupported_reason
    assert ADVICE.search(est.assumptions["alternatives"])
    assert "kv_cache_utils.py" in est.assumptions["support"]
    with pytest.raises(ConfigurationRejected) as exc:
        gpuscout.estimate("llama-3.1-8b", "L4", engine=engine, strict=True, **LOAD)
    assert exc.value.field == "engine"
    need = memory_needed("llama-3.1-8b", "L4", engine=engine, context=2500)
    assert not need.supported and not need.fits


def test_no_warning_where_the_cache_holds_it_or_the_engine_does_not_check() -> None:
    assert not _refusals(gpuscout.estimate("llama-3.1-8b", "H100", **LOAD).warnings)
    # SGLang caps a request at what its pool holds instead of refusing to start
    assert not _refusals(gpuscout.estimate("llama-3.1-8b", "L4", engine="sglang", **LOAD).warnings)
    # more GPUs: the cache is sharded over them and holds it
    assert not _refusals(gpuscout.estimate("llama-3.1-8b", "L4", gpus=4, **LOAD).warnings)


def test_the_advisors_rows_carry_the_warning() -> None:
    now = datetime(2026, 11, 29, tzinfo=UTC)
    offer = make_offer(
        provider="example",
        instance_type="1xRTX4090",
        region="eu-1",
        accelerator="RTX4090",
        gpu_count=1,
        gpu_memory_gb=24.0,
        price_usd_per_hour=0.4,
        source="test",
        observed_at=now,
        availability=Availability.AVAILABLE,
    )
    w = ServeWorkload(model="llama-3.1-8b", concurrency=20)
    answer = advise(w, [offer], top=5, now=now)
    assert answer.rows, answer.binding
    row = answer.rows[0]
    assert row.estimate is not None and row.estimate.engine == "vllm"
    assert any(ADVICE.search(x) for x in row.warnings)
