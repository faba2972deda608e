"""Whether a model is a mixture of experts is the model's own ``is_moe``, in the FAQ and in ``diagnose``.

Regression: the FAQ's slow-generation answer called a model MoE where its active parameters were under
99 % of its total, while ``diagnose`` asked the model (through ``model_consts(spec).moe_layers``). An MoE
whose router picks 127 of its 128 experts per token (99.3 % active) was dense to the FAQ ("from the same
weight reads") and an MoE to ``diagnose`` ("a bigger batch reads more experts"), for the same batch.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuscout.advise.backends import default_backends
from gpuscout.advise.faq import faq
from gpuscout.estimate.diagnose import diagnose
from gpuscout.knowledge.model_registry import ModelRegistry
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.models import resolve_model

FAQ_MOE = "reads every expert its users' tokens route to"
FAQ_DENSE = "from the same weight reads"
DIAGNOSE_MOE = "a bigger batch reads more experts"
DIAGNOSE_DENSE = "the weights read serve every sequence"


def _wide_router() -> ModelSpec:
    """Qwen3-30B-A3B with 127 of its 128 experts routed per token: an MoE, 99.3 % of it active."""
    base = resolve_model("qwen3-30b-a3b")
    return replace(base, name="wide-router-moe", hf_id="", aliases=(), experts_per_token=127)


def _said(spec: ModelSpec) -> tuple[str, str]:
    """(the FAQ's batched-users line, diagnose's batching remedy) for ``spec`` on one H100-SXM."""
    be = default_backends(ModelRegistry.of([spec]))
    slow = faq(spec.name, [], backends=be, gpu="H100-SXM").answers[3]
    batched = next(d for d in slow.details if "users batched" in d)
    remedies = diagnose(spec, "H100-SXM", measured_tps=20.0).suggestions
    batching = next(s for s in remedies if s.startswith("Batch "))
    return batched, batching


@pytest.mark.parametrize("spec", ["llama-3.1-8b", "qwen3-30b-a3b", "wide"])
def test_the_faq_and_diagnose_ask_the_model_whether_it_is_moe(spec: str) -> None:
    model = _wide_router() if spec == "wide" else resolve_model(spec)
    batched, batching = _said(model)
    assert (FAQ_MOE in batched) is model.is_moe and (FAQ_DENSE in batched) is not model.is_moe, batched
    assert (DIAGNOSE_MOE in batching) is model.is_moe, batching
    assert (DIAGNOSE_DENSE in batching) is not model.is_moe, batching


def test_the_wide_router_is_an_moe_though_nearly_all_of_it_is_active() -> None:
    model = _wide_router()
    be = default_backends(ModelRegistry.of([model]))
    assert model.is_moe and be.active_params_b(model.name) >= 0.99 * be.params_b(model.name)
    batched, _ = _said(model)
    assert FAQ_MOE in batched, batched


@pytest.mark.parametrize("spec", ["llama-3.1-8b", "qwen3-30b-a3b", "wide"])
def test_the_faqs_other_moe_words_ask_the_model_too(spec: str) -> None:
    """The summary's "(N B active per token)" and the slow answer's "the active experts' weights" follow
    ``is_moe``, not a 99 % share of active parameters (the wide router was called dense by both)."""
    model = _wide_router() if spec == "wide" else resolve_model(spec)
    be = default_backends(ModelRegistry.of([model]))
    answer = faq(model.name, [], backends=be, gpu="H100-SXM")
    said = " ".join([answer.summary, *(" ".join([a.answer, *a.details]) for a in answer.answers)])
    assert ("B active per token)" in said) is model.is_moe, said[:400]
    assert ("the active experts' weights once" in said) is model.is_moe
    assert ("every weight once" in said) is not model.is_moe
