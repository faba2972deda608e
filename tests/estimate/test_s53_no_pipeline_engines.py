"""TGI and gpt-fast have no pipeline (layer) split: --parallel layer on them is refused with the reason and
what runs instead, never timed as if they had one."""

from __future__ import annotations

import pytest

from gpuscout import estimate

KW = {"gpus": 4, "precision": "awq", "concurrency": 32, "parallel": "layer"}


@pytest.mark.parametrize("engine", ["tgi", "gpt-fast"])
def test_layer_split_refused(engine: str) -> None:
    est = estimate("llama-3.1-70b", "RTX 4090", engine=engine, **KW)
    assert est.supported is False
    assert "has no pipeline (layer) split" in est.unsupported_reason
    assert est.tpot_ms == 0


def test_engines_with_a_pipeline_still_run_it() -> None:
    for engine in ("vllm", "llama.cpp"):
        kw = dict(KW, precision="q4_k_m") if engine == "llama.cpp" else KW
        assert estimate("llama-3.1-70b", "RTX 4090", engine=engine, **kw).supported, engine
