"""How the advisor's answer (``Advice``) is shown: the cheapest, balanced and fastest picks of the
Pareto front named above the table, compact rows (speed, the time axis, cost per unit and in all,
region and price age) with dominated rows marked, the caveats every row shares said once, and, when
nothing fits, the advisor's diagnosis of what binds, in the form's words."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

# the web form's and the JSON API's words for the advisor's flags (one table, in the core)
from gpuscout.advise.option_words import translate_advice
from gpuscout.advise.pick_notes import assumed_board_picks, capacity, fastest_premium, late_chance_said
from gpuscout.advise.reasons import duration as reasons_duration
from gpuscout.advise.run_notes import RunNote, run_mark, run_notes
from gpuscout.advise.types import PICK_LABELS, PICKS, Advice, Move, Recommendation, UncalibratedPick
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.memory import gib
from gpuscout.web.offer_view import OfferRow, to_row
from gpuscout.web.templating import money
from gpuscout.wording import money3


@dataclass(frozen=True, slots=True)
class Ranked:
    rec: Recommendation
    row: OfferRow  # the offer with its age, source, provider name and regions
    speed: str
    unit_cost: str  # the table's cost per unit ("$0.0312"): ``wording.money3``, as every face writes it
    #: the breakdown's costs per unit as the column writes them: (("$ / M output tokens", "$0.0312"),)
    unit_costs: tuple[tuple[str, str], ...]
    total: str
    latency: str  # serve: TTFT; jobs: time to finish
    warnings: tuple[str, ...]  # this row's own warnings (the shared ones are said once)
    memory: str  # "92.9 of 140.4 GiB per GPU" (the card's memory; the engine may use a share of it)
    time: str  # the trade-off's time axis: serve, one request's latency; jobs, time to finish
    regions: tuple[str, ...]  # every region this choice is sold in at this price
    provider_name: str
    capacity: str = ""  # "spot", "auction" (``pick_notes.capacity``): its price is that one; "" on-demand
    late_chance: str = ""  # "~12% chance of missing the 24 h deadline with spot reclaims", where said

    @property
    def hourly(self) -> str:
        """The price per instance-hour, times the instances the row rents ('2 × $3.20')."""
        price, n = money(self.rec.price_usd_per_hour), self.rec.config.instances
        return f"{n} × {price}" if n > 1 else price

    @property
    def gpus_rented(self) -> int:
        """The GPUs the row rents: every instance's (64 instances of 8 GPUs: 512), not one offer's."""
        c = self.rec.config
        return c.instances * c.gpus_per_instance

    @property
    def rented(self) -> str:
        """What the row rents, as the CLI's configuration says it: '8× MI300X', and over several
        instances '64 × 8× MI300X (512 GPUs)' (never one instance's 8 for a 512-GPU run)."""
        c, accelerator = self.rec.config, self.rec.offer.accelerator
        one = f"{c.gpus_per_instance}× {accelerator}"
        return one if c.instances == 1 else f"{c.instances} × {one} ({self.gpus_rented:,} GPUs)"

    @property
    def region_text(self) -> str:
        if not self.regions:
            return self.row.region
        shown = ", ".join(self.regions[:3])
        return shown if len(self.regions) <= 3 else f"{shown} +{len(self.regions) - 3}"


def duration(seconds: float | None) -> str:
    """How long, as every face says it (:func:`gpuscout.advise.reasons.duration`); "—" when unknown."""
    return "—" if seconds is None else reasons_duration(seconds)


def unit_cost_label(kind: str, images: bool = False) -> str:
    if kind == "serve":
        return "$ / M output tokens"
    if kind == "batch":
        # per thousand images, as the CLI's "/1k img": a cent-rounded "$ / image" read $0.0003 for every
        # row of a $25-$30 run
        return "$ / 1k images" if images else "$ / M output tokens"
    return "$ / M training tokens"


def significant(value: float, figures: int = 3) -> str:
    """``value`` to ``figures`` significant figures, without an exponent: 0.1134 -> "0.113", 2.345 ->
    "2.35" (2 figures: "2.3"), 1234 -> "1,230"."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    digits = figures - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, digits)
    return f"{rounded:,.{max(digits, 0)}f}"


def unit_money(value: float | None) -> str:
    """A cost per unit ($ / M tokens, $ / 1k images) as every face writes it (``wording.money3``, the
    CLI's cost/unit column): "$0.0312", "$0.113", "$1.50", "$12.3"; whole dollars from $100; "—" when
    unknown."""
    return "—" if value is None else money3(value)


def total_label(kind: str) -> str:
    return "$ / month" if kind == "serve" else "Total $"


def latency_label(kind: str) -> str:
    return "TTFT" if kind == "serve" else "Time"


def speed_text(value: float, unit: str) -> str:
    """A rate people can read: "317 tok/s", "0.07 img/s (14 s/img)"; never "0 img/s". The seconds per
    image keep two significant figures: 2.3 s and 1.5 s are not both "2 s"."""
    if unit.startswith("img") and 0 < value < 1:
        return f"{value:.2g} {unit} ({significant(1 / value, 2)} s/img)"
    if 0 < value < 10:
        return f"{value:.2g} {unit}"
    return f"{value:,.0f} {unit}"


#: What a serving row's two speeds are: the output the deployment serves at the load (the time of the
#: prompts' prefill counted), and the speed one user's stream decodes at. At one user the first is below
#: the second ("62 tok/s served · 66 tok/s per user decoding"): the same basis they are not, so each
#: says which it is.
SERVED = "served"
DECODING = "decoding"


def present(rec: Recommendation, kind: str, shared: frozenset[str] = frozenset()) -> Ranked:
    est, units = rec.estimate, rec.unit_costs
    speed = "—"
    latency = "—"
    memory = ""
    if est is not None:
        speed = speed_text(est.throughput, est.throughput_unit)
        if est.per_user_tokens_per_s is not None and kind == "serve":
            speed += f" {SERVED} · {est.per_user_tokens_per_s:,.0f} tok/s per user {DECODING}"
        if kind == "serve" and est.ttft_ms is not None:
            latency = f"{est.ttft_ms / 1000:.2f} s" if est.ttft_ms >= 1000 else f"{est.ttft_ms:,.0f} ms"
        parts = f"weights {gib(est.weights_gb):,.1f}"
        if est.keeps_kv_cache:  # not a training step or an image pipeline
            parts += f", KV cache {gib(est.kv_cache_gb):,.1f}"
        memory = (
            f"{gib(est.memory_per_gpu_gb):,.1f} of {gib(est.memory_capacity_gb):,.1f} GiB per GPU ({parts})"
        )
    if kind != "serve":
        latency = duration(rec.time_s)
    unit = "—"
    unit_costs: tuple[tuple[str, str], ...] = ()
    if units is not None:
        per_1k_images = None if units.per_image is None else units.per_image * 1000
        if kind == "serve" or (kind == "batch" and units.per_image is None):
            unit = unit_money(units.per_million_output_tokens)
        elif kind == "batch":
            unit = unit_money(per_1k_images)
        else:
            unit = unit_money(units.per_million_train_tokens)
        unit_costs = tuple(
            (label, unit_money(value))
            for label, value in (
                ("$ / M output tokens", units.per_million_output_tokens),
                ("$ / 1k requests", units.per_1k_requests),
                ("$ / 1k images", per_1k_images),
                ("$ / M training tokens", units.per_million_train_tokens),
            )
            if value is not None
        )
    total = "—"
    if rec.cost is not None:
        amount = units.per_month if kind == "serve" and units is not None else rec.cost.total
        # whole dollars only where cents do not matter: a $0.52 run is not "$1", nor the same as a $0.61 one
        total = money(amount, 0 if amount is not None and abs(amount) >= 100 else 2)
    own = tuple(w for w in rec.warnings if w not in shared)
    row = to_row(rec.offer)
    return Ranked(
        rec=rec,
        row=row,
        speed=speed,
        unit_cost=unit,
        unit_costs=unit_costs,
        total=total,
        latency=latency,
        warnings=own,
        memory=memory,
        time=_time_axis(rec.time_to_result_s, kind),
        regions=tuple(r.split(":", 1)[1] if r.startswith("country:") else r for r in rec.regions),
        provider_name=rec.provider_name or (row.provider.short_name if row.provider else rec.offer.provider),
        capacity=capacity(rec),
        late_chance=late_chance_said(rec),
    )


def _time_axis(seconds: float | None, kind: str) -> str:
    """The trade-off's time: a request's latency ("1.9 s", "640 ms"), or a job's time to finish."""
    if seconds is None:
        return "—"
    if kind != "serve":
        return duration(seconds)
    return f"{seconds:,.1f} s" if seconds >= 1 else f"{seconds * 1000:,.0f} ms"


_NONE_UNIT = re.compile(r"\bNone( ?s)?\b")


def plain(text: Any) -> str:
    """An assumption's text for people: a missing figure reads "unknown", never ``None``."""
    return _NONE_UNIT.sub("unknown", str(text))


# ---- the answer around the rows ------------------------------------------------------------------
#: Why a row off the front is there, said once above those rows (the picks rule under the picks, the
#: CLI's footnote, says it in full): the advisor's own definition, not "cheaper and faster".
BEATEN_RULE = (
    "rows off the front, each beaten by a row above: no dearer and no slower, or so much faster that its "
    "saving is not worth the wait, so it can cost less than the cheapest pick"
)


@dataclass(frozen=True, slots=True)
class AnswerView:
    """What the page shows of an ``Advice``: its rows, picks, targets, caveats and diagnosis."""

    rows: list[Ranked]
    picks: list[tuple[str, Ranked]]  # ("cheapest", row), ("balanced", row), ("fastest", row): those shown
    picks_cut: list[tuple[str, int]]  # ("fastest", 11): a pick "Show" left no room for, by its number
    targets: list[str]
    caveats: list[str]
    binding: str | None
    picks_rule: str
    time_axis: str  # "Request latency", "Time to finish"
    front_size: int
    considered: int
    # pick -> its caveat where the pick's row's speed is uncalibrated (``Advice.uncalibrated_picks``)
    uncalibrated: dict[str, UncalibratedPick] = field(default_factory=dict)
    # what the rows run, as the title names it ("vllm, bf16": ``Advice.runs``); a row running anything
    # else names it in its Config cell (``Recommendation.names_run``)
    runs: str = ""
    # where the named engine costs at least twice the default's cheapest (``Advice.engine_note``)
    engine_note: str = ""
    # the picks timed on a board their source does not state: (number, "SXM4 (the source says only
    # 'A100-80GB')"), as the CLI's picks line says them (``pick_notes.assumed_board_picks``)
    assumed_boards: list[tuple[int, str]] = field(default_factory=list)
    # "#9 is 5.4x as fast as #1 at 8.9x the cost" (``pick_notes.fastest_premium``); "" where not said
    premium: str = ""
    # ``binding`` in parts, where it names ways out (``Advice.binding_why``, ``Advice.moves``): what binds,
    # the latency targets it repeats from "Held to" named as such, then the moves
    binding_why: str = ""
    moves: list[Move] = field(default_factory=list)
    pick_labels: dict[str, str] = field(default_factory=lambda: dict(PICK_LABELS))
    beaten_rule: str = BEATEN_RULE
    # why rows run otherwise than asked, one note per reason (a GPU's support rule, a dozen lines), said
    # once above the table; each such row's Note cell says only what differs, by its number
    # (``advise.run_notes``: "llama.cpp in place of vllm (note 1)")
    run_notes: list[RunNote] = field(default_factory=list)
    run_marks: dict[int, str] = field(default_factory=dict)

    @property
    def binding_lead(self) -> str:
        """What binds, said short (:func:`binding_lead`) of the dead end's text the page shows in full
        (``binding_why`` where it names moves, else ``binding``); "" where it has no short head."""
        return binding_lead(self.binding_why if self.moves else self.binding or "")

    def shown(self, number: int | None) -> bool:
        """Whether the row numbered ``number`` is on the page (a link to it leads somewhere)."""
        return any(r.rec.rank == number for r in self.rows)

    @property
    def first_dominated(self) -> int | None:
        """Rank of the first shown row off the front (the table says where the front ends)."""
        return next((r.rec.rank for r in self.rows if not r.rec.pareto), None)


def answer_view(
    advice: Advice, kind: str, *, top: int | None = None, explain: int | None = None
) -> AnswerView:
    """The page's view of ``advice``. The caveats are the advisor's ``notes`` (what every row of the
    answer carries), never recomputed from the rows "Show" keeps: one row shown says the same as ten. Its
    texts name the form's fields where the advisor names a CLI flag.

    ``top``: the rows "Show" asks for, where ``advice`` was ranked with more to reach the row numbered
    ``explain`` (a row far down, the calibrated alternative of a pick): the rows ``top`` shows, as the
    advisor picks them (the picks first, then the others in order), and that one row after a gap."""
    advice = translate_advice(advice, "form")
    shared = frozenset(advice.notes)
    recs = advice.rows if top is None else _rows_shown(advice, top, explain)
    rows = [present(r, kind, shared) for r in recs]
    notes = run_notes(recs)
    by_rank = {r.rec.rank: r for r in rows}
    named = [(name, advice.picks[name]) for name in PICKS if name in advice.picks]
    axis = advice.time_axis.split(" (", 1)[0]
    return AnswerView(
        rows=rows,
        picks=[(name, by_rank[n]) for name, n in named if n in by_rank],
        picks_cut=[(name, n) for name, n in named if n not in by_rank],
        targets=list(advice.targets),
        caveats=sorted(shared),
        binding=advice.binding,
        picks_rule=advice.picks_rule,
        time_axis=axis[:1].upper() + axis[1:],
        front_size=advice.front_size,
        considered=advice.considered,
        uncalibrated={u.pick: u for u in advice.uncalibrated_picks},
        runs=advice.runs,
        engine_note=advice.engine_note,
        # from the rows shown, as the CLI's picks line reads them
        assumed_boards=assumed_board_picks(recs, advice.picks),
        premium=fastest_premium(recs, advice.picks),
        binding_why=_held_to(advice.binding_why, advice.binding_repeats),
        moves=list(advice.moves),
        run_notes=list(notes),
        run_marks={r.rank: run_mark(r, notes, advice.asked_run) for r in recs if r.rank is not None},
    )


#: where a dead end's text leaves what binds for its counts (``advise.answer._rejections``, in brackets:
#: "(of 748 offers: 608 are over the budget; ...)", or "(748 offers looked at)" where it counts none)
_COUNTS = re.compile(r" \((?:of [\d,]+ offers?: |[\d,]+ offers? looked at\))")
#: the head of a dead end that says no more than the page's "No current offer can run this workload"
_SAYS_NOTHING = "no offer can run it"


def binding_lead(text: str) -> str:
    """What binds, the head of a dead end's ``text`` before its counts: "the budget binds", "the latency
    targets and the budget bind together", for a phone to read first (the whole text folded below). ""
    where the text has no counts to cut at, or its head says only that no offer can run it (the page
    then shows the whole text)."""
    found = _COUNTS.search(text)
    lead = text[: found.start()].strip() if found else ""
    return "" if lead.lower() == _SAYS_NOTHING else lead


def _held_to(why: str, repeats: str) -> str:
    """``why`` with the latency targets it repeats (``repeats``, listed under "Held to" above it) named
    as the targets held to."""
    if not repeats:
        return why
    return why.replace(f"the {repeats}", "the latency targets (under “Held to”)")


def _rows_shown(advice: Advice, top: int, explain: int | None) -> list[Recommendation]:
    """The rows of ``advice`` that ranking with ``top`` would show (``pareto.select``: the picks first,
    then the other rows in order; a row keeps its number whatever ``top`` is), and the row numbered
    ``explain``, in the answer's order."""
    ordered = sorted(advice.rows, key=lambda r: r.rank or 0)
    picked = {n for n in advice.picks.values()}
    picks = [r for r in ordered if r.rank in picked][:top]
    others = [r for r in ordered if r.rank not in picked][: max(0, top - len(picks))]
    keep = {r.rank for r in (*picks, *others)} | ({explain} if explain is not None else set())
    return [r for r in advice.rows if r.rank in keep]


def check_explain(advice: Advice, explain: int | None) -> None:
    """``explain`` (the row whose breakdown the page opens) names a row of the answer: any of them, far
    past "Show" too (``advice`` ranked with at least that many rows); else an ``InvalidInputError``
    naming ``explain`` and the rows there are."""
    if explain is None or any(r.rank == explain for r in advice.rows):
        return
    count = len(advice.rows)
    if not count:
        raise InvalidInputError("explain", f"no row #{explain}: no offer can run this workload", "no row")
    raise InvalidInputError(
        "explain",
        f"no row #{explain}: this answer has {count:,} {'row' if count == 1 else 'rows'}",
        f"a row number of the answer, 1..{count:,}",
    )
