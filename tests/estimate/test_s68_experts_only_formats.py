"""An experts-only weight format asked for a model without experts is refused by name (stop 68).

``mxfp4-moe`` (gpt-oss) and ``int4-moe`` (Kimi-K2-Thinking) quantize the routed experts and keep every other
weight in 16 bits. On a dense model that is every weight: Llama 3.1 8B "in mxfp4-moe" was sized at 16.06 GB,
its bf16 size, under a 4-bit label. It is an input error now, naming the dense format that means the ask.
"""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import memory_needed


@pytest.mark.parametrize(
    ("asked", "dense"), [("mxfp4-moe", "mxfp4"), ("int4-moe", "int4"), ("int4-experts", "int4")]
)
def test_an_experts_only_format_on_a_dense_model_is_refused(asked: str, dense: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", precision=asked)
    assert err.value.field == "precision"
    assert "has none" in str(err.value) and f"accepted: {dense} " in str(err.value)
    with pytest.raises(InvalidInputError):
        memory_needed("llama-3.1-8b", "H100", precision=asked)


def test_an_moe_model_takes_them() -> None:
    assert estimate("qwen3-30b-a3b", "H100", precision="int4-moe").precision == "int4-moe"
    assert estimate("gpt-oss-20b", "H100", precision="mxfp4-moe").precision == "mxfp4-moe"
    # the dense formats stay open to dense models
    assert estimate("llama-3.1-8b", "H100", precision="int4").precision == "int4"
