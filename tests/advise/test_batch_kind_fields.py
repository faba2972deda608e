"""A batch's fields of the other kind (``prompt_tokens`` for an image total, ``width`` for a token total)
given explicitly are an input error naming the field and what the batch takes; they used to be accepted
and ignored."""

from __future__ import annotations

from typing import Any

import pytest

from gpuscout.advise.workload import IMAGE_BATCH_FIELDS, LLM_BATCH_FIELDS, BatchWorkload, Workload
from gpuscout.errors import InvalidInputError

IMAGES: dict[str, Any] = {"model": "sdxl", "images_total": 100}
TOKENS: dict[str, Any] = {"model": "llama-3.1-8b", "output_tokens_total": 1e8}
#: One value of each field that the other kind of batch refuses (a default value too: it was given).
VALUES: dict[str, Any] = {
    "input_tokens_total": 5e6,
    "prompt_tokens": 1024,
    "output_tokens": 999,
    "width": 512,
    "height": 1024,
    "steps": 20,
}


FOREIGN = [(IMAGES, n) for n in ("input_tokens_total", "prompt_tokens", "output_tokens")] + [
    (TOKENS, n) for n in ("width", "height", "steps")
]


@pytest.mark.parametrize(("base", "field"), FOREIGN, ids=[f for _, f in FOREIGN])
def test_a_field_of_the_other_kind_is_an_error_naming_it(base: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        BatchWorkload(**base, **{field: VALUES[field]})
    assert err.value.field == field
    if "images_total" in base:
        assert err.value.message.startswith("applies to an LLM batch (output_tokens_total)")
        assert err.value.accepted == "for an image batch: width, height, steps"
    else:
        assert err.value.message.startswith("applies to an image batch (images_total)")
        assert err.value.accepted == "for an LLM batch: input_tokens_total, prompt_tokens, output_tokens"


def test_every_field_given_of_the_other_kind_is_named() -> None:
    # the reviewer's command: `recommend batch sdxl --images 100 --prompt 512 --output 999 --input-total 5e6`
    with pytest.raises(InvalidInputError) as err:
        BatchWorkload(**IMAGES, prompt_tokens=512, output_tokens=999, input_tokens_total=5e6)
    assert err.value.field == "input_tokens_total"
    assert err.value.message.endswith("; so do prompt_tokens, output_tokens")


def test_files_and_mappings_are_checked_too() -> None:
    with pytest.raises(InvalidInputError) as err:
        Workload.from_yaml("kind: batch\nmodel: llama-3.1-8b\noutput_tokens_total: 1e8\nsteps: 20\n")
    assert err.value.field == "steps"
    with pytest.raises(InvalidInputError) as err:
        Workload.from_dict({"kind": "batch", **IMAGES, "output_tokens": 256})
    assert err.value.field == "output_tokens"


def test_the_kinds_own_fields_defaults_and_nulls_still_pass() -> None:
    image = BatchWorkload(**IMAGES, width=512, height=768, steps=20, precision="fp8")
    assert (image.width, image.height, image.steps) == (512, 768, 20)
    llm = BatchWorkload(**TOKENS, input_tokens_total=5e6, prompt_tokens=512, output_tokens=999)
    assert llm.input_tokens == 5e6
    # an image batch left at the token defaults, or given a null of the other kind, is no error
    assert BatchWorkload(**IMAGES).prompt_tokens == 1024
    assert BatchWorkload(**TOKENS, steps=None).steps is None
    # a round trip keeps only what was given, so it stays valid
    assert Workload.from_yaml(image.to_yaml()) == image and Workload.from_yaml(llm.to_yaml()) == llm


def test_the_two_lists_cover_the_batch_fields_of_one_kind_only() -> None:
    assert not set(LLM_BATCH_FIELDS) & set(IMAGE_BATCH_FIELDS)
    assert set(LLM_BATCH_FIELDS) | set(IMAGE_BATCH_FIELDS) <= set(BatchWorkload.model_fields)
    assert set(VALUES) | {"images_total", "output_tokens_total"} == set(LLM_BATCH_FIELDS) | set(
        IMAGE_BATCH_FIELDS
    )
