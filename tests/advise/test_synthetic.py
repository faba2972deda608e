"""Pre-training "an N-billion-parameter model" without naming an architecture."""

from __future__ import annotations

import pytest

from gpuscout.advise.api import recommend
from gpuscout.advise.synthetic import dense_model
from gpuscout.advise.workload import PretrainWorkload
from gpuscout.catalog.offer import Interconnect
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.params import count_params
from tests.advise.helpers import NOW, offer


@pytest.mark.parametrize("size", [1.0, 7.0, 13.0, 70.0, 400.0])
def test_stand_in_lands_near_the_asked_size(size: float) -> None:
    spec = dense_model(size, f"my-{size:g}b")
    assert count_params(spec).total / 1e9 == pytest.approx(size, rel=0.06)
    assert spec.num_attention_heads * spec.head_dim == spec.hidden_size


def test_bad_size_names_the_field() -> None:
    with pytest.raises(InvalidInputError) as exc:
        dense_model(0.0, "x")
    assert exc.value.field == "params_b"


def test_pretrain_by_size_runs_on_the_real_estimator_and_says_it_used_a_stand_in() -> None:
    w = PretrainWorkload(model="my-13b", params_b=13, token_budget=2.6e10, gpus=8)
    (rec,) = recommend(w, [offer("lambda", "H100-SXM", 8, 24.0, interconnect=Interconnect.NVLINK)], now=NOW)
    assert rec.config.gpus_used == 8 and rec.time_s is not None and rec.time_s > 0
    assert any("stand-in for a 13B-parameter dense transformer" in x for x in rec.warnings)
    # 6 N D / (time x GPUs x peak) is a plausible utilisation
    assert rec.estimate is not None
    mfu = 6 * 13e9 * rec.estimate.throughput / (8 * 989e12)
    assert 0.2 < mfu < 0.7
