"""Typed results of the advisor: one ``Recommendation`` per real choice (an offer as rented, on-demand or
spot, with the regions it is sold in at that price), and the ``Advice`` around them (the Pareto front of
cost against time, the named picks, the targets applied, and what binds when nothing passes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gpuscout.catalog.offer import Offer

Objective = Literal["cost", "time", "latency", "balanced"]
OBJECTIVES: tuple[str, ...] = ("cost", "time", "latency", "balanced")
#: The named picks of the Pareto front (see :mod:`gpuscout.advise.pareto`).
PICKS: tuple[str, ...] = ("cheapest", "balanced", "fastest")
#: The picks as every face names them to people (the web's cards and badges, the CLI's picks line and
#: --explain): what the advisor's rule picks (``Advice.picks_rule``: "cheapest: the least cost on the
#: front"). A row off the front may cost less than the cheapest pick, being much slower ("beaten by
#: #1"), so the words say which cheapest it is. ``--json``/``--csv`` keep the names of :data:`PICKS`.
PICK_LABELS: dict[str, str] = {
    "cheapest": "cheapest on the front",
    "balanced": "balanced",
    "fastest": "fastest on the front",
}
assert set(PICK_LABELS) == set(PICKS), "every pick has its words"


def run_words(engine: str, precision: str | None) -> str:
    """'vllm, bf16': an engine and the weight format it runs, as the answer's title names them."""
    return f"{engine}, {precision}"


@dataclass(frozen=True, slots=True)
class Config:
    """How an offer is used: ``instances`` x the offer, each running ``replicas`` copies of the model
    sharded ``tp`` ways (tensor parallel). ``gpus_used`` counts GPUs doing work across all instances."""

    instances: int
    gpus_per_instance: int
    tp: int
    replicas_per_instance: int
    gpus_used: int
    nodes: int  # instances that must talk over an inter-node fabric (training), else 1
    spot: bool
    # how a replica's ``tp`` GPUs share the model: "tensor" (each layer sharded), "layer" (each GPU
    # holds whole layers and they take turns, llama.cpp's --split-mode layer) or "pipeline" (whole layers
    # per GPU with a batch in flight on each: vLLM's --pipeline-parallel-size); a training row's, how its
    # GPUs share the job: "data" (a full replica per GPU), "fsdp", "zero1".."zero3", "none" (one GPU)
    parallel: str = "tensor"
    # training rows: how the GPUs share the work ("FSDP across 8 GPUs ...; micro-batch 1 x 2,048 tokens")
    training: str = ""
    # GPUs of each instance a split leaves idle (10 GPUs, one TP8 replica: 2), paid for
    idle_per_instance: int = 0
    # training rows: seconds between the checkpoints this row saves during the run (a spot row's own,
    # shortened by its reclaims; the asked-for interval or Young's for its GPUs' failures); None where it
    # saves none before the end, and on serving and batch rows (``training`` is "" there)
    checkpoint_every_s: float | None = None

    @property
    def split(self) -> str:
        """How one replica's GPUs share the model: 'TP2', '2-way layer split', 'PP4' ('TP1' on one GPU)."""
        if self.tp > 1 and self.parallel == "layer":
            return f"{self.tp}-way layer split"
        if self.tp > 1 and self.parallel == "pipeline":
            return f"PP{self.tp}"
        return f"TP{self.tp}"

    def describe(self, accelerator: str = "GPU") -> str:
        """'2x H100-SXM TP2', '2x V100 2-way layer split', '3 x 1x L40S', '8x A100 8 replicas',
        '2 x 8x A100 TP2 4 replicas each', with ' spot' when on spot."""
        text = f"{self.gpus_per_instance}x {accelerator}"
        if self.instances > 1:
            text = f"{self.instances} x {text}"
        if self.tp > 1:
            text += f" {self.split}"
        if self.replicas_per_instance > 1:
            # per instance: "2 x 2x H100 2 replicas" read as two replicas in all, not four
            each = " each" if self.instances > 1 else ""
            text += f" {self.replicas_per_instance} replicas{each}"
        if self.idle_per_instance:  # an inference split that does not divide the GPUs (10 GPUs: one TP8)
            text += f", {self.idle_per_instance} idle"
        if self.nodes > 1:
            text += f" ({self.nodes} nodes)"
        if self.spot:
            text += " spot"
        return text


@dataclass(frozen=True, slots=True)
class EstimateSummary:
    """What the estimator predicts for this configuration."""

    throughput: float  # per instance-set: output tok/s (serve/batch LLM), images/s, training tok/s
    throughput_unit: str  # "tok/s", "img/s", "train tok/s"
    per_user_tokens_per_s: float | None  # serve/batch: decode speed each sequence sees
    ttft_ms: float | None
    tpot_ms: float | None
    memory_per_gpu_gb: float
    memory_capacity_gb: float
    weights_gb: float  # per GPU
    kv_cache_gb: float  # per GPU
    batch_per_replica: int | None
    max_batch_per_replica: int | None
    bound: str | None
    # serve: the most this configuration sustains (all instances) and what sets it: "latency targets",
    # "KV cache" (full), "prefill budget" (the prompts a per-step token budget feeds) or "engine cap" (the
    # engine's cap on running sequences: vLLM max_num_seqs, llama.cpp's slots)
    capacity_users: int | None = None
    capacity_tokens_per_s: float | None = None
    capacity_limit: str | None = None
    engine: str | None = None  # the engine the estimate is for (inference)
    precision: str | None = None  # the weight format it runs in
    # how the engine runs that precision on this GPU (the support rules): native, weight-only,
    # fallback-fp16, dequantized
    support: str | None = None
    # the whole model's weights, one copy (None: weights_gb x GPUs; they differ where weights sit whole
    # on every GPU, as the attention does under data-parallel attention)
    model_weights_gb: float | None = None
    # where the estimate's fitted figures rest on a narrow set of rows (its ``calibration_basis``)
    calibration_basis: str | None = None
    # LLM inference: one decode step at the row's load and its overlapping parts, ms
    # (``Estimate.step_summary``: "22.3 ms: reads 19.2, math 4.8, all-reduces 2.0, fixed costs 1.1")
    decode_step: str | None = None
    # serve: the share of each output token's time that other requests' prompts take (prefill chunks
    # between decode steps: 1 - decode step / time per output token); None where not timed
    prefill_share: float | None = None

    @property
    def bound_words(self) -> str:
        """What sets the speed, in words: the decode step's bound ("memory-bound"), or the prompts where
        they take most of each output token's time ("prefill-bound: prompts take 77% of each token's time;
        decode memory-bound"): a 32k-prompt row's speed is compute spent on prompts, not its decode reads."""
        decode = f"{self.bound}-bound" if self.bound else ""  # "" where no step is timed (training rows)
        share = self.prefill_share
        if share is None or share < 0.5:
            return decode
        prompts = f"prefill-bound: prompts take {share:.0%} of each token's time"
        return f"{prompts}; decode {decode}" if decode else prompts

    # whether the estimator's speed constants for this work were fitted on runs of this hardware (False:
    # efficiencies fitted on other parts applied to this one's datasheet peak, as training on an AMD
    # MI300X with NVIDIA-fitted efficiencies); set from the estimate, never read from a warning's words
    speed_calibrated: bool = True
    # what the speed leans on that no calibration row covers for its engine, in a few words each ("MoE
    # layers", "fp8-block kernels": ``Estimate.uncalibrated``); empty where that is only the hardware
    uncalibrated: tuple[str, ...] = ()

    @property
    def runs_as(self) -> str:
        """'vllm, bf16': the engine and the weight format the estimate is for, as the answer's title names
        them; "" without an engine (training, image pipelines)."""
        return run_words(self.engine, self.precision) if self.engine else ""

    @property
    def keeps_kv_cache(self) -> bool:
        """Whether the row's work keeps a KV cache: LLM inference (tok/s), not a training step or an image
        pipeline, whose ``kv_cache_gb`` is a placeholder 0."""
        return self.throughput_unit == "tok/s"


@dataclass(frozen=True, slots=True)
class CostBreakdown:
    """USD. For ``serve`` the figures are per month; for jobs, per run."""

    compute: float
    warmup: float
    storage: float
    egress: float
    interruption: float

    @property
    def total(self) -> float:
        return self.compute + self.warmup + self.storage + self.egress + self.interruption


@dataclass(frozen=True, slots=True)
class UnitCosts:
    """Unit costs in USD; ``None`` where the unit does not apply to the workload."""

    per_million_output_tokens: float | None
    per_image: float | None
    per_run: float | None
    per_month: float | None
    per_million_train_tokens: float | None = None
    # LLM serving and batch generation: per 1,000 requests of the workload's prompt and output (a
    # prefill-heavy request, 32k in / 100 out, is mostly not output: $/M output tokens alone misleads)
    per_1k_requests: float | None = None


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One ranked row: an offer, how it is used, whether it fits, how fast, what it costs, and why."""

    offer: Offer
    config: Config
    fits: bool
    estimate: EstimateSummary | None  # None when nothing could be estimated (does not fit at all)
    # the seconds the configuration works, which its compute is billed on (not the time the table shows:
    # ``time_to_result_s``): batch, the generation on all its instances; finetune / pretrain, the run on
    # its nodes, checkpoint writes included (both without the warm-up and spot rework); serve, the
    # seconds a day the endpoint is up (86400 for 24 h), not a latency
    time_s: float | None
    cost: CostBreakdown | None
    unit_costs: UnitCosts | None
    price_usd_per_hour: float  # what is paid per instance-hour (spot price when config.spot)
    reasons: tuple[str, ...]
    warnings: tuple[str, ...]
    rank: int | None  # 1-based; None for rejected rows
    score: float  # lower is better under the objective; inf for rejected rows
    rejected: str | None = None  # why the row was filtered out, when it was
    assumptions: dict[str, str] = field(default_factory=dict, compare=False)
    provider_name: str = ""  # the provider's display name ("Vast.ai", "Mithril (ex-Foundry)")
    regions: tuple[str, ...] = ()  # every region this choice is sold in at this price
    # The trade-off's time axis, the time the table shows: jobs, wall-clock time to finish (``time_s``,
    # the warm-up of a start: boot, download, load, and the spot rework and restarts per instance);
    # serve, one request's latency at the operating point (TTFT + output tokens x time per output token).
    time_to_result_s: float | None = None
    pareto: bool = False  # on the Pareto front: no other row is both cheaper and faster
    dominated_by: int | None = None  # rank of a shown row that is cheaper (or as cheap) and faster
    picks: tuple[str, ...] = ()  # "cheapest", "balanced", "fastest" (see PICKS)
    substitution: str | None = None  # what differs from the ask (engine, precision, GPU count), and why
    fabric_assumed: bool = False  # GPUs talk over an interconnect the source does not state: costed as PCIe
    # whether the row names what it runs (``run_label``) on its configuration cell, on every face: it runs
    # another engine or format than the answer's title names (``Advice.runs``), or the title names several
    # (:func:`gpuscout.advise.answer.names_its_run`, decided once by the advisor over the answer's rows)
    names_run: bool = False

    @property
    def total_usd(self) -> float | None:
        return None if self.cost is None else self.cost.total

    @property
    def top_reason(self) -> str:
        return self.reasons[0] if self.reasons else ""

    @property
    def runs_as(self) -> str:
        """The engine and weight format this row runs ('llama.cpp, gguf-f16'), as the answer's title names
        them (:attr:`EstimateSummary.runs_as`); "" without an estimate or an engine."""
        return self.estimate.runs_as if self.estimate is not None else ""

    @property
    def run_label(self) -> str:
        """'llama.cpp gguf-f16': the engine and weight format the row runs, as its configuration cell names
        them where the row names its run (``names_run``); "" without an estimate or an engine."""
        est = self.estimate
        return f"{est.engine} {est.precision}" if est is not None and est.engine else ""


@dataclass(frozen=True, slots=True)
class UncalibratedPick:
    """A pick (``PICKS``) whose row's speed is uncalibrated (``EstimateSummary.speed_calibrated`` false):
    the pick rests on a guess. ``what`` names the hardware and the work ("MI300X training"), and what the
    engine's speed leans on that no row covers on any GPU ("H200-SXM serving: MoE layers, fp8-block
    kernels", ``EstimateSummary.uncalibrated``);
    ``calibrated`` is the number of the row the same pick names among the rows whose speed is
    calibrated (None: no row of the answer has a calibrated speed): the best substitute by the pick's own
    criterion, which can sit far down a ranking by another (the fastest calibrated row of a ranking by
    cost); ``time_ratio`` / ``cost_ratio``: that row's time and cost over the pick's row's, so the text
    says how far it is ("the fastest calibrated row is #374: 1.2x the time at 3.2x the cost")."""

    pick: str
    number: int  # the pick's row
    what: str
    calibrated: int | None
    # the engine's figures ``what`` names after the hardware (``EstimateSummary.uncalibrated``)
    parts: tuple[str, ...] = ()
    time_ratio: float | None = None
    cost_ratio: float | None = None

    @property
    def text(self) -> str:
        """'speed uncalibrated for MI300X training; the fastest calibrated row is #1: 1.3x the time at
        0.9x the cost' ('no calibrated row' for none)."""
        if self.calibrated is None:
            return f"speed uncalibrated for {self.what}; no calibrated row"
        return f"speed uncalibrated for {self.what}; {self.substitute} #{self.calibrated}{self.how_far}"

    @property
    def substitute(self) -> str:
        """'the fastest calibrated row is': the words before the calibrated row's number."""
        return f"the {_SUBSTITUTE_WORDS.get(self.pick, self.pick)} calibrated row is"

    @property
    def how_far(self) -> str:
        """': 1.2x the time at 3.2x the cost': the calibrated row against the pick's ("" unknown)."""
        if self.time_ratio is None or self.cost_ratio is None:
            return ""
        return f": {self.time_ratio:.1f}x the time at {self.cost_ratio:.1f}x the cost"


#: A pick's criterion as its calibrated substitute is named ("the best-balanced calibrated row is #2").
_SUBSTITUTE_WORDS = {"cheapest": "cheapest", "balanced": "best-balanced", "fastest": "fastest"}


#: The groups a dead end's ways out fall in, in the order they are said (:class:`Move`).
MOVE_GROUPS: tuple[str, ...] = ("keeps", "relaxes", "last resort")


@dataclass(frozen=True, slots=True)
class Move:
    """One way out of a dead end (no offer passes): the workload fields it changes, as the workload's
    own names (``{"precision": "gguf-q4_k_m", "budget_usd": 1262}``; a field set to ``None`` is cleared;
    ``include_stale``, the one request option a move sets, as :func:`~gpuscout.advise.api.advise` names it),
    the move in words (the CLI's flags, as every advisor text), its group (``MOVE_GROUPS``: it keeps what
    the work asks of each row, relaxes it, or drops it as a last resort), and the cheapest row it shows:
    its cost (a serving month or the run) and speed. A move with no ``options`` is a hint no field says
    ("a prompt shorter than 1,000 tokens"); one with no ``total_usd`` names no row."""

    options: dict[str, Any]
    text: str
    group: str = "keeps"
    total_usd: float | None = None
    tpot_ms: float | None = None  # serving: the time per output token each user sees on that row
    time_to_result_s: float | None = None  # a job's time to finish on that row


@dataclass(frozen=True, slots=True)
class Advice:
    """The advisor's whole answer for one workload.

    ``rows``: the Pareto front first (ordered by the objective), then dominated rows, each a real
    choice (region copies merged). ``picks`` maps "cheapest", "balanced" and "fastest" to the rank of
    the row named so. ``targets`` says what was applied (latency targets, deadline, budget) in words;
    ``notes`` holds the caveats every shown row shares (said once rather than on every row);
    ``binding`` is set when no offer passes: which constraint binds and what would make something fit.
    ``uncalibrated_picks``: the picks that rest on an uncalibrated speed, each with its calibrated
    alternative.
    """

    objective: str
    rows: tuple[Recommendation, ...]
    rejected: tuple[Recommendation, ...]
    front_size: int
    picks: dict[str, int]
    targets: tuple[str, ...]
    notes: tuple[str, ...]
    binding: str | None
    time_axis: str  # what time_to_result_s measures: "time to finish" or "request latency"
    considered: int  # offers looked at
    # costed (offer, price) rows that passed every filter, before region copies were merged; offers the
    # price alone rules out of a ranking by cost are not costed (``Ranker.score_rows``)
    passing: int
    picks_rule: str = ""  # how the front and the picks are defined, in words
    # the picks whose row's speed is uncalibrated, with the calibrated row the same pick names instead
    uncalibrated_picks: tuple[UncalibratedPick, ...] = ()
    # the engine and weight format asked ("tgi, mxfp4-moe", :attr:`EstimateSummary.runs_as`), where the
    # support rules refused it on some offer's GPU and something else ran instead (that row says what,
    # ``substitution``); "" otherwise, a named engine only refused (nothing run in its place) too
    asked_run: str = ""
    # what the title says the rows run ("vllm, bf16"; "tgi, int4 in place of mxfp4-moe" where every row
    # runs one other thing: :func:`gpuscout.advise.answer.runs_heading`); "" where no row names an engine.
    # A row that runs anything else names it on the row (``Recommendation.names_run``)
    runs: str = ""
    # where the user named the engine and the default engine does the same work for at most half the
    # cost: its cheapest row in words (:func:`gpuscout.advise.answer.engine_cost_note`); "" otherwise
    engine_note: str = ""
    # ``binding`` in parts, where the dead end names its ways out: what binds (the counts, what the
    # cheapest rows reach) and the moves (``binding`` says both in one text), keeping ones first, then
    # relaxations, then the last resort, each group cheapest first; "" and () where it names none
    binding_why: str = ""
    moves: tuple[Move, ...] = ()
    # the latency targets ``binding_why`` repeats from ``targets`` (a page that lists the targets above
    # may say "the latency targets" in their place); "" where it repeats none
    binding_repeats: str = ""

    @property
    def recommendations(self) -> list[Recommendation]:
        """The shown rows, then the rejected ones (what ``recommend(include_rejected=True)`` returns)."""
        return [*self.rows, *self.rejected]
