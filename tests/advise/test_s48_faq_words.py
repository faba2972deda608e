"""The FAQ names the model as the user did (an alias with the entry it is sized as) and does not say an MoE
model's batch shares one read of the weights."""

from __future__ import annotations

from functools import cache

from gpuscout.advise.faq import faq
from gpuscout.catalog.offer import Offer


@cache
def _offers() -> tuple[Offer, ...]:
    from gpuscout.catalog.api import current_offers

    return tuple(current_offers())


def _text(f: object) -> str:
    parts = [f.model, f.summary]  # type: ignore[attr-defined]
    for a in f.answers:  # type: ignore[attr-defined]
        parts += [a.answer, *a.details]
    return "\n".join(parts)


def test_an_alias_is_named_as_typed_with_its_entry() -> None:
    f = faq("deepseek-r1", _offers())
    assert f.model == "deepseek-r1 (as deepseek-v3)"
    body = _text(f).split("\n", 2)[2]  # the answers, after the header and summary
    assert "deepseek-r1" in body and "deepseek-v3" not in body


def test_the_entry_name_is_kept_as_it_is() -> None:
    assert faq("llama-3.1-8b", _offers()).model == "llama-3.1-8b"


def test_moe_batching_does_not_claim_the_same_weight_reads() -> None:
    moe = _text(faq("qwen3-30b-a3b", _offers(), gpu="H100"))
    assert "users batched" in moe and "from the same weight reads" not in moe
    assert "every expert its users' tokens route to" in moe
    dense = _text(faq("llama-3.1-8b", _offers(), gpu="H100"))
    assert "from the same weight reads" in dense
