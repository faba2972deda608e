"""Stop 61: a reason that says one memory figure is larger than another prints them so they read apart.
A batch of Llama-3.1-8B at 2.5k tokens x 50 running read "KV cache 15 GiB ... — larger than the weights
(15 GiB)": 15.3 GiB against 15.0 GiB, both rounded to whole GiB."""

from __future__ import annotations

import pytest

from gpuscout.advise.api import recommend
from gpuscout.advise.reasons import distinct_gib_texts, gib_text
from gpuscout.advise.workload import BatchWorkload
from tests.advise.helpers import NOW, offer

GIB = 1.073741824  # GB per GiB


@pytest.mark.parametrize(
    ("a_gib", "b_gib", "texts"),
    [
        (15.3, 14.96, ("15.3", "15.0")),  # whole GiB equal: one decimal
        (15.04, 15.01, ("15.04", "15.01")),  # one decimal equal too: two
        (30.0, 15.0, ("30", "15")),  # already apart: as gib_text writes them
        (4.23, 4.21, ("4.23", "4.21")),  # under 10 GiB gib_text gives one decimal already: then two
    ],
)
def test_figures_get_the_decimals_it_takes_to_read_apart(
    a_gib: float, b_gib: float, texts: tuple[str, str]
) -> None:
    assert distinct_gib_texts(a_gib * GIB, b_gib * GIB) == texts


def test_apart_figures_are_written_as_everywhere_else() -> None:
    assert distinct_gib_texts(40 * GIB, 16 * GIB) == (gib_text(40 * GIB), gib_text(16 * GIB))


def test_the_batch_row_no_longer_reads_15_larger_than_15() -> None:
    w = BatchWorkload(
        model="llama-3.1-8b",
        output_tokens_total=100e6,
        prompt_tokens=2000,
        output_tokens=500,
        deadline_hours=2,
    )
    recs = recommend(w, [offer("runpod", "H100-SXM", 1, 2.5)], now=NOW)
    kv_reasons = [r for rec in recs for r in rec.reasons if "larger than the weights" in r]
    assert kv_reasons
    for text in kv_reasons:
        kv = text.split("KV cache ", 1)[1].split(" GiB", 1)[0]
        weights = text.split("larger than the weights (", 1)[1].split(" GiB", 1)[0]
        assert float(kv) > float(weights), text
