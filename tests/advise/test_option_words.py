"""The advisor's options in each face's words (``gpuscout.advise.option_words``): one table, the CLI's flags
in the advisor's texts named as the web form's fields, the JSON API's and the Python API's; a whole
``Advice`` rewritten for a face, every text of it, nothing else changed; the web form's and the JSON
API's words the same as before the table moved out of ``web/advise_view.py``."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.option_words import (
    OPTION_WORDS,
    api_words,
    form_words,
    python_words,
    translate_advice,
)
from gpuscout.advise.types import Advice
from gpuscout.catalog.offer import Offer
from tests.test_python_api_words import _texts

# A copy of the table web/advise_view.py held before it moved here (pattern, form words, API words).
_OLD_TABLE: tuple[tuple[str, str, str], ...] = (
    (r"--latency-targets none", "“Latency targets: none”", '"latency_targets": "none"'),
    (r"--ttft-ms (\d+)", r"“TTFT max (ms)” \1", r'"ttft_ms_max": \1'),
    (r"--tpot-ms (\d+)", r"“TPOT max (ms)” \1", r'"tpot_ms_max": \1'),
    (r"--ttft-ms", "“TTFT max (ms)”", '"ttft_ms_max"'),
    (r"--tpot-ms", "“TPOT max (ms)”", '"tpot_ms_max"'),
    (r"--budget (\d+)", r"“Budget ($)” \1", r'"budget_usd": \1'),
    (r"--deadline (\d+)h", r"“Deadline (hours)” \1", r'"deadline_hours": \1'),
    (r"--spot\b", "“Spot allowed: yes”", '"spot_allowed": true'),
    (r"--interruptible\b", "“Interruptible: yes”", '"interruptible": true'),
    (r"--include-stale\b", "“Include stale offers: yes” (under Advanced)", '"include_stale": true'),
    (r"--engine\b", "“Engine”", '"engine"'),
    (
        r"--concurrency N or --rps R",
        "“Concurrency” or “Requests per second”",
        '"concurrency" or "requests_per_s"',
    ),
    (r"--concurrency\b", "“Concurrency”", '"concurrency"'),
    (r"--rps\b", "“Requests per second”", '"requests_per_s"'),
    (r"--monthly-tokens\b", "“Output tokens per month”", '"monthly_output_tokens"'),
    (r"--micro-batch\b", "“Micro-batch”", '"micro_batch"'),
    (r"--seq-len\b", "“Sequence length”", '"seq_len"'),
)

# Texts the advisor writes (answer.py, rank.py), each naming flags the old table knew.
TEXTS = (
    "latency: TTFT <= 2,000 ms at 1,024-token prompts, >= 20 tok/s per user (<= 50 ms per token) "
    "(chat defaults; --ttft-ms / --tpot-ms change them, --latency-targets none drops them)",
    "load: 1 user (none given: --concurrency N or --rps R), 1,024 prompt + 256 output tokens each",
    "on-demand only: spot and auction capacity is not used for a live endpoint (--spot allows it)",
    "on-demand only: the job cannot resume after an interruption (--interruptible allows spot)",
    "on-demand only (--spot allows spot)",
    "what would give an answer: --ttft-ms 3700 or a prompt shorter than 100,000 tokens, or --tpot-ms 4 "
    "(about 267 tok/s per user), or --latency-targets none",
    "the budget binds (...): the cheapest that meets everything else is 1x B200 at Verda at $3,540 a month; "
    "--budget 3540 would show it",
    "the deadline binds (...): the fastest finishes in 10.8 h on 8 x 8x B200; --deadline 11h would show it",
    "only interruptible (auction / spot) capacity can run it (...): --spot would show 1x H100 at X at $9",
    "only stale offers or defunct providers can run it (...); --include-stale shows them (check ...)",
    "stale: flagged by its feed, or fetched over 2 days before the catalog's newest prices "
    "(--include-stale shows it)",
    "spot-class capacity, not used unless spot is allowed (--spot)",
    "the load needs more than 64 instances of every offer that runs it: a lower --concurrency, --rps or "
    "--monthly-tokens would fit",
    "no offer can run it (...); another engine (--engine) or precision may run on more of these GPUs",
    "QLoRA, a --micro-batch below 8, a shorter --seq-len or an offer with an inter-node fabric would need "
    "less per GPU",
)


def _old(text: str, face: int) -> str:
    for words in _OLD_TABLE:
        text = re.sub(words[0], words[face], text)
    return text


@pytest.mark.parametrize("text", TEXTS)
def test_the_web_form_and_the_json_api_say_what_they_said_before(text: str) -> None:
    assert form_words(text) == _old(text, 1)
    assert api_words(text) == _old(text, 2)
    assert "--" not in form_words(text) and "--" not in api_words(text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            TEXTS[0],
            '(chat defaults; ttft_ms_max= / tpot_ms_max= change them, latency_targets="none" drops them)',
        ),
        (TEXTS[1], "load: 1 user (none given: concurrency= or requests_per_s=), 1,024 prompt"),
        (TEXTS[2], "(spot_allowed=True allows it)"),
        (TEXTS[3], "(interruptible=True allows spot)"),
        (TEXTS[5], "ttft_ms_max=3700 or a prompt shorter than 100,000 tokens, or tpot_ms_max=4 (about"),
        (TEXTS[6], "$3,540 a month; budget_usd=3540 would show it"),
        (TEXTS[7], "; deadline_hours=11 would show it"),
        (TEXTS[8], ": spot_allowed=True would show 1x H100"),
        (TEXTS[9], "; include_stale=True shows them"),
        (TEXTS[12], "a lower concurrency=, requests_per_s= or monthly_output_tokens= would fit"),
        (TEXTS[13], "another engine (engine=) or precision"),
        (TEXTS[14], "a micro_batch= below 8, a shorter seq_len= or"),
    ],
)
def test_the_python_api_names_the_workloads_fields_and_the_keywords_of_advice(text: str, said: str) -> None:
    assert said in python_words(text)
    assert not re.search(r"--[a-z]", python_words(text))


def test_options_the_web_did_not_name_are_named_in_every_face() -> None:
    refused = "of 9 offers: 9 are refused by the estimator for this configuration (--show-rejected says why)"
    assert python_words(refused).endswith("(include_rejected=True says why)")
    assert api_words(refused).endswith('("show_rejected": true says why)')
    assert "--" not in form_words(refused)
    empty = "the catalog is empty: run `gpuscout refresh` (or check --db)"
    assert python_words(empty).endswith("(or check db=)")
    assert "--" not in form_words(empty) and "--" not in api_words(empty)
    # a deadline under two hours is said in minutes: in hours, rounded up, where the field is in hours
    minutes = "finishes in 44 min on 1x H100; --deadline 45min would show it"
    assert python_words(minutes).endswith("deadline_hours=0.75 would show it")
    assert api_words(minutes).endswith('"deadline_hours": 0.75 would show it')
    assert form_words(minutes).endswith("“Deadline (hours)” 0.75 would show it")
    assert python_words("--deadline 50min").endswith("=0.84")  # 0.8333 h, rounded up


def test_a_flag_is_only_named_whole() -> None:
    # --spot is not the start of --spot-reclaims-per-hour (an engine's own flags are not gpuscout's)
    text = "--spot-reclaims-per-hour 0.2, vLLM --max-concurrency 8"
    assert python_words(text) == form_words(text) == api_words(text) == text


def test_every_row_names_the_option_in_every_face() -> None:
    for option in OPTION_WORDS:
        for words in (option.form, option.api, option.python):
            assert words, option.cli
            assert not (isinstance(words, str) and "--" in words), option.cli


# ---- a whole answer --------------------------------------------------------------------------------
@cache
def _offers() -> tuple[Offer, ...]:
    from gpuscout.catalog.api import current_offers

    return tuple(current_offers())


_ANY_FLAG = re.compile("|".join(f"(?:{o.cli})" for o in OPTION_WORDS))


def _flags(text: str) -> list[str]:
    """The flags of the table that ``text`` names."""
    return [m.group(0) for m in _ANY_FLAG.finditer(text)] if "--" in text else []


WORKLOADS: dict[str, dict[str, Any]] = {
    "serve, the chat defaults": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 16},
    "serve, one user": {"kind": "serve", "model": "llama-3.1-8b"},
    "serve, the budget binds": {
        "kind": "serve",
        "model": "llama-3.1-70b",
        "concurrency": 32,
        "budget_usd": 300,
    },
    "serve, the latency binds": {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "concurrency": 16,
        "tpot_ms_max": 2,
    },
    "finetune on demand": {
        "kind": "finetune",
        "model": "llama-3.1-8b",
        "dataset_tokens": 1e8,
        "spot_allowed": False,
    },
    "batch, the deadline binds": {
        "kind": "batch",
        "model": "llama-3.1-8b",
        "output_tokens_total": 1e10,
        "deadline_hours": 0.2,
    },
}


@cache
def _core(name: str) -> Advice:
    return advise(WORKLOADS[name], _offers(), include_rejected=True)


@pytest.mark.parametrize("name", sorted(WORKLOADS))
@pytest.mark.parametrize("face", ["python", "api", "form"])
def test_a_real_answer_is_rewritten_whole_and_only_its_words(name: str, face: Any) -> None:
    core = _core(name)
    assert any(_flags(t) for t in _texts(core)), "the core's answer names flags"
    said = translate_advice(core, face)
    left = sorted({f for t in _texts(said) for f in _flags(t)})
    assert left == [], left
    words = {"python": python_words, "api": api_words, "form": form_words}[face]
    assert said.targets == tuple(words(t) for t in core.targets)
    assert said.notes == tuple(words(n) for n in core.notes)
    assert said.binding == (words(core.binding) if core.binding else None)
    for a, b in zip(said.recommendations, core.recommendations, strict=True):
        assert a.rejected == (words(b.rejected) if b.rejected else None)
        assert a.reasons == tuple(words(r) for r in b.reasons)
        assert a.warnings == tuple(words(w) for w in b.warnings)
        assert a.assumptions == {k: words(v) for k, v in b.assumptions.items()}
        # nothing but the words changed
        assert a.offer is b.offer and a.config == b.config and a.estimate == b.estimate
        assert (a.rank, a.cost, a.unit_costs, a.pareto, a.picks) == (
            b.rank,
            b.cost,
            b.unit_costs,
            b.pareto,
            b.picks,
        )
    assert (said.picks, said.front_size, said.considered) == (core.picks, core.front_size, core.considered)
    # the core's answer is left as it was: it still names the flags
    assert any(_flags(t) for t in _texts(core))


def test_an_answer_without_a_flag_is_returned_as_it_is() -> None:
    # a dataset size given: the header names no --dataset-gb (with none, it says that flag counts it)
    job = {"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": 1e8, "dataset_gb": 10}
    core = advise(job, _offers(), top=3)
    said = translate_advice(core, "python")
    assert said == core and all(a is b for a, b in zip(said.rows, core.rows, strict=True))


def test_an_unknown_face_is_refused() -> None:
    core = advise({"kind": "serve", "model": "llama-3.1-8b"}, _offers(), top=1)
    with pytest.raises(ValueError, match="face: 'cli' is not one of form, api, python"):
        translate_advice(core, "cli")  # type: ignore[arg-type]
