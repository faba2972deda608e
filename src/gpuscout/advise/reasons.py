"""Short, numeric reasons and warnings for one recommendation row."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.billing import describe_increment
from gpuscout.advise.configs import ConfigEval
from gpuscout.advise.cost import CostModel, DataPrices
from gpuscout.advise.fleet_billing import BATCH_TIME_ERROR, billing_step, expected_billed_h
from gpuscout.advise.pareto import COST_TOLERANCE
from gpuscout.advise.spot import DEADLINE_MISS_SAID
from gpuscout.advise.types import CostBreakdown, UnitCosts
from gpuscout.advise.workload import (
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
)
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.errors import GpuscoutError
from gpuscout.estimate.memory import gib
from gpuscout.estimate.parallel import (
    HOST_STAGED_SHARE,
    PCIE_EXCHANGE_WARNING,
    lacks_peer_access,
    sold_as_bridged_pair,
)
from gpuscout.estimate.precision import resolve_precision
from gpuscout.knowledge.host_arch import arm_host
from gpuscout.knowledge.provider_types import ProviderTerms
from gpuscout.wording import BOARD_ASSUMED, distinct_money, money3, money_text, rate_text
from gpuscout.wording import plural as plural  # its home; re-exported for the advisor's faces

if TYPE_CHECKING:
    from gpuscout.knowledge.accelerator_types import Accelerator
    from gpuscout.knowledge.model_types import ModelSpec

#: Why an offer is stale, in the catalog's rule's words (``gpuscout.catalog.query.STALE_AFTER``, two
#: days, which the core cannot import: a test keeps the two in step), one wording for each half of the
#: rule (:func:`stale_reason` says which applies). A row of the bundled snapshot kept from an older
#: catalog file (the snapshot build's v6 rows; no fetch time):
STALE_SNAPSHOT = "stale: a row of the bundled snapshot kept from an older catalog file"
#: A row its own feed flags (a user's offer file, ``stale`` true):
STALE_FLAGGED = "stale: flagged so by its feed"
#: A live row (a provider's feed, with its fetch time) fetched that long before the store's newest fetch:
#: its provider's refresh failed or was not run again while the others were. ``{fetched}``: its time.
STALE_AGED = (
    "stale: fetched {fetched}, over 2 days before the catalog's newest prices (its provider's refresh "
    "failed or was not run since)"
)


#: A request whose prompt is at least this many times its output is prefill-heavy: its row states its
#: price per 1,000 requests beside $/M output tokens, and a speed set mostly by prompts says so.
PROMPT_HEAVY = 8


def stale_reason(offer: Offer) -> str:
    """Why ``offer`` (``stale``) is stale, by the half of the catalog's rule that holds for it
    (``gpuscout.catalog.query``): a row of the bundled snapshot (``snapshot:`` source, no fetch time) is
    stale only as kept from an older catalog file, a user's offer file (``file:``) or an undated row only
    as its feed flags it; a live row with a fetch time, which no live feed flags, by its age."""
    source = offer.source.partition(":")[0]
    if source == "snapshot" and offer.observed_at is None:
        return STALE_SNAPSHOT
    if source == "file" or offer.observed_at is None:
        return STALE_FLAGGED
    fetched = offer.observed_at
    if fetched.tzinfo is not None:
        fetched = fetched.astimezone(UTC)
    return STALE_AGED.format(fetched=f"{fetched:%Y-%m-%d %H:%M} UTC")


@dataclass(frozen=True, slots=True)
class RowContext:
    """Everything a row's explanation is built from."""

    workload: AnyWorkload
    offer: Offer
    ev: ConfigEval
    cm: CostModel
    cost: CostBreakdown
    units: UnitCosts
    terms: ProviderTerms
    prices: DataPrices
    spot: bool
    hourly: float
    now: datetime
    assumptions: Assumptions
    interruptible_price: bool = False  # the price used is the offer's listed auction / bid price
    # the instances the configuration takes on demand (a spot batch under a deadline may take more:
    # ``rank.spot_sized``); None: the same as ``ev.instances``
    on_demand_instances: int | None = None
    # the fewest instances this row's batch meets its deadline on (its spot reclaims included), before
    # its billing spreads it over more within the front's cost tolerance (``rank.billing_sized``); None:
    # ``ev.instances``
    needed_instances: int | None = None
    # the instance-hours that batch would be billed on ``needed_instances`` (None: not computed)
    needed_billed_h: float | None = None
    # a batch its billing would spread over more instances (within the cost tolerance) than the budget
    # pays for, so it runs on fewer (``Ranker.under_budget``): (those instances, their cost); None: not so
    over_budget: tuple[int, float] | None = None
    # the workload's model as the estimates resolved it (the user's imported models too: the ranker
    # resolves it once through ``Backends.models``); None: look the estimate's name up in the curated table
    model: ModelSpec | None = None


# what the "sustains up to" reason says sets an endpoint's capacity (EstimateSummary.capacity_limit)
_CAPACITY_LIMIT = {
    "latency targets": "within the latency targets",
    "KV cache": "the KV cache full",
    "engine cap": "the engine's cap on running sequences",
    "prefill budget": "the prompts its per-step prefill budget feeds",
}


#: A year in the durations shown: 365 days (8,760 h, the year of cloud pricing).
YEAR_S = 365 * 86400.0


def duration(seconds: float) -> str:
    """'45 s', '12 min', '3.4 h', '5.2 days', '1.3 years', '1,127 years': the one way every face says how
    long something takes (thousands separated; beyond a year in years)."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    if seconds < YEAR_S:
        return f"{seconds / 86400:.1f} days"
    years = seconds / YEAR_S
    return f"{years:.1f} years" if years < 10 else f"{years:,.0f} years"


def beaten_reason(
    rank: int,
    beater: tuple[float, float],
    row: tuple[float, float],
    *,
    serve: bool,
    time_tolerance: float,
    most: float | None = None,
) -> str:
    """Why a dominated row is beaten by row ``rank``, from both rows' ``(cost, time)``: as dear or
    dearer and no faster, or faster by so much that its saving is not worth the wait
    (:func:`gpuscout.advise.pareto.cost_allowance`)."""
    from gpuscout.advise.pareto import COST_TOLERANCE, MAX_COST_ALLOWANCE, cost_allowance

    most = MAX_COST_ALLOWANCE if most is None else most

    (c_b, t_b), (c, t) = beater, row
    per = " a month" if serve else ""

    def when(x: float) -> str:
        return f"{x:.1f} s" if serve and x < 90 else duration(x)

    verb = "answers" if serve else "finishes"
    if c_b <= c and t_b <= t * (1.0 + time_tolerance):
        said_b, said = distinct_usd(c_b, c, per)
        return f"beaten by #{rank}: {said_b} (this row {said}), {verb} in {when(t_b)} ({when(t)})"
    ratio = t / max(t_b, 1e-12)
    extra = c_b / max(c, 1e-12) - 1.0
    if most <= COST_TOLERANCE:  # under a deadline: speed is worth no more than the estimate's tolerance
        return (
            f"beaten by #{rank}: {verb} in {when(t_b)} rather than {when(t)} ({ratio:.1f}x sooner) for "
            f"{extra:.0%} more, within the estimate's {most:.0%}"
        )
    return (
        f"beaten by #{rank}: {verb} in {when(t_b)} rather than {when(t)} ({ratio:.1f}x sooner) for "
        f"{extra:.0%} more, within the {cost_allowance(t, t_b, most):.0%} more that {ratio:.1f}x sooner is "
        "worth"
    )


def usd(amount: float | None, per: str = "") -> str:
    """'$0.52', '$101', '$25,381' (cents under $100, where they tell two small runs apart), '$0.0019'
    (under a cent, two figures: never '$0.00'), by the rule every face follows
    (:func:`gpuscout.wording.money_text`); '-' when unknown; ``per`` follows the figure (' a month')."""
    if amount is None:
        return "-"
    return money_text(amount, whole_from=100) + per


def distinct_usd(a: float, b: float, per: str = "") -> tuple[str, str]:
    """Two amounts one sentence compares, as :func:`usd` writes them, with a figure more where they would
    read the same ("beaten by #1: $0.00186 (this row $0.00190)", never "$0.0019 (this row $0.0019)")."""
    ta, tb = distinct_money(a, b, whole_from=100)
    return ta + per, tb + per


def budget_text(amount: float) -> str:
    """A budget as the advisor's texts say it: '$0.50', '$9.99' (cents under $10: a budget of $0.50 was
    said '$0'), '$3,540' from $10 ('$12.50' where it has cents), and under a cent the figures typed, up
    to four significant ('$0.0015', '$0.004': its first figure alone said 0.0015 as '$0.002', above a
    row at $0.0019 it kept out)."""
    if amount >= 10:  # a budget with cents keeps them: "$12" for 12.5 reads as another budget
        return f"${amount:,.0f}" if amount == round(amount) else f"${amount:,.2f}"
    if amount >= 0.01 or amount <= 0:
        return f"${amount:.2f}"
    text = money_text(amount, figures=4)
    return text.rstrip("0") if "." in text and len(text.rpartition(".")[2]) > 2 else text


def over_budget_usd(cost: float, budget: float) -> str:
    """A cost over a budget, as :func:`usd` writes it, with the figures it takes to read above the
    budget's :func:`budget_text` ("costs $0.00152, over the $0.0015 budget", never "$0.0015 ... $0.0015")."""

    def value(text: str) -> float:
        return float(text.lstrip("$").replace(",", ""))

    said = usd(cost)
    for more in range(5):
        if not value(said) <= value(budget_text(budget)) < cost:
            break  # ($100.40 over $100: the cents, then a figure more at a time)
        said = money_text(cost, figures=3 + more) if cost < 0.01 else f"${cost:,.{2 + more}f}"
    return said


def gib_text(x_gb: float) -> str:
    """GB (1e9 bytes, the estimator's unit) as a figure of GiB, without the unit: the unit GPU memory is
    sold in (an "80 GB" H100 holds 80 GiB), as the model pages, the advisor's memory card and the FAQ
    write it."""
    return _gb(gib(x_gb))


_gib = gib_text  # the reasons' short name for it


def distinct_gib_texts(a_gb: float, b_gb: float) -> tuple[str, str]:
    """Two GB figures as GiB texts (as :func:`gib_text`) with the decimals it takes for them to read
    apart, so that "larger than" never sits between two equal-looking figures ("15 GiB ... larger than
    the weights (15 GiB)" reads 15.4 and 15.0)."""
    a, b = gib_text(a_gb), gib_text(b_gb)
    for places in (1, 2):
        if a != b:
            break
        a, b = f"{gib(a_gb):.{places}f}", f"{gib(b_gb):.{places}f}"
    return a, b


def _gb(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def _tokens(x: float) -> str:
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.0f}"


def _users_and_running(ctx: RowContext) -> tuple[int, int]:
    """(users one replica carries at the operating point, sequences it runs at once: at most those)."""
    s, e = ctx.ev.summary, ctx.ev.estimate
    users = (s.batch_per_replica if s is not None else None) or 1
    return users, (max(1, min(users, e.batch)) if e is not None and e.batch else users)


def held_tokens(ctx: RowContext, running: int) -> int:
    """The tokens each of ``running`` requests holds in the cache: its whole length, or less where the
    engine's cache grows as it generates (``Estimate.kv_grows``: ``estimate.serving.steady_context``)."""
    w, e = ctx.workload, ctx.ev.estimate
    assert isinstance(w, ServeWorkload | BatchWorkload)
    if e is not None and e.kv_grows:
        from gpuscout.estimate.serving import steady_context

        return steady_context(w.prompt_tokens, w.output_tokens, running)
    return w.prompt_tokens + w.output_tokens


def kv_needed_gb(ctx: RowContext) -> float | None:
    """KV cache one replica holds at the operating point: bytes/token x context x the sequences it runs
    (the users beyond the engine's cap on running sequences wait in its queue, holding none; an engine
    whose cache grows on demand holds less than their whole length: ``steady_context``). The bytes
    per token are those held at that context: sliding-window layers (Gemma 2/3, gpt-oss) keep only their
    window's last tokens (``estimate.kv_cache.kv_bytes_per_token_at``)."""
    w, ev = ctx.workload, ctx.ev
    if not isinstance(w, ServeWorkload | BatchWorkload) or ev.estimate is None or ev.summary is None:
        return None
    per_token = ev.estimate.memory.kv_bytes_per_token
    _, running = _users_and_running(ctx)
    if per_token <= 0:
        return ev.estimate.memory.kv_cache_gb * ev.tp
    from gpuscout.errors import GpuscoutError
    from gpuscout.estimate.kv_cache import kv_bytes_per_token, kv_bytes_per_token_at
    from gpuscout.estimate.precision import resolve_kv_dtype
    from gpuscout.knowledge.models import resolve_model

    tokens = held_tokens(ctx, running)

    try:  # the model the estimate sized (the ranker's, else by its curated name), and its cache dtype
        kv = resolve_kv_dtype(ev.estimate.kv_dtype)
        spec = ctx.model if ctx.model is not None else resolve_model(ev.estimate.model)
    except GpuscoutError:  # a name no registry the row knows holds: every layer at full context
        spec = None
    # the same model only when its full-context bytes per token are the estimate's (an imported model
    # may share a curated name; a test's estimator may size another)
    if spec is not None and abs(kv_bytes_per_token(spec, kv) - per_token) <= 1e-9 * per_token:
        per_token = kv_bytes_per_token_at(spec, kv, tokens, layer_windows=ev.estimate.memory.kv_layer_windows)
    return per_token * tokens * running / 1e9


def explain(ctx: RowContext) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(reasons, warnings) for one row. Reasons come most telling first."""
    reasons: list[str] = []
    warnings: list[str] = []
    w, ev, offer = ctx.workload, ctx.ev, ctx.offer
    s = ev.summary
    acc = ev.accelerator
    acc_name = acc.name if acc is not None else offer.accelerator
    # 0. what was changed so it runs at all
    if ev.substitution:
        reasons.append(ev.substitution)
    # 1. memory / fit
    if s is not None:
        llm = isinstance(w, ServeWorkload) or (isinstance(w, BatchWorkload) and not w.is_images)
        if llm and isinstance(w, ServeWorkload | BatchWorkload):
            kv = kv_needed_gb(ctx)
            weights_total = s.model_weights_gb or s.weights_gb * ev.tp
            # what the GPUs hold (llama.cpp keeps the token embedding table in host memory; weights whole
            # on every GPU, data-parallel attention, count once; a layer split's GPUs hold unequal shares,
            # ``weights_gb`` its fullest one's)
            on_gpus = ev.estimate.memory.gpus_weights_total_gb(ev.tp) if ev.estimate else s.weights_gb * ev.tp
            held = min(weights_total, on_gpus)
            off = weights_total - held
            host = f"{_gib(off)} GiB more in host memory" if off > 0.01 * weights_total else ""
            if ev.tp == 1:
                reasons.append(
                    f"fits 1x {acc_name}: {_gib(s.memory_per_gpu_gb)} of {_gib(s.memory_capacity_gb)} GiB "
                    f"(weights {_gib(held)} GiB{', ' + host if host else ''}, KV {_gib(kv or 0.0)} GiB)"
                )
            else:
                # some weights whole on every GPU (data-parallel attention): say what each GPU holds
                each = ""
                if on_gpus > weights_total * 1.01 and not ev.layer_split:
                    each = f"; {_gib(s.weights_gb)} GiB of weights on each, the attention whole"
                if host:
                    each += f"; {host}"
                # a cache copied rather than split (MLA's latent cache whole on each GPU, KV heads fewer than
                # the split copied) is said per GPU: "KV 2.4 GiB over 8 GPUs" read as shared by the eight
                copied = bool(kv) and not ev.layer_split and s.kv_cache_gb * ev.tp > 1.05 * (kv or 0.0)
                split = (
                    f"weights {_gib(held)} GiB over {ev.tp} GPUs + KV {_gib(s.kv_cache_gb)} GiB on each GPU"
                    if copied
                    else f"weights {_gib(held)} GiB + KV {_gib(kv or 0.0)} GiB over {ev.tp} GPUs"
                )
                reasons.append(
                    f"fits {ev.tp}x {acc_name}: {_gib(s.memory_per_gpu_gb)} of "
                    f"{_gib(s.memory_capacity_gb)} GiB per GPU ({split}{each})"
                )
            if kv is not None and kv > weights_total:
                users, running = _users_and_running(ctx)
                held, full = held_tokens(ctx, running), w.prompt_tokens + w.output_tokens
                ctx_k = held / 1000  # what each running request holds
                grown = (
                    f" held each (of {full / 1000:.3g}k: the cache grows as they generate)"
                    if held < full
                    else ""
                )
                served = f"{users} {plural(users, 'user')}"
                who = served if running >= users else f"{running} running ({served})"
                kv_text, weights_text = distinct_gib_texts(kv, weights_total)
                reasons.insert(
                    0,
                    (
                        f"KV cache {kv_text} GiB at {ctx_k:.3g}k{grown} x {who} — larger than "
                        f"the weights ({weights_text} GiB)"
                    ),
                )
        elif isinstance(w, BatchWorkload):
            # an image model runs whole on each GPU, one replica a GPU: it fits one (as an LLM row says
            # it), not the instance's eight ("fits 8x RTX6000-Ada" beside "model fits one GPU: 8 replicas")
            per_gpu = " per GPU" if ev.tp > 1 else ""
            reasons.append(
                f"fits {ev.tp}x {acc_name}: {_gib(s.memory_per_gpu_gb)} of "
                f"{_gib(s.memory_capacity_gb)} GiB{per_gpu}"
            )
        else:  # training: every GPU of its nodes holds its share
            reasons.append(
                f"fits {ev.gpus_per_instance * ev.nodes}x {acc_name}: {_gib(s.memory_per_gpu_gb)} of "
                f"{_gib(s.memory_capacity_gb)} GiB per GPU"
            )
    # 2. speed
    if s is not None:
        if isinstance(w, ServeWorkload):
            reasons.append(
                f"{s.per_user_tokens_per_s or 0:.0f} tok/s per user, TTFT {s.ttft_ms or 0:.0f} ms at "
                + (
                    f"{s.batch_per_replica} running per replica (requests arriving at random)"
                    if w.requests_per_s is not None
                    else f"{s.batch_per_replica} {plural(s.batch_per_replica, 'user')}/replica"
                )
                + (f" ({s.bound_words})" if s.bound_words else "")
            )
            if s.capacity_users is not None and s.capacity_tokens_per_s is not None:
                limit = _CAPACITY_LIMIT[s.capacity_limit or "KV cache"]
                ctx_k = (w.prompt_tokens + w.output_tokens) / 1000
                replicas = ev.instances * ev.replicas_per_instance
                each = f" ({s.capacity_users // replicas:,} per replica)" if replicas > 1 else ""
                reasons.append(
                    f"sustains up to {s.capacity_users:,} {plural(s.capacity_users, 'user')}{each}, "
                    f"{s.capacity_tokens_per_s:,.0f} tok/s ({limit} at {ctx_k:.3g}k tokens)"
                )
        elif isinstance(w, BatchWorkload) and w.is_images:
            run = f" ({s.engine}, {s.precision})" if s.engine and s.precision else ""
            reasons.append(
                f"{s.throughput:.2f} img/s{run} -> {duration(ev.time_s)} for {w.images_total:,} images"
                + _batch_added(ctx)
            )
        elif isinstance(w, BatchWorkload):
            prompts = f" ({s.bound_words})" if (s.prefill_share or 0.0) >= 0.5 else ""
            reasons.append(
                f"{s.throughput:,.0f} tok/s{prompts} -> {duration(ev.time_s)} for "
                f"{_tokens(ev.output_tokens)} output tokens" + _batch_added(ctx)
            )
        else:
            reasons.append(_training_speed(ev.time_s, s.throughput, ev.train_tokens) + _batch_added(ctx))
    # 3. what it costs, in the workload's unit
    # (totals as the table's total column writes them, ``usd``: "$90.71/month", "$140,720 per run")
    u = ctx.units
    if u.per_million_output_tokens is not None:
        month = f", {usd(u.per_month, '/month')}" if u.per_month is not None else ""
        # a request mostly prompt (32k in, 100 out): its own price, which $/M output tokens hides
        heavy = (
            isinstance(w, ServeWorkload | BatchWorkload) and w.prompt_tokens >= PROMPT_HEAVY * w.output_tokens
        )
        each = f", {money3(u.per_1k_requests)} per 1k requests" if heavy and u.per_1k_requests else ""
        reasons.append(f"{money3(u.per_million_output_tokens)}/M output tokens{each}{month}")
    elif u.per_image is not None:
        reasons.append(f"{money3(u.per_image * 1000)} per 1000 images, {usd(ctx.cost.total, ' in all')}")
    elif u.per_run is not None:
        reasons.append(usd(u.per_run, " per run"))
    # 4. shape of the configuration
    _config_reasons(ctx, reasons, warnings)
    # 5. billing, spot
    _billing_reasons(ctx, reasons, warnings)
    _spot_reasons(ctx, reasons, warnings)
    _failure_reasons(ctx, reasons)
    _host_listing_warnings(ctx, warnings)
    # 6. hardware and data caveats
    arm = arm_host(offer.provider, offer.instance_type, offer.accelerator)
    if arm is not None:
        warnings.append(
            f"Arm host ({arm}, aarch64): x86-64 images and wheels do not run; check that the engine has an "
            "aarch64 build"
        )
    _warnings(ctx, warnings)
    # most serious first: a face that shows one warning of a row shows the one that matters
    return tuple(reasons), tuple(sorted(dict.fromkeys(warnings), key=warning_severity))


#: A row's warnings in three tiers, said in this order (:func:`warning_severity`): what can make the run
#: fail or go wrong (support, precision, memory, fabric, host), then an estimate the calibration does
#: not back, then what the price rests on (an assumed billing increment, price age, storage or egress
#: price). Stated once here, for every face (the web's Note column shows a row's first).
CALIBRATION_WARNINGS = ("uncalibrated", "speed rests on few rows")
PRICING_WARNINGS = (
    "billing increment unknown",
    "price age unknown",
    "egress price unknown",
    "storage price unknown",
)


def warning_severity(text: str) -> int:
    """0 for a risk to the run itself, 1 for an uncalibrated speed, 2 for a price assumption
    (:data:`CALIBRATION_WARNINGS`, :data:`PRICING_WARNINGS`); a sort key, stable within a tier."""
    if text.startswith(PRICING_WARNINGS):
        return 2
    if any(word in text for word in CALIBRATION_WARNINGS):
        return 1
    return 0


def late_chance(miss: float, due: str, allowed: float | None = None) -> str:
    """'~15% chance of missing the 2.0 h deadline with spot reclaims' (``spot.deadline_miss``); to a
    tenth of a percent where whole percents would read as ``allowed`` itself."""
    pct = f"{miss:.0%}"
    if allowed is not None and pct == f"{allowed:.0%}":
        pct = f"{miss:.1%}"
    return f"~{pct} chance of missing the {due} deadline with spot reclaims"


def _batch_added(ctx: RowContext) -> str:
    """What a job row's time (batch, fine-tuning, pre-training) adds to the work at its speed, as the
    table's time does (``rank._job_time``): "+ 4 min warm-up + 9 min lost to spot reclaims = 17.7 h";
    nothing under a second."""
    cm, n = ctx.cm, ctx.ev.instances
    warm = cm.warmup_s_per_start
    rework = cm.interruption_h * 3600.0 / n if cm.interruption_h > 0 and n > 0 else 0.0
    added = ""
    if warm >= 1.0:
        added += f" + {duration(warm)} warm-up (boot, download, load)"
    if rework >= 1.0:
        added += f" + {duration(rework)} lost to {'spot reclaims' if ctx.spot else 'GPU and host failures'}"
    if not added:
        return ""
    said = f"{added} = {duration(ctx.ev.time_s + warm + rework)}"
    deadline = getattr(ctx.workload, "deadline_hours", None)
    if ctx.spot and cm.deadline_miss is not None and cm.deadline_miss >= DEADLINE_MISS_SAID and deadline:
        said += f" ({late_chance(cm.deadline_miss, duration(deadline * 3600.0))})"
    return said


def _training_speed(time_s: float, tokens_per_s: float, tokens: float) -> str:
    """'82,033 train tok/s -> 28.2 days for 200B tokens + 1.7 days writing checkpoints': the row's time
    is the training at that speed and the checkpoint saves (``training_configs.checkpoint_save_s``)."""
    training_s = tokens / tokens_per_s if tokens_per_s > 0 else time_s
    saving_s = time_s - training_s
    text = f"{tokens_per_s:,.0f} train tok/s -> {duration(training_s)} for {_tokens(tokens)} tokens"
    if saving_s >= 1.0:
        text += f" + {duration(saving_s)} writing checkpoints"
    return text


def _training_storage(ctx: RowContext) -> str | None:
    """What a training row stores after the run, when it is kept (``storage_retention_days``): the
    trained weights or adapter only, the checkpoints deleted at the end."""
    from gpuscout.advise.cost import CHECKPOINTS_KEPT, full_training

    w, ev = ctx.workload, ctx.ev
    days = w.storage_retention_days
    if not isinstance(w, FinetuneWorkload | PretrainWorkload) or days <= 0:
        return None
    what = "the trained weights" if full_training(w) else "the adapter"
    return (
        f"stored {days:g} {plural(days, 'day')} after the run: {what} ({ctx.cm.retained_gb:,.3g} GB); "
        f"the checkpoints ({ev.checkpoint_gb:,.3g} GB each, the last {CHECKPOINTS_KEPT} kept during the run) "
        "deleted at the end"
    )


def _pipeline_flag(ev: ConfigEval) -> str:
    """', --pipeline-parallel-size 4 on vllm': how to start the row's pipeline ("" for an unknown engine)."""
    if ev.estimate is None:
        return ""
    from gpuscout.estimate.engines import resolve_engine

    try:
        flag = resolve_engine(ev.estimate.engine).pipeline_flag
    except GpuscoutError:
        return ""
    return f", {flag} {ev.tp} on {ev.estimate.engine}" if flag else ""


def _config_reasons(ctx: RowContext, reasons: list[str], warnings: list[str]) -> None:
    w, ev, offer = ctx.workload, ctx.ev, ctx.offer
    g = ev.gpus_per_instance
    if isinstance(w, ServeWorkload | BatchWorkload):
        if ev.tp == 1 and g > 1:
            reasons.append(f"model fits one GPU: {ev.replicas_per_instance} replicas, not split")
        elif ev.tp > 1:
            if ev.parallel == "pipeline":
                how = (
                    f"by layers over {ev.tp} GPUs as a pipeline (PP{ev.tp}{_pipeline_flag(ev)}: whole layers "
                    "per GPU with a batch in flight on each, so the GPUs work at once, though a token is no "
                    "faster than on one GPU)"
                )
            elif ev.layer_split:
                how = (
                    f"by layers over {ev.tp} GPUs (the engine's layer split: whole layers per GPU, taking "
                    "turns, so a token is no faster than on one GPU)"
                )
            else:
                how = f"over {ev.tp} GPUs (TP{ev.tp})"
            why = f": {ev.split_why}" if ev.split_why else ""
            reasons.append(f"model split {how}{why}")
        slower = (
            f" ~{ev.pcie_tp_slowdown:.0%} slower than NVLink"
            if ev.pcie_tp_slowdown
            else " slowed by the all-reduce over PCIe"
        )
        if (
            ev.tp == 2
            and offer.interconnect != Interconnect.NVLINK
            and not ev.layer_split
            and ev.accelerator is not None
            and sold_as_bridged_pair(ev.accelerator)
        ):  # H100 NVL: the pair's all-reduces cross its NVLink bridges (estimate.parallel.gpu_link), whether
            # the offer says PCIe or nothing
            warnings.append(
                _over_bridges(
                    f"TP2 over the {ev.accelerator.name} pair's NVLink bridges", "the all-reduces go"
                )
            )
        elif ev.tp > 1 and ev.fabric_assumed and ev.layer_split:
            split = f"PP{ev.tp} pipeline" if ev.parallel == "pipeline" else f"{ev.tp}-way layer split"
            warnings.append(
                f"interconnect not stated by the source: the {split} costed over PCIe "
                f"(it passes one activation per token between GPUs, so PCIe costs it little)"
            )
        elif ev.tp > 1 and ev.fabric_assumed:
            warnings.append(
                f"interconnect not stated by the source: TP{ev.tp} costed over PCIe, decode{slower}"
            )
        elif ev.tp > 1 and offer.interconnect == Interconnect.PCIE and not ev.layer_split:
            warning = f"{ev.tp}x PCIe: tensor-parallel decode{slower}"
            if ev.accelerator is not None and lacks_peer_access(ev.accelerator):
                warning += (
                    f"; {ev.accelerator.name} cards have no peer-to-peer access, so the all-reduces go "
                    f"through host memory (timed at {HOST_STAGED_SHARE:.0%} of the PCIe bandwidth, an "
                    "assumption; no calibration row measures it)"
                )
            warnings.append(warning)
    elif g == 2 and ev.accelerator is not None and sold_as_bridged_pair(ev.accelerator):
        # training on an H100 NVL pair: its collectives cross the bridges (estimate.parallel.gpu_link)
        warnings.append(
            _over_bridges(
                f"the {ev.accelerator.name} pair's gradient exchange goes over its NVLink bridges", "it goes"
            )
        )
    elif ev.fabric_assumed:
        warnings.append(
            f"interconnect not stated by the source: the {g} GPUs' gradient exchange is costed over PCIe"
        )
    board = assumed_board_reason(ctx)
    if board is not None:
        reasons.append(board)
    if isinstance(w, ServeWorkload) and ev.summary is not None:
        if ev.instances > 1:
            if w.requests_per_s is not None:
                load = f"{w.requests_per_s:g} req/s"
            elif w.concurrency is None and w.offered_rate is not None:  # the volume alone: its rate
                load = f"the monthly volume ({rate_text(w.offered_rate)} req/s)"
            else:
                load = f"{w.users} {plural(w.users, 'user')}"
                if w.monthly_output_tokens is not None:
                    load += " generating the monthly volume"
            reasons.append(f"{ev.instances} instances to sustain {load}")
        elif w.requests_per_s is None and ev.summary.batch_per_replica:
            # replicas the load keeps busy (each holds batch_per_replica users), the rest idle
            busy = min(ev.replicas_per_instance, -(-w.users // ev.summary.batch_per_replica))
            idle = (ev.replicas_per_instance - busy) * ev.tp
            if idle > 0:
                warnings.append(
                    f"{idle} of {g} GPUs idle at {w.users} {plural(w.users, 'user')}: a "
                    f"smaller instance would do"
                )
    if isinstance(w, BatchWorkload) and ev.instances > 1 and w.deadline_hours is not None:
        reasons.append(_deadline_instances(ctx, w.deadline_hours))
    elif isinstance(w, BatchWorkload) and ev.instances > 1:
        reasons.append(_free_instances(ctx))
    if isinstance(w, FinetuneWorkload | PretrainWorkload) and ev.nodes > 1:
        reasons.append(f"{ev.nodes} nodes x {g} GPUs over {offer.internode}")
    stored = _training_storage(ctx)
    if stored is not None:
        reasons.append(stored)


#: How an offer's source named its GPU, where the offer's notes quote it (the accelerator table's note
#: on a name that leaves the variant unstated: "form factor not stated in 'H200'; assumed H200-SXM").
_NOT_STATED = re.compile(r"not stated in '([^']+)'")
#: What a name leaves unstated that leaves the board, and so its fabric, assumed.
_BOARD_UNSTATED = ("form factor", "variant")


def _over_bridges(head: str, what_goes: str) -> str:
    """A row's words where an H100 NVL pair's collectives are timed over its NVLink bridges
    (``estimate.parallel.sold_as_bridged_pair``): ``head``, then the assumption and what it would cost."""
    return (
        f"{head}: the card is sold as a bridged pair and the bridges are assumed installed (without them "
        f"{what_goes} over PCIe, slower)"
    )


def assumed_board_reason(ctx: RowContext) -> str | None:
    """The line that says an offer's board was assumed where that changes the row's timing: its source
    names the GPU without its board ("H200": SXM5 or NVL?), the default board was taken with the fabric
    it sits on (``catalog.normalize.assumed_fabric_note``, in the offer's notes), and the row's GPUs
    exchange data over that fabric, which a board of the other kind would not have (an all-reduce over
    NVLink, or over PCIe). ``None`` otherwise: one GPU, a layer split (one activation per token between
    GPUs), a fabric the source does not state at all (the row's PCIe warning says so), a family whose
    boards share one fabric, or a variant assumed for its memory or edition alone."""
    w, ev, offer = ctx.workload, ctx.ev, ctx.offer
    acc = ev.accelerator
    if offer.extra.get("variant") != "assumed" or acc is None or ev.fabric_assumed:
        return None
    if isinstance(w, ServeWorkload | BatchWorkload):
        if ev.tp <= 1 or ev.layer_split:
            return None
        who = f"TP{ev.tp}"
    elif ev.gpus_per_instance > 1:
        who = f"the {ev.gpus_per_instance} GPUs' exchanges"
    else:
        return None
    from gpuscout.knowledge.accelerators import find_gpu, gpu_family, resolve_gpu

    said = offer.extra.get("gpu_name_source") or ""
    hit = _NOT_STATED.search(offer.notes or "")
    if not said and hit is not None:
        said = hit.group(1)
    found = find_gpu(said) if said else None
    if found is not None and found.exact:
        return None  # the source's name pins the part down: nothing of it was assumed here
    if found is not None and not any(x in found.note.split(" not stated in ", 1)[0] for x in _BOARD_UNSTATED):
        return None  # its memory size or edition was assumed, not its board
    try:
        family = gpu_family(said or offer.accelerator.split("-")[0])
    except GpuscoutError:
        return None
    others = [a for a in map(resolve_gpu, family) if a.has_nvlink_class_fabric != acc.has_nvlink_class_fabric]
    if not others:
        return None
    other = others[0]
    source = f"the source says only {said!r}" if said else "the source does not say which"
    other_fabric = _fabric_words(other) if other.has_nvlink_class_fabric else "PCIe"
    speed = f" at {acc.interconnect_gbps:,.0f} GB/s" if acc.interconnect_gbps else ""
    board = next(iter(acc.form_factor.split()), acc.name)  # "SXM5" of "SXM5", "PCIe" of "PCIe dual-slot"
    return (
        f"{BOARD_ASSUMED}{board} ({source}): {who} timed over {_fabric_words(acc)}"
        f"{speed} (over {other_fabric} on the {other.name})"
    )


def _fabric_words(acc: Accelerator) -> str:
    """The fabric an accelerator's GPUs talk over, in a few words: "NVLink 4", "Infinity Fabric",
    "PCIe Gen5 x16" (the table's text without its details)."""
    return re.split(r" \(|;", acc.interconnect or "PCIe")[0].strip()


def _deadline_instances(ctx: RowContext, deadline_hours: float) -> str:
    """'3 instances to meet the 10.0 h deadline', for a spot row that takes more than the deadline needs
    without reclaims how many more and why, and where its billing spreads it over more within the front's
    cost tolerance (``rank.billing_sized``), how many and why."""
    n = ctx.ev.instances
    need = ctx.needed_instances or n
    due = duration(deadline_hours * 3600.0)
    extra = need - (ctx.on_demand_instances or need)
    reclaims = f" ({extra} more for the expected spot reclaims)" if ctx.spot and extra > 0 else ""
    if need >= n:
        # no on-demand row may exist to compare
        return f"{n} instances to meet the {due} deadline{reclaims}{_step_words(ctx)}{_budget_words(ctx)}"
    meet = plural(need, "meets", "meet")
    return (
        f"{n} instances: {need} {meet} the {due} deadline{reclaims}, and {n} are billed "
        f"{_than_fewest(ctx, f'{need} would be')} ({_spread_words(ctx)}), each doing 1/{n} of the work"
        f"{_step_words(ctx)}{_budget_words(ctx)}"
    )


def _than_fewest(ctx: RowContext, fewest: str) -> str:
    """'no more than one instance alone would be', or '2.1 % more than one instance alone would be
    (within the front's 5 % cost tolerance)': a spread batch's billed hours against its fewest instances'
    (``rank.billing_sized``). The counts are compared by their expected bills under the estimate's time
    error (``fleet_billing.expected_billed_h``): where the nominal bill is more than the tolerance above
    the fewest's (the fewest end just short of a coarse step, so their nominal bill is the lucky case), it
    says so."""
    base = ctx.needed_billed_h
    if base is None or base <= 0 or ctx.cm.billed_h <= base * (1.0 + 1e-9):
        return f"no more than {fewest}"
    more = (ctx.cm.billed_h / base - 1.0) * 100.0
    tol = f"the front's {COST_TOLERANCE:.0%} cost tolerance"
    if ctx.cm.billed_h <= base * (1.0 + COST_TOLERANCE) + 1e-9:
        return f"{more:.1f} % more than {fewest} (within {tol})"
    return (
        f"{more:.1f} % more than {fewest} (as estimated; expected within {tol} when the time is off by the "
        f"estimate's {BATCH_TIME_ERROR:.0%} error)"
    )


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _step_words(ctx: RowContext) -> str:
    """'; each instance ends 0.1 % before its 3rd billed hour: if it runs slower than estimated, each
    instance bills a 4th hour (expected under the estimate's 29 % time error: 16 % above the cost shown)':
    a spread batch whose instances end close to a coarse billing step (``fleet_billing.billing_step``), so
    that its expected bill (``fleet_billing.expected_billed_h``) is more than the front's cost tolerance
    above the nominal one the row shows; "" otherwise."""
    step = billing_step(ctx.ev, ctx.cm)
    if step is None or ctx.cm.billed_h <= 0:
        return ""
    w, a = ctx.workload, ctx.assumptions
    expected = expected_billed_h(ctx.ev, w, ctx.terms, ctx.spot, a)
    above = expected / ctx.cm.billed_h - 1.0
    if above <= COST_TOLERANCE:
        return ""
    hours = step.billed_s / 3600.0
    hourly = (
        ctx.cm.increment_s in (3600, None) and hours == round(hours) and step.next_s - step.billed_s == 3600
    )
    if hourly:
        now, then = f"its {_ordinal(round(hours))} billed hour", f"a {_ordinal(round(hours) + 1)} hour"
    else:
        now, then = f"its billed {duration(step.billed_s)}", duration(step.next_s)
    return (
        f"; each instance ends {step.room:.1%} before {now}: if it runs slower than estimated, each instance "
        f"bills {then} (expected under the estimate's {BATCH_TIME_ERROR:.0%} time error: {above:.0%} above "
        "the cost shown)"
    )


def _budget_words(ctx: RowContext) -> str:
    """'; not the 7 instances its billing would spread it over: they cost $8.12, over the $7.85 budget':
    a batch the budget keeps on fewer instances than the most within the cost tolerance
    (``Ranker.under_budget``); "" otherwise."""
    w = ctx.workload
    if ctx.over_budget is None or not isinstance(w, BatchWorkload) or w.budget_usd is None:
        return ""
    k, cost = ctx.over_budget
    return (
        f"; not the {k} instances its billing would spread it over: they cost "
        f"{over_budget_usd(cost, w.budget_usd)}, over the {budget_text(w.budget_usd)} budget"
    )


def _spread_words(ctx: RowContext) -> str:
    """What a batch spread over instances is billed (``rank.billing_sized``): '3.0 instance-hours in all,
    billed per-hour with a 1 min minimum'."""
    cm = ctx.cm
    step = (
        "as assumed per-hour: the increment is unknown"
        if cm.increment_s is None
        else describe_increment(cm.increment_s)
    )
    if cm.minimum_s:
        step += f" with a {duration(float(cm.minimum_s))} minimum"
    return f"{cm.billed_h:,.1f} instance-hours in all, billed {step}"


def _free_instances(ctx: RowContext) -> str:
    """A batch without a deadline spread over instances that cost no more than one, or more within the
    front's cost tolerance (``rank.billing_sized``): '3 instances at no extra cost: billed no more than one
    instance alone would be (3.0 instance-hours in all, billed per-hour), each doing 1/3 of the work', or
    '3 instances for 1.7 % more: billed 1.7 % more than one instance alone would be (within the front's
    5 % cost tolerance) (...)'."""
    n = ctx.ev.instances
    than = _than_fewest(ctx, "one instance alone would be")
    head = "at no extra cost" if than.startswith("no more") else f"for {than.split(' more ', 1)[0]} more"
    return (
        f"{n} instances {head}: billed {than} ({_spread_words(ctx)}), each doing 1/{n} of the work"
        f"{_step_words(ctx)}{_budget_words(ctx)}"
    )


#: How the reason saying what billing rounds up starts (:func:`billing_rounding`): the faces find it by
#: it to show it beside the cost breakdown (``compute`` holds the rounding).
BILLING_ROUNDING = "billing rounds up: "


def billing_rounding(ctx: RowContext) -> str:
    """An endpoint stopped each night: the hours billed a day against the hours it is up, and the
    instance-hours of the month that ``compute`` and ``warmup`` together cost at the row's price, so the
    breakdown adds up from what is shown ("billing rounds up: 9.0 h billed a day for 8.0 h active + 1.6 min
    warm-up (per-hour billing); compute + warm-up = 270.0 instance-h x $0.1381/h"); an unknown increment
    (billed per hour) is left to the row's warning. "" where billing adds under 0.05 h a day (per-second or
    per-minute billing, a start of whole increments)."""
    w, cm = ctx.workload, ctx.cm
    if not isinstance(w, ServeWorkload) or cm.billed_h_per_day is None or cm.exact_h_per_day is None:
        return ""
    billed, up = cm.billed_h_per_day, cm.exact_h_per_day
    if f"{billed:.1f}" == f"{up:.1f}":
        return ""
    inc = cm.increment_s
    # an unknown increment is said once, by the row's warning (``_billing_reasons``), not here too
    how = [f"{describe_increment(inc)} billing"] if inc is not None else []
    if cm.minimum_s and billed * 3600.0 <= cm.minimum_s * w.starts_per_day + 1e-6:
        how.append(f"a {duration(cm.minimum_s)} minimum a start")
    terms = f" ({', '.join(how)})" if how else ""
    n = ctx.ev.instances
    each = f" on each of {n} instances" if n > 1 else ""
    warm = duration(cm.warmup_s_per_start * w.starts_per_day)
    hours = cm.compute_h + cm.warmup_h
    return (
        f"{BILLING_ROUNDING}{billed:.1f} h billed a day{each} for {w.active_hours_per_day:.1f} h active + "
        f"{warm} warm-up{terms}; compute + warm-up = {hours:,.1f} instance-h x {_exact_usd(ctx.hourly)}/h"
    )


def _exact_usd(x: float) -> str:
    """A price to the cent or as finely as it is stated (to 1/100 cent): '$0.1381', '$2.58', '$35.20', for
    figures that must multiply out to the breakdown's."""
    text = f"{x:,.4f}".rstrip("0")
    whole, _, cents = text.partition(".")
    return f"${whole}.{cents.ljust(2, '0')}"


def _billing_reasons(ctx: RowContext, reasons: list[str], warnings: list[str]) -> None:
    w, cm = ctx.workload, ctx.cm
    inc = describe_increment(cm.increment_s)
    if isinstance(w, ServeWorkload) and w.is_bursty and cm.billed_h_per_day is not None:
        exact = cm.exact_h_per_day or 0.0
        billed = cm.billed_h_per_day
        billing = f"{inc} billing" if cm.increment_s is not None else inc  # "unknown billing increment (...)"
        text = f"{billing}: {w.bursts_per_day} bursts of {w.burst_minutes:g} min bill {billed:.1f} h/day"
        # compared with per-second billing only where the two differ ("2.5 h/day here vs 2.5 h" compared a
        # figure with itself: per-second billing, or bursts of whole increments)
        if f"{billed:.1f}" != f"{exact:.1f}":
            text += f" here vs {exact:.1f} h at per-second billing"
        elif cm.increment_s != 1:
            text += ", as per-second billing would"
        reasons.append(text)
        if exact > 0 and cm.billed_h_per_day > 1.2 * exact:
            warnings.append(text)
    elif isinstance(w, ServeWorkload) and cm.billed_h_per_day is not None:
        rounding = billing_rounding(ctx)
        if rounding:
            reasons.append(rounding)
    elif (
        not isinstance(w, ServeWorkload)
        and cm.increment_s is not None
        and cm.increment_s >= 3600
        and ctx.ev.time_s < 3 * 3600
    ):
        warnings.append(f"per-hour billing: a {duration(ctx.ev.time_s)} job is billed in whole hours")
    if cm.increment_s is None:
        warnings.append("billing increment unknown: assumed per-hour")


def _spot_reasons(ctx: RowContext, reasons: list[str], warnings: list[str]) -> None:
    if not ctx.spot or ctx.cm.risk is None:
        return
    w, offer, cm = ctx.workload, ctx.offer, ctx.cm
    risk = cm.risk
    assert risk is not None
    saving = ""
    if offer.price_usd_per_hour:
        pct = 1.0 - ctx.hourly / offer.price_usd_per_hour
        saving = f"spot {pct:.0%} cheaper" if pct >= 0 else f"spot {-pct:.0%} dearer"
    if ctx.interruptible_price:
        saving = "interruptible price (auction / bid): costed as spot"
    if isinstance(w, ServeWorkload):
        per_month = risk.expected_interruptions * ctx.ev.instances
        warnings.append(
            f"spot endpoint: ~{per_month:.1f} reclaims/month, each ~"
            f"{duration(risk.lost_s_per_interruption)} down"
        )
        if saving:
            reasons.append(saving)
        return
    work_h = cm.compute_h
    share = cm.interruption_h / work_h if work_h > 0 else 0.0
    interval = risk.checkpoint_interval_s
    if interval is None or not math.isfinite(interval):
        ckpt = ""
    elif isinstance(w, FinetuneWorkload | PretrainWorkload) and w.checkpoint_interval_min is None:
        ckpt = f" with a checkpoint every {duration(interval)} (Young's interval for these interruptions)"
    else:
        ckpt = f" with a checkpoint every {duration(interval)}"
    n = ctx.ev.instances
    reclaims = risk.rate_per_hour - risk.failures_per_hour
    if n > 1 and not isinstance(w, BatchWorkload):  # a training run's nodes stop together
        rate = f"{reclaims / n:g} reclaims/h per node assumed for {ctx.terms.kind}, x {n} nodes"
    else:
        rate = f"{reclaims:g} reclaims/h assumed for {ctx.terms.kind}"
    if risk.failures_per_hour > 0:
        rate += f", and GPU failures ({risk.failures_per_hour:.2g}/h)"
    reload = ""
    if isinstance(w, FinetuneWorkload | PretrainWorkload):
        from gpuscout.advise.cost import full_training

        per_node = ctx.ev.checkpoint_gb / max(1, n)
        share_of = f"{per_node:,.3g} GB per node" if n > 1 else f"{per_node:,.3g} GB"
        # LoRA/QLoRA's checkpoint is the adapter alone: the frozen base is fetched and loaded again, and
        # is most of the reload ("the last checkpoint (2.07 GB) and the data: 6 min" hid a 141 GB fetch)
        base = "" if full_training(w) else f"the frozen base weights ({ctx.ev.load_gb:,.3g} GB), "
        reload = (
            f"; a reclaim reloads {base}the last checkpoint ({share_of}) and the data: "
            f"{duration(cm.reload_s)} after a {duration(ctx.assumptions.restart_s)} restart"
        )
    reasons.append(f"{saving + '; ' if saving else ''}~{share:.0%} rework expected{ckpt} ({rate}){reload}")


#: The share of a training run's compute below which its on-demand row does not spell out the rework
#: GPU and host failures cost (it is still costed).
FAILURE_SHARE_SAID = 0.005


def _failure_reasons(ctx: RowContext, reasons: list[str]) -> None:
    """An on-demand training row's words for what its GPUs' and hosts' failures cost (``cost``: the
    run stops on any of them, rework since the last checkpoint, a restart and a reload), where that
    reaches :data:`FAILURE_SHARE_SAID` of its compute; a spot row says it with its reclaims."""
    risk, cm = ctx.cm.risk, ctx.cm
    if ctx.spot or risk is None or risk.failures_per_hour <= 0 or cm.compute_h <= 0:
        return
    share = cm.interruption_h / cm.compute_h
    if share < FAILURE_SHARE_SAID:
        return
    gpus = ctx.ev.instances * ctx.ev.gpus_per_instance
    interval = risk.checkpoint_interval_s
    every = (
        f"; a checkpoint every {duration(interval)}"
        if interval is not None and math.isfinite(interval)
        else ""
    )
    per_gpu = ctx.assumptions.hardware_interruptions_per_gpu_hour
    reload = f" and a {duration(cm.reload_s)} reload" if cm.reload_s >= 1.0 else ""
    reasons.append(
        f"~{share:.0%} rework expected for GPU and host failures ({risk.failures_per_hour:.2g}/h over "
        f"{gpus:,} GPUs, {per_gpu:.2g} per GPU-hour){every}; each a "
        f"{duration(ctx.assumptions.restart_s)} restart{reload}"
    )


#: An endpoint is billed by the month (``ServeWorkload``: a month of 30 days): a marketplace listing that
#: ends sooner means moving hosts within the month.
_SERVE_PERIOD_S = 30 * 86400.0


#: What a Vast.ai row of an endpoint up part of the day says (its cost stops the instance between its
#: hours up and starts it again): recalled from Vast.ai's documentation (the instance lifecycle: stopping
#: an instance), not read here: a stopped instance keeps its disk (storage is still billed) but not its
#: GPUs, which the host can rent to someone else meanwhile; starting it again then waits until they are
#: free. Said of Vast.ai only (:data:`STOPPED_HOST_PROVIDERS`): whether a stopped instance on the other
#: marketplaces (Akash, Lium, Mithril, Spheron, TensorDock) keeps its GPUs is not verified.
STOPPED_HOST_WARNING = (
    "a Vast.ai instance stopped between its hours up keeps its disk, not its GPUs: others may rent "
    "them meanwhile, and the next start can find them taken (then wait, or move hosts)"
)

#: The providers (catalog ids) whose stopped instances :data:`STOPPED_HOST_WARNING` describes (recalled).
STOPPED_HOST_PROVIDERS = frozenset({"vastai"})


def _host_listing_warnings(ctx: RowContext, warnings: list[str]) -> None:
    """What renting one host from a marketplace means for this work (provider kind "marketplace": Vast.ai,
    Lium, TensorDock...): an on-demand endpoint there has no uptime commitment from the provider (the host
    is someone's machine; Vast.ai lists a host reliability score, ``reliability2``), and a listing can end
    (Vast.ai's ``duration``: the longest rental the host offers, from when the row was fetched) before the
    job or the month does; on Vast.ai, an endpoint stopped between its hours up may find the host's GPUs
    rented (:data:`STOPPED_HOST_WARNING`). Spot rows already count their reclaims (:func:`_spot_reasons`)."""
    offer = ctx.offer
    if ctx.terms.kind != "marketplace":
        return
    w = ctx.workload
    if isinstance(w, ServeWorkload) and not ctx.spot:
        score = _float_or_none(offer.extra.get("reliability2"))
        listed = "host reliability not listed" if score is None else f"host reliability {score:.2%} (listed)"
        warnings.append(
            f"marketplace host: no uptime commitment from the provider, {listed}; an endpoint that must "
            "stay up wants a replica on a second host"
        )
    stopped = isinstance(w, ServeWorkload) and w.active_hours_per_day < 24 and w.starts_per_day > 0
    if stopped and offer.provider in STOPPED_HOST_PROVIDERS:
        warnings.append(STOPPED_HOST_WARNING)
    longest_s = _float_or_none(offer.extra.get("duration"))
    if longest_s is None:
        return
    needed_s = _SERVE_PERIOD_S if isinstance(w, ServeWorkload) else ctx.ev.time_s
    if longest_s < needed_s:
        what = "the month" if isinstance(w, ServeWorkload) else f"the {duration(needed_s)} job"
        warnings.append(
            f"host listed for at most {duration(longest_s)} (as fetched), shorter than {what}: it would "
            "move hosts when the listing ends"
        )


def _float_or_none(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


# A precision the engine runs other than natively, in a few words (the support rules' modes).
#: From this many instances of one offer whose free count the provider does not state, a row says to
#: check: a marketplace listing or a cloud's default quota rarely holds that many at once.
MANY_INSTANCES = 8

_SUPPORT_WORDS = {
    "weight-only": "{precision} weight-only here (no native tensor cores for it: memory saved, 16-bit math)",
    "fallback-fp16": "runs as fp16 (no bf16 on this GPU)",
    "dequantized": "{precision} checkpoint dequantized to 16-bit on load (16-bit memory and speed)",
}
# weight-only on a GPU that has the tensor cores for the format: the engine's kernels for it take 16-bit
# activations (vLLM, SGLang and TensorRT-LLM run MXFP4 as W4A16 on a B200: engine_support.csv, mxfp4:dense)
_ENGINE_WEIGHT_ONLY = (
    "{precision} weight-only here (the engine's kernels for it take 16-bit activations: memory saved, "
    "16-bit math)"
)
# Formats that newer GPUs multiply natively, so that running them weight-only is worth saying (AWQ /
# GPTQ / GGUF are weight-only by design everywhere).
_TENSOR_CORE_FORMATS = ("fp8", "mxfp4", "nvfp4", "w8a8")
_SUPPORT_MARKERS = ("runs weight-only", "runs as fp16", "is dequantized", "has no native")


def _has_cores_for(acc: Accelerator, precision: str) -> bool:
    """Whether ``acc`` has tensor cores for the narrow type ``precision`` multiplies in (FP8, FP4)."""
    try:
        native = resolve_precision(precision).native
    except GpuscoutError:
        return False
    return {"fp8": acc.fp8_supported, "fp4": acc.fp4_supported}.get(native or "", False)


def _warnings(ctx: RowContext, warnings: list[str]) -> None:
    w, offer, ev = ctx.workload, ctx.offer, ctx.ev
    acc = ev.accelerator
    s = ev.summary
    mode = s.support if s is not None else None
    native_somewhere = s is not None and (s.precision or "").startswith(_TENSOR_CORE_FORMATS)
    if (
        acc is not None
        and s is not None
        and mode in _SUPPORT_WORDS
        and (mode != "weight-only" or native_somewhere)
    ):
        words = _SUPPORT_WORDS[mode]
        if mode == "weight-only" and _has_cores_for(acc, s.precision or ""):
            words = _ENGINE_WEIGHT_ONLY
        warnings.append(words.format(precision=s.precision))
        # the estimator says the same at length: keep the short form only
        warnings.extend(x for x in ev.warnings if not any(m in x for m in _SUPPORT_MARKERS))
    else:
        warnings.extend(ev.warnings)
    if ev.fabric_assumed:
        # the row already says its unstated interconnect is costed over PCIe: the estimate's generic
        # "GPUs talk over PCIe" would say it twice
        warnings[:] = [x for x in warnings if x != PCIE_EXCHANGE_WARNING]
    if s is not None and s.calibration_basis:
        warnings.append(f"speed rests on few rows: {s.calibration_basis}")
    if offer.observed_at is None:
        warnings.append("price age unknown (bundled snapshot)")
    else:
        age_days = (ctx.now - offer.observed_at).total_seconds() / 86400
        if age_days >= ctx.assumptions.price_age_warn_days:
            warnings.append(f"price {age_days:.0f} days old")
    if offer.stale:
        warnings.append(stale_reason(offer))
    if offer.availability == Availability.LIMITED:
        count = f" ({offer.available_count} left)" if offer.available_count is not None else ""
        warnings.append(f"availability limited{count}")
    if offer.available_count is None and ev.instances >= MANY_INSTANCES:
        warnings.append(
            f"{ev.instances} instances of one offer: the provider does not say how many are free "
            "(check before counting on them)"
        )
    if ctx.prices.egress_assumed and w.egress_gb > 0:
        warnings.append(f"egress price unknown: assumed ${ctx.prices.egress_usd_per_gb:g}/GB")
    if ctx.prices.storage_assumed and ctx.cost.storage > 0:
        warnings.append(f"storage price unknown: assumed ${ctx.prices.storage_usd_per_gb_month:g}/GB-month")
