"""The LoRA / QLoRA adapters' dtype in the fine-tuning workload (``FinetuneWorkload.adapter_dtype``):
"16bit" by default, "fp32" for PEFT's default without torch autocast (``estimate_training``'s
``adapter_dtype``), an error naming the field otherwise and with full fine-tuning; the advisor's training
evaluation passes it to the estimator, so the ranking's time and cost reflect it, and a row's assumptions
say the dtype assumed."""

from __future__ import annotations

import dataclasses
from typing import Any, get_args

import pytest

from gpuscout.advise.answer import _memory_levers
from gpuscout.advise.api import advise
from gpuscout.advise.backends import default_backends
from gpuscout.advise.option_words import translate_advice
from gpuscout.advise.rank import Ranker
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import AdapterDtype, FinetuneWorkload, Workload
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.training_memory import ADAPTER_DTYPES
from tests.catalog.helpers import make_offer

LORA = {"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": 1e8}
KEY = "LoRA adapters"


def _row(**changes: Any) -> Recommendation:
    """The one row of a 1x H100-SXM on-demand offer for ``LORA`` with ``changes``."""
    answer = advise({**LORA, **changes}, [make_offer()], top=1)
    (row,) = answer.rows
    return row


# ---- the workload field ------------------------------------------------------------------------
def test_the_workload_takes_the_estimators_names_with_16bit_the_default() -> None:
    assert get_args(AdapterDtype) == ADAPTER_DTYPES
    assert FinetuneWorkload.model_fields["adapter_dtype"].default == "16bit"
    for method in ("lora", "qlora"):
        w = Workload.from_dict({**LORA, "method": method, "adapter_dtype": "fp32"})
        assert isinstance(w, FinetuneWorkload) and w.adapter_dtype == "fp32" and w.fp32_adapters
        assert w.to_dict()["adapter_dtype"] == "fp32"  # written back to a file
    assert "adapter_dtype" not in Workload.from_dict(dict(LORA)).to_dict()


def test_a_workload_file_gives_the_adapter_dtype() -> None:
    w = Workload.from_yaml("kind: finetune\nmodel: llama-3.1-8b\ndataset_tokens: 100M\nadapter_dtype: fp32\n")
    assert isinstance(w, FinetuneWorkload) and w.adapter_dtype == "fp32"
    default = Workload.from_json('{"kind": "finetune", "model": "x", "dataset_tokens": 1e6}')
    assert isinstance(default, FinetuneWorkload) and default.adapter_dtype == "16bit"


@pytest.mark.parametrize("value", ["fp64", "FP32 ", "", 32, None])
def test_another_value_is_an_error_naming_the_field_and_the_accepted_values(value: object) -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_dict({**LORA, "adapter_dtype": value})
    assert info.value.field == "adapter_dtype" and info.value.accepted == "16bit, fp32"


@pytest.mark.parametrize("value", ["bf16", "fp16", "BF16"])
def test_a_16_bit_dtype_by_name_says_it_is_written_16bit(value: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_dict({**LORA, "adapter_dtype": value})
    assert info.value.field == "adapter_dtype" and info.value.accepted == "16bit, fp32"
    assert f"{value!r} is written 16bit" in info.value.message


@pytest.mark.parametrize("value", ["fp32", "16bit"])
def test_given_with_full_fine_tuning_it_is_an_error_naming_it(value: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_dict({**LORA, "method": "full", "adapter_dtype": value})
    assert info.value.field == "adapter_dtype" and set(info.value.names) == {"method", "adapter_dtype"}
    assert "full fine-tuning (method full) trains no adapters" in info.value.message
    full = Workload.from_dict({**LORA, "method": "full"})  # left at its default: not given
    assert isinstance(full, FinetuneWorkload) and not full.fp32_adapters


# ---- the ranking -------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["lora", "qlora"])
def test_fp32_adapters_rank_the_same_offer_slower_and_dearer(method: str) -> None:
    half, full32 = _row(method=method), _row(method=method, adapter_dtype="fp32")
    assert half.estimate is not None and full32.estimate is not None
    assert full32.estimate.throughput < half.estimate.throughput
    assert (full32.time_to_result_s or 0) > (half.time_to_result_s or 0)
    assert full32.total_usd is not None and half.total_usd is not None and full32.total_usd > half.total_usd


@pytest.mark.parametrize("dtype", ["16bit", "fp32"])
def test_every_training_estimate_of_the_ranking_gets_the_workloads_adapter_dtype(dtype: str) -> None:
    real = default_backends()
    calls: list[dict[str, Any]] = []
    speeds: list[float] = []

    def training(model: Any, gpu: Any, **kw: Any) -> Any:
        calls.append(kw)
        result = real.training(model, gpu, **kw)
        speeds.append(result.tokens_per_s)
        return result

    be = dataclasses.replace(real, training=training)
    row = advise({**LORA, "adapter_dtype": dtype}, [make_offer()], top=1, backends=be).rows[0]
    assert calls and all(kw["adapter_dtype"] == dtype for kw in calls)
    assert row.estimate is not None and row.estimate.throughput in speeds  # the row's speed is one of them


def test_pre_training_passes_no_adapter_dtype() -> None:
    real = default_backends()
    calls: list[dict[str, Any]] = []

    def training(model: Any, gpu: Any, **kw: Any) -> Any:
        calls.append(kw)
        return real.training(model, gpu, **kw)

    be = dataclasses.replace(real, training=training)
    advise({"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 1e8}, [make_offer()], backends=be)
    assert calls and all("adapter_dtype" not in kw for kw in calls)


def test_full_fine_tuning_and_pre_training_rows_say_no_adapter_dtype() -> None:
    full = _row(method="full", model="llama-3.2-1b")  # a full fine-tune that fits one H100
    assert KEY not in full.assumptions and "training memory headroom" in full.assumptions
    pre = advise({"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 1e8}, [make_offer()], top=1)
    assert pre.rows and all(KEY not in r.assumptions for r in pre.rows)


def test_a_rows_assumptions_say_the_adapter_dtype_assumed() -> None:
    said = _row().assumptions[KEY]
    assert said.startswith("16-bit, in the compute dtype") and "PEFT's default" in said
    said32 = _row(adapter_dtype="fp32").assumptions[KEY]
    assert said32.startswith("fp32: PEFT's default") and "--adapter-dtype 16bit" in said32
    # an fp32 run keeps its adapters in fp32 whatever is asked
    assert _row(precision="fp32").assumptions[KEY] == "fp32, as the whole run (--precision fp32)"


def test_each_face_names_the_option_its_own_way() -> None:
    answer = advise({**LORA, "adapter_dtype": "fp32"}, [make_offer()], top=1)
    faces = {
        "api": '"adapter_dtype": "16bit"',
        "python": 'adapter_dtype="16bit"',
        "form": "“Adapter dtype” 16bit",
    }
    for face, words in faces.items():
        said = translate_advice(answer, face)  # type: ignore[arg-type]
        text = said.rows[0].assumptions[KEY]
        assert words in text and "--adapter-dtype" not in text, (face, text)


def test_16_bit_adapters_are_named_among_what_would_need_less_memory() -> None:
    fp32 = FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e8, adapter_dtype="fp32")
    assert "16-bit adapters (--adapter-dtype 16bit)" in _memory_levers(Ranker(fp32))
    for w in (
        FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e8),
        FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e8, adapter_dtype="fp32", precision="fp32"),
    ):
        assert "--adapter-dtype" not in _memory_levers(Ranker(w))
