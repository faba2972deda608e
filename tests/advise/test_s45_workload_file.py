"""A workload file reads numbers as the command line does, against the same limits (renter review F7).

Regressions: ``prompt_tokens: 32k`` in a YAML file was refused ("Input should be a valid integer")
where ``--prompt 32k`` was taken; a file without ``kind:`` was "kind: unknown workload kind None"; a
file of another kind was refused for the first field that kind lacks ("dataset_tokens: is required")
instead of for its kind; the workload's limits (concurrency <= 100,000, requests/s <= 10^7, prompt
<= 2,000,000 tokens) were not the estimator's (1,000,000, 10^6, 10,000,000); pydantic's words
("Input should be greater than or equal to 1 (got 0)") where the estimator says "0 is out of range".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuscout.advise.workload import (
    TOKEN_FIELDS,
    BatchWorkload,
    FinetuneWorkload,
    ServeWorkload,
    Workload,
    for_kind,
    read_mapping,
)
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.arguments import (
    MAX_CONCURRENCY,
    MAX_CONTEXT,
    MAX_RATE,
    MAX_TOKENS,
    TOKENS_ACCEPTED,
)

M = "llama-3.1-8b"


# ---- token counts as the CLI reads them --------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "kind: serve\nmodel: m\nprompt_tokens: 32k\noutput_tokens: 1.5k\nmonthly_output_tokens: 2B\n",
            {"prompt_tokens": 32_000, "output_tokens": 1500, "monthly_output_tokens": 2e9},
        ),
        (
            "kind: batch\nmodel: m\noutput_tokens_total: 1.5M\ninput_tokens_total: 1e9\nprompt_tokens: 2k\n",
            {"output_tokens_total": 1.5e6, "input_tokens_total": 1e9, "prompt_tokens": 2000},
        ),
        (
            "kind: finetune\nmodel: m\ndataset_tokens: 10M\nseq_len: 4k\n",
            {"dataset_tokens": 1e7, "seq_len": 4000},
        ),
        ("kind: pretrain\nmodel: m\ntoken_budget: 15T\ngpus: 8\n", {"token_budget": 15e12}),
    ],
)
def test_a_yaml_file_takes_a_token_count_as_the_cli_writes_it(text: str, expected: dict[str, Any]) -> None:
    workload = Workload.from_yaml(text).to_dict()
    assert {k: workload[k] for k in expected} == expected


def test_json_text_and_the_python_api_take_it_too() -> None:
    body = json.dumps({"kind": "serve", "model": "m", "prompt_tokens": "32k", "concurrency": "1e3"})
    assert Workload.from_json(body).to_dict()["prompt_tokens"] == 32_000
    assert ServeWorkload(model="m", prompt_tokens="128K", concurrency="1e3").concurrency == 1000  # type: ignore[arg-type]
    assert {"prompt_tokens", "dataset_tokens", "token_budget", "seq_len"} <= TOKEN_FIELDS


def test_a_count_that_is_not_one_names_the_field_and_how_a_count_is_written() -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_yaml("kind: serve\nmodel: m\nprompt_tokens: 32kb\n")
    assert info.value.field == "prompt_tokens" and info.value.message == "'32kb' is not a token count"
    assert info.value.accepted == TOKENS_ACCEPTED


# ---- one limit, one message ------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["1e16", "1e30", "1" + "0" * 400, str(MAX_TOKENS + 1)])
def test_a_dataset_past_the_limit_is_out_of_range_however_it_is_written(value: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_yaml(f"kind: finetune\nmodel: m\ndataset_tokens: {value}\n")
    assert info.value.field == "dataset_tokens" and info.value.message.endswith(" is out of range")
    assert info.value.accepted == "a number of tokens >= 1 and <= 1e+15, like 32k or 1.5M"


def test_the_workload_limits_are_the_estimators() -> None:
    assert ServeWorkload(model="m", concurrency=MAX_CONCURRENCY).concurrency == MAX_CONCURRENCY  # was 100,000
    assert ServeWorkload(model="m", requests_per_s=MAX_RATE).requests_per_s == MAX_RATE
    assert ServeWorkload(model="m", prompt_tokens=MAX_CONTEXT).prompt_tokens == MAX_CONTEXT  # was 2,000,000
    assert FinetuneWorkload(model="m", dataset_tokens=MAX_TOKENS).dataset_tokens == MAX_TOKENS
    for data, field in [
        ({"concurrency": MAX_CONCURRENCY + 1}, "concurrency"),
        ({"requests_per_s": MAX_RATE * 2}, "requests_per_s"),  # was accepted up to 10^7
        ({"prompt_tokens": MAX_CONTEXT + 1}, "prompt_tokens"),
        ({"output_tokens": MAX_CONTEXT + 1}, "output_tokens"),
    ]:
        with pytest.raises(InvalidInputError) as info:
            ServeWorkload(model="m", **data)
        assert info.value.field == field and info.value.message.endswith(" is out of range"), info.value


@pytest.mark.parametrize(
    ("yaml_value", "message"),
    [
        ("0", "0 is out of range"),
        ("-1", "-1 is out of range"),
        ("1e30", "1e+30 is out of range"),
        ("abc", "'abc' is not a whole number"),
        ("2.5", "2.5 is not a whole number"),
    ],
)
def test_a_number_is_refused_in_the_estimators_words(yaml_value: str, message: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_yaml(f"kind: serve\nmodel: m\nconcurrency: {yaml_value}\n")
    assert str(info.value) == f"concurrency: {message} (accepted: an integer >= 1 and <= 1,000,000)"
    assert "Input should be" not in str(info.value)


def test_a_decimal_field_says_so_too() -> None:
    cases = [
        ("-5", "-5 is out of range"),
        ("abc", "'abc' is not a number"),
        (".nan", "nan is not a finite number"),
    ]
    for value, message in cases:
        with pytest.raises(InvalidInputError) as info:
            Workload.from_yaml(f"kind: serve\nmodel: m\nbudget_usd: {value}\n")
        assert info.value.message == message and info.value.accepted
        assert "Input should be" not in str(info.value)


# ---- the kind: never None, checked first -----------------------------------------------------------
def test_a_mapping_without_a_kind_is_refused_as_missing_never_as_none() -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_dict({"model": M})
    assert str(info.value) == "kind: is required (accepted: serve, batch, finetune, pretrain)"
    with pytest.raises(InvalidInputError) as info:
        Workload.from_dict({"kind": None, "model": M})
    assert "None" not in str(info.value)


def test_a_kinds_own_class_takes_a_file_without_a_kind_as_its_kind() -> None:
    assert ServeWorkload.from_yaml(f"model: {M}\nprompt_tokens: 32k\n").kind == "serve"
    assert BatchWorkload.from_dict({"model": M, "output_tokens_total": 1e6}).kind == "batch"
    assert for_kind({"model": M}, "serve") == {"model": M, "kind": "serve"}


def test_another_kind_is_refused_for_its_kind_before_its_fields() -> None:
    """A finetune file without dataset_tokens, given where a serve workload is read: the kind is the
    error, not the finetune field it lacks."""
    data = read_mapping(f"kind: finetune\nmodel: {M}\n")
    with pytest.raises(InvalidInputError) as info:
        for_kind({**data, "concurrency": 3}, "serve", "--workload", "the file")
    assert (
        str(info.value)
        == "--workload: the file holds a 'finetune' workload, not 'serve' (accepted: a serve workload)"
    )
    with pytest.raises(InvalidInputError) as info:
        ServeWorkload.from_yaml(f"kind: finetune\nmodel: {M}\n")
    assert info.value.field == "kind" and "'finetune' workload, not 'serve'" in info.value.message


def test_read_mapping_reads_yaml_and_json_without_validating() -> None:
    assert read_mapping("model: m\nprompt_tokens: 32k\n") == {"model": "m", "prompt_tokens": "32k"}
    assert read_mapping('{"model": "m"}', json_text=True) == {"model": "m"}
    assert read_mapping("") == {}
    with pytest.raises(InvalidInputError, match=r"^workload: not valid JSON"):
        read_mapping("{", json_text=True)
