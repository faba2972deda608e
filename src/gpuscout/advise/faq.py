"""The four questions GPU renters ask, answered with one model's numbers and the current offers.

1. How much VRAM do I need?              -> memory at bf16 / fp8 / int4, per extra user, cheapest fits
2. Spot or on-demand?                    -> a LoRA fine-tune priced both ways incl. rework; endpoint risk
3. 80 GB datacenter card or consumer card? -> best offer of each class for a chat endpoint, $/M tokens
4. Why is generation slow while the GPU looks idle? -> batch-1 decode is bandwidth-bound: the figures

Every figure comes from the estimator and the advisor, so the web FAQ page and ``gpuscout faq`` say
the same thing. Nothing here is recited: change the catalog or the model and the answers change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.rank import Ranker
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import FinetuneWorkload, ServeWorkload
from gpuscout.catalog.offer import Offer
from gpuscout.errors import GpuscoutError, InvalidInputError
from gpuscout.estimate.types import Estimate
from gpuscout.knowledge.accelerator_types import Accelerator

#: Reference cards for the "why is it slow" answer: an HBM datacenter GPU and a GDDR consumer GPU.
REFERENCE_HBM = "H100-SXM"
REFERENCE_GDDR = "RTX4090"
VRAM_PRECISIONS = ("bf16", "fp8", "int4")
CHAT_USERS, CHAT_PROMPT, CHAT_OUTPUT = 8, 2000, 500
CONTEXT = 4096  # tokens per sequence for the VRAM answer
LORA_TOKENS = 1e8  # a 100M-token fine-tune for the spot answer


@dataclass(frozen=True, slots=True)
class FaqAnswer:
    key: str  # "vram", "spot", "card_class", "slow_generation"
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


def _gb(x: float) -> str:
    return f"{x:.0f} GB" if x >= 10 else f"{x:.1f} GB"


def _offer_label(rec: Recommendation) -> str:
    o = rec.offer
    config = rec.config.describe(o.accelerator)
    return f"{o.provider} {o.instance_type} ({config}, ${rec.price_usd_per_hour:,.2f}/h)"


class _Faq:
    def __init__(
        self, model: str, offers: Sequence[Offer], be: Backends, a: Assumptions, now: datetime | None
    ) -> None:
        self.model = be.model_name(model)
        kind = be.model_kind(self.model)
        if kind != "llm":
            raise InvalidInputError(
                "model", f"the FAQ covers language models; {self.model} is a {kind} model "
                f"(try `gpuscout recommend batch {self.model} --images N`)",
                "a language model (see `gpuscout models`)",
            )
        self.offers = offers
        self.be = be
        self.a = a
        self.now = now

    def _rank(self, w: ServeWorkload | FinetuneWorkload, top: int = 400) -> list[Recommendation]:
        return Ranker(w, backends=self.be, assumptions=self.a, now=self.now).rank(self.offers, top=top)

    def _estimate(
        self,
        acc: Accelerator,
        *,
        precision: str = "bf16",
        batch: int | str = 1,
        ctx_in: int = CONTEXT - 512,
        ctx_out: int = 512,
    ) -> tuple[Estimate, int]:
        """Estimate on the fewest GPUs (1, 2, 4, 8) of ``acc`` that hold the model."""
        e = self.be.inference(
            self.model, acc, gpus=1, precision=precision, batch=batch, context_in=ctx_in, context_out=ctx_out
        )
        gpus = 1
        while not e.fits and gpus < 8:
            gpus *= 2
            e = self.be.inference(
                self.model,
                acc,
                gpus=gpus,
                precision=precision,
                batch=batch,
                context_in=ctx_in,
                context_out=ctx_out,
            )
        return e, gpus

    # ---- 1 ------------------------------------------------------------------------------------
    def vram(self) -> FaqAnswer:
        ref = self.be.accelerator(REFERENCE_HBM)
        details: list[str] = []
        figures: dict[str, float | str | None] = {}
        cited: list[Recommendation] = []
        per_user = 0.0
        for p in VRAM_PRECISIONS:
            e = self.be.inference(
                self.model, ref, gpus=1, precision=p, batch=1, context_in=CONTEXT - 512, context_out=512
            )
            m = e.memory
            need = m.weights_gb + m.kv_cache_gb + m.activations_gb + m.overhead_gb
            per_user = m.kv_bytes_per_token * CONTEXT / 1e9
            figures[f"{p}_gb"] = round(need, 2)
            best = self._rank(
                ServeWorkload(
                    model=self.model,
                    precision=p,
                    concurrency=1,
                    prompt_tokens=CONTEXT - 512,
                    output_tokens=512,
                ),
                top=1,
            )
            where = f"cheapest fit: {_offer_label(best[0])}" if best else "no offer in the catalog holds it"
            if best:
                cited.append(best[0])
            details.append(
                f"{p}: {_gb(need)} (weights {_gb(m.weights_gb)}, KV {_gb(m.kv_cache_gb)} at "
                f"{CONTEXT // 1024}k tokens, runtime {_gb(m.activations_gb + m.overhead_gb)}); {where}"
            )
        figures["kv_gb_per_user_4k"] = round(per_user, 3)
        bf16, int4 = float(figures["bf16_gb"] or 0.0), float(figures["int4_gb"] or 0.0)
        answer = (
            f"{self.model} needs about {_gb(bf16)} at bf16 and {_gb(int4)} at int4 for one "
            f"{CONTEXT // 1024}k-token conversation; every extra user at that context adds "
            f"{per_user:.2f} GB of KV cache."
        )
        return FaqAnswer("vram", "How much VRAM do I need?", answer, tuple(details), figures, tuple(cited))

    # ---- 2 ------------------------------------------------------------------------------------
    def spot(self) -> FaqAnswer:
        params = self.be.params_b(self.model)
        method: Literal["lora", "qlora"] = "qlora" if params > 20 else "lora"
        w = FinetuneWorkload(model=self.model, method=method, dataset_tokens=LORA_TOKENS, spot_allowed=True)
        recs = self._rank(w)
        spot = next((r for r in recs if r.config.spot), None)
        ondemand = next((r for r in recs if not r.config.spot), None)
        details: list[str] = []
        figures: dict[str, float | str | None] = {"method": method}
        cited = [r for r in (spot, ondemand) if r is not None]
        if spot is not None and spot.cost is not None:
            share = spot.cost.interruption / max(spot.cost.compute, 1e-9)
            figures.update(spot_total=round(spot.cost.total, 2), spot_rework_share=round(share, 4))
            details.append(
                f"spot: ${spot.cost.total:,.2f} on {_offer_label(spot)}, including "
                f"${spot.cost.interruption:,.2f} ({share:.0%}) expected rework and restarts"
            )
        if ondemand is not None and ondemand.cost is not None:
            figures["on_demand_total"] = round(ondemand.cost.total, 2)
            details.append(f"on-demand: ${ondemand.cost.total:,.2f} on {_offer_label(ondemand)}")
        rate = self.a.interruption_rate("marketplace")
        reclaims = rate * 24 * 30
        figures["endpoint_reclaims_per_month_marketplace"] = round(reclaims, 1)
        details.append(
            f"an always-on endpoint on marketplace spot: ~{reclaims:.0f} reclaims a month at the "
            f"assumed {rate:g}/h, each ~{(self.a.restart_s + self.a.boot_s) / 60:.0f} min down plus "
            "reloading the weights"
        )
        if spot is not None and spot.cost is not None and ondemand is not None and ondemand.cost is not None:
            saving = 1 - spot.cost.total / ondemand.cost.total
            verdict = (
                f"For a checkpointed {'QLoRA' if method == 'qlora' else 'LoRA'} fine-tune of "
                f"{LORA_TOKENS / 1e6:.0f}M tokens, spot "
                f"costs ${spot.cost.total:,.2f} vs ${ondemand.cost.total:,.2f} on-demand ({saving:.0%} "
                "less, rework included). "
            )
        else:
            verdict = "No offer in the catalog has both prices for this fine-tune. "
        answer = verdict + "Keep a live endpoint on on-demand capacity."
        return FaqAnswer(
            "spot", "Should I use spot or on-demand?", answer, tuple(details), figures, tuple(cited)
        )

    # ---- 3 ------------------------------------------------------------------------------------
    def card_class(self) -> FaqAnswer:
        details: list[str] = []
        figures: dict[str, float | str | None] = {}
        cited: list[Recommendation] = []
        verdicts: list[str] = []
        for p in ("bf16", "int4"):
            recs = self._rank(
                ServeWorkload(
                    model=self.model,
                    precision=p,
                    concurrency=CHAT_USERS,
                    prompt_tokens=CHAT_PROMPT,
                    output_tokens=CHAT_OUTPUT,
                )
            )
            dc = next(
                (
                    r
                    for r in recs
                    if r.estimate is not None
                    and r.estimate.memory_capacity_gb >= 75
                    and _kind(self.be, r.offer.accelerator) == "datacenter"
                ),
                None,
            )
            consumer = next((r for r in recs if _kind(self.be, r.offer.accelerator) == "consumer"), None)
            for label, rec in (("80 GB-class datacenter", dc), ("consumer", consumer)):
                if rec is None or rec.unit_costs is None or rec.estimate is None:
                    details.append(f"{p}, {label}: no offer holds it")
                    figures[f"{p}_{label.split()[0]}_usd_per_m"] = None
                    continue
                cited.append(rec)
                per_m = rec.unit_costs.per_million_output_tokens
                figures[f"{p}_{label.split()[0]}_usd_per_m"] = None if per_m is None else round(per_m, 4)
                details.append(
                    f"{p}, {label}: {_offer_label(rec)}: {rec.estimate.per_user_tokens_per_s or 0:.0f} "
                    f"tok/s per user, ${per_m or 0:.3g}/M output tokens"
                )
            if consumer is None:
                verdicts.append(f"at {p} no consumer offer holds it for {CHAT_USERS} chat users")
            elif dc is not None and dc.unit_costs and consumer.unit_costs:
                a, b = dc.unit_costs.per_million_output_tokens, consumer.unit_costs.per_million_output_tokens
                if a is not None and b is not None:
                    cheaper = "consumer" if b < a else "80 GB datacenter"
                    verdicts.append(
                        f"at {p} the {cheaper} card is cheaper per token (${min(a, b):.3g} vs "
                        f"${max(a, b):.3g}/M)"
                    )
        answer = (
            f"For a chat endpoint ({CHAT_USERS} users, {CHAT_PROMPT}+{CHAT_OUTPUT} "
            "tokens): " + "; ".join(verdicts) + "."
        )
        return FaqAnswer(
            "card_class",
            "Do I need an 80 GB datacenter GPU, or is a consumer card enough?",
            answer,
            tuple(details),
            figures,
            tuple(cited),
        )

    # ---- 4 ------------------------------------------------------------------------------------
    def slow(self) -> FaqAnswer:
        hbm = self.be.accelerator(REFERENCE_HBM)
        e1, gpus = self._estimate(hbm)
        active = self.be.active_params_b(self.model) * 1e9
        peak = (hbm.bf16_tflops or 0.0) * 1e12 * gpus
        util = 2 * active * e1.decode_tokens_per_s / peak if peak else 0.0
        weights_total = e1.memory.weights_gb * gpus
        share = min(1.0, active / (self.be.params_b(self.model) * 1e9))
        streamed = weights_total * share  # MoE: only the active experts are read per token
        ceiling = hbm.bandwidth_gbps * gpus / streamed if streamed else 0.0
        read = (f"{_gb(streamed)} of weights" if share > 0.99 else
                f"~{_gb(streamed)} of weights (the active experts' share of {_gb(weights_total)})")
        e32 = self.be.inference(
            self.model, hbm, gpus=gpus, precision="bf16", batch=32, context_in=CONTEXT - 512, context_out=512
        )
        e4, g4 = self._estimate(hbm, precision="int4")
        details = [
            f"batch 1 on {gpus}x {hbm.name}: {e1.decode_tokens_per_s:.0f} tok/s; each token streams "
            f"{read}, so {hbm.bandwidth_gbps * gpus / 1000:.2f} TB/s caps it near "
            f"{ceiling:.0f} tok/s ({e1.bound}-bound) while compute runs at ~{util:.1%} of its bf16 peak",
            f"batching 32 users: {e32.output_tokens_per_s_total:,.0f} tok/s in total "
            f"({e32.output_tokens_per_s_total / max(e1.decode_tokens_per_s, 1e-9):.0f}x) from the same "
            "weight reads",
            f"int4 weights on {g4}x {hbm.name}: {e4.decode_tokens_per_s:.0f} tok/s per user",
        ]
        figures: dict[str, float | str | None] = {
            "reference_gpu": hbm.name,
            "gpus": gpus,
            "batch1_tok_s": round(e1.decode_tokens_per_s, 1),
            "compute_utilisation": round(util, 4),
            "batch32_tok_s_total": round(e32.output_tokens_per_s_total, 1),
            "int4_tok_s": round(e4.decode_tokens_per_s, 1),
        }
        try:
            gddr = self.be.accelerator(REFERENCE_GDDR)
            eg, gg = self._estimate(gddr, precision="int4")
            if eg.fits:
                details.append(
                    f"GDDR card ({gg}x {gddr.name}, {gddr.bandwidth_gbps / 1000:.2f} TB/s) at int4: "
                    f"{eg.decode_tokens_per_s:.0f} tok/s per user"
                )
                figures["gddr_int4_tok_s"] = round(eg.decode_tokens_per_s, 1)
        except GpuscoutError:  # the comparison is optional when the reference card is unknown
            pass
        what = "every weight once" if share > 0.99 else "the active experts' weights once"
        answer = (
            f"Generating one token of {self.model} reads {what} from memory, so speed is set by "
            f"memory bandwidth, not compute: ~{e1.decode_tokens_per_s:.0f} tok/s on {gpus}x {hbm.name} with "
            f"the tensor cores ~{util:.1%} busy. Faster memory (HBM), int4/fp8 weights, or batching users "
            "is what helps."
        )
        return FaqAnswer(
            "slow_generation",
            "Why is generation slow while the GPU is not fully used?",
            answer,
            tuple(details),
            figures,
        )


def _kind(be: Backends, accelerator: str) -> str | None:
    try:
        return be.accelerator(accelerator).kind
    except GpuscoutError:  # an offer with an unknown accelerator is simply not classed
        return None


def faq(
    model: str,
    offers: Sequence[Offer],
    *,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> Faq:
    """Answers to the four questions for ``model`` over ``offers``."""
    f = _Faq(model, offers, backends or default_backends(), assumptions or Assumptions(), now)
    answers = (f.vram(), f.spot(), f.card_class(), f.slow())
    total = f.be.params_b(f.model)
    active = f.be.active_params_b(f.model)
    size = f"{total:.1f}B parameters" + (
        f" ({active:.1f}B active per token)" if active < total * 0.99 else ""
    )
    summary = f"{size}; answers computed from {len(offers):,} current offers"
    return Faq(model=f.model, summary=summary, answers=answers)
