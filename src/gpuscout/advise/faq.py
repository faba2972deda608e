"""The questions GPU renters ask, answered for one model and the user's case from the current offers.

1. How much VRAM do I need?  -> memory at the user's context and concurrency, per precision, the KV
   cache each extra user adds, and the cheapest offer that holds each.
2. An 80 GiB HBM card or a 24 GiB consumer card?  -> for this model, on each reference card: fits and
   headroom (on how many cards), tokens/s per user and TTFT at the user's load, FP8 tensor cores,
   the multi-GPU fabric (NVLink or PCIe), and $/M tokens from the cheapest offer of each class.
3. Spot or on-demand?  -> by workload: a checkpointed fine-tune and a batch job priced both ways
   (rework included), an always-on endpoint's reclaims, long pre-training.
4. Why is generation slow on my GPU?  -> batch-1 decode there against its bandwidth ceiling, the
   share of compute in use, and what batching, narrower weights and HBM would give.

Every figure comes from the estimator and the advisor, so the web FAQ page and ``gpuscout faq`` say
the same thing. Nothing is recited: change the model, the load, the GPU or the catalog and the
answers change. A verdict says "cheaper" only beyond ``CLEAR_DIFFERENCE`` (10 %): closer figures are
inside the estimate's error, and the answer says so.

A figure that rests on an estimated speed (a job's cost, $/M tokens, tokens/s, TTFT) says so where that
speed is uncalibrated (``EstimateSummary.speed_calibrated`` / ``Estimate.speed_calibrated`` false: the
estimator's constants were fitted on other hardware), beside the figure: "(V100-SXM2-16GB training speed
uncalibrated)". The rows quoted stay the ones the advisor ranks cheapest, calibrated or not (no row is
swapped for a calibrated one a few % dearer: that would be a second ranking rule, the advisor's own
``Advice.uncalibrated_picks`` already names the calibrated alternative); an hourly price alone (the VRAM
answer's "cheapest that holds it") needs no such word.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, default_backends, inference_session
from gpuscout.advise.rank import Ranker
from gpuscout.advise.reasons import gib_text, plural
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, ServeWorkload
from gpuscout.catalog.offer import Offer
from gpuscout.errors import (
    ConfigurationRejected,
    GpuscoutError,
    InvalidInputError,
    WrongModelKind,
    quoted_value,
)
from gpuscout.estimate.arguments import MAX_CONTEXT, other_face, within_window
from gpuscout.estimate.memory import gib
from gpuscout.estimate.runtime import CUDA_RUNTIME, device_runtime
from gpuscout.estimate.types import INTERCONNECT_WORDS, Estimate, MemoryNeed, step_parts
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.wording import money3

#: The two cards the seed's question compares: an 80 GiB HBM datacenter GPU and a 24 GiB consumer GPU.
REFERENCE_HBM = "H100-SXM"
REFERENCE_GDDR = "RTX4090"
VRAM_PRECISIONS = ("bf16", "fp8", "int4")
DEFAULT_CONTEXT = 4096  # tokens per conversation (prompt + answer)
DEFAULT_USERS = 8
OUTPUT_SHARE = 0.125  # of a conversation's tokens, the answer (the rest is the prompt)
#: The shortest conversation the FAQ sizes: the FAQ's own floor (a conversation is split into a prompt and
#: an answer of OUTPUT_SHARE); its longest is the estimator's MAX_CONTEXT, as on a model's page.
MIN_CONTEXT = 64
LORA_TOKENS = 1e8  # a 100M-token fine-tune for the spot answer
BATCH_TOKENS = 1e8  # 100M output tokens of offline generation for the spot answer
CLEAR_DIFFERENCE = 0.10  # below this, two costs are "about the same"
GPU_COUNTS = (1, 2, 4, 8)
# Narrower weights are named in the slow-generation answer only when they hold at most this share of
# the weights run (int4 is not narrower than gpt-oss's MXFP4: 64 GB against 65) and decode at least
# CLEARLY_FASTER as fast as them.
NARROWER_WEIGHTS = 0.85
CLEARLY_FASTER = 1.1
# A one-user step whose math takes at least this share of its reads' time is not "set by memory
# bandwidth, not compute": the answer says the math is close behind.
MATH_CLOSE_BEHIND = 0.6
# The padding of a one-user step's math to whole tiles is said where the math takes this share of the
# step (below it, the math and its padding change nothing a user sees).
PADDING_WORTH_SAYING = 0.1


@dataclass(frozen=True, slots=True)
class FaqAnswer:
    key: str  # "vram", "card_class", "spot", "slow_generation"
    question: str
    answer: str  # one or two sentences with this model's numbers
    details: tuple[str, ...] = ()
    figures: dict[str, float | str | None] = field(default_factory=dict)
    offers: tuple[Recommendation, ...] = ()  # the offers the answer cites


@dataclass(frozen=True, slots=True)
class Faq:
    model: str
    summary: str
    answers: tuple[FaqAnswer, ...]
    context: int = DEFAULT_CONTEXT
    users: int = DEFAULT_USERS
    # what the estimates behind every answer say of the model at this context, said once for all of them
    # (a context past the checkpoint's native window: the YaRN it needs), in the estimator's words
    warnings: tuple[str, ...] = ()

    @property
    def prompt_tokens(self) -> int:
        """The prompt's share of each conversation, as every answer's estimates take it."""
        return split_context(self.context)[0]

    @property
    def output_tokens(self) -> int:
        """The answer's share of each conversation (:data:`OUTPUT_SHARE`)."""
        return split_context(self.context)[1]


def split_context(context: int) -> tuple[int, int]:
    """(prompt tokens, answer tokens) of a conversation of ``context`` tokens: the answer
    :data:`OUTPUT_SHARE` of it (at least one token), the prompt the rest. The TTFTs and speeds the answers
    quote are at this split."""
    out = max(1, int(context * OUTPUT_SHARE))
    return context - out, out


def _spec(be: Backends, name: str) -> ModelSpec:
    """The registry entry ``name`` names, through the backends' registry (imported models too)."""
    from gpuscout.knowledge.models import resolve_model

    return be.models.resolve(name) if be.models is not None else resolve_model(name)


def _gb(x: float) -> str:
    return f"{x:.0f} GB" if x >= 10 else f"{x:.1f} GB"


def _gib(x_gb: float) -> str:
    """The estimator's GB (1e9 bytes) said in GiB, the unit GPU memory is sold in (an "80 GB" card holds
    80 GiB), rounded as the advisor's reasons round it: a need beside a card's memory. Bytes read per step
    stay GB, beside bandwidth in GB/s."""
    return f"{gib_text(x_gb)} GiB"


def _offer_label(rec: Recommendation) -> str:
    o = rec.offer
    config = rec.config.describe(o.accelerator)
    s = rec.estimate
    if rec.substitution and s is not None:  # the asked engine cannot run it there: say what does
        config += f", as {s.engine} {s.precision}"
    return f"{rec.provider_name or o.provider} {o.instance_type} ({config}, {_hourly(rec)})"


def _hourly(rec: Recommendation) -> str:
    """'$1.71/h', '3 x $1.71/h = $5.14/h': what a row pays an hour (its price is per instance)."""
    n, price = rec.config.instances, rec.price_usd_per_hour
    return f"{n} x ${price:,.2f}/h = ${n * price:,.2f}/h" if n > 1 else f"${price:,.2f}/h"


def _hardware(rec: Recommendation) -> str:
    """'1x B200', '6 x 8x H200-SXM': the GPUs a row rents (instances x GPUs each), for a sentence that
    sets two rows' costs side by side."""
    c = rec.config
    each = f"{c.gpus_per_instance}x {rec.offer.accelerator}"
    return f"{c.instances} x {each}" if c.instances > 1 else each


_BILLED_HOURS = re.compile(r" \([^()]*instance-hours in all[^()]*\)")


def _instances_why(rec: Recommendation) -> str:
    """'; 6 instances at no extra cost: billed no more than one instance alone would be (...), each doing
    1/6 of the work': why a row runs on several instances, in the advisor's own reason for it
    (``reasons._free_instances``, ``reasons._deadline_instances``); "" on one instance, or where the
    row states no such reason."""
    n = rec.config.instances
    if n <= 1:
        return ""
    why = next((r for r in rec.reasons if r.startswith(f"{n} instances")), "")
    # less the instance-hours billed (the row's reasons keep them): the why, not the sum
    why = _BILLED_HOURS.sub("", why)
    return f"; {why}" if why else ""


def speed_caveat(work: str, rows: Sequence[tuple[str, bool]]) -> str:
    """'V100-SXM2-16GB training speed uncalibrated' for the hardware of ``rows`` ((accelerator name,
    speed calibrated) pairs, each name once, in order) whose speed is uncalibrated; "" where none is.
    ``work``: "training" or "inference", as the estimator's own warning names it."""
    names = list(dict.fromkeys(name for name, calibrated in rows if not calibrated))
    return f"{' and '.join(names)} {work} speed uncalibrated" if names else ""


def _row_speed(rec: Recommendation) -> tuple[str, bool]:
    """(the row's accelerator, whether its speed is calibrated) for :func:`speed_caveat`; a row without
    an estimate has no speed to doubt."""
    return rec.offer.accelerator, rec.estimate is None or rec.estimate.speed_calibrated


def _with(text: str, caveat: str) -> str:
    """``text``, then "; " and ``caveat`` where there is one."""
    return f"{text}; {caveat}" if caveat else text


def compare_costs(a: float, b: float, label_a: str, label_b: str) -> str:
    """'the X is 35 % cheaper per token' or 'about the same per token (within 10 %)'."""
    lo, hi = sorted((a, b))
    if hi <= 0 or (hi - lo) / hi < CLEAR_DIFFERENCE:
        return (
            f"about the same per token ({money3(a)}/M on the {label_a} vs {money3(b)}/M on the "
            f"{label_b}, within the estimate's error)"
        )
    cheaper, dearer = (label_a, label_b) if a < b else (label_b, label_a)
    saving = f"{1 - lo / hi:.0%}"
    return f"the {cheaper} is {saving} cheaper per token ({money3(lo)}/M vs {money3(hi)}/M on the {dearer})"


@dataclass(frozen=True, slots=True)
class CardFit:
    """One reference card for this model: on how many cards it fits, and how it runs there."""

    accelerator: Accelerator
    precision: str
    gpus: int | None  # None: not on 8
    estimate: Estimate | None
    # why it does not run where memory would hold it: the engine's refusal of this precision on this
    # card ("" where it runs, or where memory is what stops it)
    refusal: str = ""

    @property
    def headroom(self) -> float | None:
        if self.estimate is None:
            return None
        m = self.estimate.memory
        cap = m.capacity_gb if m.capacity_gb > 0 else self.accelerator.memory_gb
        return 1.0 - m.total_gb / cap if cap else None


class _Faq:
    def __init__(
        self,
        model: str,
        offers: Sequence[Offer],
        be: Backends,
        a: Assumptions,
        now: datetime | None,
        context: int | None,
        users: int,
        gpu: str | None,
        precision: str,
    ) -> None:
        from gpuscout.knowledge.models import label_as_typed

        self.model = be.model_name(model)
        self.spec = _spec(be, self.model)  # whose ``is_moe`` says whether a batch reads more experts
        # the model as the user named it, with the entry it is sized as where that is another name
        # ("deepseek-r1 (as deepseek-v3)"), as `estimate` and `recommend` write it
        self.label = label_as_typed(self.spec, model)
        self.said = self.label.partition(" (as ")[0]  # in the answers' sentences: the name as typed
        kind = be.model_kind(self.model)
        if kind != "llm":
            raise WrongModelKind(
                self.model,
                kind,
                "a language model",
                f"the FAQ covers language models; {other_face(self.model, kind)}",
                "a language model (see `gpuscout models`)",
            )
        limit = be.max_context(self.model) if be.max_context is not None else None
        # no context asked: the usual one, or the model's whole context where that is shorter (a 2k
        # model such as Falcon-40B cannot hold 4,096 tokens, and the user asked for nothing longer)
        self.capped = False  # the usual context was shortened to the model's
        if context is None:
            context = DEFAULT_CONTEXT
            if limit and limit < context:
                context, self.capped = limit, True
        else:
            within_window(context, self.model, limit)
        # every answer's estimates through one memo: the rankings of the four answers (eleven of them: each
        # precision, card class, spot and on-demand) and the answers' own sizings ask the estimator the
        # same questions (it is a pure function of its arguments), so each is estimated once
        self.offers, self.be, self.a, self.now = offers, shared_estimates(be), a, now
        self.context, self.users, self.precision = context, users, precision
        self.who = f"{users} {plural(users, 'user')}"  # "1 user", "8 users"
        # None: the reference consumer card; a name given empty is refused ("is empty"), not read as None
        self.gpu = be.accelerator(gpu) if gpu is not None else None
        self.ctx_in, self.ctx_out = split_context(context)
        # the sizings and estimates the answers rest on, in the order made (for :meth:`model_warnings`)
        self.sized: list[MemoryNeed | Estimate] = []

    # ---- helpers ------------------------------------------------------------------------------
    def _rank(
        self,
        w: ServeWorkload | FinetuneWorkload | BatchWorkload,
        offers: Sequence[Offer] | None = None,
        top: int = 5,
    ) -> list[Recommendation]:
        ranker = Ranker(w, backends=self.be, assumptions=self.a, now=self.now)
        return list(ranker.advise(self.offers if offers is None else offers, top=top, diagnose=False).rows)

    def _chat(self, precision: str, users: int | None = None) -> ServeWorkload:
        return ServeWorkload(
            model=self.model,
            precision=precision,
            concurrency=users or self.users,
            prompt_tokens=self.ctx_in,
            output_tokens=self.ctx_out,
        )

    def _infer(self, acc: Accelerator, gpus: int, precision: str, batch: int | str) -> Estimate | None:
        try:
            e: Estimate = self.be.inference(
                self.model,
                acc,
                gpus=gpus,
                precision=precision,
                batch=batch,
                context_in=self.ctx_in,
                context_out=self.ctx_out,
            )
        except ConfigurationRejected:
            return None
        self.sized.append(e)
        return e

    def _need(self, acc: Accelerator, gpus: int, precision: str, users: int) -> MemoryNeed | None:
        """The memory ``users`` sequences of the user's context take on ``gpus`` x ``acc``, counted whole
        (an estimate caps them at what fits and queues the rest); None where the setup is rejected.
        Backends without the sizing function get the estimator's own (models named canonically)."""
        if self.be.memory_needed is not None:
            sizer = self.be.memory_needed
        else:
            from gpuscout.estimate.api import memory_needed as sizer
        try:
            need: MemoryNeed = sizer(
                self.model, acc, gpus=gpus, precision=precision, batch=users, context=self.context
            )
        except ConfigurationRejected:
            return None
        self.sized.append(need)
        return need

    def model_warnings(self, answers: Sequence[FaqAnswer]) -> tuple[str, ...]:
        """The warning about the model at the user's context that every estimate carries -- the context
        past the checkpoint's native window, and the YaRN rope scaling it needs -- once, as the first
        estimate that carries it words it (its engine's setting: the answers' own sizings first, then the
        offers they cite). Per-offer warnings stay on the offers (``--json``)."""
        from gpuscout.estimate.arguments import past_native_window

        runs: list[tuple[str, Sequence[str]]] = [(x.engine, x.warnings) for x in self.sized]
        for a in answers:
            runs += [(r.estimate.engine or "", r.warnings) for r in a.offers if r.estimate is not None]
        for engine, warnings in runs:
            said = past_native_window(self.spec, self.context, engine)
            # the estimator joins it with a stated --max-model-len's warning where there is one
            if said and any(w == said or w.startswith(f"{said}; ") for w in warnings):
                return (said,)
        return ()

    def _fit(self, acc: Accelerator, precision: str, batch: int | None = None) -> CardFit:
        """The fewest cards (1, 2, 4, 8) of ``acc`` that hold the model and ``batch`` users' caches (all
        of them at once: none waiting for room), with the estimate there."""
        users = self.users if batch is None else batch
        refusal = ""
        for n in GPU_COUNTS:
            need = self._need(acc, n, precision, users)
            if need is not None and not getattr(need, "supported", True):
                # the engine's refusal: its reason leads the sizing's warnings (the GPU variant's after it)
                refusal = refusal or (need.warnings or [""])[0]
                continue
            if need is None or not need.fits:
                continue
            e = self._infer(acc, n, precision, users)
            if e is not None and e.fits and getattr(e, "supported", True):
                return CardFit(acc, precision, n, e)
            if e is not None and not getattr(e, "supported", True):
                refusal = refusal or e.unsupported_reason
        return CardFit(acc, precision, None, None, refusal)

    # ---- 1 ------------------------------------------------------------------------------------
    def vram(self) -> FaqAnswer:
        ref = self.be.accelerator(REFERENCE_HBM)
        details: list[str] = []
        figures: dict[str, float | str | None] = {"context": self.context, "users": self.users}
        cited: list[Recommendation] = []
        per_user: float | None = None
        for p in distinct_widths((self.precision, *VRAM_PRECISIONS)):
            e = self._need(ref, 1, p, self.users)
            if e is None:
                continue
            m = e.memory
            need = m.weights_gb + m.kv_cache_gb + m.activations_gb + m.overhead_gb
            if per_user is None:  # the lead precision's, the one the answer names
                # the cache the estimator holds for these users, each user's share of it: sliding-window
                # layers (Gemma 2/3, gpt-oss) keep only their window, so bytes/token x context (every
                # layer keeping every token) overstates it
                per_user = m.kv_cache_gb / self.users
            figures[f"{p}_gb"] = round(need, 2)
            best = self._rank(
                ServeWorkload(
                    model=self.model,
                    precision=p,
                    concurrency=self.users,
                    prompt_tokens=self.ctx_in,
                    output_tokens=self.ctx_out,
                    latency_targets="none",
                ),
                top=1,
            )
            where = (
                f"cheapest that holds it: {_offer_label(best[0])}"
                if best
                else "no offer in the catalog holds it"
            )
            cited.extend(best[:1])
            details.append(
                f"{p}: {_gib(need)} (weights {_gib(m.weights_gb)}, KV cache {_gib(m.kv_cache_gb)} for "
                f"{self.users} x {self.context:,} tokens, runtime {_gib(m.activations_gb + m.overhead_gb)}); "
                f"{where}"
            )
        per_user = per_user or 0.0
        figures["kv_gb_per_user"] = round(per_user, 3)
        first = next((k for k in figures if k.endswith("_gb") and k != "kv_gb_per_user"), None)
        lead = float(figures[first] or 0.0) if first else 0.0
        int4 = figures.get("int4_gb")
        answer = (
            f"For {self.who} at {self.context:,} tokens each, {self.said} needs about {_gib(lead)} "
            f"at {first.removesuffix('_gb') if first else self.precision}"
            + (f" and {_gib(float(int4))} at int4" if isinstance(int4, float) and first != "int4_gb" else "")
            + f"; every extra user at that context adds {gib(per_user):.2f} GiB of KV cache"
            # MLA's latent cache has no heads to split: tensor parallelism keeps it whole on every GPU
            + (
                " (on every GPU of a tensor-parallel split: the compressed MLA cache is not divided)"
                if self.spec.is_mla
                else ""
            )
            + ", so size for the cache, not only the weights."
        )
        return FaqAnswer("vram", "How much VRAM do I need?", answer, tuple(details), figures, tuple(cited))

    # ---- 2 ------------------------------------------------------------------------------------
    def _class_offers(self, hbm: bool) -> list[Offer]:
        out = []
        for o in self.offers:
            try:
                acc = self.be.accelerator(o.accelerator)
            except GpuscoutError:
                continue
            # an "80 GB" card is one: a 94 GB H100-NVL or a 96 GB GH200 holds more (a 70B model on 2 of
            # them, where it needs 4 of 80 GB), so it would answer another question under this one's name
            hbm_80 = (
                acc.kind == "datacenter" and "HBM" in acc.memory_type.upper() and 75 <= acc.memory_gb <= 85
            )
            consumer_24 = acc.kind == "consumer" and 20 <= acc.memory_gb <= 26
            if hbm_80 if hbm else consumer_24:
                out.append(o)
        return out

    def _card_line(self, fit: CardFit, label: str) -> str:
        acc, e = fit.accelerator, fit.estimate
        if fit.gpus is None or e is None:
            return f"{label} ({acc.name}): does not hold it at {fit.precision} for {self.who}, even on 8"
        fabric = ""
        if fit.gpus > 1:
            if acc.has_nvlink_class_fabric:
                fabric = f", split over {fit.gpus} cards on NVLink ({acc.interconnect_gbps or 0:,.0f} GB/s)"
            else:
                fabric = f", split over {fit.gpus} cards on PCIe only (no NVLink between consumer cards)"
        fp8 = "FP8 tensor cores" if acc.fp8_supported else "no FP8 tensor cores"
        line = (
            f"{label} ({acc.name}, {acc.memory_gb:.0f} GiB {acc.memory_type}, "  # the vendor's "80 GB": GiB
            f"{acc.bandwidth_gbps / 1000:.2f} TB/s, {fp8}): at {fit.precision} fits on {fit.gpus} with "
            f"{fit.headroom or 0:.0%} memory free{fabric}; "
            f"with {self.who} at once, {e.decode_tokens_per_s:.0f} tok/s per user and TTFT "
            f"{e.ttft_ms:,.0f} ms"
        )
        return _with(line, speed_caveat("inference", [(acc.name, e.speed_calibrated)]))

    def card_class(self) -> FaqAnswer:
        hbm, gddr = self.be.accelerator(REFERENCE_HBM), self.be.accelerator(REFERENCE_GDDR)
        details: list[str] = []
        figures: dict[str, float | str | None] = {"hbm_card": hbm.name, "consumer_card": gddr.name}
        cited: list[Recommendation] = []
        verdicts: list[str] = []
        # per precision, which side each per-user speed this answer shows favours (the reference cards'
        # lines, the cheapest offers' verdict): the closing sentence claims no more than they say
        faster: dict[str, set[str]] = {}
        fit_pairs: list[tuple[str, CardFit, CardFit]] = []
        for p in distinct_widths((self.precision, "int4")):
            fits = {"80": self._fit(hbm, p), "consumer": self._fit(gddr, p)}
            fit_pairs.append((p, fits["80"], fits["consumer"]))
            faster[p] = {
                _faster_per_user(
                    *(f.estimate.decode_tokens_per_s if f.estimate else None for f in fits.values())
                )
            }
            details.append(self._card_line(fits["80"], "80 GiB HBM card"))
            details.append(self._card_line(fits["consumer"], "24 GiB consumer card"))
            costs: dict[str, float | None] = {}
            cheapest: dict[str, Recommendation] = {}
            for key, is_hbm in (("80", True), ("consumer", False)):
                f = fits[key]
                figures[f"{p}_{key}_gpus"] = f.gpus
                figures[f"{p}_{key}_tok_s_per_user"] = (
                    None if f.estimate is None else round(f.estimate.decode_tokens_per_s, 1)
                )
                recs = self._rank(self._chat(p), self._class_offers(is_hbm), top=1)
                per_m = recs[0].unit_costs.per_million_output_tokens if recs and recs[0].unit_costs else None
                costs[key] = per_m
                figures[f"{p}_{key}_usd_per_m"] = None if per_m is None else round(per_m, 4)
                if recs:
                    cited.append(recs[0])
                    cheapest[key] = recs[0]
                    # its speed per user too: the headline's ratio is between these two offers, not the
                    # cards the lines above describe
                    e = recs[0].estimate
                    pace = f", {e.per_user_tokens_per_s:.0f} tok/s per user" if e is not None else ""
                    details.append(
                        _with(
                            f"{p}, cheapest {'80 GiB HBM' if is_hbm else '24 GiB consumer'} offer for a "
                            f"chat endpoint: {_offer_label(recs[0])}, {money3(per_m or 0.0)}/M output "
                            f"tokens{pace}",
                            speed_caveat("inference", [_row_speed(recs[0])]),
                        )
                    )
                else:
                    details.append(
                        f"{p}: no {'80 GiB HBM' if is_hbm else '24 GiB consumer'} offer meets chat "
                        f"latency (TTFT <= 2 s, >= 20 tok/s per user) for {self.who}"
                    )
            a, b = costs["80"], costs["consumer"]
            fc = fits["consumer"]
            if fc.gpus is None:
                verdicts.append(f"at {p} a 24 GiB card cannot hold it for {self.who} (even 8 of them)")
            elif a is not None and b is not None:
                # the price and the speed of one sentence are those of the same two offers: the cheapest
                # of each class (an A100 offer's price beside an H100's speed compared two other cards)
                hbm_card, consumer_card = (
                    cheapest["80"].offer.accelerator,
                    cheapest["consumer"].offer.accelerator,
                )
                label_80, label_c = f"80 GiB {hbm_card}", f"consumer {consumer_card}"
                speed = _speed_ratio(cheapest["80"], cheapest["consumer"], label_80, label_c)
                faster[p].add(
                    _faster_per_user(
                        *(
                            e.per_user_tokens_per_s if e is not None else None
                            for e in (cheapest["80"].estimate, cheapest["consumer"].estimate)
                        )
                    )
                )
                caveat = speed_caveat("inference", [_row_speed(cheapest[k]) for k in ("80", "consumer")])
                verdicts.append(
                    f"at {p} {compare_costs(a, b, label_80, label_c)}{speed}"
                    + (f" ({caveat})" if caveat else "")
                )
            elif b is None:
                verdicts.append(f"at {p} no consumer offer serves it within chat latency")
        answer = (
            f"For {self.said} at {self.who} x {self.context:,} tokens: " + "; ".join(verdicts) + ". "
            f"{self._pays_off(hbm, gddr, faster, fit_pairs)}"
        )
        return FaqAnswer(
            "card_class",
            "Do I need an 80 GiB datacenter GPU, or is a 24 GiB consumer card enough?",
            answer,
            tuple(details),
            figures,
            tuple(cited),
        )

    def _pays_off(
        self,
        hbm: Accelerator,
        gddr: Accelerator,
        faster: dict[str, set[str]],
        fit_pairs: Sequence[tuple[str, CardFit, CardFit]],
    ) -> str:
        """What the 80 GiB card pays off with, as far as this answer's own figures bear it out: per-user
        speed only at the precisions where every per-user speed shown favours it (none where a consumer
        card or offer is the faster one: 4 users of a 3B-active MoE on 4 RTX 3090s out-run one A100),
        FP8 and NVLink only where the consumer card lacks them, and always its capacity (more users and
        longer contexts per card; the fewer cards it takes, where the figures show it)."""
        quick = [p for p, sides in faster.items() if "hbm" in sides and "consumer" not in sides]
        slow = [p for p, sides in faster.items() if "consumer" in sides]
        claims: list[str] = []
        if quick:
            where = f" at {' and '.join(quick)}, not at {' and '.join(slow)}" if slow else ""
            claims.append(f"HBM bandwidth (tokens/s per user{where})")
        room = "room for more users and long contexts per card"
        for p, big, small in fit_pairs:
            if big.gpus is None or (small.gpus is not None and small.gpus <= big.gpus):
                continue
            cards = f"{big.gpus} {plural(big.gpus, 'card')} {'holds' if big.gpus == 1 else 'hold'} it"
            needs = (
                f"it takes {small.gpus} of the 24 GiB cards"
                if small.gpus is not None
                else f"even {GPU_COUNTS[-1]} of the 24 GiB cards do not hold it"
            )
            room += f" (at {p} {cards} for {self.who}, where {needs})"
            break
        claims.append(room)
        if hbm.fp8_supported and not gddr.fp8_supported:
            claims.append("FP8")
        if hbm.has_nvlink_class_fabric and not gddr.has_nvlink_class_fabric:
            claims.append("NVLink when the model spans cards")
        listed = claims[0] if len(claims) == 1 else f"{', '.join(claims[:-1])}, and {claims[-1]}"
        return (
            f"The 80 GiB card pays off with {listed}; a 24 GiB card suits quantized small-to-medium models."
        )

    # ---- 3 ------------------------------------------------------------------------------------
    def _both_ways(
        self, w: FinetuneWorkload | BatchWorkload
    ) -> tuple[Recommendation | None, Recommendation | None, Recommendation | None]:
        """(the advisor's first row with spot allowed, where it is on spot; its first row on demand; the
        on-demand row on the spot row's own offer) for ``w``. The first rows are the advisor's picks
        ("cheapest on the front"), not always the least total: a row off the front may cost a little less,
        being much slower. The last is the on-demand pick where that is the same offer, and None where the
        spot row's offer has no on-demand price one can rent at (an auction price only)."""
        # The rankings differ in the prices they may use, not in what runs where: they share the
        # answers' estimates (``self.be``), so the later rankings cost the configurations the first one
        # sized (a fine-tune's ~150, each a search over layouts) without estimating them again.
        spot = self._rank(w.model_copy(update={"spot_allowed": True}), top=1)
        on_demand = w.model_copy(update={"spot_allowed": False})
        ondemand = self._rank(on_demand, top=1)
        s = spot[0] if spot and spot[0].config.spot else None
        od = ondemand[0] if ondemand else None
        same: Recommendation | None = None
        if s is not None and od is not None and od.offer.key == s.offer.key:
            same = od
        elif s is not None and s.offer.firm_on_demand:
            same = next(iter(self._rank(on_demand, [s.offer], top=1)), None)
        return s, od, same

    def _spot_verdict(
        self, label: str, s: Recommendation, od: Recommendation, same: Recommendation | None, work: str
    ) -> str:
        """The spot answer's lead sentence for one job: spot against on-demand on the same offer, with
        the advisor's on-demand pick after it where that is another offer; where the spot row's offer has
        no on-demand price, the two picks, said as that and with the hardware of each (different GPUs, or
        different offers)."""
        assert s.cost is not None and od.cost is not None
        spot_total = s.cost.total
        if same is not None and same.cost is not None:
            saving = 1 - spot_total / same.cost.total
            word = f"{saving:.0%} less" if saving > 0 else f"{-saving:.0%} more"
            text = (
                f"a {label} on {_hardware(s)} at {s.provider_name or s.offer.provider} costs "
                f"${spot_total:,.2f} on spot vs ${same.cost.total:,.2f} on-demand on the same offer "
                f"({word}, rework included)"
            )
            if same is not od:
                text += f"; the advisor's on-demand pick for it, {_hardware(od)}, costs ${od.cost.total:,.2f}"
            # once, after every figure of the sentence: the cards named are those of its rows
            caveat = speed_caveat(work, [_row_speed(r) for r in (s, same, od)])  # each card named once
            return text + (f" ({caveat})" if caveat else "")
        caveat = speed_caveat(work, [_row_speed(s), _row_speed(od)])
        saving = 1 - spot_total / od.cost.total
        word = f"{saving:.0%} less" if saving > 0 else f"{-saving:.0%} more"
        differ = "different GPUs" if s.offer.accelerator != od.offer.accelerator else "different offers"
        return (
            f"a {label} costs ${spot_total:,.2f} on the advisor's spot pick vs ${od.cost.total:,.2f} on its "
            f"on-demand pick ({differ}: {_hardware(s)} on spot, an offer with no on-demand price, vs "
            f"{_hardware(od)}; {_with(f'{word}, rework included', caveat)})"
        )

    def spot(self) -> FaqAnswer:
        params = self.be.params_b(self.model)
        method: Literal["lora", "qlora"] = "qlora" if params > 20 else "lora"
        details: list[str] = []
        figures: dict[str, float | str | None] = {"method": method}
        cited: list[Recommendation] = []
        same_rows: list[Recommendation] = []  # cited after the pairs of picks
        verdict = ""
        for label, w in (
            (
                f"checkpointed {'QLoRA' if method == 'qlora' else 'LoRA'} fine-tune of "
                f"{LORA_TOKENS / 1e6:.0f}M tokens",
                FinetuneWorkload(model=self.model, method=method, dataset_tokens=LORA_TOKENS),
            ),
            (
                f"batch generation of {BATCH_TOKENS / 1e6:.0f}M output tokens",
                BatchWorkload(
                    model=self.model,
                    precision=self.precision,
                    output_tokens_total=BATCH_TOKENS,
                    prompt_tokens=self.ctx_in,
                    output_tokens=self.ctx_out,
                ),
            ),
        ):
            try:
                s, od, same = self._both_ways(w)
            except ConfigurationRejected as exc:  # a model whose training the estimator refuses outright
                details.append(f"{label}: not estimated: {exc.message}")
                continue
            key = "finetune" if isinstance(w, FinetuneWorkload) else "batch"
            work = "training" if isinstance(w, FinetuneWorkload) else "inference"
            if s is not None and s.cost is not None and od is not None and od.cost is not None:
                cited += [s, od]
                if same is not None and same.cost is None:
                    same = None
                if same is not None and same is not od:  # the spot offer's own on-demand row: cited too
                    same_rows.append(same)
                caveat = speed_caveat(work, [_row_speed(r) for r in (s, od, *([same] if same else []))])
                share = s.cost.interruption / max(s.cost.compute, 1e-9)
                figures.update(
                    {
                        f"{key}_spot_total": round(s.cost.total, 2),
                        f"{key}_on_demand_total": round(od.cost.total, 2),
                        f"{key}_spot_rework_share": round(share, 4),
                        # the on-demand price of the spot row's own offer: None where it has none
                        f"{key}_same_offer_on_demand_total": (
                            None if same is None or same.cost is None else round(same.cost.total, 2)
                        ),
                    }
                )
                line = (
                    f"{label}: spot ${s.cost.total:,.2f} on {_offer_label(s)} (incl. "
                    f"${s.cost.interruption:,.2f} rework and restarts{_instances_why(s)})"
                )
                if same is not None and same.cost is not None:
                    # the same instances for the same reason as the spot row: said there
                    why = "" if _instances_why(same) == _instances_why(s) else _instances_why(same)
                    line += (
                        f"; on-demand on the same offer ${same.cost.total:,.2f} "
                        f"({_hardware(same)}, {_hourly(same)}{why})"
                    )
                else:
                    line += "; no on-demand price on that offer"
                if same is not od:
                    line += f"; the advisor's on-demand pick ${od.cost.total:,.2f} on {_offer_label(od)}"
                    if _instances_why(od):
                        line += f" ({_instances_why(od).removeprefix('; ')})"
                details.append(_with(line, caveat))
                if not verdict:
                    verdict = (
                        f"Spot suits work that can resume: {self._spot_verdict(label, s, od, same, work)}. "
                    )
            else:
                details.append(f"{label}: the catalog has no pair of spot and on-demand offers for it")
        cited += same_rows
        rate = self.a.interruption_rate("marketplace")
        reclaims = rate * 24 * 30
        figures["endpoint_reclaims_per_month_marketplace"] = round(reclaims, 1)
        details.append(
            f"an always-on endpoint on marketplace spot: ~{reclaims:.0f} reclaims a month at the assumed "
            f"{rate:g}/h, each ~{(self.a.restart_s + self.a.boot_s) / 60:.0f} min down plus reloading the "
            "weights: keep it on-demand (the advisor never puts a live endpoint on spot unless told to)"
        )
        details.append(
            "long pre-training that cannot resume cheaply: on-demand or reserved capacity; spot "
            "only with frequent checkpoints"
        )
        answer = (verdict or "No offer in the catalog has both prices for these jobs. ") + (
            "Keep a live endpoint, and training that cannot resume, on on-demand capacity."
        )
        return FaqAnswer(
            "spot", "Should I use spot or on-demand?", answer, tuple(details), figures, tuple(cited)
        )

    # ---- 4 ------------------------------------------------------------------------------------
    def _decode_reads(self, e1: Estimate, gpu: Accelerator, gpus: int) -> tuple[float, float, str]:
        """(GB one batch-1 decode step reads for the whole model, tok/s those reads allow at the cards'
        datasheet bandwidth, that bandwidth in words) for the setup ``e1`` was estimated on, from the
        estimator's own accounting (:func:`~gpuscout.estimate.diagnose.diagnose`: the weights a step
        reads as they are stored, an MoE's routed experts only, the input embedding a row lookup, and
        the KV cache at the user's context, sliding-window layers capped at their window)."""
        from gpuscout.estimate.diagnose import diagnose

        try:
            d = diagnose(
                self.spec,
                gpu,
                measured_tps=max(e1.decode_tokens_per_s, 1e-3),  # the reads do not depend on it
                precision=e1.precision,  # the format as it ran (gpt-oss: MXFP4 experts, the rest bf16)
                batch=1,
                engine=e1.engine,
                gpus=gpus,
                context=self.context,
            )
        except GpuscoutError:
            d = None
        layer_split = e1.parallel == "layer" and gpus > 1
        if d is None or d.bytes_per_step <= 0:
            # an estimator that cannot say (a test's fake model): the active parameters' share of the
            # weights, every GPU streaming its share at once
            per_gpu = e1.memory.model_weights_total_gb(gpus) * 1e9 / gpus
            active = self.be.active_params_b(self.model) / max(self.be.params_b(self.model), 1e-9)
            step = per_gpu * min(1.0, active)
            layer_split = False
        else:
            step = d.bytes_per_step  # per GPU under tensor parallelism, all of it under a layer split
        ceiling = gpu.bandwidth_gbps * 1e9 / step if step else 0.0  # one card streams its ``step``
        if layer_split:  # the cards take turns: one card's bandwidth streams the whole step
            tb_s = f"{gpu.bandwidth_gbps / 1000:.2f} TB/s (the {gpus} cards take turns, a layer split)"
            return step / 1e9, ceiling, tb_s
        return step * gpus / 1e9, ceiling, f"{gpu.bandwidth_gbps * gpus / 1000:.2f} TB/s"

    def _hbm_words(
        self,
        gpu: Accelerator,
        hbm: Accelerator,
        p: str,
        e1: Estimate,
        gpus: int,
        has_hbm: bool,
        details: list[str],
        figures: dict[str, float | str | None],
    ) -> tuple[str, str]:
        """(why a card with faster (HBM) memory would not help, the HBM advice in words where the fewest
        HBM cards alone do not bear it out): ("", "") where the fewest HBM cards that hold the model are
        clearly faster than the ``gpus`` x ``gpu`` one user runs on (the plain advice stands). The
        comparison says what it is: the fewest HBM cards against the fewest user's cards are different
        counts (2 H100s against 8 RTX 4090s), so where the user's cards are more, the HBM cards are also
        estimated at the same count, and the conclusion rests on both figures. Adds the figures' lines to
        ``details`` and ``figures``."""
        if has_hbm:
            return "", ""
        eh = self._fit(hbm, p, batch=1)
        if eh.estimate is None or eh.gpus is None:
            return "", ""
        fewest = eh.gpus
        hbm_tps = eh.estimate.decode_tokens_per_s
        details.append(
            f"an HBM card ({fewest}x {hbm.name}, the fewest that hold it, {hbm.bandwidth_gbps / 1000:.2f} "
            f"TB/s each) at {p}: {hbm_tps:.0f} tok/s for one user"
        )
        figures["hbm_tok_s"] = round(hbm_tps, 1)
        figures["hbm_gpus"] = fewest
        one = e1.decode_tokens_per_s
        if hbm_tps >= 1.2 * one:
            return "", ""
        # several consumer cards may read as fast together as the fewer HBM cards that hold it
        said = (
            f"{fewest}x {hbm.name}, the fewest that hold it, {plural(fewest, 'gives', 'give')} "
            f"{hbm_tps:.0f} tok/s"
        )
        if gpus > 1:
            said += (
                f": {fewest * hbm.bandwidth_gbps / 1000:.1f} TB/s together, against "
                f"{gpus * gpu.bandwidth_gbps / 1000:.1f} on these {gpus}"
            )
        same = self._infer(hbm, gpus, p, 1) if gpus > fewest else None
        if same is None or not same.fits or not getattr(same, "supported", True):
            if gpus > fewest:  # no figure at the same count: the fewest's alone, said as what it is
                return f"fewer HBM cards only match these {gpus} ({said})", ""
            return f"an HBM card would not help here ({said})", ""
        same_tps = same.decode_tokens_per_s
        details.append(
            f"as many HBM cards as these ({gpus}x {hbm.name}) at {p}: {same_tps:.0f} tok/s for one user"
        )
        figures["hbm_same_count_tok_s"] = round(same_tps, 1)
        if same_tps >= 1.2 * one:
            return "", f"as many HBM cards ({gpus}x {hbm.name}: {same_tps:.0f} tok/s for one user; {said})"
        return (
            f"an HBM card would not help here ({said}; {gpus}x {hbm.name}, as many as these, give "
            f"{same_tps:.0f})"
        ), ""

    def slow(self) -> FaqAnswer:
        gpu = self.gpu or self.be.accelerator(REFERENCE_GDDR)
        hbm = self.be.accelerator(REFERENCE_HBM)
        has_hbm = "HBM" in gpu.memory_type.upper()  # the user's card already has the fast memory
        p = self.precision
        one = self._fit(gpu, p, batch=1)
        asked = one  # the precision asked, and why it does not run here (where it does not)
        if one.gpus is None:  # try narrower weights on the user's card
            p = "int4"
            one = self._fit(gpu, p, batch=1)
        figures: dict[str, float | str | None] = {"gpu": gpu.name, "precision": p}
        if one.gpus is None or one.estimate is None:
            refused = asked.refusal or one.refusal
            answer = (
                f"{self.said} cannot run on {gpu.name} as asked (the engine refuses it there, whatever "
                f"the memory): {refused.rstrip('.')}. "
                "Another engine may run it there: the VRAM answer names offers that do."
                if refused
                else f"{self.said} does not fit {gpu.name} even on 8 cards at int4, so it cannot run "
                "there; see the VRAM answer for what holds it."
            )
            return FaqAnswer(
                "slow_generation", f"Why is generation slow on my {gpu.name}?", answer, (), figures
            )
        if p != self.precision:  # the precision asked does not run here: said, not swapped in silence
            why = (
                f"{self.precision} is refused on {gpu.name}: {asked.refusal.rstrip('.')}"
                if asked.refusal
                else f"{self.precision} does not fit {gpu.name} on up to 8 cards"
            )
            figures["precision_asked"] = self.precision
            figures["precision_note"] = f"{why}; answered at int4"
        e1, gpus = one.estimate, one.gpus
        active = self.be.active_params_b(self.model) * 1e9
        peak = (gpu.tflops(_compute_class(p)) or gpu.bf16_tflops or 0.0) * 1e12 * gpus
        util = 2 * active * e1.decode_tokens_per_s / peak if peak else 0.0
        weights_total = e1.memory.model_weights_total_gb(gpus)
        streamed, ceiling, bandwidth = self._decode_reads(e1, gpu, gpus)
        read = (
            f"{_gb(streamed)} (its weights and KV cache)"
            if not self.spec.is_moe
            else f"~{_gb(streamed)} (of {_gb(weights_total)} of weights: the active experts, the layers "
            "every token uses, and its KV cache)"
        )
        most = self._infer(gpu, gpus, p, "max")
        batched = min(32, most.batch) if most is not None and most.fits else 0
        e32 = self._infer(gpu, gpus, p, batched) if batched > 1 else None
        # what sets a one-user decode's pace; a prompt's share (long prompts, short answers) is not the
        # question asked: the decode's own roof stands for it
        pace = e1.binding_limit if e1.binding_limit in _OTHER_PACES else "bandwidth"
        split = _split_step(e1.step_ms, e1.parallel)
        if split:  # no part takes half the step: naming one would send the user after a third of it
            pace = "split"
        # The tensor cores' share counts the one user's useful work; the step's math counts what the
        # kernels compute, a small batch padded to whole tiles (16 rows in Marlin): say so beside it
        tile = _tile_rows(e1)
        padded = (
            tile > 1
            and e1.step_ms.get("compute", 0.0) >= PADDING_WORTH_SAYING * e1.step_ms.get("total", 0.0) > 0
        )
        busy = (
            f"the tensor cores' useful work ~{util:.1%} of their peak (one user's row padded to "
            f"{tile}-row tiles)"
            if padded
            else f"the tensor cores ~{util:.1%} busy"
        )
        step = ""
        if e1.step_ms:
            step = f"; each step {e1.step_summary()} (overlapping)"
            if padded:
                step += (
                    f"; the math computes {tile}-row tiles for one user's row ({tile - 1} of {tile} rows "
                    f"padding), so the tensor cores do ~{util:.1%} of their peak in useful work"
                )
        details = [
            f"one user on {gpus}x {gpu.name} at {p}: {e1.decode_tokens_per_s:.0f} tok/s; each token streams "
            f"{read}, so {bandwidth} caps it near {ceiling:.0f} tok/s"
            + (step or f" while the tensor cores run at ~{util:.1%} of their peak"),
        ]
        if "precision_note" in figures:  # the precision asked does not run here: said first
            details.insert(0, str(figures["precision_note"]))
        figures.update(
            {
                "binding": pace,
                "gpus": gpus,
                "batch1_tok_s": round(e1.decode_tokens_per_s, 1),
                "bandwidth_ceiling_tok_s": round(ceiling, 1),
                "streamed_gb_per_token": round(streamed, 3),
                "compute_utilisation": round(util, 4),
                "gemm_tile_rows": tile if padded else None,
            }
        )
        if e32 is not None and e32.fits:
            # a dense model's batch shares one read of the weights; an MoE's tokens route to different
            # experts, so a batched step reads more of them (at 32 users, most), not one token's share
            # the model's own flag, as diagnose's batching remedy reads it (not a share of active parameters)
            reads = (
                "while each step reads every expert its users' tokens route to, more than one token's "
                "active share"
                if self.spec.is_moe
                else "from the same weight reads"
            )
            details.append(
                f"{batched} users batched (as many as memory holds, up to 32): "
                f"{e32.output_tokens_per_s_total:,.0f} tok/s in total "
                f"({e32.output_tokens_per_s_total / max(e1.decode_tokens_per_s, 1e-9):.0f}x) {reads}"
            )
            figures["batched_users"] = batched
            figures["batched_tok_s_total"] = round(e32.output_tokens_per_s_total, 1)
        # narrower weights: only formats whose weights are clearly smaller than the ones run (never fp8 to
        # an int4 user, nor fp8 or int4 to gpt-oss's 4-bit MXFP4), that the engine runs on this card
        # (``_fit`` keeps supported setups only), and advised where their own figure is faster
        faster_formats: list[str] = []
        for narrow in ("fp8", "int4"):
            if narrow == p:
                continue
            en = self._fit(gpu, narrow, batch=1)
            if en.estimate is None or en.gpus is None:
                continue
            if en.estimate.memory.model_weights_total_gb(en.gpus) > NARROWER_WEIGHTS * weights_total:
                continue
            note = "" if narrow != "fp8" or gpu.fp8_supported else " (weight-only: no FP8 tensor cores)"
            details.append(
                f"{narrow} weights{note} on {en.gpus}x {gpu.name}: {en.estimate.decode_tokens_per_s:.0f} "
                "tok/s for one user"
            )
            figures[f"{narrow}_tok_s"] = round(en.estimate.decode_tokens_per_s, 1)
            if en.estimate.decode_tokens_per_s >= CLEARLY_FASTER * e1.decode_tokens_per_s:
                faster_formats.append(narrow)
        no_hbm, hbm_help = self._hbm_words(gpu, hbm, p, e1, gpus, has_hbm, details, figures)
        cause, helps = _slow_cause(
            pace,
            gpus,
            no_hbm,
            hbm_help=hbm_help,
            narrower="/".join(faster_formats),
            faster_memory=not has_hbm,
            parallel=e1.parallel,
            graphs=e1.cuda_graphs,
            graph_words=device_runtime(gpu.vendor).graphs,  # HIP graphs on an AMD card
        )
        what = "the active experts' weights once" if self.spec.is_moe else "every weight once"
        if split:
            why = (
                f"Each token of {self.said} reads {what} from memory, which on {gpus}x {gpu.name} would "
                f"allow ~{ceiling:.0f} tok/s, but no one cost sets the pace: of each "
                f"{e1.step_ms['total']:.1f} ms step, {split}"
            )
        elif pace == "bandwidth":
            reads_ms, math_ms = e1.step_ms.get("memory", 0.0), e1.step_ms.get("compute", 0.0)
            if reads_ms > 0 and math_ms >= MATH_CLOSE_BEHIND * reads_ms:
                # the reads set the pace, but the (padded) math nearly as much: "not compute" would mislead
                behind = "the tile-padded math" if padded else "the math"
                why = (
                    f"Each token of {self.said} reads {what} from memory, so on {gpu.name} speed is set "
                    f"by memory bandwidth, with {behind} close behind ({math_ms:.1f} ms a step against "
                    f"{reads_ms:.1f} of reads)"
                )
            else:
                why = (
                    f"Each token of {self.said} reads {what} from memory, so on {gpu.name} speed is set "
                    "by memory bandwidth, not compute"
                )
        else:  # the reads would allow more: another cost per token sets the pace
            why = (
                f"Each token of {self.said} reads {what} from memory, which on {gpus}x {gpu.name} would "
                f"allow ~{ceiling:.0f} tok/s, but the pace is set by {cause}, not compute"
            )
        caveat = speed_caveat("inference", [(gpu.name, e1.speed_calibrated)])
        answer = (
            f"{why}{'. That gives' if split else ':'} ~{e1.decode_tokens_per_s:.0f} tok/s for one user"
            f"{f' ({caveat})' if caveat else ''} with {busy}. What helps: {helps}."
        )
        return FaqAnswer(
            "slow_generation",
            f"Why is generation slow on my {gpu.name} while it is not fully used?",
            answer,
            tuple(details),
            figures,
        )


def _faster_per_user(hbm: float | None, consumer: float | None) -> str:
    """Which side's tokens/s per user is the faster by the margin :func:`_speed_ratio` words ("hbm",
    "consumer"); "" where they are within 10 % or one is unknown."""
    if not hbm or not consumer:
        return ""
    if hbm >= 1.1 * consumer:
        return "hbm"
    return "consumer" if consumer >= 1.1 * hbm else ""


def _speed_ratio(hbm: Recommendation, consumer: Recommendation, label_hbm: str, label_consumer: str) -> str:
    """', and each user gets 2.0x the tokens/s on the 80 GiB A100-PCIe-80GB' for the two offers whose
    prices the sentence compares ("" where their speeds per user are within 10 % or unknown)."""
    fast = hbm.estimate.per_user_tokens_per_s if hbm.estimate is not None else None
    slow = consumer.estimate.per_user_tokens_per_s if consumer.estimate is not None else None
    if not fast or not slow:
        return ""
    if fast >= 1.1 * slow:
        return f", and each user gets {fast / slow:.1f}x the tokens/s on the {label_hbm}"
    if slow >= 1.1 * fast:
        return f", and each user gets {slow / fast:.1f}x the tokens/s on the {label_consumer}"
    return ""


class _Memo:
    """An estimator function answering each distinct call once: the result, or the refusal
    (``ConfigurationRejected``), is kept and given again for the same arguments. Calls whose arguments
    cannot be hashed go through uncached. ``session()`` (what a ranking asks of ``Backends.inference``,
    see :func:`~gpuscout.advise.backends.inference_session`) is the memo itself: every ranking handed
    these backends shares it."""

    __slots__ = ("_done", "_fn")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn
        self._done: dict[Hashable, tuple[bool, Any]] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = (args, tuple(sorted(kwargs.items())))
        try:
            found = self._done.get(key)
        except TypeError:  # an unhashable argument: nothing to share
            return self._fn(*args, **kwargs)
        if found is None:
            try:
                found = (True, self._fn(*args, **kwargs))
            except ConfigurationRejected as exc:
                found = (False, exc)
            self._done[key] = found
        ok, value = found
        if not ok:
            raise value
        return value

    def session(self) -> _Memo:
        return self


def shared_estimates(be: Backends) -> Backends:
    """``be`` with its inference and training estimators memoised (inference through one session of
    ``be``'s, see :func:`~gpuscout.advise.backends.inference_session`), for rankings of one workload
    that differ only in the prices they may use (spot allowed or not): what runs where, and how fast,
    is estimated once for all of them."""
    return replace(be, inference=_Memo(inference_session(be.inference)), training=_Memo(be.training))


_OTHER_PACES = ("interconnect", "overhead", "compute")


def _split_step(step_ms: dict[str, float], parallel: str = "tensor") -> str:
    """'reads take 3.5 ms, all-reduces 3.4 and fixed costs 3.4' when no part of a decode step takes half
    of the parts' sum (the parts over a sixth of it, largest first); "" when one does. ``parallel``: the
    estimate's split, which names the interconnect part (:func:`~gpuscout.estimate.types.step_parts`)."""
    words = dict(step_parts(parallel))
    parts = {k: step_ms.get(k, 0.0) for k in words}
    whole = sum(parts.values())
    if whole <= 0 or max(parts.values()) >= 0.5 * whole:
        return ""
    big = sorted(((v, k) for k, v in parts.items() if v > whole / 6), reverse=True)
    said = [f"{words[k]} {v:.1f}" for v, k in big]
    said[0] = f"{words[big[0][1]]} take {big[0][0]:.1f} ms"
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def _or_list(items: Sequence[str]) -> str:
    """'a', 'a or b', 'a, b, or c'."""
    if len(items) <= 2:
        return " or ".join(items)
    return ", ".join(items[:-1]) + ", or " + items[-1]


def _slow_cause(
    binding: str,
    gpus: int,
    no_hbm: str = "",
    *,
    hbm_help: str = "",
    narrower: str = "fp8/int4",
    faster_memory: bool = True,
    parallel: str = "tensor",
    graphs: bool = False,
    graph_words: str = CUDA_RUNTIME.graphs,
) -> tuple[str, str]:
    """(what sets a batch-1 decode's pace, what would help) for the estimate's binding limit; ``no_hbm``:
    why a card with faster (HBM) memory would not help, which then replaces that advice ("": it would);
    ``hbm_help``: that advice in other words (which HBM cards help: as many as the user's, not fewer).
    ``narrower``: the narrower weight formats that would help ("fp8/int4", "int4"; "": none, so narrower
    weights are not advised); ``faster_memory``: whether a card with faster (HBM) memory is advised at all
    (not to a user whose card already has HBM). ``parallel``: the estimate's split: a layer split hands
    activations from card to card where a tensor split all-reduces. ``graphs``: whether the engine already
    replays CUDA graphs (``Estimate.cuda_graphs``), so that they are not advised to it; ``graph_words``: what
    the GPU's runtime calls them ("HIP graphs" on an AMD card)."""
    links = INTERCONNECT_WORDS.get(parallel, "all-reduces")
    if binding == "interconnect":
        fewer = ["narrower weights that fit fewer cards"] if narrower else []
        traffic = (
            f"the hand-offs between the {gpus} cards (each passes its layers' output to the next, in turn)"
            if parallel == "layer"
            else f"the all-reduces between the {gpus} cards (two a layer, each waiting on the link)"
        )
        return (
            traffic,
            _or_list(
                [
                    *fewer,
                    "cards joined by NVLink",
                    f"batching users ({'a hand-off' if parallel == 'layer' else 'an all-reduce'} carries a "
                    "whole batch for about the cost of one token)",
                ]
            ),
        )
    if binding == "overhead":
        if graphs:  # already replayed: the cost is the GPU's many small kernels a layer, and the scheduler
            return (
                "the fixed cost of each step (each layer's many small kernels, and scheduling)",
                "batching users (they share each step's fixed cost)",
            )
        return (
            "the fixed cost of each step (kernel launches and scheduling)",
            f"batching users (they share each step's fixed cost), or an engine that replays {graph_words}",
        )
    if binding == "compute":
        return "compute", "narrower math (fp8 / int4 tensor cores) or a faster card"
    if binding == "split":
        smaller = (
            (", or narrower weights that fit fewer cards" if gpus > 1 else ", or narrower weights")
            if narrower
            else ""
        )
        return (
            f"reads, {links} and fixed costs together",
            f"batching users (one step's reads, {links} and fixed costs then serve them all)" + smaller,
        )
    helps = ["batching users (the same reads serve them all)"]
    if narrower:
        helps.append(f"narrower weights ({narrower})")
    if no_hbm:
        return "memory bandwidth", f"{_or_list(helps)}; {no_hbm}"
    if faster_memory:
        helps.append(hbm_help or "a card with faster (HBM) memory")
    return "memory bandwidth", _or_list(helps)


_TILE_ROWS = re.compile(r"at least (\d+) rows")


def _tile_rows(e: Estimate) -> int:
    """The rows the estimate's tensor-core GEMMs compute at least (its ``gemm_tile`` assumption: 16 for
    Marlin's int4, 64 for Hopper's bf16/fp8 GEMMs); 1 where it states none (GEMV kernels)."""
    found = _TILE_ROWS.search(e.assumptions.get("gemm_tile", "")) if e.assumptions else None
    return int(found.group(1)) if found else 1


def _compute_class(precision: str) -> str:
    """The tensor-core rate a weight format multiplies at best (weight-only formats: 16-bit; gpt-oss's
    MXFP4 experts meet bf16 activations, W4A16, and the rest of it is bf16:
    ``WeightFormat.expert_activations``)."""
    from gpuscout.errors import InvalidInputError
    from gpuscout.estimate.precision import resolve_precision

    try:
        if resolve_precision(precision).expert_activations == "bf16":
            return "bf16"
    except InvalidInputError:
        pass
    p = precision.lower()
    if p.startswith("fp8"):
        return "fp8"
    if p.startswith(("mxfp4", "nvfp4")):
        return "fp4"
    return "int8" if p.startswith("w8a8") else "bf16"


#: Bits per weight below each limit, and the width they are told apart by (:func:`distinct_widths`):
#: 4-bit formats (int4, AWQ, MXFP4, Q4_K_M at 4.85), 5-6-bit GGUF quants, 8-bit, 16-bit, 32-bit.
_WIDTHS = ((5.2, 4), (7.0, 6), (12.0, 8), (24.0, 16), (float("inf"), 32))


def distinct_widths(precisions: Sequence[str]) -> tuple[str, ...]:
    """``precisions`` less those whose weights are as wide as an earlier one's (:data:`_WIDTHS`):
    an AWQ checkpoint is not compared with "int4", nor DeepSeek's FP8 blocks with "fp8"; the first of a
    width stays. A name the precision table does not know stays as it is."""
    from gpuscout.errors import InvalidInputError
    from gpuscout.estimate.precision import resolve_precision

    seen: set[int | str] = set()
    out: list[str] = []
    for p in precisions:
        try:
            bits = resolve_precision(p).bits_per_weight
            width: int | str = next(w for limit, w in _WIDTHS if bits < limit)
        except InvalidInputError:
            width = p
        if width not in seen:
            seen.add(width)
            out.append(p)
    return tuple(out)


#: What the advisor says of a price without an observation date (``recommend``'s "every row: ...").
UNDATED_PRICE = "price age unknown (bundled snapshot)"


def price_ages(offers: Sequence[Offer]) -> str:
    """How old the current (not stale) offers' prices are, as ``recommend`` says it: 'price age unknown
    (bundled snapshot)' when none is dated, 'prices as dated on each offer' when all are, else both
    with the count of undated ones."""
    current = [o for o in offers if not o.stale]
    undated = sum(1 for o in current if o.observed_at is None)
    if current and undated == len(current):
        return UNDATED_PRICE
    if not undated:
        return "prices as dated on each offer"
    return f"prices as dated on each offer; {undated:,} {plural(undated, 'offer')}: {UNDATED_PRICE}"


def faq(
    model: str,
    offers: Sequence[Offer],
    *,
    context: int | None = None,
    users: int = DEFAULT_USERS,
    gpu: str | None = None,
    precision: str | None = None,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> Faq:
    """Answers for ``model`` at ``users`` conversations of ``context`` tokens (default
    ``DEFAULT_CONTEXT``, or the model's whole context where that is shorter; ``Faq.context`` says which)
    (``gpu``: the user's card for the slow-generation answer, default a 24 GiB consumer card) over
    ``offers``, at ``precision`` (default: the checkpoint's own format)."""
    if context is not None and (not isinstance(context, int) or not MIN_CONTEXT <= context <= MAX_CONTEXT):
        raise InvalidInputError(
            "context",
            f"must be {MIN_CONTEXT}..{MAX_CONTEXT:,} tokens, got {quoted_value(context)}",
            f"{MIN_CONTEXT}..{MAX_CONTEXT}",
        )
    if not isinstance(users, int) or not 1 <= users <= 10_000:
        raise InvalidInputError("users", f"must be 1..10,000, got {quoted_value(users)}", "1..10000")
    be = backends or default_backends()
    if precision is None:
        precision = be.native_precision(model) if be.native_precision else "bf16"
    f = _Faq(
        model,
        offers,
        be,
        assumptions or Assumptions(),
        now,
        context,
        users,
        gpu,
        precision,
    )
    answers = (f.vram(), f.card_class(), f.spot(), f.slow())
    total = f.be.params_b(f.model)
    active = f.be.active_params_b(f.model)
    size = f"{total:.1f}B parameters" + (f" ({active:.1f}B active per token)" if f.spec.is_moe else "")
    shortened = f" ({f.model}'s whole context; the usual {DEFAULT_CONTEXT:,} is longer)" if f.capped else ""
    # counted as the freshness banner counts them; the advisor leaves the stale ones out
    stale = sum(1 for o in offers if o.stale)
    left_out = f"; the {stale:,} flagged stale are left out" if stale else ""
    summary = (
        f"{size}; for {f.who} x {f.context:,} tokens{shortened}, each a {f.ctx_in:,}-token prompt and a "
        f"{f.ctx_out:,}-token answer, at {precision}; answers computed "
        f"from the catalog's {len(offers) - stale:,} current offers; {price_ages(offers)}{left_out}"
    )
    return Faq(
        model=f.label,
        summary=summary,
        answers=answers,
        context=f.context,
        users=users,
        warnings=f.model_warnings(answers),
    )
