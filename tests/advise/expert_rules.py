"""What an experienced inference engineer and GPU renter checks on an advisor's top rows, as general rules.

``violations(workload, advice)`` returns every rule the answer breaks, in words; a scenario passes when
the list is empty. The rules are about physics, hardware facts, renting practice and the trade-off
itself, never about which offer should win, so they apply to workloads nobody wrote a test for:

1. feasible: the engine can run the precision on the hardware (the estimator's support rules); a row
   that runs another engine or precision than asked says what was changed, a tensor-core format
   (FP8, MXFP4, NVFP4) run weight-only says so, and it fits with the memory it claims;
2. honest fabric: tensor parallel / multi-GPU training over an interconnect the source does not
   state is costed as PCIe and marked, never presented as NVLink; a layer split (llama.cpp) is named
   as one, not as tensor parallel;
3. no spot or auction capacity for an always-on endpoint (unless spot was allowed);
4. stale offers and defunct providers are not recommended by default;
5. serving rows meet the latency targets applied (chat defaults when none were given);
6. training rows leave the stated memory headroom;
7. jobs finish before their deadline; every row states its time next to its cost;
8. the trade-off is a real Pareto front: no front row is beaten on both axes by a shown row, every
   dominated row is beaten by a shown front row, the picks are on the front, the balanced pick is
   within the stated factor of the best time of the front rows that rent no more GPUs than the load
   needs (jobs: of the fastest time), or within the latency an endpoint's stated targets allow, and the
   cheapest pick is the cheapest row;
9. one row per real choice: no two rows are the same instance at the same price.
"""

from __future__ import annotations

import math
from typing import Any

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.pareto import cost_allowance, dominates, most_allowance
from gpuscout.advise.rank import Ranker, spot_class
from gpuscout.advise.types import Advice, Recommendation
from gpuscout.advise.workload import (
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
)
from gpuscout.catalog.offer import Interconnect
from gpuscout.knowledge.accelerators import resolve_gpu

FP8 = ("fp8", "fp8_e4m3", "w8a8-fp8")


def _gpus_together(w: AnyWorkload, r: Recommendation) -> int:
    if isinstance(w, FinetuneWorkload | PretrainWorkload):
        return r.config.gpus_per_instance
    return r.config.tp


def _images(w: AnyWorkload) -> bool:
    """An image batch: its rows run a diffusers pipeline, which the LLM engines' rules do not cover."""
    return isinstance(w, BatchWorkload) and w.is_images


def support_problem(w: AnyWorkload, r: Recommendation) -> str | None:
    """Why the row's engine cannot run its precision on its GPU, per the estimator's support rules; None
    when it can (or when the rules are not available in this build)."""
    try:
        from gpuscout.estimate.support import can_run  # the estimator's support API
    except ImportError:
        return None
    s = r.estimate
    if s is None or s.engine is None or s.precision is None:
        return None
    if _images(w):
        return None
    check = can_run(s.engine, s.precision, resolve_gpu(r.offer.accelerator))
    return None if check.supported else check.verdict.message()


def _changed(w: AnyWorkload, engine: str, precision: str, support: str | None) -> str | None:
    """The engine or precision the row runs when it is not the one the workload asked for."""
    from gpuscout.estimate.engines import resolve_engine
    from gpuscout.estimate.precision import resolve_precision

    asked_engine = getattr(w, "run_engine", None)  # the engine named, else its precision's default
    if asked_engine and resolve_engine(asked_engine).name != resolve_engine(engine).name:
        return f"{engine} where {asked_engine} was asked"
    asked = getattr(w, "precision", None)
    same = not asked or resolve_precision(asked).name == resolve_precision(precision).name
    if not same and support != "fallback-fp16":
        return f"{precision} where {asked} was asked"
    return None


def row_violations(w: AnyWorkload, r: Recommendation, a: Assumptions) -> list[str]:
    out: list[str] = []
    label = f"#{r.rank} {r.provider_name} {r.offer.instance_type} ({r.config.describe(r.offer.accelerator)})"
    s = r.estimate
    acc = resolve_gpu(r.offer.accelerator)
    # 1. feasible
    problem = support_problem(w, r)
    if problem:
        out.append(f"{label}: infeasible engine/precision/hardware: {problem}")
    if s is None or s.memory_per_gpu_gb > s.memory_capacity_gb + 1e-6:
        out.append(f"{label}: does not fit the memory it claims")
    precision = str(getattr(w, "precision", "bf16") or "").lower()
    if (
        precision in FP8
        and not acc.fp8_supported
        and not r.substitution
        and not any("FP8" in x or "weight-only" in x for x in r.warnings)
    ):
        out.append(f"{label}: FP8 asked, {acc.name} has no FP8 tensor cores, and the row does not say so")
    # 1b. what runs is what was asked, or the row says what was changed and why
    if s is not None and s.engine and s.precision and not _images(w):
        changed = _changed(w, s.engine, s.precision, s.support)
        if changed and not r.substitution:
            out.append(f"{label}: runs {changed} without saying what was changed")
        if (
            s.support == "weight-only"
            and s.precision.startswith(("fp8", "mxfp4", "nvfp4"))
            and not any("weight-only" in x for x in r.warnings)
        ):
            out.append(f"{label}: {s.precision} runs weight-only on {acc.name} and the row does not say so")
    # 2. honest fabric
    unstated = _gpus_together(w, r) > 1 and r.offer.interconnect == Interconnect.UNKNOWN
    if unstated and (not r.fabric_assumed or not any("PCIe" in x for x in r.warnings)):
        out.append(f"{label}: multi-GPU over an unstated interconnect not costed and marked as PCIe")
    # 2b. a split is named for what it is: llama.cpp (--split-mode layer) and HF transformers
    # (device_map="auto") split layers (the GPUs take turns), not tensors
    if s is not None and s.engine in ("llama.cpp", "hf-transformers") and r.config.tp > 1:
        described = r.config.describe(r.offer.accelerator)
        if r.config.parallel != "layer" or "TP" in described:
            out.append(f"{label}: {s.engine}'s layer split presented as tensor parallel ({described})")
    # 3. spot for a live endpoint
    if isinstance(w, ServeWorkload) and not w.spot_ok and (r.config.spot or spot_class(r.offer)):
        out.append(f"{label}: spot / auction capacity for an always-on endpoint")
    # 4. stale / defunct
    if r.offer.stale:
        out.append(f"{label}: a stale offer")
    # 5. latency targets
    if isinstance(w, ServeWorkload) and s is not None:
        if w.ttft_target_ms is not None and (s.ttft_ms or math.inf) > w.ttft_target_ms * (1 + 1e-9):
            out.append(f"{label}: TTFT {s.ttft_ms:.0f} ms misses the {w.ttft_target_ms:.0f} ms target")
        if w.tpot_target_ms is not None and (s.tpot_ms or math.inf) > w.tpot_target_ms * (1 + 1e-9):
            out.append(f"{label}: {s.tpot_ms:.0f} ms per token misses the {w.tpot_target_ms:.0f} ms target")
    # 6. training headroom
    if isinstance(w, FinetuneWorkload | PretrainWorkload) and s is not None and s.memory_capacity_gb > 0:
        headroom = 1 - s.memory_per_gpu_gb / s.memory_capacity_gb
        if headroom < a.min_training_headroom - 1e-9:
            out.append(f"{label}: only {headroom:.1%} memory headroom for training")
    # 7. time next to cost, deadline
    t = r.time_to_result_s
    if t is None or not 0 < t < math.inf or r.total_usd is None or not r.total_usd > 0:
        out.append(f"{label}: no finite time or cost")
    deadline = getattr(w, "deadline_hours", None)
    if deadline is not None and t is not None and t > deadline * 3600 * (1 + 1e-9):
        out.append(f"{label}: finishes after the deadline")
    return out


def answer_violations(w: AnyWorkload, advice: Advice, a: Assumptions) -> list[str]:
    out: list[str] = []
    rows = list(advice.rows)
    pts = {r.rank: (r.total_usd or math.inf, r.time_to_result_s or math.inf) for r in rows}
    # under a deadline a faster row beats a cheaper one only within the estimate's tolerance
    most = most_allowance(getattr(w, "deadline_hours", None) is not None)
    front = [r for r in rows if r.pareto]
    for r in front:
        beaten = [
            o.rank for o in rows if o is not r and dominates(pts[o.rank], pts[r.rank], a.time_tolerance, most)
        ]
        if beaten:
            out.append(f"front row #{r.rank} is beaten on cost and time by #{beaten[0]}")
    for r in rows:
        if not r.pareto and (
            r.dominated_by is None or not dominates(pts[r.dominated_by], pts[r.rank], a.time_tolerance, most)
        ):
            out.append(f"dominated row #{r.rank} does not name a shown row that beats it")
    picks = advice.picks
    if rows and set(picks) != {"cheapest", "balanced", "fastest"}:
        out.append(f"the picks are not all named: {picks}")
    if picks:
        best_time = min(pts[r.rank][1] for r in front)
        cheapest = min(pts[r.rank][0] for r in rows)
        # the cheapest pick is the cheapest row, unless that row is not worth its wait (dominated)
        cheapest_rows = [r for r in rows if pts[r.rank][0] == cheapest]
        if pts[picks["cheapest"]][0] > cheapest and any(r.pareto for r in cheapest_rows):
            out.append("the cheapest pick is dearer than a cheaper row on the front")
        if pts[picks["cheapest"]][0] > cheapest * (
            1 + cost_allowance(max(t for _, t in pts.values()), best_time)
        ):
            out.append("the cheapest pick is dearer than any wait could justify")
        # serve: a row whose extra replicas (or wider split) only shorten requests does not set the window
        evaluate = Ranker(w, assumptions=a).evaluator.evaluate
        lean = [pts[r.rank][1] for r in front if not evaluate(r.offer).rents_surplus]
        window = min(lean, default=best_time)
        # the latency targets a renter states make the request latency they allow acceptable
        allowed = getattr(w, "stated_latency_s", 0.0)
        if pts[picks["balanced"]][1] > max(a.balanced_time_factor * window, allowed) * (1 + 1e-9):
            out.append(
                f"the balanced pick takes more than {a.balanced_time_factor:g}x the best time of a front row "
                "that rents no more GPUs than the load needs, and more than the latency targets allow"
            )
        if pts[picks["fastest"]][1] > (1 + a.time_tolerance) * best_time * (1 + 1e-9):
            out.append("the fastest pick is not within the tolerance of the best time")
        by_rank = {r.rank: r for r in rows}
        if not all(n in by_rank and by_rank[n].pareto for n in picks.values()):
            out.append("a pick is not on the front")
    seen: set[Any] = set()
    for r in rows:
        key = (r.offer.provider, r.offer.instance_type, r.price_usd_per_hour, r.config.spot)
        if key in seen:
            out.append(f"#{r.rank} repeats another row's instance at the same price (a region copy)")
        seen.add(key)
    return out


def violations(w: AnyWorkload, advice: Advice, a: Assumptions | None = None) -> list[str]:
    """Every rule the answer's rows break (empty: an expert would sign it)."""
    a = a or Assumptions()
    out = answer_violations(w, advice, a)
    for r in advice.rows:
        out += row_violations(w, r, a)
    return out
