"""A batch job's instances split its input (``dataset_gb``), each fetching its share, rather than each
fetching all of it (stop 66). Before, ``recommend batch llama-3.1-8b --output-total 2B --deadline 6h
--dataset-gb 2000`` had every one of 20 instances download the 2 TB (67 min at the assumed 0.5 GB/s) and
store its own copy: $164, a quarter of it warm-up, where 9 instances fetching 222 GB each cost $104. A
fine-tune still fetches its (small) set whole on every node (``test_s64_streamed_corpus``)."""

from __future__ import annotations

import math

import pytest

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.configs import instances_for_deadline, instances_for_split_deadline, with_instances
from gpuscout.advise.cost import cost_model, fetched_dataset_gb, split_dataset_gb
from gpuscout.advise.inference_configs import BatchTokensEvaluator
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, PretrainWorkload
from tests.advise.fakes import TERMS, fake_backends
from tests.advise.helpers import offer

BE = fake_backends()
A = Assumptions()
DATA_GB = 1800.0


def _job(dataset_gb: float, deadline_hours: float | None = 3.0) -> BatchWorkload:
    return BatchWorkload(
        model="small",
        output_tokens_total=1e9,
        spot_allowed=False,
        dataset_gb=dataset_gb,
        deadline_hours=deadline_hours,
    )


def test_only_a_batch_splits_its_input() -> None:
    batch = _job(DATA_GB)
    assert (split_dataset_gb(batch), fetched_dataset_gb(batch)) == (DATA_GB, 0.0)
    tune = FinetuneWorkload(model="small", method="lora", dataset_tokens=1e7, dataset_gb=40.0)
    assert (split_dataset_gb(tune), fetched_dataset_gb(tune)) == (0.0, 40.0)
    corpus = PretrainWorkload(model="small", token_budget=1e11, dataset_gb=4000.0)
    assert (split_dataset_gb(corpus), fetched_dataset_gb(corpus)) == (0.0, 0.0)  # streamed


def test_the_instance_count_treats_the_shares_as_divisible_work() -> None:
    # 10 h of work and 1,800 GB (1 h to fetch at 0.5 GB/s on one instance), 0.5 h of other warm-up, a
    # 3 h deadline: 2.5 h each to work and fetch, so 11 h / 2.5 h -> 5 instances. Five: 2 h of work +
    # 360 GB (0.2 h) + 0.5 h = 2.7 h; four: 2.5 + 0.25 + 0.5 = 3.25 h, late.
    assert A.download_gbps == 0.5
    assert instances_for_split_deadline(10 * 3600.0, DATA_GB, 3.0, 1800.0, A) == 5
    # fetched whole by each, the same input leaves 1.5 h to work: 7 instances
    assert instances_for_deadline(10 * 3600.0, 3.0, 1800.0 + DATA_GB / A.download_gbps) == 7
    # no deadline: one instance, which fetches it all
    assert instances_for_split_deadline(10 * 3600.0, DATA_GB, None, 1800.0, A) == 1


def test_each_instance_fetches_its_share_and_one_copy_is_stored() -> None:
    bare = BatchTokensEvaluator(_job(0.0), BE, A).evaluate(offer("perhour", price=1.0))
    w = _job(DATA_GB)
    ev = BatchTokensEvaluator(w, BE, A).evaluate(offer("perhour", price=1.0))
    assert ev.rejected is None and ev.instances > 1
    weights = bare.download_gb_per_instance
    assert ev.split_data_gb == DATA_GB
    assert ev.download_gb_per_instance == pytest.approx(weights + DATA_GB / ev.instances)
    assert ev.one_copy_gb == pytest.approx(weights + DATA_GB)
    # the job's own time is its work; the share's download is warm-up, billed as such
    assert ev.time_s * ev.instances == pytest.approx(bare.time_s * bare.instances)
    cm, cm_bare = (cost_model(e, job, TERMS["perhour"], False, A) for e, job in ((ev, w), (bare, _job(0.0))))
    share_s = DATA_GB / ev.instances / A.download_gbps
    assert cm.warmup_h == pytest.approx(ev.instances * (A.boot_s + weights / A.download_gbps + share_s
                                                        + weights / A.load_gbps) / 3600.0)  # fmt: skip
    # stored while it runs: every instance's weights and the shares, one copy of the input in all
    months = ev.time_s / 86400.0 / 30.0
    assert cm.storage_gb_months == pytest.approx((ev.instances * weights + DATA_GB) * months)
    assert cm_bare.storage_gb_months == pytest.approx(bare.instances * weights * bare.time_s / 86400.0 / 30.0)


def test_more_instances_each_fetch_less() -> None:
    ev = BatchTokensEvaluator(_job(DATA_GB), BE, A).evaluate(offer("perhour", price=1.0))
    weights = ev.download_gb_per_instance - DATA_GB / ev.instances
    for k in (ev.instances + 1, 8, 1):
        wide = with_instances(ev, k)
        assert wide.download_gb_per_instance == pytest.approx(weights + DATA_GB / k)
        assert wide.one_copy_gb == pytest.approx(weights + DATA_GB)
        assert wide.time_s == pytest.approx(ev.time_s * ev.instances / k)
    # a fine-tune's or a serving row's whole copy per instance stays whole (nothing split)
    assert with_instances(ev, 1).download_gb_per_instance == pytest.approx(weights + DATA_GB)


def test_the_answer_meets_the_deadline_with_fewer_instances_than_whole_copies_needed() -> None:
    w = _job(DATA_GB)
    ev = BatchTokensEvaluator(w, BE, A).evaluate(offer("perhour", price=1.0))
    weights = ev.download_gb_per_instance - DATA_GB / ev.instances
    warm_whole = A.boot_s + (weights + DATA_GB) / A.download_gbps + weights / A.load_gbps
    work_1 = ev.time_s * ev.instances
    whole = instances_for_deadline(work_1, 3.0, warm_whole)
    assert ev.instances < whole or whole == 0, (ev.instances, whole)
    # and the row it proposes finishes within the deadline, its share's download included
    warm = A.boot_s + ev.download_gb_per_instance / A.download_gbps + weights / A.load_gbps
    assert ev.time_s + warm <= 3.0 * 3600.0 + 1e-6
    assert math.isclose(ev.download_gb_per_instance - weights, DATA_GB / ev.instances)


def test_the_header_and_the_forms_hint_say_the_input_is_split() -> None:
    from gpuscout.advise.answer import dataset_text
    from gpuscout.web.advise_form import field_help

    assert dataset_text(_job(0.0)) is None  # a batch's prompts: nothing to say when none is given
    assert dataset_text(_job(2000.0)) == (
        "dataset: 2,000 GB of input split between the instances, each fetching its share before it starts "
        "(again after a reclaim); one copy stored while the job runs"
    )
    assert field_help("dataset_gb", "batch").startswith("its input, split between the instances")
    assert field_help("dataset_gb", "finetune").startswith("fetched by each instance")
