"""A training answer says what it counts of the dataset (``dataset_gb``): with none given (the default, 0)
a 1T-token pre-training run on 512 GPUs was costed with no data at all (a tokenised 1T-token corpus is
terabytes) and nothing said so. The header now says the data's download and storage are not costed and
how to count them, in each face's words (the CLI's ``--dataset-gb``, the form's “Dataset (GB)”, the
JSON API's ``"dataset_gb"``, the Python API's ``dataset_gb=``), and with a size, what the cost model
charges for it: each node's download before it starts (again after an interruption) and a copy per
node stored for the run (a fine-tune), or one copy stored and streamed as the run trains (a pre-training
corpus: stop 64). The form's “Dataset (GB)” input reaches the answer; a bad value is an error at it."""

from __future__ import annotations

import dataclasses
import html
import json
import re

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import gpuscout
from gpuscout.advise.answer import targets_applied
from gpuscout.advise.option_words import api_words, form_words, python_words
from gpuscout.advise.workload import (
    MAX_DATA_GB,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
)
from gpuscout.cli import app
from tests.web.conftest import sample_offers

FINETUNE = {"kind": "finetune", "model": "llama-3.1-8b", "method": "lora", "dataset_tokens": 2e7}
NOT_COSTED = "dataset: not costed (its download to each node and its storage); --dataset-gb counts them"
NOT_COSTED_STREAMED = "dataset: not costed (storing the corpus the run streams); --dataset-gb counts it"


def _dataset(targets: tuple[str, ...] | list[str]) -> list[str]:
    return [t for t in targets if t.startswith("dataset:")]


@pytest.mark.parametrize(
    ("w", "said"),
    [
        (PretrainWorkload(model="llama-3.1-8b", token_budget=1e12, gpus=512), NOT_COSTED_STREAMED),
        (FinetuneWorkload(model="llama-3.1-8b", method="full", dataset_tokens=1e8), NOT_COSTED),
    ],
)
def test_a_training_run_without_a_dataset_says_it_is_not_costed(
    w: PretrainWorkload | FinetuneWorkload, said: str
) -> None:
    assert _dataset(targets_applied(w)) == [said]


def test_a_training_run_with_a_dataset_says_what_is_counted() -> None:
    w = PretrainWorkload(model="llama-3.1-8b", token_budget=1e12, gpus=512, dataset_gb=4000)
    assert _dataset(targets_applied(w)) == [
        "dataset: 4,000 GB stored once for the run (not kept after it) and streamed as it trains, each node "
        "reading its shards (nothing fetched before it starts)"
    ]
    full = FinetuneWorkload(model="llama-3.1-8b", method="full", dataset_tokens=1e8, dataset_gb=40)
    assert _dataset(targets_applied(full)) == [
        "dataset: 40 GB fetched by each node before it starts (again after an interruption) and a copy "
        "per node stored for the run (not kept after it)"
    ]
    small = FinetuneWorkload(model="llama-3.1-8b", method="lora", dataset_tokens=1e6, dataset_gb=0.25)
    assert _dataset(targets_applied(small))[0].startswith("dataset: 0.25 GB fetched by each node")


def _charged(w: PretrainWorkload | FinetuneWorkload) -> tuple[float, float, float, float, float]:
    """(warm-up s, reload s after a reclaim, GB-months stored, GB kept after, the run's months) of ``w``
    on two nodes."""
    from gpuscout.advise.cost import cost_model, training_reload_s
    from tests.advise.helpers import terms
    from tests.advise.test_s42_training_checkpoint_writes import A, _trained

    ev = dataclasses.replace(_trained(w), instances=2)  # two nodes
    cm = cost_model(ev, w, terms(kind="hyperscaler"), False, A)
    months = ev.time_s / 86400.0 / 30.0
    return cm.warmup_s_per_start, training_reload_s(ev, w, A), cm.storage_gb_months, cm.retained_gb, months


def test_the_words_match_what_the_cost_model_charges_for_a_fine_tune() -> None:
    # each node downloads the data before it starts (its warm-up), again after an interruption (its
    # reload), and every node's copy is stored for the run, none after it
    from tests.advise.test_s42_training_checkpoint_writes import A

    def fine_tune(gb: float) -> FinetuneWorkload:
        return FinetuneWorkload(
            model="small", method="full", dataset_tokens=1e7, micro_batch=1, dataset_gb=gb
        )

    warm0, reload0, stored0, kept0, months = _charged(fine_tune(0.0))
    warm, reload, stored, kept, _ = _charged(fine_tune(100.0))
    assert warm - warm0 == pytest.approx(100.0 / A.download_gbps)
    assert reload - reload0 == pytest.approx(100.0 / A.download_gbps)
    assert stored - stored0 == pytest.approx(2 * 100.0 * months)
    assert kept == kept0


def test_the_words_match_what_the_cost_model_charges_for_a_pretraining_corpus() -> None:
    # streamed: no node waits for it before it starts or after a reclaim, and one copy is stored for the
    # run (two nodes do not store two), none after it
    def pretrain(gb: float) -> PretrainWorkload:
        return PretrainWorkload(model="small", token_budget=1e7, micro_batch=1, dataset_gb=gb)

    warm0, reload0, stored0, kept0, months = _charged(pretrain(0.0))
    warm, reload, stored, kept, _ = _charged(pretrain(100.0))
    assert warm == warm0 and reload == reload0
    assert stored - stored0 == pytest.approx(100.0 * months)
    assert kept == kept0


def test_serving_and_batch_answers_have_no_dataset_line() -> None:
    assert _dataset(targets_applied(ServeWorkload(model="llama-3.1-8b", concurrency=8))) == []
    assert _dataset(targets_applied(BatchWorkload(model="llama-3.1-8b", output_tokens_total=1e8))) == []


def test_each_face_names_the_option_its_own_way() -> None:
    assert form_words(NOT_COSTED).endswith("; “Dataset (GB)” counts them")
    assert api_words(NOT_COSTED).endswith('; "dataset_gb" counts them')
    assert python_words(NOT_COSTED).endswith("; dataset_gb= counts them")


def test_the_cli_says_its_flag(db_url: str) -> None:
    cli = CliRunner().invoke(
        app,
        ["recommend", "finetune", "llama-3.1-8b", "--method", "lora", "--dataset-tokens", "2e7", "--json",
         "--top", "3", "--db", db_url],
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    assert _dataset(json.loads(cli.output)["targets"]) == [NOT_COSTED]
    sized = CliRunner().invoke(
        app,
        ["recommend", "finetune", "llama-3.1-8b", "--method", "lora", "--dataset-tokens", "2e7",
         "--dataset-gb", "40", "--top", "3", "--db", db_url],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    assert sized.exit_code == 0, sized.output
    assert "dataset: 40 GB fetched by each node before it starts" in sized.output


def test_the_python_api_names_the_field() -> None:
    answer = gpuscout.advice(FinetuneWorkload(**FINETUNE), sample_offers(), top=3)  # type: ignore[arg-type]
    assert _dataset(answer.targets) == ["dataset: not costed (its download to each node and its storage); "
                                        "dataset_gb= counts them"]  # fmt: skip


def test_the_json_api_names_the_field(client: TestClient) -> None:
    r = client.post("/api/v1/advise", json={"workload": FINETUNE})
    assert r.status_code == 200, r.text
    assert _dataset(r.json()["targets"]) == [
        'dataset: not costed (its download to each node and its storage); "dataset_gb" counts them'
    ]


def _held_to(page: str) -> list[str]:
    block = page.split('id="targets"', 1)[1].split("</ul>", 1)[0]
    return [html.unescape(re.sub(r"<[^>]+>", "", li)).strip() for li in block.split("<li>")[1:]]


def test_the_form_names_its_input_and_its_value_reaches_the_answer(client: TestClient) -> None:
    params = {k: str(v) for k, v in FINETUNE.items()}
    page = client.get("/advise", params=params)
    assert page.status_code == 200, page.text
    assert _dataset(_held_to(page.text)) == [
        "dataset: not costed (its download to each node and its storage); “Dataset (GB)” counts them"
    ]
    sized = client.get("/advise", params={**params, "dataset_gb": "4000"})
    assert sized.status_code == 200, sized.text
    assert _dataset(_held_to(sized.text))[0].startswith("dataset: 4,000 GB fetched by each node")
    assert re.search(r'name="dataset_gb"[^>]*value="4000"', sized.text)  # refilled as typed


@pytest.mark.parametrize("value", ["-1", "abc", f"{MAX_DATA_GB * 10:g}"])
def test_a_bad_dataset_size_is_an_error_at_its_input(client: TestClient, value: str) -> None:
    params = {**{k: str(v) for k, v in FINETUNE.items()}, "dataset_gb": value}
    r = client.get("/advise", params=params)
    assert r.status_code == 422 and 'id="ranked"' not in r.text
    block = r.text.split('id="err-dataset_gb"', 1)[1].split("</span>", 1)[0]
    message = html.unescape(re.sub(r"<[^>]+>", "", block.split(">", 1)[1])).strip()
    assert message.startswith("Dataset (GB)"), message
