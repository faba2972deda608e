"""Evaluators of the inference workloads: serving, batch generation of tokens, and of images.

Per instance, ``replicas`` copies of the model each sharded ``tp`` ways (``tp`` a power of two dividing
the instance's GPUs). Serving uses the smallest ``tp`` that fits and meets the latency targets unless a
larger one needs fewer instances, or as many answering the load clearly sooner (``SPLIT_LEAD``); more
load than one instance sustains -> more instances. A batch job
takes the fastest split and as many instances as its deadline needs (one without a deadline); the
ranking then spreads it over as many as its provider's billing step bills no more than that
(``rank.billing_sized``).

An engine the user names runs on every row: a GPU it cannot run the precision on is refused with the
support rule; only the default engine (and the precision asked of it) is replaced there by what runs
(``engine_named``).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import (
    Backends,
    ImageResult,
    RunOption,
    in_workload_words,
    inference_session,
)
from gpuscout.advise.configs import (
    BaseEvaluator,
    ConfigEval,
    ConfigKey,
    capacity_gb,
    deadline_reject,
    fabric_unstated,
    instances_for_split_deadline,
    job_warmup_s,
    known_ram,
    reject,
    reject_kind_of,
    request_latency_s,
    split_why,
    tp_degrees,
    tpot_ms,
)
from gpuscout.advise.cost import fetched_dataset_gb, split_dataset_gb
from gpuscout.advise.pareto import TIME_TOLERANCE
from gpuscout.advise.reasons import duration
from gpuscout.advise.types import EstimateSummary, run_words
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.memory import gib
from gpuscout.estimate.parallel import NODE_GPUS
from gpuscout.estimate.types import Estimate
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.wording import plural, token_count

#: The load of one estimate: a batch kept full (``"max"``: the most that fits), or ``("rate", r)``,
#: r requests/s arriving at random (open loop).
Load = int | str | tuple[str, float]

#: vLLM's advice for a model that fits one node whose GPUs lack NVLink (e.g. L40S): pipeline parallelism
#: rather than tensor parallelism, for throughput and less communication.
PIPELINE_SOURCE = "https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html"

#: The lead a pipeline needs over the tensor split it replaces: a batch job must finish this much sooner; an
#: endpoint must need this share fewer instances, or as many and answer this much sooner. Its speed is the
#: layer split's physics with no measurement behind it (no calibration row runs a pipeline) where the
#: tensor split's is fitted, so the advisor takes it only for a lead no fitting error of that size hides.
PIPELINE_LEAD = 0.10

#: The lead a wider tensor split needs over a narrower one on as many instances (same price) to replace it:
#: its requests must finish this much sooner at the load. Both splits' speeds rest on the same calibrated
#: physics, so the margin only keeps near ties with the narrower split (more replicas, no fast link needed).
SPLIT_LEAD = 0.10
#: A monthly volume the stated users generate within this share of is theirs (the estimate's own rounding):
#: a serve row is sized up, or refused, only for a larger shortfall.
VOLUME_TOLERANCE = 0.02

#: A replica's split as the evaluator's layout names it: (accelerator, its fabric, GPUs).
Split = tuple[str, str | None, int]

#: Engines that are libraries, not servers: never substituted for a live endpoint.
LIBRARY_ENGINES = ("hf-transformers",)

InferenceW = TypeVar("InferenceW", bound=ServeWorkload | BatchWorkload)


def engine_named(w: ServeWorkload | BatchWorkload) -> bool:
    """Whether the workload names its engine (``engine`` given: ``--engine``, the form's or the API's
    field), rather than leaving it to the default (None or blank: ``run_engine`` picks llama.cpp for a
    GGUF precision, else vLLM). The one place this is decided: a named engine runs on every row, an offer
    where it cannot run (support rules) is left out with the rule; only the default engine (and the
    precision asked of it) is replaced there by what the rules say runs."""
    return bool(w.engine and w.engine.strip())


def precision_named(w: ServeWorkload | BatchWorkload) -> bool:
    """Whether the workload names its precision (a blank one, as a form may send, is the checkpoint's
    own format, as a missing one is): a precision named with a named engine is never replaced."""
    return bool(w.precision and w.precision.strip())


def _short_label(est: Estimate) -> str:
    """The engine as people name it ("TensorRT-LLM", "vLLM"): its label without the parenthesis."""
    label = str(est.assumptions.get("engine") or est.engine)
    return label.split(" (")[0].strip() or est.engine


def asked_run(asked: Estimate) -> str:
    """'tgi, mxfp4-moe': the engine and weight format an estimate is for, as a row's
    :attr:`~gpuscout.advise.types.EstimateSummary.runs_as` names them."""
    return run_words(asked.engine, asked.precision)


#: The estimator's support refusal: "<engine>: <precision> on <gpu> is not supported: <rule>".
_REFUSAL = re.compile(r"^[^:]+: (?P<what>.+?) on (?P<gpu>\S+) is not supported: (?P<rule>.+)$", re.S)


class _InferenceEvaluator(BaseEvaluator[InferenceW]):
    """Serving and batch generation: replicas of the model, each sharded ``tp`` ways."""

    def __init__(self, workload: InferenceW, backends: Backends, assumptions: Assumptions) -> None:
        super().__init__(workload, backends, assumptions)
        self._inference = inference_session(backends.inference)  # one per ranking (see Backends)
        self._inf: dict[tuple[str, str | None, int, Load, str | None], Estimate | None] = {}
        self._inf_err: dict[tuple[str, str | None, int, Load, str | None], str] = {}
        self.last_error: str | None = None
        # accelerator -> (engine, precision, what was changed and why): what runs there, decided once
        # per accelerator by the support rules (they depend on the GPU, not on the split or the batch)
        self._plans: dict[str, tuple[str, str | None, str | None]] = {}
        self._cannot_run: dict[str, str] = {}  # accelerator -> why nothing (or not the named engine) runs
        # accelerator -> (what was asked and does not run there, what runs in its place): ``fallback_for``
        self._fallbacks: dict[str, tuple[str, str]] = {}
        self._engine = workload.run_engine  # the engine named, else the precision's default
        # a named engine: the precisions it runs on a GPU where it cannot run the one asked (support
        # rules), nearest first, over the GPUs refused: what the "no offer" answer may suggest
        self.named_engine_precisions: dict[str, None] = {}
        # a named engine's GPUs where its platform row refuses it outright, whatever the precision
        # (TensorRT-LLM on AMD): accelerator -> the rule (``Backends.platform_refusal``)
        self._platform_refused: dict[str, str] = {}
        # what was asked ("tgi, mxfp4-moe", ``EstimateSummary.runs_as``) where something else ran instead
        self.asked_run = ""
        self._dense: bool | None = None  # the model has no experts (``_alternatives``), once asked
        # the splits (accelerator, its fabric, tp) of the configuration in hand that run as a pipeline:
        # while serving tries or has chosen one, every estimate of that split (its operating point, its
        # capacity) is of the pipeline (set for a configuration's estimates only: :meth:`_laid_out`)
        self._layout: set[Split] = set()

    def _alternatives(self, acc: Accelerator, precision: str) -> tuple[RunOption, ...]:
        """What the support rules say would run on ``acc`` in place of the engine asked with
        ``precision``, for this model: a dense one is never offered the MXFP4 only gpt-oss's MoE kernels
        run (``Backends.is_moe``)."""
        if self.be.alternatives is None:
            return ()
        if self._dense is None:
            self._dense = self.be.is_moe is not None and not self.be.is_moe(self.w.model)
        return self.be.alternatives(self._engine, precision, acc, dense_model=self._dense)

    def _other_weights(self, asked: Estimate, ran: Estimate) -> str:
        """What a substitution needs besides another engine: where the checkpoint's own quantized format
        (AWQ, FP8...) is swapped for another one, other weights (a GGUF file, the 16-bit release): the
        checkpoint asked for does not load in that format. "" where the weights stay the same."""
        native = self.be.native_precision
        if native is None or ran.precision == asked.precision:
            return ""
        own = native(self.w.model)
        if own in ("bf16", "fp16", "fp32"):
            return ""
        return (
            f" (other weights: {ran.precision} files of the model, not this {own} checkpoint, which does "
            "not load that way)"
        )

    def substitution_for(self, acc: Accelerator) -> str | None:
        plan = self._plans.get(acc.name)
        return plan[2] if plan is not None else None

    def fallback_for(self, acc: Accelerator) -> tuple[str, str] | None:
        return self._fallbacks.get(acc.name)

    def platform_refusals(self) -> dict[str, str]:
        """Accelerator -> rule, where the named engine was refused on every GPU tried by its platform row
        (it runs no precision there: TensorRT-LLM on AMD, vLLM on Volta); {} where some GPU refused only
        the precision, or none refused it."""
        if not self._platform_refused or set(self._cannot_run) - set(self._platform_refused):
            return {}
        return dict(self._platform_refused)

    def _platform_rule(self, acc: Accelerator, asked: Estimate) -> str | None:
        """The platform row by which ``asked``'s engine runs nothing on ``acc`` (any precision), or None."""
        refusal = self.be.platform_refusal
        if refusal is None:
            return None
        try:  # as named: its release decides too (vLLM 0.6.3 runs nothing on a B200)
            return refusal(self._engine or asked.engine, asked.precision, acc)
        except InvalidInputError:  # a name the support rules do not take: the precision's refusal stands
            return None

    def _estimate(
        self,
        acc: Accelerator,
        tp: int,
        batch: Load,
        engine: str,
        precision: str | None,
        parallel: str | None = None,
    ) -> tuple[Estimate | None, str | None]:
        w = self.w
        self.estimator_calls += 1
        # ("rate", r): r requests/s arriving at random (open loop: queueing for a slot and behind other
        # prompts' prefill included), as `gpuscout estimate --rps` answers; else a batch kept full
        load: dict[str, Any] = {"request_rate": batch[1]} if isinstance(batch, tuple) else {"batch": batch}
        if parallel is not None:  # else the engine's own split (estimate.api.parallel_mode)
            load["parallel"] = parallel
        try:
            return self._inference(
                w.model,
                acc,
                gpus=tp,
                precision=precision,
                engine=engine,
                context_in=w.prompt_tokens,
                context_out=w.output_tokens,
                **load,
            ), None
        except ConfigurationRejected as exc:  # this configuration only; other errors abort
            return None, str(exc)
        except InvalidInputError as exc:  # named as the workload's fields (prompt_tokens), not context_in
            raise in_workload_words(exc) from None

    def _named_refusal(self, acc: Accelerator, asked: Estimate) -> str:
        """Why the engine the user named cannot run on ``acc``, as the rule says, with what would run
        there (not used: a named engine is never replaced), remembered for the accelerator."""
        label = _short_label(asked)
        reason = asked.unsupported_reason.rstrip(".")
        m = _REFUSAL.match(reason)
        # the target the rules match: NVIDIA's compute capability ("CC 8.9"), AMD's gfx target as is
        # ("gfx942": "CC" is NVIDIA's word)
        target = acc.compute_capability
        cc = f" ({'CC ' if acc.vendor == 'NVIDIA' else ''}{target})" if target else ""
        platform = self._platform_rule(acc, asked)
        if platform is not None:  # no precision runs here: the engine's platform row, not the format's
            self._platform_refused[acc.name] = platform
            why = f"not supported: {label} does not run on {acc.name}{cc} at all, whatever the precision: "
            why += platform
        elif m is not None:
            why = f"not supported: {label} does not run {m['what']} on {m['gpu']}{cc}: {m['rule']}"
        else:
            why = f"not supported: {label} cannot run here{cc}: {reason}"
        options = self._alternatives(acc, asked.precision)
        for o in options:
            if o.engine == asked.engine:
                self.named_engine_precisions.setdefault(o.precision)
        if isinstance(self.w, ServeWorkload):  # as _substitute: no library engine for a live endpoint
            options = tuple(o for o in options if o.engine not in LIBRARY_ENGINES or o.engine == asked.engine)
        if options:
            why += f" (--engine {asked.engine} named, nothing else is run instead; here would run: "
            why += ", ".join(o.message for o in options) + ")"
        self._cannot_run[acc.name] = why
        return why

    def _substitute(
        self, acc: Accelerator, tp: int, batch: Load, asked: Estimate, parallel: str | None = None
    ) -> tuple[Estimate | None, str | None]:
        """The first combination the support rules say runs on ``acc`` (another engine with the same
        precision, then the nearest precision), remembered for the accelerator; else why none does.

        A named engine (:func:`engine_named`) is never replaced, nor a precision asked of it; where no
        precision was asked, the nearest one the named engine runs here is used; else the offer is refused
        with the rule (``_named_refusal``)."""
        w = self.w
        options = self._alternatives(acc, asked.precision)
        if engine_named(w):
            # the engine named stays; where no precision was asked either (the checkpoint's own format,
            # gpt-oss's MXFP4), the nearest precision that engine runs here is used and said on the row
            same = tuple(o for o in options if o.engine == asked.engine and not o.later_release)
            if precision_named(w) or not same:
                return None, self._named_refusal(acc, asked)
            options = same
        if isinstance(w, ServeWorkload):  # a live endpoint needs a server with continuous batching
            options = tuple(o for o in options if o.engine not in LIBRARY_ENGINES or o.engine == asked.engine)
        for opt in options:
            # the named engine as the user wrote it (its version and launch flags), not its bare name
            engine = self._engine if engine_named(w) else opt.engine
            est, _ = self._estimate(acc, tp, batch, engine, opt.precision, parallel)
            if est is not None and est.supported:
                self.asked_run = self.asked_run or asked_run(asked)
                note = f"{asked.unsupported_reason.rstrip('.')}; runs {opt.message} instead"
                note += self._other_weights(asked, est)
                self._plans[acc.name] = (engine, opt.precision, note)
                self._fallbacks[acc.name] = (
                    f"{asked.engine} does not run {asked.precision} on {acc.name}",
                    opt.message,
                )
                return est, None
        why = f"not supported: {asked.unsupported_reason}"
        why += (
            "; nothing else the support rules know runs here"
            if not options
            else f"; tried {', '.join(o.message for o in options)}"
        )
        self._cannot_run[acc.name] = why
        return None, why

    def infer(self, acc: Accelerator, tp: int, batch: Load, parallel: str | None = None) -> Estimate | None:
        """Inference estimate for one replica (``tp`` GPUs); ``None`` if the estimator refuses it.
        ``parallel``: "layer" for a pipeline (:meth:`pipelines`); None for the split chosen for this
        configuration (a serving pipeline's ``_layout``), else the engine's own.

        Feasibility first: when the engine cannot run the precision on this GPU (the estimator's support
        rules, ``Estimate.supported``), the nearest combination that runs is used and said on the row
        (``substitution``) if the engine is the default one; when none does, or when the user named the
        engine (:func:`engine_named`), the GPU is refused with the rule's reason.
        """
        w = self.w
        if tp == 1:
            acc = self._acc.get(acc.name) or acc  # one GPU: the fabric plays no part
        if parallel is None:  # the layout chosen for this split (a serving pipeline), if any
            parallel = "layer" if (acc.name, acc.interconnect, tp) in self._layout else None
        k = (acc.name, acc.interconnect, tp, batch, parallel)
        if k not in self._inf:
            est: Estimate | None
            err: str | None
            if acc.name in self._cannot_run:
                est, err = None, self._cannot_run[acc.name]
            else:
                engine, precision, _ = self._plans.get(acc.name, (self._engine, w.precision, None))
                est, err = self._estimate(acc, tp, batch, engine, precision, parallel)
                if (
                    est is not None
                    and not est.supported
                    and getattr(est, "unsupported_field", "") in _SPLIT_FIELDS
                ):
                    # this split only (heads that do not divide by tp): other splits and engines stand
                    err = f"not supported: {est.unsupported_reason}"
                    est = None
                elif est is not None and not est.supported:
                    if acc.name in self._plans:  # the rules do not change with the split: a refusal
                        err = f"not supported: {est.unsupported_reason}"
                        est = None
                    else:
                        est, err = self._substitute(acc, tp, batch, est, parallel)
                elif est is not None:
                    self._plans.setdefault(acc.name, (engine, precision, None))
            self._inf[k] = est
            if err is not None:
                self._inf_err[k] = err
        if self._inf[k] is None:
            self.last_error = self._inf_err.get(k)
        return self._inf[k]

    @contextmanager
    def _laid_out(self, splits: Iterable[Split] = ()) -> Iterator[None]:
        """Estimates asked inside run ``splits`` as pipelines (the rest as the engine's own split), and no
        split once done, whatever happened: a configuration's layout never reaches another's estimates,
        nor an estimate asked later (the answer's hints)."""
        self._layout = set(splits)
        try:
            yield
        finally:
            self._layout = set()

    def pipelines(self, key: ConfigKey, acc: Accelerator, e: Estimate) -> bool:
        """Whether to try this replica as a pipeline: GPUs of ``acc`` that talk over PCIe (no NVLink-class
        fabric in this offer), running an engine that splits by layers with a batch in flight on each
        GPU (vLLM, SGLang, TensorRT-LLM: ``EngineProfile.pipeline_microbatches``), where ``e`` is its own
        split, tensor parallel. Over PCIe a pipeline passes one activation per token between GPUs where
        tensor parallelism all-reduces twice per layer; vLLM's docs advise pipeline parallelism for a
        model that fits one node whose GPUs lack NVLink (:data:`PIPELINE_SOURCE`). Over NVLink the
        all-reduces are cheap and no measurement tells the two apart, so the engine's own split stays; so
        it does on a part built for NVLink whose fabric the offer does not state (costed over PCIe, as
        the row says, but most likely on NVLink: a pipeline there would favour the unstated offer).
        Not for a release named with the engine that predates its pipeline (``EngineProfile.has_pipeline``:
        vLLM before 0.5.1, SGLang before 0.5). llama.cpp's layer split is already its own."""
        if e.gpus <= 1 or e.parallel != "tensor" or not e.supported or acc.has_nvlink_class_fabric:
            return False
        native = self.accelerator(key[0])
        if native is not None and native.has_nvlink_class_fabric and fabric_unstated(key, e.gpus):
            return False
        from gpuscout.estimate.engines import resolve_engine

        try:
            prof = resolve_engine(e.engine)
            named = resolve_engine(self._plans.get(acc.name, (self._engine, None, None))[0])  # its version
        except InvalidInputError:  # a test's fake engine name
            return False
        return prof.pipeline_microbatches and named.has_pipeline()

    def _pcie_slowdown(
        self, acc: Accelerator, key: ConfigKey, tp: int, batch: Load, e: Estimate
    ) -> float | None:
        """Fraction of decode speed lost because this box's NVLink-class GPUs talk over PCIe (listed as
        PCIe, or with a fabric the source does not state)."""
        if tp < 2 or key[2] == Interconnect.NVLINK.value:
            return None
        native = self.accelerator(key[0])
        if native is None or native is acc or not native.has_nvlink_class_fabric:
            return None
        e_nv = self.infer(native, tp, batch)
        if e_nv is None or e_nv.decode_tokens_per_s <= 0:
            return None
        return max(0.0, 1.0 - e.decode_tokens_per_s / e_nv.decode_tokens_per_s)


class ServeEvaluator(_InferenceEvaluator[ServeWorkload]):
    """A live endpoint: the split (``tp``) that fits and meets the latency targets on the fewest instances
    (the smallest such, unless a wider one answers the load clearly sooner on as many), and enough
    instances for the load."""

    def __init__(self, workload: ServeWorkload, backends: Backends, assumptions: Assumptions) -> None:
        super().__init__(workload, backends, assumptions)
        self._detailed: dict[ConfigKey, ConfigEval] = {}
        self._complete: dict[ConfigKey, ConfigEval] = {}

    def _latency_ok(self, e: Estimate) -> bool:
        w = self.w
        ttft, tpot = w.ttft_target_ms, w.tpot_target_ms
        if ttft is not None and e.ttft_ms > ttft:
            return False
        return not (tpot is not None and tpot_ms(e) > tpot)

    def _latency_miss(self, e: Estimate) -> str:
        """Which latency target one user per replica already misses, with the figure reached."""
        w = self.w
        missed = []
        ttft, tpot = w.ttft_target_ms, w.tpot_target_ms
        if ttft is not None and e.ttft_ms > ttft:
            missed.append(f"TTFT {e.ttft_ms:,.0f} ms > {ttft:,.0f} ms")
        if tpot is not None and tpot_ms(e) > tpot:
            missed.append(f"{1000.0 / tpot_ms(e):.0f} tok/s per user < {1000.0 / tpot:.0f}")
        return "latency target missed even at 1 user (" + ", ".join(missed) + ")"

    def _serve_replica(
        self, acc: Accelerator, tp: int, users: int | None
    ) -> tuple[Estimate | None, int, str | None]:
        """(estimate at the replica's usable batch, that batch, why not) for one replica of ``tp`` GPUs.

        The usable batch is the load asked for (``concurrency``) or the most that fits (``requests_per_s``),
        lowered until the latency targets are met. A load above the most sequences one engine instance
        takes (``MAX_BATCH``) is asked at that most: the rest goes to more replicas.
        """
        from gpuscout.estimate.api import MAX_BATCH

        first: int | str = "max" if users is None else min(users, MAX_BATCH)
        e = self.infer(acc, tp, first)
        if e is None:
            return None, 0, self.last_error or "estimator refused"
        if e.max_batch < 1:
            return e, 0, f"does not fit: {e.binding_constraint}"
        # the most its KV cache holds, staggered (above the whole-length max_batch where the cache grows);
        # users beyond the engine's own cap wait in its queue
        holds = e.max_running if e.max_running_limit == "kv_cache" else max(e.max_batch, e.max_running)
        want = e.batch if first == "max" else min(holds, int(first))
        if want != e.batch or not e.fits:
            e = self.infer(acc, tp, want)
        if e is not None and e.fits and self._latency_ok(e):
            return e, want, None
        lo, hi = 1, want - 1
        e1 = self.infer(acc, tp, 1)
        if e1 is None:
            return None, 0, self.last_error or "estimator refused"
        if not e1.fits:
            return e1, 0, f"does not fit: {e1.binding_constraint}"
        if not self._latency_ok(e1):
            return e1, 0, self._latency_miss(e1)
        best, best_e = 1, e1
        while lo <= hi:
            mid = (lo + hi) // 2
            em = self.infer(acc, tp, mid)
            if em is not None and em.fits and self._latency_ok(em):
                best, best_e, lo = mid, em, mid + 1
            else:
                hi = mid - 1
        return best_e, best, None

    def _configure(self, key: ConfigKey, acc: Accelerator) -> ConfigEval:
        """Choose tp and the number of instances; the operating point is filled in by ``detail``."""
        with self._laid_out():  # another configuration's pipeline (a 2-GPU box's PP2) is not this one's
            return self._choose_split(key, acc)

    def _choose_split(self, key: ConfigKey, acc: Accelerator) -> ConfigEval:
        w = self.w
        g = key[1]
        best: tuple[int, float, int] | None = None  # instances, request latency at the load, tp
        chosen: tuple[int, Estimate, int, int] | None = None  # tp, estimate at cap, cap, instances
        last_why = "does not fit"
        any_fit = False
        outcome: dict[int, str] = {}  # tp -> why it was not enough, or how many instances it needs
        idle_latency: dict[int, float] = {}  # tp -> request latency (s), where it leaves GPUs idle
        latencies: dict[int, float] = {}  # tp -> request latency (s) at the load, where it carries it
        previous = math.inf  # the request latency of the split tried before (widening stops where it rises)
        best_idle = False  # the best split so far leaves GPUs idle at this load
        gpus_needed = 0  # the fewest GPUs (replicas x tp, over the splits tried) that carry the load
        pipelined: dict[int, str] = {}  # tp -> why a pipeline replaced its tensor split
        can_pipeline = False  # the engine and the box take a pipeline (:meth:`pipelines`)
        tried = 0  # the widest split tried (the loop stops where a wider one cannot need fewer instances)
        for tp in tp_degrees(g):
            tried = tp
            e_cap, cap, why = self._serve_replica(acc, tp, w.concurrency)
            if e_cap is not None and self.pipelines(key, acc, e_cap):
                can_pipeline = True
                tensor = (e_cap, cap) if why is None else None
                pp = self._pipeline_instead(acc, tp, g, tensor)
                if pp is not None:
                    e_cap, cap, why, pipelined[tp] = pp[0], pp[1], None, pp[2]
            if why is not None or e_cap is None:
                last_why = (why or last_why) + beyond_one_node(e_cap, tp, g)
                outcome[tp] = last_why
                if e_cap is not None and e_cap.max_batch >= 1:
                    any_fit = True
                continue
            short = self._volume_short(acc, tp)
            if short:  # the users stated cannot generate the volume on this split, however many replicas
                last_why = short
                outcome[tp] = short
                any_fit = True
                continue
            any_fit = True
            inst = self._instances(acc, tp, g, e_cap, cap)
            need = tp * self._replicas_needed(acc, tp, e_cap, cap)
            gpus_needed = need if not gpus_needed else min(gpus_needed, need)
            outcome[tp] = f"{inst} instance{'s' if inst > 1 else ''}"
            if best is not None and inst > best[0]:
                break  # a larger split cannot need fewer instances
            # the same instances cost the same whatever the split: the one that answers the load sooner.
            # The smaller split keeps a near tie (replicas keep headroom and need no fast link) unless it
            # leaves GPUs idle at this load; a wider one must answer clearly sooner (SPLIT_LEAD): 100 users
            # of a 70B on 8x B200 are 8 replicas of 13 users each re-reading the weights every step,
            # where TP8 reads them once for all 100
            # Over PCIe (no NVLink-class fabric: consumer cards stage all-reduces through the host, and no
            # calibration run times a split there) the smaller split stays unless it leaves GPUs idle.
            replicas = g // tp
            idle = self._leaves_replicas_idle(acc, tp, inst * replicas)
            latency = self._mean_latency_at_load(acc, tp, cap, inst * replicas)
            latencies[tp] = latency
            if idle:
                idle_latency[tp] = latency
            wider_ok = best_idle or acc.has_nvlink_class_fabric
            if best is None or inst < best[0] or (wider_ok and _answers_sooner(latency, best[1], best_idle)):
                best, chosen, best_idle = (inst, latency, tp), (tp, e_cap, cap, inst), idle
            if inst == 1 and not idle and not (acc.has_nvlink_class_fabric and latency < previous):
                break  # a wider split cannot need fewer instances, nor (answering no sooner) be taken
            previous = latency
        # a wider pipeline than the splits tried, or one over a width the powers of two miss (PP5 of 5 GPUs):
        # as many instances can answer sooner where tensor parallelism would not
        widths = sorted({*_odd_widths(g), *(t for t in tp_degrees(g) if t > tried)})
        if can_pipeline and chosen is not None and widths:
            wider = self._wider_pipeline(acc, g, chosen, widths)
            if wider is not None:
                n, e_n, cap_n, inst_n, pipelined[n] = wider
                chosen = (n, e_n, cap_n, inst_n)
                need = n * self._replicas_needed(acc, n, e_n, cap_n)
                gpus_needed = need if not gpus_needed else min(gpus_needed, need)
        if chosen is None:
            latency = "latency" in last_why
            kind = (
                "latency"
                if latency
                else ("fit" if last_why.startswith("does not fit") else reject_kind_of(last_why))
            )
            # it fits where the latency targets or the volume are what it misses
            return reject(key, acc, last_why, fits=any_fit and kind in ("latency", "volume"), kind=kind)
        tp, e_cap, cap, inst = chosen
        if inst > self.a.max_instances:
            return reject(
                key, acc, f"needs {inst} instances (> {self.a.max_instances})", fits=True, kind="instances"
            )
        weights_total = e_cap.memory.model_weights_total_gb(tp)
        download = w.download_weights_gb if w.download_weights_gb is not None else weights_total
        # why one GPU per replica was not enough: said where it was not (it needs more instances, misses a
        # target, does not fit); where it carried the load on as many instances, the comparison says why
        alone = outcome.get(1, "")
        as_many = alone == f"{inst} instance{'s' if inst > 1 else ''}"
        why_split = split_why(alone) if tp > 1 and not as_many else None
        if tp > 1 and 1 in idle_latency and outcome.get(1) == outcome.get(tp):
            why_split = (
                f"one GPU per replica leaves GPUs idle at this load; split, a request takes "
                f"{best[1] if best else 0.0:.1f} s rather than {idle_latency[1]:.1f} s"
            )
        elif tp > 1 and best is not None:
            narrower = min((t for t in latencies if t < tp and outcome.get(t) == outcome.get(tp)), default=0)
            if narrower and math.isfinite(latencies[narrower]):
                what = "one GPU" if narrower == 1 else f"{narrower} GPUs"
                sooner = (
                    f"{what} per replica leaves GPUs idle at this load; split over {tp}, a request takes "
                    f"{best[1]:.1f} s rather than {latencies[narrower]:.1f} s"
                    if narrower in idle_latency
                    else f"the same instances answer sooner: a request takes {best[1]:.1f} s rather than "
                    f"{latencies[narrower]:.1f} s with {what} per replica"
                )
                # one GPU carried the load too: the comparison is the reason; else why one GPU did not
                why_split = sooner if narrower == 1 or not why_split else f"{why_split}; {sooner}"
        if tp in pipelined:
            why_split = f"{why_split}; {pipelined[tp]}" if why_split else pipelined[tp]
        return ConfigEval(
            key=key,
            fits=True,
            rejected=None,
            accelerator=acc,
            instances=inst,
            tp=tp,
            split_why=why_split,
            replicas_per_instance=g // tp,
            gpus_per_instance=g,
            nodes=1,
            time_s=w.active_hours_per_day * 3600.0,
            download_gb_per_instance=download + fetched_dataset_gb(w),
            load_gb=download,
            estimate=e_cap,
            cap_batch=cap,
            detailed=False,
            layer_split=e_cap.parallel == "layer",
            parallel="pipeline" if tp in pipelined else "",
            fabric_assumed=fabric_unstated(key, tp),
            gpus_needed=gpus_needed,
        )

    def _pipeline_instead(
        self, acc: Accelerator, tp: int, g: int, tensor: tuple[Estimate, int] | None
    ) -> tuple[Estimate, int, str] | None:
        """The pipeline of ``tp`` GPUs (estimate at its usable batch, that batch, why it is taken) where it
        beats the tensor split of the same GPUs (``tensor``: its estimate and batch, None where it cannot
        carry the load): on clearly fewer instances, or on as many answering clearly sooner
        (:data:`PIPELINE_LEAD` both: its speed is uncalibrated); None otherwise. Taken, its layout stays
        set for the rest of this configuration's estimates (``_layout``)."""
        layout = (acc.name, acc.interconnect, tp)
        self._layout.add(layout)
        e_pp, cap_pp, why_pp = self._serve_replica(acc, tp, self.w.concurrency)
        if why_pp is not None or e_pp is None or self._volume_short(acc, tp):
            self._layout.discard(layout)
            return None
        inst_pp = self._instances(acc, tp, g, e_pp, cap_pp)
        if tensor is None:
            return e_pp, cap_pp, f"tensor parallelism over {tp} GPUs cannot carry it; a pipeline can"
        lat_pp = self._latency_at_load(acc, tp, cap_pp, inst_pp * (g // tp))
        self._layout.discard(layout)
        inst = self._instances(acc, tp, g, *tensor)
        lat = self._latency_at_load(acc, tp, tensor[1], inst * (g // tp))
        why = _pipeline_lead("a pipeline", inst_pp, lat_pp, f"TP{tp}", inst, lat)
        if not why:
            return None
        self._layout.add(layout)
        return e_pp, cap_pp, why

    def _wider_pipeline(
        self, acc: Accelerator, g: int, chosen: tuple[int, Estimate, int, int], widths: list[int]
    ) -> tuple[int, Estimate, int, int, str] | None:
        """A pipeline over one of ``widths`` (wider than the splits tried, or a width the powers of two miss:
        5 of 5 GPUs, 3 x 2 of 6) where it beats the split ``chosen`` (tp, estimate, batch, instances) as
        :func:`_pipeline_lead` asks, and beats any other of ``widths`` that does: (width, estimate, batch,
        instances, why) with its layout set, else None (``chosen``'s layout restored). The reason compares
        it with ``chosen``."""
        tp, _, cap, inst = chosen
        kept = set(self._layout)
        lat = self._latency_at_load(acc, tp, cap, inst * (g // tp))
        best: tuple[int, Estimate, int, int, str] | None = None
        best_at = (inst, lat)  # what a further width must beat: ``chosen``, then the best pipeline found
        for n in widths:
            self._layout = {(acc.name, acc.interconnect, n)}
            e_n, cap_n, why_n = self._serve_replica(acc, n, self.w.concurrency)
            if why_n is not None or e_n is None or self._volume_short(acc, n):
                continue  # nor where the users stated cannot generate the volume on it
            inst_n = self._instances(acc, n, g, e_n, cap_n)
            lat_n = self._latency_at_load(acc, n, cap_n, inst_n * (g // n))
            split = f"PP{n}" + (f" ({g // n} replicas)" if g // n > 1 else "")
            if not _pipeline_lead(split, inst_n, lat_n, "", *best_at):
                continue
            why = _pipeline_lead(split, inst_n, lat_n, f"the {tp}-GPU split", inst, lat)
            best, best_at = (n, e_n, cap_n, inst_n, why), (inst_n, lat_n)
        self._layout = {(acc.name, acc.interconnect, best[0])} if best is not None else kept
        return best

    def _instances(self, acc: Accelerator, tp: int, g: int, e_cap: Estimate, cap: int) -> int:
        """Instances of ``g`` GPUs whose replicas of ``tp`` (at ``cap`` users each, as ``e_cap``) carry
        the load within the targets: the users, the request rate or the monthly volume."""
        w = self.w
        replicas = g // tp
        if w.requests_per_s is not None:
            rps_per_replica = e_cap.output_tokens_per_s_total / w.output_tokens
            inst = math.ceil(w.requests_per_s / (replicas * rps_per_replica) - 1e-9)
            inst = self._instances_at_rate(acc, tp, max(inst, 1), replicas)
        else:
            inst = math.ceil((w.concurrency or 1) / (replicas * cap))
        if w.monthly_output_tokens is not None and w.concurrency is None:
            # no users stated: the volume is the load; size on the replica's full throughput
            rate = e_cap.output_tokens_per_s_total
            inst = max(inst, math.ceil(w.monthly_output_tokens / w.active_s_month / (replicas * rate) - 1e-9))
        elif w.monthly_output_tokens is not None:
            # the stated users must generate the volume: spread over more replicas each answers faster,
            # up to one user per replica (:meth:`_volume_short` has refused a split where even that falls
            # short); the fewest instances whose users generate it
            want = w.monthly_output_tokens * (1.0 - VOLUME_TOLERANCE) / w.active_s_month

            def enough(n: int) -> bool:
                return self._users_tokens_per_s(acc, tp, n * replicas) >= want

            # the fewest from ``inst`` up to one user per replica (more replicas: each user faster)
            lo, hi = max(inst, 1), max(inst, 1, math.ceil(w.users / replicas))
            while lo < hi:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if enough(mid) else (mid + 1, hi)
            inst = lo
        return max(inst, 1)

    def _users_tokens_per_s(self, acc: Accelerator, tp: int, replicas: int) -> float:
        """Output tokens/s the stated users generate spread over ``replicas`` replicas of ``tp`` GPUs (each
        running its share of them at once), 0 where the estimator refuses that batch."""
        users = self.w.users
        per_replica = max(1, math.ceil(users / replicas))
        e = self.infer(acc, tp, per_replica)
        if e is None or not e.fits:
            return 0.0
        return users * e.output_tokens_per_s_total / per_replica

    def _volume_short(self, acc: Accelerator, tp: int) -> str:
        """Why the stated users cannot generate the stated monthly volume on replicas of ``tp`` GPUs, even
        one user per replica (each at its single-request speed); "" where they can, or where the volume
        or the users are not both stated. A closed loop of N users generates at most N requests' tokens
        at a time: 100B tokens a month is not 1 user's load, whatever the instances."""
        w = self.w
        if w.monthly_output_tokens is None or w.concurrency is None:
            return ""
        most = self._users_tokens_per_s(acc, tp, w.users) * w.active_s_month
        if most >= w.monthly_output_tokens * (1.0 - VOLUME_TOLERANCE):
            return ""
        users = f"{w.users} {plural(w.users, 'user')} at once {plural(w.users, 'generates', 'generate')}"
        return (
            f"volume: {users} at most {token_count(most)} output tokens a month here "
            f"(each at its single-request speed), short of the {token_count(w.monthly_output_tokens)} "
            "stated: raise the users (--concurrency) or state the load as a rate (--rps, or the volume alone)"
        )

    def _replicas_needed(self, acc: Accelerator, tp: int, e_cap: Estimate, cap: int) -> int:
        """Replicas of ``tp`` GPUs (on any number of instances) that carry the load within the targets: the
        instances of one replica each (:meth:`_instances`)."""
        return self._instances(acc, tp, tp, e_cap, cap)

    def detail(self, ev: ConfigEval) -> ConfigEval:
        """``ev`` with its operating point (speed at the load actually spread over the replicas).

        Costs do not depend on it, so ranking by cost estimates it only for the rows shown.
        """
        if ev.detailed:
            return ev
        done = self._detailed.get(ev.key)
        if done is None:
            with self._laid_out(_pipeline_of(ev)):
                done = self._serve_detail(ev)
            self._detailed[ev.key] = done
        return done

    def complete(self, ev: ConfigEval) -> ConfigEval:
        """``ev`` (detailed) with the most load it sustains: as many users per replica as memory allows
        within the latency targets (a search over the batch: only for the rows shown)."""
        ev = self.detail(ev)
        done = self._complete.get(ev.key)
        if done is not None:
            return done
        assert ev.summary is not None and ev.accelerator is not None and ev.estimate is not None
        with self._laid_out(_pipeline_of(ev)):
            full_e, full_b, _ = self._serve_replica(ev.accelerator, ev.tp, None)
            e_full = full_e if full_e is not None and full_b > 0 else ev.estimate
            per_replica = full_b if full_e is not None and full_b > 0 else ev.cap_batch
            replicas_total = ev.instances * ev.replicas_per_instance
            summary = dataclasses.replace(
                ev.summary,
                capacity_users=per_replica * replicas_total,
                capacity_tokens_per_s=e_full.output_tokens_per_s_total * replicas_total,
                capacity_limit=self._capacity_limit(ev.accelerator, ev.tp, per_replica),
            )
        done = dataclasses.replace(ev, summary=summary)
        self._complete[ev.key] = done
        return done

    def _capacity_limit(self, acc: Accelerator, tp: int, per_replica: int) -> str | None:
        """What stops a replica at ``per_replica`` users: the latency targets when the batch that fits
        was lowered to meet them, else the estimate's cap at the most that fits."""
        most = self.infer(acc, tp, "max")
        if most is None:
            return None
        if per_replica < most.batch:
            return "latency targets"
        if most.max_running_limit:  # what the estimate says sets its most running sequences
            limit = most.max_running_limit
            return {"kv_cache": "KV cache", "prefill": "prefill budget"}.get(limit, "engine cap")
        return "KV cache" if most.batch >= most.max_batch else "engine cap"

    def _leaves_replicas_idle(self, acc: Accelerator, tp: int, replicas_total: int) -> bool:
        """Whether the load keeps fewer requests in flight than there are replicas (1 user on two
        one-GPU replicas): a GPU paid for and idle, which a split over it would put to use."""
        w = self.w
        if w.monthly_output_tokens is not None and w.concurrency is None:
            return False  # a volume alone to serve: the replicas' throughput is the point (with users
            # stated, the users are the load: replicas beyond them idle as without a volume)
        if w.requests_per_s is None:
            return w.users < replicas_total
        one = self.infer(acc, tp, 1)
        if one is None or not one.fits:
            return False
        return w.requests_per_s * request_latency_s(one, w.output_tokens) < replicas_total

    def _instances_at_rate(self, acc: Accelerator, tp: int, inst: int, replicas: int) -> int:
        """Instances (from ``inst``, sized on a full batch's throughput) whose replicas meet the latency
        targets with the request rate arriving at random: a replica near its capacity queues requests
        for a slot and behind other prompts' prefill, which a batch kept full does not show. At most
        ``max_instances`` + 1 (one more than any row may take: the caller rejects it)."""
        w = self.w
        assert w.requests_per_s is not None
        while inst <= self.a.max_instances:
            e = self.infer(acc, tp, ("rate", w.requests_per_s / (inst * replicas)))
            if e is not None and e.fits and self._latency_ok(e):
                return inst
            inst += 1
        return inst

    def _at_load(
        self, acc: Accelerator, tp: int, cap: int, replicas_total: int
    ) -> tuple[Load, Estimate | None]:
        """The load one of ``replicas_total`` replicas gets and its estimate: the requests/s each is sent
        (open loop; a monthly volume's rate where no users are given), or the users each holds."""
        w = self.w
        rate = w.offered_rate  # requests/s, or the monthly volume's
        if rate is not None:
            load: Load = ("rate", rate / replicas_total)
        else:
            load = max(1, min(cap, math.ceil(w.users / replicas_total - 1e-9)))
        return load, self.infer(acc, tp, load)

    def _latency_at_load(self, acc: Accelerator, tp: int, cap: int, replicas_total: int) -> float:
        """Seconds a request takes on a replica of ``tp`` GPUs when the load is spread over
        ``replicas_total`` of them (how two splits of the same instances are told apart: two replicas
        with one user leave a GPU idle, where a split over both answers sooner)."""
        e = self._at_load(acc, tp, cap, replicas_total)[1]
        return request_latency_s(e, self.w.output_tokens) if e is not None and e.fits else math.inf

    def _mean_latency_at_load(self, acc: Accelerator, tp: int, cap: int, replicas_total: int) -> float:
        """The mean seconds a request takes when the users are spread over ``replicas_total`` replicas as
        evenly as they go (10 users on 8: two replicas hold 2, six hold 1), each user weighed once: how
        two splits of one box are compared (the busiest replica's figure, :meth:`_latency_at_load`, made
        8 one-GPU replicas of 10 users look as slow as 2 users each). A request rate divides evenly."""
        w = self.w
        if w.offered_rate is not None or w.users <= replicas_total:
            return self._latency_at_load(acc, tp, cap, replicas_total)
        q, rem = divmod(w.users, replicas_total)
        if rem == 0 or q + 1 > cap:
            return self._latency_at_load(acc, tp, cap, replicas_total)
        lat = {}
        for n in (q, q + 1):
            e = self.infer(acc, tp, n)
            lat[n] = request_latency_s(e, w.output_tokens) if e is not None and e.fits else math.inf
        return (rem * (q + 1) * lat[q + 1] + (replicas_total - rem) * q * lat[q]) / w.users

    def _serve_detail(self, ev: ConfigEval) -> ConfigEval:
        w = self.w
        assert ev.estimate is not None and ev.accelerator is not None  # set by _configure
        acc, tp, cap, e_cap = ev.accelerator, ev.tp, ev.cap_batch, ev.estimate
        users = float(w.users)
        load, at_load = self._at_load(acc, tp, cap, ev.instances * ev.replicas_per_instance)
        e_op = at_load or e_cap
        # requests running on a replica: the users it holds, or what the rate keeps in flight
        b_op = load if isinstance(load, int) else max(1, e_op.batch)
        if w.offered_rate is not None:
            served_tps = w.offered_rate * w.output_tokens
        else:
            # the estimator's aggregate with ``b_op`` users on a replica (prefills of arriving requests
            # included), per user: per user of the load, not per running sequence, since an engine that
            # runs fewer at once (its cap on sequences) serves the others from its queue
            served_tps = users * e_op.output_tokens_per_s_total / b_op
        monthly = (
            w.monthly_output_tokens if w.monthly_output_tokens is not None else served_tps * w.active_s_month
        )
        summary = EstimateSummary(
            throughput=served_tps,
            throughput_unit="tok/s",
            per_user_tokens_per_s=e_op.decode_tokens_per_s,
            ttft_ms=e_op.ttft_ms,
            tpot_ms=tpot_ms(e_op),
            memory_per_gpu_gb=e_op.memory.total_gb,
            memory_capacity_gb=capacity_gb(e_op.memory, acc),
            weights_gb=e_op.memory.weights_gb,
            model_weights_gb=e_op.memory.model_weights_total_gb(tp),
            calibration_basis=e_op.assumptions.get("calibration_basis"),
            speed_calibrated=e_op.speed_calibrated,  # false for a pipeline (estimate.api.pipelines)
            uncalibrated=tuple(e_op.uncalibrated),
            kv_cache_gb=e_op.memory.kv_cache_gb,
            batch_per_replica=b_op,
            max_batch_per_replica=e_op.max_running or e_op.max_batch,
            bound=e_op.bound,
            engine=e_op.engine,
            precision=e_op.precision,
            support=e_op.support,
            decode_step=e_op.step_summary() or None,
            prefill_share=_prefill_share(e_op),
        )
        return dataclasses.replace(
            ev,
            summary=summary,
            output_tokens=monthly,
            estimate=e_op,
            detailed=True,
            pcie_tp_slowdown=None if ev.parallel else self._pcie_slowdown(acc, ev.key, tp, load, e_op),
            warnings=tuple(e_op.warnings),
        )


class BatchTokensEvaluator(_InferenceEvaluator[BatchWorkload]):
    """Offline generation of a token total: the fastest split per instance, instances for the deadline."""

    def _configure(self, key: ConfigKey, acc: Accelerator) -> ConfigEval:
        w, g = self.w, key[1]
        out_total = w.output_tokens_total or 0.0
        # (time on one instance, tp, a pipeline rather than the engine's own split, estimate) per layout
        tried: list[tuple[float, int, bool, Estimate]] = []
        why = "does not fit"
        layouts: list[tuple[bool, int, Estimate | None]] = []  # (a pipeline, its width, the estimate)
        for tp in tp_degrees(g):
            e = self.infer(acc, tp, "max")
            layouts.append((False, tp, e))
            if e is not None and self.pipelines(key, acc, e):
                layouts.append((True, tp, self.infer(acc, tp, "max", "layer")))
        if any(pipeline for pipeline, _, _ in layouts):
            # a pipeline has no head count to divide: it also runs on every GPU of a 3, 5, 6 or 10-GPU box
            # (PP5, or PP3 x 2 replicas) that tensor parallelism leaves partly idle
            layouts += [(True, n, self.infer(acc, n, "max", "layer")) for n in _odd_widths(g)]
        for pipeline, tp, e in layouts:
            if e is None or not e.fits or e.output_tokens_per_s_total <= 0:
                if not pipeline:
                    why = f"does not fit: {e.binding_constraint}" if e else self.last_error or why
                    why += beyond_one_node(e, tp, g)
                continue
            tried.append((self._job_seconds(e) / (g // tp), tp, pipeline, e))
        if not tried:
            kind = "fit" if why.startswith("does not fit") else reject_kind_of(why)
            return reject(key, acc, why, kind=kind)
        # a pipeline (uncalibrated) only where it finishes clearly sooner (:data:`PIPELINE_LEAD`) than the
        # fastest tensor split of any width on this instance (TP4 x 2 on 8 GPUs as well as TP8)
        tensor = min((t for t in tried if not t[2]), default=None, key=lambda t: (t[0], t[1]))
        bar = tensor[0] * (1.0 - PIPELINE_LEAD) if tensor is not None else math.inf
        passing = [t for t in tried if not t[2] or t[0] <= bar]
        time_1, tp, pipeline, e = min(passing, key=lambda t: (t[0], t[1], t[2]))
        if pipeline:  # pipelines as fast as the fastest (TIME_TOLERANCE): the narrowest, more replicas
            near = [t for t in passing if t[2] and t[0] <= time_1 * (1.0 + TIME_TOLERANCE)]
            time_1, tp, pipeline, e = min(near, key=lambda t: (t[1], t[0]))
        why_split = None
        if pipeline and tensor is not None:
            replicas_tp = g // tensor[1]
            split = f"TP{tensor[1]}" + (f" x {replicas_tp} replicas" if replicas_tp > 1 else "")
            why_split = (
                f"it finishes in {duration(time_1)} on one instance where its fastest tensor-parallel split "
                f"({split}) takes {duration(tensor[0])}"
            )
        weights_total = e.memory.model_weights_total_gb(tp)
        download = w.download_weights_gb if w.download_weights_gb is not None else weights_total
        fleet = _batch_fleet(w, time_1, download, self.a)
        inst = fleet.instances
        if not 0 < inst <= self.a.max_instances:
            return deadline_reject(key, acc, inst, fleet.warm_s, self.a.max_instances)
        replicas = g // tp
        summary = EstimateSummary(
            throughput=e.output_tokens_per_s_total * replicas * inst,
            throughput_unit="tok/s",
            per_user_tokens_per_s=e.decode_tokens_per_s,
            ttft_ms=e.ttft_ms,
            tpot_ms=tpot_ms(e),
            memory_per_gpu_gb=e.memory.total_gb,
            memory_capacity_gb=capacity_gb(e.memory, acc),
            weights_gb=e.memory.weights_gb,
            model_weights_gb=weights_total,
            calibration_basis=e.assumptions.get("calibration_basis"),
            speed_calibrated=e.speed_calibrated,  # false for a pipeline (estimate.api.pipelines)
            uncalibrated=tuple(e.uncalibrated),
            kv_cache_gb=e.memory.kv_cache_gb,
            batch_per_replica=e.batch,
            max_batch_per_replica=e.max_running or e.max_batch,
            bound=e.bound,
            engine=e.engine,
            precision=e.precision,
            support=e.support,
            decode_step=e.step_summary() or None,
            prefill_share=_prefill_share(e),
        )
        return ConfigEval(
            key=key,
            fits=True,
            rejected=None,
            accelerator=acc,
            instances=inst,
            tp=tp,
            replicas_per_instance=replicas,
            gpus_per_instance=g,
            summary=summary,
            time_s=time_1 / inst,
            download_gb_per_instance=fleet.download_gb_per_instance,
            split_data_gb=fleet.split_gb,
            load_gb=download,
            output_tokens=out_total,
            estimate=e,
            pcie_tp_slowdown=None if pipeline else self._pcie_slowdown(acc, key, tp, e.batch, e),
            warnings=tuple(e.warnings),
            layer_split=e.parallel == "layer",
            parallel="pipeline" if pipeline else "",
            split_why=why_split,
            fabric_assumed=fabric_unstated(key, tp),
        )

    def _job_seconds(self, e: Estimate) -> float:
        """Seconds one replica running as ``e`` takes for the whole job."""
        w = self.w
        out_total = w.output_tokens_total or 0.0
        # the estimate's output rate at a full batch already pays for each request's prefill (its steps
        # carry the prompts of arriving requests); only prompt tokens beyond the request shape it was asked
        # at (an input total larger than requests x prompt_tokens) add prefill time
        requests = out_total / w.output_tokens
        beyond = max(0.0, w.input_tokens - requests * w.prompt_tokens)
        prefill = beyond / e.prefill_tokens_per_s if e.prefill_tokens_per_s > 0 else 0.0
        return prefill + out_total / e.output_tokens_per_s_total


#: The estimator's refusals of one split only (heads that do not divide; a pipeline the engine lacks): other
#: splits and engines stand.
_SPLIT_FIELDS = ("gpus", "parallel")


class _BatchFleet(NamedTuple):
    instances: int  # 0 where the warm-up alone reaches the deadline
    warm_s: float  # each instance's warm-up but its share of the input (boot, weights, whole data)
    download_gb_per_instance: float  # the weights, any data fetched whole, and its share of the input
    split_gb: float  # the input the instances split (``cost.split_dataset_gb``)


def _batch_fleet(w: BatchWorkload, time_1: float, download_gb: float, a: Assumptions) -> _BatchFleet:
    """The instances a batch of ``time_1`` seconds of work on one instance takes to meet its deadline
    (one without a deadline), each fetching ``download_gb`` of weights with its share of the input."""
    split, whole = split_dataset_gb(w), download_gb + fetched_dataset_gb(w)
    warm = job_warmup_s(whole, download_gb, a)
    inst = instances_for_split_deadline(time_1, split, w.deadline_hours, warm, a)
    return _BatchFleet(inst, warm, whole + (split / inst if inst > 0 else split), split)


def _prefill_share(e: Estimate) -> float | None:
    """The share of each output token's time (``tpot_ms``) not spent in its decode step: other requests'
    prompts processed between steps (chunked prefill stalls); None where either is not timed."""
    step, tpot = e.step_ms.get("total", 0.0), tpot_ms(e)
    if step <= 0 or tpot <= 0:
        return None
    return max(0.0, 1.0 - step / tpot)


def _answers_sooner(latency: float, best: float, best_idle: bool) -> bool:
    """Whether a wider split on as many instances as the best so far replaces it: sooner at all where the
    best leaves GPUs idle (paid for either way), else by :data:`SPLIT_LEAD`."""
    return latency < best if best_idle else latency < best * (1.0 - SPLIT_LEAD)


def _pipeline_of(ev: ConfigEval) -> tuple[Split, ...]:
    """``ev``'s split where ``_configure`` chose a pipeline for it, for :meth:`ServeEvaluator._laid_out`."""
    if ev.parallel != "pipeline" or ev.accelerator is None:
        return ()
    return ((ev.accelerator.name, ev.accelerator.interconnect, ev.tp),)


def _pipeline_lead(split: str, inst: int, lat: float, other: str, inst_other: int, lat_other: float) -> str:
    """Why ``split`` (a pipeline needing ``inst`` instances, ``lat`` s a request at the load) beats ``other``
    (``inst_other``, ``lat_other``) by :data:`PIPELINE_LEAD`: clearly fewer instances, or as many answering
    clearly sooner; "" where it does not."""
    if inst <= inst_other * (1.0 - PIPELINE_LEAD):
        fewer = f"{inst} instance{'s' if inst > 1 else ''}"
        return f"{split} carries the load on {fewer} where {other} needs {inst_other}"
    if inst <= inst_other and lat <= lat_other * (1.0 - PIPELINE_LEAD):
        return (
            f"{split} answers sooner: a request takes {lat:.1f} s at this load where {other} takes "
            f"{lat_other:.1f} s"
        )
    return ""


def _odd_widths(g: int) -> list[int]:
    """The widths beyond the powers of two that divide ``g`` GPUs: 6 -> [3, 6], 10 -> [5, 10], 5 -> [5]."""
    return [n for n in range(3, g + 1) if g % n == 0 and n & (n - 1)]


def beyond_one_node(e: Estimate | None, tp: int, gpus: int) -> str:
    """Where ``e`` (split ``tp`` ways on an instance of ``gpus`` GPUs) does not fit for its weights and the
    model's weights alone exceed what the engine uses of all ``gpus`` (DeepSeek-R1's ~627 GiB on 8 x 80 GB):
    what it would take, said after "does not fit: weights" so that the renter does not look for a larger
    split of this node; where ``tp`` is the widest split the instance takes and leaves some of its GPUs
    idle (:func:`idle_gpus_note`), that; "" otherwise (a narrower split, or another reason). Serving over
    several nodes (tensor parallel over InfiniBand, a pipeline across nodes) is not modelled."""
    if e is None or e.fits or e.binding_constraint != "weights":
        return ""
    if tp != gpus:
        return idle_gpus_note(e, tp, gpus)
    if e.memory.usable_gb <= 0 or gpus < NODE_GPUS:
        return ""  # fewer than a full node: a larger instance of the same GPU is the remedy (maybe listed)
    weights = e.memory.model_weights_total_gb(1)
    room = gpus * e.memory.usable_gb  # what the engine lets itself use on each GPU
    if weights <= room:
        return ""
    nodes = math.ceil(weights / room)
    return (
        f" (the weights alone, {gib(weights):.0f} GiB, exceed what the engine uses of the {gpus} GPUs, "
        f"{gib(room):.0f} GiB: at least {nodes} such nodes, and serving across nodes is not modelled)"
    )


def idle_gpus_note(e: Estimate, tp: int, gpus: int) -> str:
    """Where ``e`` (split ``tp`` ways) does not fit for its weights and ``tp`` is the widest tensor split
    an instance of ``gpus`` GPUs takes but not all of them (:func:`~gpuscout.advise.configs.tp_degrees`:
    powers of two; 10 GPUs run TP8 and 2 idle), why its other GPUs do not help, with the per-GPU figures
    the fit was judged on (weights and overhead against what the engine uses of each GPU); "" otherwise.
    A 10-GPU box would otherwise read "does not fit: weights" beside an 8-GPU one that says why."""
    widest = tp_degrees(gpus)[-1]
    m = e.memory
    if tp != widest or tp >= gpus or m.usable_gb <= 0:
        return ""
    idle = gpus - tp
    return (
        f" (tensor parallel is tried on at most {tp} of its {gpus} GPUs, the other {idle} idle: splits in "
        f"powers of two; split {tp} ways, {gib(m.weights_gb):.1f} GiB of "
        f"weights + {gib(m.overhead_gb):.1f} GiB of overhead on each GPU exceed the "
        f"{gib(m.usable_gb):.1f} GiB the engine uses of its {gib(m.capacity_gb):.0f} GiB)"
    )


#: What an image row that holds its pipeline only by swapping components says (its time includes the copies)
CPU_OFFLOAD_WARNING = (
    "the whole pipeline does not fit this GPU: run with CPU offload (diffusers enable_model_cpu_offload: "
    "one component on the GPU at a time, copied in over PCIe each batch; timed with the copies)"
)


class BatchImagesEvaluator(BaseEvaluator[BatchWorkload]):
    """Image generation: one model copy per GPU, instances for the deadline."""

    host_ram_matters = True  # a pipeline under CPU offload waits in host RAM

    def __init__(self, workload: BatchWorkload, backends: Backends, assumptions: Assumptions) -> None:
        super().__init__(workload, backends, assumptions)
        # per configuration run under CPU offload: the GB of pipeline weights each GPU's process keeps in
        # host RAM (every component, moved to the GPU in turn)
        self._host_need: dict[ConfigKey, float] = {}
        self._by_ram: dict[tuple[ConfigKey, float | None], ConfigEval] = {}

    def evaluate(self, offer: Offer) -> ConfigEval:
        """The configuration's evaluation as the offer's host RAM allows: under CPU offload each GPU's
        pipeline waits in host RAM, so an offer that lists less than the GPUs' pipelines is rejected, and
        one that lists none is told how much to check for."""
        ev = super().evaluate(offer)
        need = self._host_need.get(ev.key)
        if ev.rejected is not None or need is None:
            return ev
        need *= ev.gpus_per_instance  # one pipeline per GPU
        ram = known_ram(offer)
        if ram is not None and ram >= need:
            return ev
        by_ram = self._by_ram.get((ev.key, ram))
        if by_ram is None:
            if ram is None:
                note = (
                    f"host RAM not listed for this offer: CPU offload keeps ~{need:,.0f} GB of pipeline "
                    "weights in host RAM; check the instance has it"
                )
                by_ram = dataclasses.replace(ev, warnings=(*ev.warnings, note))
            else:
                by_ram = reject(
                    ev.key,
                    ev.accelerator,
                    f"does not fit: the pipeline needs CPU offload on this GPU, which keeps ~{need:,.0f} GB "
                    f"of weights in host RAM; the offer lists {ram:,.0f} GB",
                    kind="fit",
                )
            self._by_ram[(ev.key, ram)] = by_ram
        return by_ram

    def _configure(self, key: ConfigKey, acc: Accelerator) -> ConfigEval:
        w, g = self.w, key[1]
        self.estimator_calls += 1
        try:
            kwargs: dict[str, int | str] = {"width": w.width, "height": w.height, "batch": 1}
            if w.steps is not None:
                kwargs["steps"] = w.steps
            # the precision and engine asked for (an LLM's, e.g. int4 or vllm, is an input error)
            if w.precision is not None:
                kwargs["precision"] = w.precision
            if w.engine is not None:
                kwargs["engine"] = w.engine
            r: ImageResult = self.be.images(w.model, acc, **kwargs)
            if not getattr(r, "supported", True):  # diffusers cannot run there (a stand-in may not say)
                why = getattr(r, "unsupported_reason", "") or "the platform rules refuse this GPU"
                instead = r.assumptions.get("alternatives", "")
                return reject(
                    key,
                    acc,
                    f"not supported: {why}" + (f"; would run: {instead}" if instead else ""),
                    kind="unsupported",
                )
            whole_gb = r.memory.weights_gb  # the pipeline's weights, downloaded and loaded whatever runs
            offload = ""
            if not r.fits:
                # what renters do on a card that cannot hold the whole pipeline: diffusers' model CPU
                # offload, one component (a text encoder, the denoiser, the VAE) on the GPU at a time,
                # each copied in per batch (timed: `gpuscout images --cpu-offload`)
                moved: ImageResult = self.be.images(w.model, acc, cpu_offload=True, **kwargs)
                if moved.fits:
                    r, offload = moved, CPU_OFFLOAD_WARNING
                    self._host_need[key] = whole_gb
        except ConfigurationRejected as exc:  # this configuration only; other errors abort
            return reject(key, acc, str(exc), kind=reject_kind_of(str(exc)))
        per_image = r.seconds_per_image  # None where the pipeline does not fit: no speed is given
        if not r.fits or per_image is None or per_image <= 0:
            return reject(key, acc, "does not fit")
        images = float(w.images_total or 0)
        time_1 = images * per_image / g
        weights = r.memory.weights_gb  # on the GPU at once: under offload, the largest component's
        download = w.download_weights_gb if w.download_weights_gb is not None else whole_gb
        fleet = _batch_fleet(w, time_1, download, self.a)
        inst = fleet.instances
        if not 0 < inst <= self.a.max_instances:
            return deadline_reject(key, acc, inst, fleet.warm_s, self.a.max_instances)
        summary = EstimateSummary(
            throughput=g * inst / per_image,
            throughput_unit="img/s",
            per_user_tokens_per_s=None,
            ttft_ms=None,
            tpot_ms=None,
            memory_per_gpu_gb=r.memory.total_gb,
            memory_capacity_gb=capacity_gb(r.memory, acc),
            weights_gb=weights,
            kv_cache_gb=0.0,
            batch_per_replica=1,
            max_batch_per_replica=None,
            bound=None,
            engine=r.engine,
            precision=r.precision,
            # no image speed is fitted on any measurement (estimate.diffusion: a prior on every GPU)
            speed_calibrated=False,
        )
        # one wording for every row (the answer lists it once), the one `gpuscout images` says too: the
        # per-GPU figures are there; last in the row's warnings, once (the estimate carries it already)
        from gpuscout.estimate.diffusion import uncalibrated_speed_warning  # loaded with the estimator

        prior = uncalibrated_speed_warning(r.engine)
        return ConfigEval(
            key=key,
            fits=True,
            rejected=None,
            accelerator=acc,
            instances=inst,
            tp=1,
            replicas_per_instance=g,
            gpus_per_instance=g,
            summary=summary,
            time_s=time_1 / inst,
            download_gb_per_instance=fleet.download_gb_per_instance,
            split_data_gb=fleet.split_gb,
            load_gb=download,
            images=images,
            warnings=(*(x for x in r.warnings if x != prior), *filter(None, [offload]), prior),
        )
