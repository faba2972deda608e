"""A pre-training corpus is streamed as the run trains, not downloaded whole to every node before it starts
(stop 64): with ``--dataset-gb 4000`` every node of a 64-node 8x B200 run waited 2.2 h (4 TB at the assumed
0.5 GB/s) and stored its own copy, which took the 4.4 h row off the answer. The corpus now adds its one
stored copy and no time; a fine-tune still fetches its (small) data on every node."""

from __future__ import annotations

from functools import cache

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.cost import data_prices
from gpuscout.advise.types import Advice
from gpuscout.catalog.api import current_offers
from gpuscout.catalog.offer import Offer
from gpuscout.knowledge.providers import provider_terms


@cache
def _oci_b200() -> tuple[Offer, ...]:
    offers = tuple(o for o in current_offers() if o.provider == "oci" and o.instance_type == "BM.GPU.B200.8")
    assert offers
    return offers


def _pretrain(dataset_gb: float) -> Advice:
    w = {"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 2e11, "dataset_gb": dataset_gb}
    return advise(w, _oci_b200(), top=1)


def test_a_corpus_delays_no_node_and_is_stored_once() -> None:
    bare, fed = _pretrain(0.0).rows[0], _pretrain(4000.0).rows[0]
    assert fed.config.instances == bare.config.instances == 64
    assert fed.time_to_result_s == bare.time_to_result_s  # nothing fetched before the run starts
    assert fed.cost is not None and bare.cost is not None and fed.time_s is not None
    assert fed.cost.warmup == bare.cost.warmup
    # one copy for the run, at the offer's storage price (was 64 copies)
    price = data_prices(fed.offer, provider_terms("oci"), Assumptions()).storage_usd_per_gb_month
    months = fed.time_s / 86400.0 / 30.0
    assert fed.cost.storage - bare.cost.storage == pytest.approx(4000.0 * months * price)


def test_a_fine_tune_still_fetches_its_data_on_each_node() -> None:
    def fine_tune(dataset_gb: float) -> Advice:
        w = {"kind": "finetune", "model": "llama-3.1-8b", "method": "lora", "dataset_tokens": 2e7,
             "dataset_gb": dataset_gb}  # fmt: skip
        return advise(w, _oci_b200(), top=1)

    bare, fed = fine_tune(0.0).rows[0], fine_tune(50.0).rows[0]
    assert fed.cost is not None and bare.cost is not None
    assert fed.cost.warmup > bare.cost.warmup


def test_the_forms_hint_says_how_each_kind_takes_its_data() -> None:
    from gpuscout.web.advise_form import field_help

    assert field_help("dataset_gb", "pretrain").startswith("the corpus, stored once and streamed")
    assert field_help("dataset_gb", "finetune").startswith("fetched by each instance")
    # a batch's instances split their input (stop 66: tests/advise/test_s66_split_batch_input.py)
    assert field_help("dataset_gb", "batch").startswith("its input, split between the instances")
