"""A refusal for a dense model never offers the MXFP4 only gpt-oss's MoE kernels run (code review,
session 49).

The support rules judge a neighbouring MXFP4 for a model without experts as a dense MXFP4 checkpoint
(``mxfp4:dense`` rows), as ``estimate()`` does: vLLM runs gpt-oss's MXFP4 experts on an MI300X, not a
dense llama in MXFP4 (``estimate("llama-3.1-8b", "MI300X", precision="mxfp4")`` is refused). The advisor's
refusal of a named engine ("here would run: ...") and its hint of the precisions that engine runs
("--engine vllm runs --precision ...") said "vllm with mxfp4" for llama-3.1-8b.
"""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.backends import support_alternatives
from gpuscout.advise.workload import ServeWorkload
from gpuscout.estimate.api import estimate
from gpuscout.estimate.support import can_run
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.advise.helpers import NOW, offer

MI300X = [offer("oracle", "MI300X", 8, 30.0, memory=192, instance="bm.mi300x.8")]


def _refused(model: str) -> tuple[str, str]:
    """(the MI300X row's refusal, the answer's diagnosis) for ``--engine vllm --precision nvfp4``."""
    w = ServeWorkload(model=model, concurrency=1, engine="vllm", precision="nvfp4")
    answer = advise(w, MI300X, now=NOW, include_rejected=True)
    assert answer.rows == ()
    (row,) = answer.rejected
    return row.rejected or "", answer.binding or ""


def test_a_dense_models_refusal_proposes_no_mxfp4() -> None:
    assert not estimate("llama-3.1-8b", "MI300X", precision="mxfp4").supported  # what it would propose
    why, binding = _refused("llama-3.1-8b")
    assert "here would run: vllm with " in why, why
    assert "mxfp4" not in why, why
    assert "--engine vllm runs --precision" in binding and "mxfp4" not in binding, binding


def test_gpt_oss_is_still_offered_its_mxfp4() -> None:
    why, binding = _refused("gpt-oss-120b")
    assert "here would run: vllm with mxfp4 (weight-only)" in why, why
    assert "--engine vllm runs --precision mxfp4" in binding, binding


def test_the_advisors_alternatives_and_can_run_take_the_models_density() -> None:
    mi300x = resolve_gpu("MI300X")
    dense = support_alternatives("vllm", "nvfp4", mi300x, dense_model=True)
    assert dense and not [o for o in dense if o.precision == "mxfp4"], dense
    assert [o for o in support_alternatives("vllm", "nvfp4", mi300x) if o.precision == "mxfp4"]
    check = can_run("vllm", "nvfp4", "MI300X", dense_model=True)
    assert check.alternatives and all(a.precision != "mxfp4" for a in check.alternatives)
