"""What the answer says around its rows: the targets applied, the caveats every row shares, and -- when
no offer passes -- which constraint binds and what would make something fit.

The binding constraint is found by relaxing one constraint at a time (the latency targets, the budget,
the deadline, spot, stale offers, the providers/regions asked for) and ranking again: the first
relaxation that yields rows binds, and the rows it yields give the figure that would fit ("the fastest
TTFT any offer reaches is 3.1 s").
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.configs import REJECT_KINDS
from gpuscout.advise.cost import streams_dataset
from gpuscout.advise.reasons import budget_text, distinct_usd, duration, plural, usd
from gpuscout.advise.types import PICKS, Advice, Move, Recommendation, UncalibratedPick
from gpuscout.advise.workload import (
    CHAT_TPOT_MS,
    CHAT_TTFT_MS,
    MAX_DEADLINE_HOURS,
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
    parse_hours,
)
from gpuscout.catalog.offer import Offer
from gpuscout.wording import and_list, rate_text, token_count

if TYPE_CHECKING:
    from gpuscout.advise.rank import Ranker
    from gpuscout.advise.selection import Selection

#: How the rejection kinds read in the diagnosis ("412 do not fit").
_KIND_TEXT = {
    "fit": "do not fit",
    "headroom": "fit with too little memory headroom",
    "unsupported": "cannot run this engine and precision",
    "latency": "miss the latency targets even at one user",
    "instances": "would need too many instances",
    "fabric": "would need a multi-node fabric",
    "volume": "cannot generate the monthly volume with the users stated (more users, or the load as --rps)",
    "budget": "are over the budget",
    "deadline": "miss the deadline",
    "spot-only": "have only an interruptible price",
    "stale": "are stale",
    "defunct": "are from defunct providers",
    "unavailable": "are unavailable",
    "provider": "are from other providers",
    "region": "are in other regions",
    "gpu": "have other GPUs",
    "price": "have no usable price",
    "unknown-gpu": "have an accelerator gpuscout does not know",
    "fractional": "are fractional GPU slices",
    "estimator": "are refused by the estimator for this configuration (--show-rejected says why)",
}


#: The verb of a ``_KIND_TEXT`` phrase for one offer ("1 is stale", not "1 are stale").
_SINGULAR_VERB = {"are": "is", "do": "does", "have": "has", "miss": "misses", "fit": "fits"}


def _kind_text(kind: str, n: int) -> str:
    text = _KIND_TEXT.get(kind, kind)
    verb, _, rest = text.partition(" ")
    return f"{_SINGULAR_VERB.get(verb, verb)} {rest}" if n == 1 and rest else text


def picks_rule(
    balanced_time_factor: float,
    time_tolerance: float,
    serve: bool | None = None,
    deadline: bool = False,
    acceptable: float = 0.0,
) -> str:
    """How the front and its picks are defined, in words (shown under the table). ``serve``: the
    balanced window for a serving answer (True), a job's (False), or both (None); ``deadline``: a deadline
    is set, and a faster row beats a cheaper one only within the estimate's tolerance
    (:func:`gpuscout.advise.pareto.most_allowance`); ``acceptable``: the request latency the latency
    targets allow (seconds; 0: none stated), within the balanced window too."""
    from gpuscout.advise.pareto import COST_TOLERANCE, MAX_COST_ALLOWANCE

    factor = f"{balanced_time_factor:g}x"
    if serve is None:
        window = (
            f"at most {factor} the best time of the front rows that rent no more GPUs than the load needs "
            "(serving: extra replicas, or a wider split, that only shorten requests do not set it)"
        )
    elif serve:
        window = (
            f"at most {factor} the best latency of the front rows that rent no more GPUs than the load needs "
            "(extra replicas, or a wider split, that only shorten requests do not set it)"
        )
        if math.isinf(acceptable):
            window += " or any, the latency target stated leaving a request's whole time unbounded"
        elif acceptable > 0:
            window += f" or within the {acceptable:,.1f} s a request may take by the latency targets stated"
    else:
        window = f"at most {factor} that time"
    return (
        f"front: no row on it has another as cheap and as fast (times within {time_tolerance:.0%} count as "
        + (
            f"the same speed; under the deadline a faster row beats a cheaper one for up to "
            f"{COST_TOLERANCE:.0%} more, the estimate's own tolerance); "
            if deadline
            else f"the same speed; a row k times as fast as another beats it for up to "
            f"{COST_TOLERANCE:.0%} x (k - 1) more, at least {COST_TOLERANCE:.0%}, at most "
            f"{MAX_COST_ALLOWANCE:.0%}); "
        )
        + "cheapest: the least cost on the front; "
        f"fastest: the cheapest row within {time_tolerance:.0%} of the best time on the front (rows each "
        f"within {time_tolerance:.0%} of a cheaper one can leave a faster row off it); balanced: the least "
        f"cost/cheapest x time/fastest among rows {window}"
    )


def _ms(x: float) -> str:
    return f"{x:,.0f} ms" if x < 10_000 else f"{x / 1000:,.1f} s"


def latency_targets_text(w: ServeWorkload) -> str | None:
    """'TTFT <= 2,000 ms, >= 20 tok/s per user (chat defaults)' or None when no target applies."""
    ttft, tpot = w.ttft_target_ms, w.tpot_target_ms
    parts = []
    if ttft is not None:
        parts.append(f"TTFT <= {_ms(ttft)} at {w.prompt_tokens:,}-token prompts")
    if tpot is not None:
        parts.append(f">= {1000.0 / tpot:.3g} tok/s per user (<= {tpot:g} ms per token)")
    if not parts:
        return None
    defaults = []
    if w.ttft_ms_max is None and ttft == CHAT_TTFT_MS:
        defaults.append("TTFT")
    if w.tpot_ms_max is None and tpot == CHAT_TPOT_MS:
        defaults.append("speed")
    note = ""
    if defaults:
        note = (
            " (chat defaults"
            + ("" if len(defaults) == 2 else f" for {defaults[0]}")
            + "; --ttft-ms / --tpot-ms change them, --latency-targets none drops them)"
        )
    return "latency: " + ", ".join(parts) + note


#: Bytes per pixel of a PNG of photographic content (a generated image): recalled, not read from a
#: source (24-bit RGB is 3 bytes a pixel raw; PNG's lossless compression of photographic images leaves
#: roughly 40-55 % of that: a 1024x1024 image of about 1.2-1.6 MB). Approximate, said so where used.
PNG_BYTES_PER_PIXEL = 1.3


def _bytes_text(n: float) -> str:
    """'1.4 TB', '36 GB', '140 MB' (decimal units, as --egress-gb's GB)."""
    for unit, size in (("TB", 1e12), ("GB", 1e9)):
        if n >= size:
            return f"{n / size:.2g} {unit}" if n < 10 * size else f"{n / size:,.0f} {unit}"
    return f"{n / 1e6:.2g} MB" if n < 1e7 else f"{n / 1e6:,.0f} MB"


def image_outputs_text(w: BatchWorkload) -> str:
    """The size of an image batch's outputs and how moving them out is costed: "outputs: about 1.4 TB of
    PNG at 1024x1024 (about 1.4 MB an image, approximate); --egress-gb counts moving them out" (an image
    job showed an egress of 0 where a million images are over a terabyte)."""
    per_image = w.width * w.height * PNG_BYTES_PER_PIXEL
    size = f"about {_bytes_text(per_image * (w.images_total or 0))} of PNG at {w.width}x{w.height}"
    each = f"about {_bytes_text(per_image)} an image, approximate"
    costed = (
        f"--egress-gb {w.egress_gb:g} is costed as moving them out"
        if w.egress_gb > 0
        else "--egress-gb counts moving them out (not costed here)"
    )
    return f"outputs: {size} ({each}); {costed}"


def dataset_text(w: BatchWorkload | FinetuneWorkload | PretrainWorkload) -> str | None:
    """What a job's answer counts of its dataset (``dataset_gb``), as the cost model charges it. A
    fine-tune's (``cost.fetched_dataset_gb``): each node's warm-up downloads it with the weights, and so
    does its reload after an interruption, and every node's copy is stored for the run. A pre-training
    corpus (``cost.streamed_dataset_gb``): streamed as the run trains from one stored copy, neither
    fetched before it starts nor after a reclaim. Only the trained output is kept after the run. A
    batch's input (``cost.split_dataset_gb``): its instances split it, each fetching its share. With
    none given (0) a training run's data is not costed, which a 1T-token corpus (terabytes) makes a large
    omission: the line says so, and how to count it (a batch's prompts are small: no line, None)."""
    streamed = streams_dataset(w)
    batch = isinstance(w, BatchWorkload)
    if w.dataset_gb <= 0:
        if batch:
            return None
        if streamed:
            return "dataset: not costed (storing the corpus the run streams); --dataset-gb counts it"
        return "dataset: not costed (its download to each node and its storage); --dataset-gb counts them"
    gb = w.dataset_gb
    size = f"{gb:,.0f} GB" if gb >= 10 else f"{gb:.3g} GB"
    if batch:
        return (
            f"dataset: {size} of input split between the instances, each fetching its share before it "
            "starts (again after a reclaim); one copy stored while the job runs"
        )
    if streamed:
        return (
            f"dataset: {size} stored once for the run (not kept after it) and streamed as it trains, each "
            "node reading its shards (nothing fetched before it starts)"
        )
    return (
        f"dataset: {size} fetched by each node before it starts (again after an interruption) and a copy "
        "per node stored for the run (not kept after it)"
    )


def _job_text(w: AnyWorkload) -> str | None:
    """What a batch or training run does, as the header repeats it (a serving answer says its load)."""
    if isinstance(w, BatchWorkload):
        if w.is_images:
            steps = f", {w.steps} steps" if w.steps is not None else ""
            return f"job: {token_count(w.images_total or 0)} images at {w.width}x{w.height}{steps}"
        return (
            f"job: {token_count(w.output_tokens_total or 0)} output tokens, {w.prompt_tokens:,} prompt + "
            f"{w.output_tokens:,} output tokens per request"
        )
    if isinstance(w, FinetuneWorkload):
        method = {"lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tuning"}[w.method]
        # the adapters' dtype as the row's assumption says it (``precision: fp32`` makes the whole run fp32)
        fp32 = w.fp32_adapters or w.fp32_run
        adapters = f", {'fp32' if fp32 else '16-bit'} adapters" if w.method != "full" else ""
        epochs = f" x {w.epochs:g} epochs" if w.epochs != 1 else ""
        dtype = f"NF4 base, {w.precision} compute" if w.method == "qlora" else w.precision
        return (
            f"job: {method} over {token_count(w.dataset_tokens)} tokens{epochs}, "
            f"{w.seq_len:,}-token sequences, {dtype}{adapters}"
        )
    if isinstance(w, PretrainWorkload):
        return f"job: {token_count(w.token_budget)} tokens, {w.seq_len:,}-token sequences, {w.precision}"
    return None


def targets_applied(w: AnyWorkload, assumptions: Assumptions | None = None) -> tuple[str, ...]:
    """What the ranking was held to, in words (shown above the table and in the JSON)."""
    out: list[str] = []
    if isinstance(w, ServeWorkload):
        if w.requests_per_s is not None:
            rate = f"{w.requests_per_s:g}"
            load = f"load: {rate} {plural(rate, 'request')}/s"
        elif w.concurrency is not None:
            load = f"load: {w.concurrency:,} simultaneous {plural(w.concurrency, 'user')}"
        elif w.offered_rate is not None:  # a monthly volume alone: its requests spread over the active hours
            load = (
                f"load: {rate_text(w.offered_rate)} requests/s on average (the monthly volume over its "
                "hours up)"
            )
        else:
            load = "load: 1 user (none given: --concurrency N or --rps R)"
        out.append(f"{load}, {w.prompt_tokens:,} prompt + {w.output_tokens:,} output tokens each")
        if w.monthly_output_tokens is not None:  # what every $/M output tokens is over
            out.append(
                f"volume: {token_count(w.monthly_output_tokens)} output tokens a month ($/M output tokens is "
                "the month's cost over them)"
            )
        text = latency_targets_text(w)
        if text:
            out.append(text)
        month = f"a month of {w.days_per_month:g} days"  # what every $/month is for
        if w.is_bursty:
            bursts = w.bursts_per_day
            out.append(f"up {bursts} {plural(bursts, 'time')} a day for {w.burst_minutes:g} min, {month}")
        else:
            out.append(f"up {w.hours_per_day:g} h a day, {month}")
    job = _job_text(w)
    if job:
        out.append(job)
    if isinstance(w, BatchWorkload) and w.is_images:
        out.append(image_outputs_text(w))
    if isinstance(w, BatchWorkload | FinetuneWorkload | PretrainWorkload):
        data = dataset_text(w)
        if data:
            out.append(data)
    deadline = getattr(w, "deadline_hours", None)
    if deadline is not None:
        out.append(f"deadline: finish within {duration(deadline * 3600.0)}")
    if isinstance(w, PretrainWorkload) and w.gpus is not None:
        out.append(f"size: {w.gpus:,} {plural(w.gpus, 'GPU')}, in whole instances (a row on more says so)")
    elif isinstance(w, PretrainWorkload) and w.nodes is not None:
        out.append(f"size: {w.nodes:,} {plural(w.nodes, 'node')}")
    if isinstance(w, FinetuneWorkload | PretrainWorkload):
        headroom = (assumptions or Assumptions()).min_training_headroom
        out.append(f"training memory: at least {headroom * 100:g} % of each GPU left free")
    if w.budget_usd is not None:
        per = " a month" if isinstance(w, ServeWorkload) else " per run"
        out.append(f"budget: {budget_text(w.budget_usd)}{per}")
    if w.spot_ok:
        out.append("spot and auction prices allowed (interruptions costed)")
    elif isinstance(w, ServeWorkload):
        out.append(
            "on-demand only: spot and auction capacity is not used for a live endpoint (--spot allows it)"
        )
    elif isinstance(w, BatchWorkload) and not w.interruptible:
        out.append(
            "on-demand only: the job cannot resume after an interruption (--interruptible allows spot)"
        )
    else:
        out.append("on-demand only (--spot allows spot)")
    return tuple(out)


def common_notes(rows: Sequence[Recommendation]) -> tuple[str, ...]:
    """Warnings every shown row carries (with two rows or more): said once above the table."""
    if len(rows) < 2:
        return ()
    shared = set(rows[0].warnings)
    for r in rows[1:]:
        shared &= set(r.warnings)
    return tuple(x for x in rows[0].warnings if x in shared)


@dataclasses.dataclass(frozen=True, slots=True)
class RunsHeading:
    """What an answer's title says its rows run (``text``: "vllm, bf16"; "tgi, int4 in place of
    mxfp4-moe" where every row runs one other thing than was asked), and the one run it names (``run``,
    ``Recommendation.runs_as``; "" where it names several, or none): a row that runs anything else names
    what it runs on the row itself (:func:`names_its_run`), at every width."""

    text: str
    run: str


def runs_heading(rows: Sequence[Recommendation], asked: str = "") -> RunsHeading:
    """The title's run of ``rows``: those that run as asked (no ``substitution``), one or several; where
    none does, the one run every row has instead, said "in place of" ``asked`` (``Advice.asked_run``),
    or, where rows run several, that each names its own."""
    as_asked = dict.fromkeys(r.runs_as for r in rows if r.runs_as and not r.substitution)
    if as_asked:
        first = next(iter(as_asked))
        if len(as_asked) == 1:
            return RunsHeading(first, first)
        fallback = _sixteen_bit_fallback(tuple(as_asked))
        if fallback:  # one setup asked, run in fp16 where the card has no bf16: not two setups
            return RunsHeading(fallback, f"{fallback.partition(', ')[0]}, bf16")
        return RunsHeading(" / ".join(as_asked), "")
    instead = dict.fromkeys(r.runs_as for r in rows if r.runs_as)
    if not instead:
        return RunsHeading("", "")
    if len(instead) > 1:
        each = "each row names what it runs"
        return RunsHeading(f"in place of {asked}: {each}" if asked else each, "")
    run = next(iter(instead))
    if not asked:
        return RunsHeading(run, run)
    engine, _, precision = asked.partition(", ")
    # the engine said once where it stays: "tgi, int4 in place of mxfp4-moe"
    was = precision if run.partition(", ")[0] == engine and precision else asked
    return RunsHeading(f"{run} in place of {was}", run)


#: What the title adds where the rows run bf16, and fp16 on the cards without it (V100, T4): one setup
#: asked, not two; those rows name their run on the row (:func:`names_its_run`).
FP16_FALLBACK = "fp16 on cards without bf16; rows that run otherwise say so"


def _sixteen_bit_fallback(runs: tuple[str, ...]) -> str:
    """'vllm, bf16; fp16 on cards without bf16; rows that run otherwise say so' where ``runs`` (the
    runs of the rows that run as asked) are one engine in bf16 and in fp16 (``estimate.api``: bf16
    where the card has it, else fp16); "" otherwise."""
    engines = {run.partition(", ")[0] for run in runs}
    precisions = {run.partition(", ")[2] for run in runs}
    if len(engines) != 1 or precisions != {"bf16", "fp16"}:
        return ""
    # in the title's brackets as they stand ("(vllm, bf16; fp16 on ...)"): no brackets inside them
    return f"{next(iter(engines))}, bf16; {FP16_FALLBACK}"


def names_its_run(rec: Recommendation, heading: RunsHeading) -> bool:
    """Whether ``rec`` names what it runs on the row (its configuration cell: "1x V100-SXM2-16GB ·
    llama.cpp gguf-f16", ``Recommendation.run_label``): it runs another engine or format than the one
    the title names, or the title names several."""
    return bool(rec.runs_as) and rec.runs_as != heading.run


def work_words(w: object) -> str:
    """The work a row's speed is for, as a caveat names it ("MI300X training")."""
    if isinstance(w, FinetuneWorkload | PretrainWorkload):
        return "training"
    if isinstance(w, ServeWorkload):
        return "serving"
    if isinstance(w, BatchWorkload) and w.is_images:
        return "image generation"
    return "batch inference"


def uncalibrated_picks(
    w: object, selection: Selection, recs: Sequence[Recommendation]
) -> tuple[UncalibratedPick, ...]:
    """The picks whose row's speed is uncalibrated (``Selection.calibrated_picks``), each with the
    hardware and work it is uncalibrated for and the calibrated row the same pick names. ``recs``: the
    rows of the answer's picks (shown or cut by ``top``), by their ``rank``."""
    by_number = {r.rank: r for r in recs}
    out = []
    for name in PICKS:
        if name not in selection.calibrated_picks or name not in selection.picks:
            continue
        number = selection.picks[name]
        rec = by_number.get(number)
        hardware = rec.offer.accelerator if rec is not None else "this hardware"
        what = f"{hardware} {work_words(w)}"
        if rec is not None and rec.config.parallel == "pipeline":  # whatever the GPU: no row runs a pipeline
            what += " as a pipeline"
        parts = rec.estimate.uncalibrated if rec is not None and rec.estimate is not None else ()
        if parts:  # the engine's own uncalibrated figures, on any GPU: "H200-SXM serving: MoE layers, ..."
            what += f": {', '.join(parts)}"
        time_ratio, cost_ratio = selection.calibrated_ratios.get(name, (None, None))
        out.append(
            UncalibratedPick(
                name, number, what, selection.calibrated_picks[name], tuple(parts), time_ratio, cost_ratio
            )
        )
    return tuple(out)


def _rejections(counts: Counter[str], considered: int) -> str:
    """The head of a "no offer" answer ("of 749 offers: 608 are over the budget; 93 are stale; 48 do
    not fit"). ``counts`` are offers by the kind that left each out, each offer once
    (``Ranker.reject_counts``), so they add up to at most ``considered``: never rows (an offer's
    on-demand and spot rows are two)."""
    parts = [f"{n:,} {_kind_text(kind, n)}" for kind, n in counts.most_common() if n]
    offers = f"{considered:,} {plural(considered, 'offer')}"
    return f"of {offers}: " + "; ".join(parts) if parts else f"{offers} looked at"


def _relaxed_ranker(ranker: Ranker, changes: dict[str, Any], *, include_stale: bool | None = None) -> Ranker:
    """A ranker like ``ranker`` for its workload with ``changes`` (a constraint lifted). Where only the
    budget changes, it shares ``ranker``'s evaluator (the estimates and layouts it found): the budget is
    applied to the costed rows, never read by an evaluator, so the lifted ranking costs the costing alone."""
    from gpuscout.advise.rank import Ranker

    again = Ranker(
        ranker.w.model_copy(update=changes),
        backends=ranker.be,
        assumptions=ranker.a,
        now=ranker.now,
        include_stale=ranker.include_stale if include_stale is None else include_stale,
    )
    if set(changes) <= _RANKING_ONLY:
        again.evaluator = ranker.evaluator
    return again


#: The workload fields no evaluator reads (the ranker applies them to costed rows): a ranker with only
#: these changed may share the evaluator of the one it relaxes (:func:`_relaxed_ranker`).
_RANKING_ONLY = frozenset({"budget_usd"})


def _relaxed(
    ranker: Ranker, offers: Sequence[Offer], changes: dict[str, Any], *, include_stale: bool | None = None
) -> Advice:
    """The five cheapest rows with ``changes`` (what lifting a constraint would show)."""
    again = _relaxed_ranker(ranker, changes, include_stale=include_stale)
    return again.advise(offers, "cost", top=5, diagnose=False)


def _per(w: object) -> str:
    """What a row's total is per: a serving month, or the run."""
    return " a month" if isinstance(w, ServeWorkload) else ""


def _label(rec: Recommendation) -> str:
    o = rec.offer
    return f"{rec.config.describe(o.accelerator)} at {rec.provider_name or o.provider}"


def _token_ms(ms: float) -> str:
    """A time per output token: '48 ms', '1.9 ms' (a tenth below 10 ms, where whole ones round 1.9 to a
    2 ms target)."""
    return f"{ms:,.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def _gives(rec: Recommendation, w: object, cost: str | None = None) -> str:
    """What a row a suggestion shows costs, in the workload's unit (or as ``cost`` says it: one another
    amount in the sentence must read apart from), and for an endpoint the time per output token each
    user sees: "$1,449 a month, 48 ms per token"."""
    cost = usd(rec.total_usd, _per(w)) if cost is None else cost
    est = rec.estimate
    if isinstance(w, ServeWorkload) and est is not None and est.tpot_ms:
        return f"{cost}, {_token_ms(est.tpot_ms)} per token"
    return cost


@dataclasses.dataclass(frozen=True, slots=True)
class _Move:
    """A change a renter would make that shows rows, every other constraint kept: its option
    ("--precision fp8", "--budget 3540") and the cheapest row it shows."""

    option: str
    row: Recommendation
    # the workload fields the option changes ({"precision": "fp8", "budget_usd": 3540})
    options: dict[str, Any] = dataclasses.field(default_factory=dict)

    def text(self, w: object, cost: str | None = None) -> str:
        """'--precision fp8 (1x H200-SXM at Prime Intellect at $1,449 a month, 48 ms per token)'; its
        cost as ``cost`` says it where given (:func:`_gives`)."""
        return f"{self.option} ({_label(self.row)} at {_gives(self.row, w, cost)})"

    def public(self, w: object, group: str, text: str | None = None) -> Move:
        """This move as the answer gives it (:class:`~gpuscout.advise.types.Move`), said as ``text``
        (default :meth:`text`)."""
        return _public(self.options, self.text(w) if text is None else text, group, self.row)


def _public(options: dict[str, Any], text: str, group: str, row: Recommendation | None) -> Move:
    """A :class:`~gpuscout.advise.types.Move` whose cheapest row is ``row`` (None: it names none)."""
    est = row.estimate if row is not None else None
    return Move(
        options=dict(options),
        text=text,
        group=group,
        total_usd=row.total_usd if row is not None else None,
        tpot_ms=est.tpot_ms if est is not None and est.tpot_ms else None,
        time_to_result_s=row.time_to_result_s if row is not None else None,
    )


def _cheapest_first(moves: Sequence[Move]) -> list[Move]:
    """``moves`` by their cheapest row's cost, those naming no row last, in the order given."""
    return sorted(moves, key=lambda m: math.inf if m.total_usd is None else m.total_usd)


@dataclasses.dataclass(frozen=True, slots=True)
class DeadEnd:
    """Why no offer passes (:func:`dead_end`): ``text`` says it all in one text (``Advice.binding``);
    where it names ways out, ``why`` is what binds and ``moves`` are those ways
    (``Advice.binding_why``, ``Advice.moves``), and ``repeats`` the latency targets ``why`` repeats."""

    text: str
    why: str = ""
    moves: tuple[Move, ...] = ()
    repeats: str = ""


def _moves(ranker: Ranker, offers: Sequence[Offer], counts: Counter[str]) -> list[_Move]:
    """The moves that keep what the work asks of each row (its latency targets, its deadline) and show
    rows where the budget or those targets leave none, each ranked with it: the budget lifted (where it
    left a row out; the budget its cheapest row needs), and the widest narrower precision some offer runs
    the workload in within the budget, else with the budget its cheapest row needs where that costs less
    than the budget lifted alone (:func:`_narrower_run`). Cheapest row first."""
    w = ranker.w
    moves = []
    lifted = None
    if w.budget_usd is not None and counts["budget"]:
        lifted = _budget_lifted(ranker, offers)
        if lifted is not None:
            budget = budget_value(lifted.total_usd or 0.0)
            moves.append(_Move(budget_option(lifted.total_usd or 0.0), lifted, {"budget_usd": budget}))
    narrower = _narrower_run(ranker, offers, lift_budget=True)
    if narrower is not None and not (
        " with --budget " in narrower.option
        and lifted is not None
        and (narrower.row.total_usd or math.inf) >= (lifted.total_usd or math.inf)
    ):
        moves.append(narrower)
    return sorted(moves, key=lambda m: m.row.total_usd or math.inf)


@dataclasses.dataclass(frozen=True, slots=True)
class _LatencyFloor:
    """The best latency any offer reaches at one user per replica on the widest split its instance takes:
    the tightest targets that can show a row (more replicas only add instances)."""

    ttft_ms: float
    ttft_where: str
    tok_s: float  # per user
    tok_s_where: str


def _latency_floor(ranker: Ranker, offers: Sequence[Offer]) -> _LatencyFloor | None:
    """:class:`_LatencyFloor` over ``offers`` (one estimate per GPU model, GPU count and split, at one
    user; the evaluator has most of them from its search for a batch that meets the targets)."""
    from gpuscout.advise.configs import tp_degrees, tpot_ms
    from gpuscout.advise.inference_configs import ServeEvaluator
    from gpuscout.advise.rank import prefilter_reason

    ev = ranker.evaluator
    if not isinstance(ev, ServeEvaluator):
        return None
    ttft, ttft_where, speed, speed_where = math.inf, "", 0.0, ""
    # only the offers the filters let through (the GPUs, providers and regions asked for)
    kept = [o for o in offers if prefilter_reason(ranker.w, o, ranker.include_stale) is None]
    for name, gpus in sorted({(o.accelerator, o.gpu_count) for o in kept}):
        acc = ev.accelerator(name)
        if acc is None:
            continue
        for tp in tp_degrees(gpus):
            e = ev.infer(acc, tp, 1)
            if e is None or not e.fits:
                continue
            # the layout the engine runs: llama.cpp splits by layers ("8-way layer split on MI355X"),
            # as its rows say, where a server engine splits each layer's tensors (TP8)
            split = f"{tp}-way layer split" if e.parallel == "layer" else f"TP{tp}"
            where = f"{split} on {acc.name}" if tp > 1 else f"1x {acc.name}"
            if e.ttft_ms < ttft:
                ttft, ttft_where = e.ttft_ms, where
            t = tpot_ms(e)
            if t > 0 and 1000.0 / t > speed:
                speed, speed_where = 1000.0 / t, where
    if not math.isfinite(ttft):
        return None
    return _LatencyFloor(ttft, ttft_where, speed, speed_where)


def _latency_fix(
    ranker: Ranker,
    offers: Sequence[Offer],
    rows: Sequence[Recommendation],
    counts: Counter[str],
    *,
    budget_lifted: bool = False,
) -> tuple[str, str, list[Move]]:
    """What the cheapest rows reach without the latency targets, the best any offer reaches at one user
    per replica, and the changes that would give an answer, each checked by ranking with it: first those
    that keep the targets (:func:`_moves`: a narrower precision, the budget lifted), cheapest first, then
    the targets the offers reach, and last dropping the targets, with what its cheapest row gives up; a
    change whose rows the budget leaves out says the budget its cheapest row needs ("--tpot-ms 114 with
    --budget 13567"). ``rows``: the cheapest rows without the targets (and without the budget, where
    ``budget_lifted``: the targets and the budget bind only together); ``counts``: the rows left out, by
    kind. Returns what the rows reach, that with the changes in one text, and the changes
    (:class:`~gpuscout.advise.types.Move`: those that keep the targets, the others, the last resort)."""
    w = ranker.w
    assert isinstance(w, ServeWorkload)
    with_est = [r for r in rows if r.estimate is not None and r.estimate.ttft_ms is not None]
    if not with_est:
        return "", "no offer runs it even without the latency targets", []
    best_ttft = min(with_est, key=lambda r: r.estimate.ttft_ms or math.inf)  # type: ignore[union-attr]
    best_speed = max(with_est, key=lambda r: r.estimate.per_user_tokens_per_s or 0.0)  # type: ignore[union-attr]
    ttft = best_ttft.estimate.ttft_ms or 0.0  # type: ignore[union-attr]
    speed = best_speed.estimate.per_user_tokens_per_s or 0.0  # type: ignore[union-attr]
    text = (
        f"without them{' and the budget' if budget_lifted else ''}, the cheapest offers reach TTFT "
        f"{_ms(ttft)} ({_label(best_ttft)}) and "
        f"{speed:.0f} tok/s per user ({_label(best_speed)}) at this load"
    )
    floor = _latency_floor(ranker, offers)
    changes: dict[str, Any] = {}
    fixes: list[str] = []
    if w.ttft_target_ms is not None:
        reach = min(ttft, floor.ttft_ms) if floor else ttft
        if reach > w.ttft_target_ms:
            target = math.ceil(reach / 100) * 100
            changes["ttft_ms_max"] = float(target)
            fixes.append(f"--ttft-ms {target:.0f}")
    if w.tpot_target_ms is not None:
        reach_speed = max(speed, floor.tok_s) if floor else speed
        if reach_speed < 1000.0 / w.tpot_target_ms:
            tpot = math.ceil(1000.0 / max(reach_speed, 1e-9))
            changes["tpot_ms_max"] = float(tpot)
            fixes.append(f"--tpot-ms {tpot:.0f} (about {1000.0 / tpot:.0f} tok/s per user)")
    if floor is not None:
        text += (
            f"; at one user per replica on the widest split, the best is TTFT {_ms(floor.ttft_ms)} "
            f"({floor.ttft_where}) and {floor.tok_s:.0f} tok/s per user ({floor.tok_s_where})"
        )
    kept = [m.public(w, "keeps") for m in _moves(ranker, offers, counts)]
    answer: list[Move] = []
    if changes:
        relaxed = _relaxed_ranker(ranker, changes)
        shown = relaxed.advise(offers, "cost", top=5, diagnose=False).rows
        # the targets the offers reach, where the budget leaves their rows out: the budget that shows one
        over = (
            _budget_lifted(relaxed, offers)
            if not shown and w.budget_usd is not None and relaxed.reject_rows["budget"]
            else None
        )
        if shown:
            cheapest = min(r.total_usd or math.inf for r in shown)
            first = min(shown, key=lambda r: r.total_usd or math.inf)
            said = (
                f"{' with '.join(fixes)} shows {len(shown)}{'+' if len(shown) >= 5 else ''} "
                f"{plural(len(shown), 'offer')} (from {usd(cheapest, ' a month')})"
            )
            answer.append(_public(changes, said, "relaxes", first))
        elif over is not None:
            option = f"{' with '.join(fixes)} with {budget_option(over.total_usd or 0.0)}"
            budget = {"budget_usd": budget_value(over.total_usd or 0.0)}
            answer.append(_Move(option, over, {**changes, **budget}).public(w, "relaxes"))
        else:
            said = (
                f"{' with '.join(fixes)} would need more than {ranker.a.max_instances} instances at this load"
            )
            answer.append(_public({}, said, "relaxes", None))  # shows no row: no field to change
            if w.ttft_target_ms is not None and ttft > w.ttft_target_ms:
                cheapest_ttft = math.ceil(ttft / 100) * 100
                said = f"--ttft-ms {cheapest_ttft:.0f} (the cheapest offers' TTFT)"
                answer.append(_public({"ttft_ms_max": float(cheapest_ttft)}, said, "relaxes", None))
    if "ttft_ms_max" in changes:  # no field says it: a hint without options
        answer.append(_public({}, f"a prompt shorter than {w.prompt_tokens:,} tokens", "relaxes", None))
    answer = _cheapest_first(answer)
    said_all = []
    if kept:
        said_all.append("keeping the targets, " + ", or ".join(m.text for m in kept))
    if answer:
        said_all.append(("otherwise, " if kept else "") + ", or ".join(m.text for m in answer))
    last = _without_targets(w, rows)
    said_all.append(f"as a last resort, {last.text}" if said_all else last.text)
    moves = [*kept, *answer, last]
    return text, text + "; what would give an answer: " + "; ".join(said_all), moves


def _without_targets(w: ServeWorkload, rows: Sequence[Recommendation]) -> Move:
    """'--latency-targets none' and what it gives up: the per-user speed (and TTFT) of the cheapest row
    it shows (of ``rows``, the cheapest without the targets), where it misses a target; with the budget
    that row needs where it costs more than the budget ("--latency-targets none with --budget 937")."""
    # the targets dropped: the chat defaults and any target given
    drop: dict[str, Any] = {"latency_targets": "none", "ttft_ms_max": None, "tpot_ms_max": None}
    costed = [r for r in rows if r.total_usd is not None and r.estimate is not None]
    if not costed:
        return _public(drop, "--latency-targets none", "last resort", None)
    best = min(costed, key=lambda r: r.total_usd or math.inf)
    # over the budget (the targets and the budget bind together): the budget it needs, said with it
    budget = w.budget_usd
    over = budget is not None and (best.total_usd or 0.0) > budget
    option = (
        f"--latency-targets none with {budget_option(best.total_usd or 0.0)}"
        if over
        else "--latency-targets none"
    )
    if over:
        drop["budget_usd"] = budget_value(best.total_usd or 0.0)
    est = best.estimate
    assert est is not None
    speed, tpot, ttft = est.per_user_tokens_per_s, est.tpot_ms, est.ttft_ms
    gives = []
    if speed and tpot:
        asked = f"; {1000.0 / w.tpot_target_ms:.3g} asked" if w.tpot_target_ms is not None else ""
        gives.append(f"serves {speed:,.0f} tok/s per user ({_token_ms(tpot)} per token{asked})")
    if w.ttft_target_ms is not None and ttft and ttft > w.ttft_target_ms:
        gives.append(f"a TTFT of {_ms(ttft)} ({_ms(w.ttft_target_ms)} asked)")
    said = (
        f"{option}, which gives up the targets: its cheapest row, {_label(best)} at "
        f"{usd(best.total_usd, _per(w))}" + (f", {' with '.join(gives)}" if gives else "")
    )
    return _public(drop, said, "last resort", best)


def deadline_option(seconds: float) -> tuple[str, float] | None:
    """The tightest ``--deadline`` value at or above ``seconds``, as the option is written: whole minutes
    below 2 h ("6min"), whole hours from there ("3h", "75h"); with the hours it stands for (the option
    parsed as the CLI parses it: :func:`~gpuscout.advise.workload.parse_hours`), which the ranker
    compares a row's time with (times 3600). None where no deadline the option takes is that long."""
    if not seconds < math.inf:
        return None
    unit, size = ("min", 60.0) if seconds < 2 * 3600.0 else ("h", 3600.0)
    n = max(1, math.ceil(seconds / size))
    hours = float(parse_hours(f"{n}{unit}"))
    if hours * 3600.0 < seconds:  # the parsed hours rounded below ``seconds``: one more
        n += 1
        hours = float(parse_hours(f"{n}{unit}"))
    if hours > MAX_DEADLINE_HOURS:
        return None
    return f"{n}{unit}", hours


def _deadline_hint(ranker: Ranker, offers: Sequence[Offer], seconds: float) -> tuple[str, Move | None]:
    """The deadline that would show a row ("--deadline 6min would show it"): the tightest at or above
    ``seconds`` (:func:`deadline_option`; the time a row takes on the most instances or nodes proposed),
    checked by ranking with it; where that shows no row (another constraint binds too), or no deadline
    the option takes is that long, said so. With the move (``text`` left to the caller) where it shows a
    row: the deadline and its cheapest row."""
    option = deadline_option(seconds)
    if option is None:
        return f"no --deadline up to {duration(MAX_DEADLINE_HOURS * 3600.0)} would show it", None
    flag, hours = option
    rows = _relaxed(ranker, offers, {"deadline_hours": hours}).rows
    if rows:
        cheapest = min(rows, key=lambda r: r.total_usd or math.inf)
        return f"--deadline {flag} would show it", _public({"deadline_hours": hours}, "", "relaxes", cheapest)
    return (
        f"--deadline {flag} alone shows no row (another constraint binds too: --show-rejected says which)",
        None,
    )


def _batch_deadline_fix(
    ranker: Ranker, offers: Sequence[Offer], free: Ranker
) -> tuple[str, Move | None] | None:
    """What a batch's binding deadline would need. Its instances are already added up to
    ``Assumptions.max_instances`` (a spot row's with its expected reclaims), so the tightest deadline
    that shows a row is the best time on that many of every row that passes the rest
    (:meth:`~gpuscout.advise.rank.Ranker.fastest_on_most_instances`; not only the cheapest few, which
    said 13 min where a row finishes in 10). ``free`` ranks without the deadline (under it, an offer
    that needs more instances than proposed has no time); None where none of its rows runs. The
    deadline proposed is checked with ``ranker`` (:func:`_deadline_hint`)."""
    most = free.a.max_instances
    fastest = free.fastest_on_most_instances(offers)
    if fastest is None:
        return None
    t, rec = fastest
    config = dataclasses.replace(rec.config, instances=most)
    label = f"{config.describe(rec.offer.accelerator)} at {rec.provider_name or rec.offer.provider}"
    reclaims = ", with its expected spot reclaims" if rec.config.spot else ""
    hint, move = _deadline_hint(ranker, offers, t)
    text = (
        f"even on {most} instances (the most proposed) the fastest finishes in "
        f"{duration(t)} ({label}{reclaims}); {hint}"
    )
    return text, dataclasses.replace(move, text=text) if move is not None else None


#: Narrower weight formats a no-fit answer tries for a language model, widest first: vLLM's (and the other
#: server engines') FP8 and 4-bit AWQ/GPTQ, or llama.cpp's Q8_0 and Q4_K_M where it runs GGUF files.
_LLM_NARROWER = ("fp8", "int4")
_GGUF_NARROWER = ("gguf-q8_0", "gguf-q4_k_m")


def current_precision(w: AnyWorkload, native_precision: Callable[[str], str] | None) -> str:
    """The weight format ``w`` runs at: the one asked (``--precision``), else an image model's denoiser's
    bf16, else the checkpoint's own (``native_precision``, the backends'; bf16 where they do not say)."""
    asked = (getattr(w, "precision", None) or "").strip()
    if asked:
        return asked
    if isinstance(w, BatchWorkload) and w.is_images:
        return "bf16"
    return native_precision(w.model) if native_precision is not None else "bf16"


def _current_precision(ranker: Ranker) -> str:
    """:func:`current_precision` of the ranker's workload, by its backends."""
    return current_precision(ranker.w, ranker.be.native_precision)


def _at_precision(ranker: Ranker) -> str:
    """Where the rows stand, said as the renter chose it: "at the precision asked (fp8)" where
    ``--precision`` was given, else "at the checkpoint's own fp8" (DeepSeek-V3 asked nothing: it was not
    "the precision asked")."""
    asked = (getattr(ranker.w, "precision", None) or "").strip()
    if asked:
        return f"at the precision asked ({asked})"
    return f"at the checkpoint's own {_current_precision(ranker)}"


def narrower_precisions(w: AnyWorkload, native_precision: Callable[[str], str] | None) -> tuple[str, ...]:
    """The weight formats narrower than the one ``w`` runs at (:func:`current_precision`) that its
    estimator takes, widest first: the engine's own levels (llama.cpp's GGUF Q8_0 and Q4_K_M, the server
    engines' FP8 and int4, an image model's denoiser's formats); none for training, whose levers are its
    method and micro-batch."""
    from gpuscout.errors import InvalidInputError
    from gpuscout.estimate.precision import resolve_precision

    if not isinstance(w, ServeWorkload | BatchWorkload):
        return ()
    options: tuple[str, ...]
    current = current_precision(w, native_precision)
    try:
        fmt = resolve_precision(current)
    except InvalidInputError:
        return ()
    if isinstance(w, BatchWorkload) and w.is_images:
        from gpuscout.estimate.diffusion import PRECISIONS

        options = PRECISIONS
    else:
        llama = "llama" in (w.engine or "").lower()
        options = _GGUF_NARROWER if llama or fmt.gguf else _LLM_NARROWER
    narrower = [(resolve_precision(p).bits_per_weight, p) for p in options]
    return tuple(p for b, p in sorted(narrower, reverse=True) if b < fmt.bits_per_weight)


def _narrower_precisions(ranker: Ranker) -> tuple[str, ...]:
    """:func:`narrower_precisions` of the ranker's workload, by its backends."""
    return narrower_precisions(ranker.w, ranker.be.native_precision)


def loosen_words(w: AnyWorkload, native_precision: Callable[[str], str] | None) -> str:
    """What to change where nothing passes and no diagnosis says what binds (the advisor page's fallback
    under an empty answer): a constraint, a narrower precision among those ``w``'s engine runs
    (:func:`narrower_precisions`: "gguf-q8_0, gguf-q4_k_m" on llama.cpp), or a smaller model."""
    narrower = narrower_precisions(w, native_precision)
    precision = f"a narrower precision ({', '.join(narrower)}) or " if narrower else ""
    return f"loosen a constraint, or try {precision}a smaller model"


def _narrower_run(ranker: Ranker, offers: Sequence[Offer], *, lift_budget: bool = False) -> _Move | None:
    """The widest narrower precision (:func:`_narrower_precisions`) under which some offer runs the
    workload as asked in that precision (a row the support rules let run another one in its place,
    ``substitution``, is not it), every other constraint kept, with its cheapest such row (the first
    ranked by cost): "--precision fp8". Where none does and ``lift_budget``: the widest that does with
    the budget lifted, where the budget left its rows out, with the budget its cheapest row needs
    ("--precision fp8 with --budget 1450"; that ranking shares the precision's evaluator). None where
    neither shows a row."""
    w = ranker.w
    over_budget: _Move | None = None
    for precision in _narrower_precisions(ranker):
        again = _relaxed_ranker(ranker, {"precision": precision})
        free = again.advise(offers, "cost", top=5, diagnose=False)
        # the first row that runs it: the front's cheapest pick where it does (a cheaper row off the
        # front may take several times as long)
        row = next((r for r in free.rows if not r.substitution and r.total_usd is not None), None)
        if row is not None:
            return _Move(f"--precision {precision}", row, {"precision": precision})
        if lift_budget and over_budget is None and w.budget_usd is not None and again.reject_rows["budget"]:
            # its cheapest row that runs the precision as asked (a cheaper V100 row running llama.cpp's
            # Q8_0 in vLLM FP8's place is not "--precision fp8")
            lifted = _budget_lifted(again, offers, as_asked=True)
            if lifted is not None:
                option = f"--precision {precision} with {budget_option(lifted.total_usd or 0.0)}"
                budget = budget_value(lifted.total_usd or 0.0)
                over_budget = _Move(option, lifted, {"precision": precision, "budget_usd": budget})
    return over_budget


def _engine_moves(ranker: Ranker, offers: Sequence[Offer], counts: Counter[str]) -> list[Move] | None:
    """Where the engine the user named (``--engine``) cannot run the workload on the GPUs that refused it
    (support rules): what would, every other constraint kept, as moves: the named engine in a precision
    it runs there (it keeps the engine asked), then the default engine (what runs where it cannot, said
    on each row; it drops the engine asked). None when the engine was not named or refused nothing; []
    when neither runs it."""
    from gpuscout.advise.inference_configs import engine_named

    w = ranker.w
    if not isinstance(w, ServeWorkload | BatchWorkload) or not counts["unsupported"] or not engine_named(w):
        return None
    moves: list[Move] = []
    precisions = tuple(getattr(ranker.evaluator, "named_engine_precisions", ()))
    for precision in precisions[:1]:  # the nearest the engine runs where it was refused
        kept = _relaxed(ranker, offers, {"precision": precision})
        if kept.rows:
            said = (
                f"--engine {shlex.quote(w.engine or '')} runs --precision {precision}: the cheapest is "
                f"{_label(kept.rows[0])} "
                f"at {usd(kept.rows[0].total_usd, _per(w))}"
            )
            moves.append(_public({"precision": precision}, said, "keeps", kept.rows[0]))
    free = _relaxed(ranker, offers, {"engine": None})
    if free.rows:
        best = free.rows[0]
        runs = sorted({r.estimate.engine for r in free.rows if r.estimate is not None and r.estimate.engine})
        # the cheapest row's own engine, then the others' (it read "(on llama.cpp, vllm)" of a V100 row that
        # runs llama.cpp: vLLM runs no MXFP4 there)
        own = best.estimate.engine if best.estimate is not None else ""
        others = [e for e in runs if e != own]
        on = (f"on {own}" if own else "") + (f"; other rows on {', '.join(others)}" if others else "")
        said = f"without --engine the cheapest is {_label(best)} at {usd(best.total_usd, _per(w))}" + (
            f" ({on.lstrip('; ')})" if on else ""
        )
        moves.append(_public({"engine": None}, said, "relaxes", best))
    return moves


def _ways(text: str, why: str, moves: Sequence[Move | None]) -> DeadEnd | str:
    """A dead end said as ``text``, in parts where it names moves: what binds (``why``) and ``moves``
    (those given; the text alone where there are none)."""
    given = tuple(m for m in moves if m is not None)
    return DeadEnd(text, why, given) if given else text


#: A named engine is said to be dear where the default engine's cheapest row, every other choice kept,
#: costs at most this share of the named engine's cheapest (llama.cpp serving DeepSeek-R1 to 100 users:
#: $1.7M a month where vLLM does it for $23k). A policy: no cost model is exact to within 2x.
DEARER_ENGINE_SHARE = 0.5


def engine_cost_note(
    ranker: Ranker, offers: Sequence[Offer], rows: Sequence[Recommendation], binding: str | None = None
) -> str:
    """Where the user named the engine (``--engine``) and the default engine, every other choice kept
    (latency targets, deadline, precision, providers), serves or runs the work for at most
    :data:`DEARER_ENGINE_SHARE` of the named engine's cheapest row: that row, its cost and how many times
    less it costs. "" otherwise (the engine was not named, nothing ran, or the default is not clearly
    cheaper). Where the named engine has no row at all, the default's cheapest, unless ``binding`` (why
    nothing passes) already names what runs without ``--engine``. Costs a second ranking, so only a
    named engine pays it."""
    from gpuscout.advise.inference_configs import engine_named

    w = ranker.w
    if not isinstance(w, ServeWorkload | BatchWorkload) or not engine_named(w):
        return ""
    if not rows and binding and "--engine" in binding:  # the dead end's own words say it (_engine_moves)
        return ""
    costed = [r.total_usd for r in rows if r.total_usd is not None]
    mine = min(costed, default=0.0)
    if rows and mine <= 0:
        return ""
    free = _relaxed(ranker, offers, {"engine": None})
    # the default answer's cheapest pick (on its front: a cheaper dominated row may take 4x as long)
    best = next((r for r in free.rows if r.rank == free.picks.get("cheapest")), None)
    cost = best.total_usd if best is not None else None
    if best is None or cost is None or cost <= 0:
        return ""
    if rows and cost > DEARER_ENGINE_SHARE * mine:
        return ""
    on = f", on {best.estimate.engine}," if best.estimate is not None and best.estimate.engine else ""
    took = best.time_to_result_s
    when = "" if isinstance(w, ServeWorkload) or took is None else f", done in {duration(took)}"
    named = shlex.quote((w.engine or "").strip())
    # the two costs read apart ("1.0x cheaper" between "$0.0019" and "$0.0019" read as none)
    said, said_mine = distinct_usd(cost, mine, _per(w)) if rows else (usd(cost, _per(w)), "")
    head = f"the default engine's cheapest row is {_label(best)}{on} at {said}{when}"
    if not rows:
        return f"no offer here passes with --engine {named}; {head}"
    ratio = mine / cost
    times = f"{ratio:.1f}x" if ratio < 10 else f"{ratio:,.0f}x"
    return f"{head}: {times} cheaper than the cheapest with --engine {named} ({said_mine})"


def _release_words(ranker: Ranker) -> str:
    """Why the engine release the user named cannot load the model's architecture (it predates it: vLLM
    0.5.0 and gpt-oss), and the release that would on the GPUs it was tried on at the precision asked;
    "" where it can, none is named or the backends do not say."""
    w, refusal = ranker.w, ranker.be.release_refusal
    engine = getattr(w, "engine", None)
    if refusal is None or not engine:
        return ""
    gpus = tuple(sorted(ranker.unsupported_accelerators))
    return refusal(w.model, engine, gpus, getattr(w, "precision", None) or "")


def _platform_words(ranker: Ranker) -> str:
    """Where the named engine was refused on every GPU by its platform row (it runs no precision there,
    ``platform_refusals`` of the evaluator): each rule with the GPUs it refuses, "on MI300X, TensorRT-LLM
    runs on NVIDIA GPUs only"; "" where some GPU refused only the precision asked."""
    refusals = getattr(ranker.evaluator, "platform_refusals", None)
    by_rule: dict[str, list[str]] = {}
    for gpu, rule in (refusals() if refusals is not None else {}).items():
        by_rule.setdefault(rule, []).append(gpu)
    return "; ".join(f"on {and_list(gpus)}, {rule}" for rule, gpus in by_rule.items())


def _memory_levers(ranker: Ranker) -> str:
    """What would need less GPU memory, among the choices the workload has not already made (a QLoRA
    run is not told to try QLoRA; a micro-batch given is named; the narrower precisions are those the
    engine runs, :func:`_narrower_precisions`: llama.cpp's GGUF levels, none below int4)."""
    w = ranker.w
    if isinstance(w, ServeWorkload | BatchWorkload):
        narrower = _narrower_precisions(ranker)
        precision = f"a narrower precision ({', '.join(narrower)}), " if narrower else ""
        return f"{precision}a shorter context or fewer users per replica would need less memory"
    levers = []
    if isinstance(w, FinetuneWorkload) and w.method != "qlora":
        levers.append("QLoRA")
    if isinstance(w, FinetuneWorkload) and w.fp32_adapters:
        levers.append("16-bit adapters (--adapter-dtype 16bit)")
    micro = getattr(w, "micro_batch", None)
    if micro is not None and micro > 1:
        levers.append(f"a --micro-batch below {micro:,}")
    levers += ["a shorter --seq-len", "an offer with an inter-node fabric"]
    return f"{', '.join(levers[:-1])} or {levers[-1]} would need less per GPU"


def _budget_lifted(
    ranker: Ranker, offers: Sequence[Offer], *, as_asked: bool = False
) -> Recommendation | None:
    """The cheapest row that meets everything but the budget (``ranker`` ranked with it lifted; ``as_asked``:
    among the rows that run the workload as asked, not another engine or format in its place); None where
    none does."""
    free = _relaxed(ranker, offers, {"budget_usd": None})
    costed = [r for r in free.rows if r.total_usd is not None and not (as_asked and r.substitution)]
    return min(costed, key=lambda r: r.total_usd or math.inf) if costed else None


def budget_value(total_usd: float) -> float:
    """The budget that shows a row costing ``total_usd``: whole dollars, rounded up (3540), or under $10
    the cents, rounded up (0.07; whole dollars proposed 1 for a row at $0.06 and for one at $0.08
    alike): the least such budget that is not under the cost."""
    cents = max(math.ceil(total_usd * 100), 1)
    if cents > 1 and (cents - 1) / 100 >= total_usd:  # 1.1 * 100 is 110.00000000000001: 1.10, not 1.11
        cents -= 1
    if cents >= 1000:
        return float(math.ceil(total_usd))
    return cents / 100


def budget_option(total_usd: float) -> str:
    """:func:`budget_value` as the option is written: "--budget 3540", "--budget 0.07"."""
    value = budget_value(total_usd)
    return f"--budget {value:.0f}" if value >= 10 else f"--budget {value:.2f}"


def _budget_fix(ranker: Ranker, offers: Sequence[Offer]) -> tuple[str, _Move | None]:
    """What the budget would need ("the cheapest that meets everything else is X at $Y; --budget N would
    show it"), ranked by ``ranker`` with its budget lifted; "" where that shows no row either. With the
    budget as a move."""
    best = _budget_lifted(ranker, offers)
    if best is None:
        return "", None
    option = budget_option(best.total_usd or 0.0)
    said = _budget_said(best, ranker.w)
    return said, _Move(option, best, {"budget_usd": budget_value(best.total_usd or 0.0)})


def _budget_said(best: Recommendation, w: object, cost: str | None = None) -> str:
    """:func:`_budget_fix`'s text, its cost as ``cost`` says it where given (:func:`_gives`)."""
    return (
        f"the cheapest that meets everything else is {_label(best)} at {_gives(best, w, cost)}; "
        f"{budget_option(best.total_usd or 0.0)} would show it"
    )


def _deadline_fix(ranker: Ranker, offers: Sequence[Offer]) -> tuple[str, Move | None]:
    """What the deadline would need (how soon the fastest finishes, and the deadline that shows it), ranked
    by ``ranker`` with its deadline lifted; "" where that shows no row either. With it as a move, where
    the deadline proposed shows a row."""
    w = ranker.w
    lifted = _relaxed_ranker(ranker, {"deadline_hours": None})
    if isinstance(w, BatchWorkload):
        batch = _batch_deadline_fix(ranker, offers, lifted)
        if batch is not None:
            return batch
    training = isinstance(w, FinetuneWorkload | PretrainWorkload)
    spread = ""
    if training:
        # lifted, each offer would train on its cheapest node count; under the deadline, which no node
        # count meets, the evaluator gave each its fastest run: the one shown at the tightest deadline,
        # a spot run's reclaims' spread counted (its expected time alone missed too often)
        lifted.evaluator = ranker.evaluator
        soonest = lifted.soonest_within_miss(offers)
        if soonest is None:
            return "", None
        due, fastest = soonest
        t = fastest.time_to_result_s or 0.0
        if due > t:
            spread = (
                " on average, but its spot reclaims would make it miss a deadline at that time more often "
                f"than the {ranker.a.deadline_miss_words()} allowed"
            )
    else:
        free = lifted.advise(offers, "cost", top=5, diagnose=False)
        if not free.rows:
            return "", None
        fastest = min(free.rows, key=lambda r: r.time_to_result_s or math.inf)
        t = due = fastest.time_to_result_s or 0.0
    which = "the fastest" if training else "the fastest among the cheapest"
    from gpuscout.advise.batch_limits import untried_why

    untried = untried_why(fastest.config.training)
    nodes = (
        f" ({untried})"
        if untried
        else " (more nodes need an offer with an inter-node fabric)"
        if training
        else ""
    )
    hint, move = _deadline_hint(ranker, offers, due)
    text = f"{which} finishes in {duration(t)} on {_label(fastest)}{spread}; {hint}{nodes}"
    return text, dataclasses.replace(move, text=text) if move is not None else None


def _deadline_precision(ranker: Ranker, offers: Sequence[Offer]) -> tuple[str, Move | None]:
    """Where a deadline (and a budget, if one is set) leaves no row: the widest narrower precision whose
    cheapest row finishes within it (and the budget), else, under a budget, within the deadline with the
    budget it needs (:func:`_narrower_run`), said before what the precision the rows stand at would need
    ("--precision fp8 (...) finishes within the deadline and the budget; at the checkpoint's own bf16,
    "); "" where none does (a training run: :func:`narrower_precisions` has none). With it as a move."""
    move = _narrower_run(ranker, offers, lift_budget=True)
    if move is None:
        return "", None
    both = ranker.w.budget_usd is not None and " with --budget " not in move.option
    within = "the deadline and the budget" if both else "the deadline"
    said = f"{move.text(ranker.w)} finishes within {within}"
    return f"{said}; {_at_precision(ranker)}, ", move.public(ranker.w, "keeps", said)


def binding_constraint(ranker: Ranker, offers: Sequence[Offer]) -> str:
    """Why no offer passes: the constraint that binds and the change that would make something fit."""
    return dead_end(ranker, offers).text


def dead_end(ranker: Ranker, offers: Sequence[Offer]) -> DeadEnd:
    """Why no offer passes (:func:`binding_constraint`'s text), and where it names ways out, in parts:
    what binds and the moves."""
    found = _dead_end(ranker, offers)
    return DeadEnd(found) if isinstance(found, str) else found


def _dead_end(ranker: Ranker, offers: Sequence[Offer]) -> DeadEnd | str:
    """:func:`dead_end`: a text alone where the answer names no move."""
    w = ranker.w
    # what to relax: the kinds that left out any row (an offer's on-demand and spot rows apart); the
    # head counts offers, each once (``Ranker.reject_counts``)
    counts = Counter(ranker.reject_rows)
    head = _rejections(Counter(ranker.reject_counts), len(offers))
    if not offers:
        return "the catalog is empty: run `gpuscout refresh` (or check --db)"
    if (
        isinstance(w, ServeWorkload)
        and (w.ttft_target_ms is not None or w.tpot_target_ms is not None)
        and counts["latency"]
    ):
        no_targets = {"latency_targets": "none", "ttft_ms_max": None, "tpot_ms_max": None}
        free = _relaxed(ranker, offers, no_targets)
        targets = (latency_targets_text(w) or "the latency targets").removeprefix("latency: ")
        if free.rows:
            why = f"no offer meets the {targets} ({head})"
            reach, said, moves = _latency_fix(ranker, offers, free.rows, counts)
            return DeadEnd(f"{why}; {said}", f"{why}; {reach}" if reach else "", tuple(moves), targets)
        # neither alone: with the targets lifted the budget leaves no row, and with the budget lifted no
        # row meets the targets (where one does, the budget binds alone, below)
        if w.budget_usd is not None and (not counts["budget"] or _budget_lifted(ranker, offers) is None):
            both = _relaxed(ranker, offers, {**no_targets, "budget_usd": None})
            if both.rows:
                why = (
                    f"the latency targets and the budget bind together ({head}): no offer within "
                    f"{budget_text(w.budget_usd)} a month meets the {targets}"
                )
                reach, said, moves = _latency_fix(ranker, offers, both.rows, counts, budget_lifted=True)
                return DeadEnd(f"{why}; {said}", f"{why}; {reach}" if reach else "", tuple(moves), targets)
    if w.budget_usd is not None and counts["budget"]:
        budget_fix, lifted = _budget_fix(ranker, offers)
        if budget_fix and lifted is not None:
            # a narrower precision that shows a cheaper row comes first (within the budget, else with
            # the budget it needs)
            narrow = [m for m in _moves(ranker, offers, counts) if m.option.startswith("--precision ")]
            said_narrow: str | None = None
            if narrow and narrow[0].row.total_usd is not None and lifted.row.total_usd is not None:
                # the two rows' costs read apart where they differ: "--precision fp8 ... at $0.0019
                # would show a cheaper row" beside a cheapest "at $0.0019" (0.001859 and 0.001896)
                said_narrow, said_best = distinct_usd(narrow[0].row.total_usd, lifted.row.total_usd, _per(w))
                budget_fix = _budget_said(lifted.row, w, said_best)
            first_said = (
                f"{narrow[0].text(w, said_narrow)} "
                + ("would show a cheaper row" if " with --budget " in narrow[0].option else "stays within it")
                if narrow
                else ""
            )
            first = f"{first_said}; {_at_precision(ranker)}, " if narrow else ""
            why = f"the budget binds ({head})"
            # within the budget it keeps what was asked; with the budget it needs, it relaxes the budget
            group = "relaxes" if narrow and " with --budget " in narrow[0].option else "keeps"
            ways = [narrow[0].public(w, group, first_said)] if narrow else []
            ways.append(lifted.public(w, "relaxes", budget_fix))
            return DeadEnd(f"{why}: {first}{budget_fix}", why, tuple(ways))
    deadline = getattr(w, "deadline_hours", None)
    # a batch's offers that would need more instances than proposed are out for the deadline too
    if deadline is not None and (counts["deadline"] or counts["instances"]):
        deadline_fix, later = _deadline_fix(ranker, offers)
        if deadline_fix:
            first, narrower = _deadline_precision(ranker, offers)
            why = f"the deadline binds ({head})"
            ways = [m for m in (narrower, later) if m is not None]
            if later is None:  # the deadline proposed shows no row: no way out to list
                return f"{why}: {first}{deadline_fix}"
            return DeadEnd(f"{why}: {first}{deadline_fix}", why, tuple(ways))
    if (
        deadline is not None
        and w.budget_usd is not None
        and (counts["deadline"] or counts["instances"] or counts["budget"])
    ):
        # neither alone: with the deadline lifted the budget still leaves no row, and the other way round
        # (where neither is lifted the rows are cut for the deadline first, so no budget count shows)
        no_budget = _relaxed_ranker(ranker, {"budget_usd": None})
        no_deadline = _relaxed_ranker(ranker, {"deadline_hours": None})
        by_time, by_cost = _deadline_fix(no_budget, offers)[0], _budget_fix(no_deadline, offers)[0]
        if by_time or by_cost:
            lifted_said = [
                f"with the budget lifted, {by_time}" if by_time else "",
                f"with the deadline lifted, {by_cost}" if by_cost else "",
            ]
            first = _deadline_precision(ranker, offers)[0]
            return (
                f"the deadline and the budget bind together ({head}): no offer finishes within "
                f"{duration(deadline * 3600.0)} for {budget_text(w.budget_usd)}; {first}"
                + "; ".join(filter(None, lifted_said))
            )
    if not w.spot_ok and counts["spot-only"]:
        free = _relaxed(ranker, offers, {"spot_allowed": True})
        if free.rows and not (isinstance(w, BatchWorkload) and not w.interruptible):
            why = f"only interruptible (auction / spot) capacity can run it ({head})"
            said = f"--spot would show {_label(free.rows[0])} at {usd(free.rows[0].total_usd, _per(w))}"
            spot = _public({"spot_allowed": True}, said, "relaxes", free.rows[0])
            return DeadEnd(f"{why}: {said}", why, (spot,))
    if not ranker.include_stale and (counts["stale"] or counts["defunct"]):
        free = _relaxed(ranker, offers, {}, include_stale=True)
        if free.rows:
            why = f"only stale offers or defunct providers can run it ({head})"
            row = free.rows[0]
            said = (
                f"--include-stale shows them: {_label(row)} at {usd(row.total_usd, _per(w))} "
                "(check its price before renting)"
            )
            stale = _public({"include_stale": True}, said, "relaxes", row)
            return DeadEnd(f"{why}; {said}", why, (stale,))
    # a named engine the support rules refuse on every GPU tried: said so, with what would run it
    engine_moves = _engine_moves(ranker, offers, counts)
    engine_fix = None if engine_moves is None else "; ".join(m.text for m in engine_moves)
    tried = sum(counts[k] for k in REJECT_KINDS)  # the offers the evaluator looked at (not filtered out)
    if engine_moves is not None and counts["unsupported"] == tried:
        asked = (getattr(w, "precision", None) or "").strip()
        native = ranker.be.native_precision
        own = f" ({native(w.model)})" if native is not None else ""
        what = f"--precision {shlex.quote(asked)}" if asked else f"the checkpoint's own format{own}"
        engine = shlex.quote(getattr(w, "engine", "") or "")
        fixes = engine_fix or "nor does another engine or precision the support rules know"
        too_old = _release_words(ranker)
        if too_old:  # the release cannot load the model at all: no precision or GPU would do
            head = head.replace(_KIND_TEXT["unsupported"], "cannot run this engine release")
            why = f"--engine {engine} cannot load {w.model} ({head}): {too_old}"
            return _ways(f"{why}; {fixes}", why, engine_moves)
        platform = _platform_words(ranker)
        if platform:  # the engine runs nothing there: no other precision would do
            why = (
                f"--engine {engine} runs on none of these offers' GPUs, whatever the precision ({head}): "
                f"{platform}"
            )
            return _ways(f"{why}; {fixes}", why, engine_moves)
        why = f"--engine {engine} cannot run {what} on any GPU of these offers ({head})"
        return _ways(f"{why}; {fixes}", why, engine_moves)
    # too little memory where a narrower precision would fit: said first, on the GPUs and places asked
    narrowest = _narrower_run(ranker, offers) if counts["fit"] or counts["headroom"] else None
    fix = (
        f"{narrowest.option} would fit: the cheapest is {_label(narrowest.row)} at "
        f"{usd(narrowest.row.total_usd, _per(w))}"
        if narrowest is not None
        else None
    )
    fix_move = narrowest.public(w, "keeps", fix) if narrowest is not None else None
    if w.providers or w.regions or w.accelerators:
        free = _relaxed(ranker, offers, {"providers": (), "regions": (), "accelerators": ()})
        where = ", ".join([*w.providers, *w.regions, *w.accelerators])
        there = f"; {fix}" if fix else ""
        why = f"no offer of {where} can run it ({head})"
        if free.rows:
            elsewhere = (
                f"elsewhere the cheapest is {_label(free.rows[0])} at {usd(free.rows[0].total_usd, _per(w))}"
            )
            # the filters given, cleared (an empty list: every GPU, provider or region)
            cleared: dict[str, Any] = {
                name: () for name in ("providers", "regions", "accelerators") if getattr(w, name)
            }
            wider = _public(cleared, elsewhere, "relaxes", free.rows[0])
            return _ways(f"{why}{there}; {elsewhere}", why, [fix_move, wider])
        if fix:
            return _ways(f"{why}{there}", why, [fix_move])
    hints = [fix] if fix else []
    if counts["volume"] and isinstance(w, ServeWorkload):
        # the users stated cannot generate the volume stated on any offer that holds the model: the inputs
        # disagree, and more memory would not reconcile them
        hints.append(
            f"{w.users} {plural(w.users, 'user')} at once cannot generate "
            f"{token_count(w.monthly_output_tokens or 0)} output tokens a month on any offer that runs it: "
            "raise --concurrency, or state the load as --rps (or give the volume alone)"
        )
    elif counts["fit"] or counts["headroom"]:
        largest = max((o.gpu_memory_gb * o.gpu_count for o in offers), default=0.0)
        # the offers' memory as sold (an "80 GB" card holds 80 GiB): GiB, as stated
        hints.append(f"the largest instance has {largest:,.0f} GiB of GPU memory: {_memory_levers(ranker)}")
    if counts["instances"] and isinstance(w, ServeWorkload):
        too_many = (
            f"the load needs more than {ranker.a.max_instances} instances of every offer that runs it: a "
            "lower --concurrency, --rps or --monthly-tokens would fit"
        )
        # the kind that rejected the most offers first
        hints.insert(0 if counts["instances"] >= counts["fit"] + counts["headroom"] else len(hints), too_many)
    tail = ""
    if engine_fix is not None:
        refused = f"{counts['unsupported']:,} of them"
        tail = f"; --engine {shlex.quote(getattr(w, 'engine', '') or '')} cannot run on {refused}" + (
            f": {engine_fix}" if engine_fix else ""
        )
    elif counts["unsupported"]:
        tail = "; another engine (--engine) or precision may run on more of these GPUs"
    why = f"no offer can run it ({head})"
    text = why + "".join(f"; {h}" for h in hints) + tail
    if fix_move is None:
        return text
    # the narrower precision as a move; what binds keeps the other hints (none of them a move)
    return DeadEnd(text, why + "".join(f"; {h}" for h in hints if h != fix) + tail, (fix_move,))
