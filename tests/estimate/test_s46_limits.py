"""One limit per input, stated in :mod:`gpuscout.estimate.arguments` and read by every face; and a
workload file that gives a field twice is refused, not read for its last value.

Regressions: a pre-training workload took at most 10,000 ``nodes`` where ``estimate_training`` took
100,000 (and ``gpus: 100000`` on single-GPU instances is 100,000 nodes), a fine-tuning one's
``max_nodes`` at most 1,024; a batch workload took 64..8,192 px and 1..1,000 steps where
``estimate_images`` and ``gpuscout images`` take 64..16,384 and 1..10,000; the model page had its own
context limit (1,048,576) beside the estimator's; ``concurrency: 3`` then ``concurrency: 5`` in a workload
file (YAML or JSON) was read as 5 without a word.
"""

from __future__ import annotations

import pytest

from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload, Workload
from gpuscout.errors import InvalidInputError
from gpuscout.estimate import arguments
from gpuscout.estimate.arguments import MAX_EPOCHS, MAX_NODES, MAX_TRAINING_GPUS, positive_float


def _le(cls: type[Workload], name: str) -> object:
    return next(m.le for m in cls.model_fields[name].metadata if getattr(m, "le", None) is not None)


def test_nodes_have_one_limit_for_the_workload_and_the_estimator() -> None:
    assert _le(PretrainWorkload, "nodes") == MAX_NODES  # was 10,000
    assert _le(PretrainWorkload, "max_nodes") == MAX_NODES
    assert _le(FinetuneWorkload, "max_nodes") == MAX_NODES  # was 1,024
    assert _le(PretrainWorkload, "gpus") == MAX_TRAINING_GPUS
    # a node holds at least one GPU: the nodes of the largest cluster on single-GPU instances
    assert MAX_NODES >= MAX_TRAINING_GPUS
    base = {"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 1e12}
    assert Workload.from_dict({**base, "nodes": 50_000}).nodes == 50_000  # type: ignore[union-attr]
    with pytest.raises(InvalidInputError, match=rf"^nodes: {MAX_NODES + 1} is out of range"):
        Workload.from_dict({**base, "nodes": MAX_NODES + 1})
    assert _le(FinetuneWorkload, "epochs") == MAX_EPOCHS


def test_the_model_page_and_its_api_read_the_estimators_context_limit() -> None:
    from gpuscout.web import model_view

    assert model_view.MAX_CONTEXT is arguments.MAX_CONTEXT  # was its own 1,048,576


def test_positive_float_says_its_range_in_the_words_the_cli_uses() -> None:
    with pytest.raises(InvalidInputError) as info:
        positive_float("request_rate", 0.0, arguments.MAX_RATE)
    assert info.value.accepted == arguments.positive_words(arguments.MAX_RATE) == "> 0, <= 1e+06"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "kind: serve\nmodel: llama-3.1-8b\nconcurrency: 3\nconcurrency: 5\n",
            "concurrency: given 2 times ('3', '5') (accepted: one value)",
        ),
        (
            "kind: serve\nmodel: llama-3.1-8b\nregions: [us]\nregions: [eu, de]\n",
            "regions: given 2 times ('[us]', '[eu, de]') (accepted: one value)",
        ),
    ],
)
def test_a_yaml_workload_giving_a_field_twice_is_refused(text: str, said: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_yaml(text)
    assert str(info.value) == said  # was read as the last value


def test_a_json_workload_giving_a_field_twice_is_refused() -> None:
    text = '{"kind": "serve", "model": "llama-3.1-8b", "concurrency": 3, "concurrency": 5}'
    with pytest.raises(InvalidInputError) as info:
        Workload.from_json(text)
    assert str(info.value) == "concurrency: given 2 times ('3', '5') (accepted: one value)"


def test_a_yaml_merge_key_is_not_a_repeat() -> None:
    # what a mapping states itself overrides what it merges (YAML's rule), as before
    text = "kind: serve\nmodel: llama-3.1-8b\n<<: {concurrency: 3}\nconcurrency: 5\n"
    assert Workload.from_yaml(text).concurrency == 5  # type: ignore[union-attr]
