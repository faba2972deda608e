"""The minimum configuration of an offer that runs a workload, and what the estimator predicts for it.

A *configuration* depends on the accelerator, the GPUs per instance, the intra-node fabric and whether
an inter-node fabric is stated, never on the price: ``ConfigKey`` captures exactly that, so the
(expensive) estimates run once per distinct key rather than once per offer.

Rules:
- serving and batch inference: per instance, ``replicas`` copies of the model each sharded ``tp`` ways
  (``tp`` a power of two dividing the instance's GPUs). The smallest ``tp`` that fits and meets the
  latency targets is used unless a larger one needs fewer instances ("one fast GPU per replica beats a
  split model"). More load than one instance sustains -> more instances (independent replicas).
- fine-tuning and pre-training: all the instance's GPUs work together (data parallel / sharded); more
  than one instance only with an inter-node fabric stated for the offer.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, ImageResult, TrainingResult
from gpuscout.advise.synthetic import dense_model
from gpuscout.advise.types import EstimateSummary
from gpuscout.advise.workload import (
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
)
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.errors import GpuscoutError, InvalidInputError
from gpuscout.estimate.types import Estimate, MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

#: Estimator errors about these fields concern one configuration (it is rejected); any other field is
#: the workload's fault (model, precision, engine...) and is raised to the user.
CONFIG_FIELDS = frozenset({"gpu", "gpus", "batch", "nodes", "parallel", "tp"})

#: PCIe 4.0/5.0 x16 between GPUs of a box without NVLink, bidirectional GB/s as datasheets quote it.
PCIE_GBPS = 64.0
#: Bytes per parameter of a full-training checkpoint: bf16 weights + fp32 master + Adam moments.
FULL_CHECKPOINT_BYTES_PER_PARAM = 14.0
#: LoRA/QLoRA adapters as a share of the base model's bf16 size when the estimator gives no figure.
ADAPTER_SHARE = 0.01

ConfigKey = tuple[str, int, str, bool]


def config_key(offer: Offer) -> ConfigKey:
    """What a configuration depends on: accelerator, GPUs per instance, intra-node fabric, inter-node."""
    return (offer.accelerator, offer.gpu_count, offer.interconnect, bool(offer.internode))


@dataclass(frozen=True, slots=True)
class ConfigEval:
    """The chosen configuration for one ``ConfigKey`` and its predicted performance."""

    key: ConfigKey
    fits: bool
    rejected: str | None  # why this configuration cannot run the workload
    accelerator: Accelerator | None
    instances: int = 1
    tp: int = 1
    replicas_per_instance: int = 1
    gpus_per_instance: int = 1
    nodes: int = 1
    summary: EstimateSummary | None = None
    time_s: float = 0.0  # job runtime at ``instances``; serve: active seconds per day
    download_gb_per_instance: float = 0.0  # weights (+ dataset) fetched once per instance
    load_gb: float = 0.0  # weights loaded into GPU memory at each start
    checkpoint_gb: float = 0.0
    output_tokens: float = 0.0  # serve: per month; batch: total
    images: float = 0.0
    train_tokens: float = 0.0
    estimate: Estimate | None = None  # the inference estimate at the operating point
    pcie_tp_slowdown: float | None = None  # decode speed lost to PCIe vs the accelerator's NVLink
    warnings: tuple[str, ...] = ()
    cap_batch: int = 0  # serve: users one replica takes (before spreading the load)
    detailed: bool = True  # serve: False until ``Evaluator.detail`` adds the operating point
    split_why: str | None = None  # serve: why the model is split (tp > 1) rather than on one GPU

    @property
    def gpus_used(self) -> int:
        return self.instances * self.gpus_per_instance


def _reject(key: ConfigKey, acc: Accelerator | None, why: str, fits: bool = False) -> ConfigEval:
    return ConfigEval(key=key, fits=fits, rejected=why, accelerator=acc)


def tp_degrees(gpu_count: int) -> list[int]:
    """Tensor-parallel degrees usable on an instance: powers of two dividing its GPU count."""
    out = []
    t = 1
    while t <= gpu_count:
        if gpu_count % t == 0:
            out.append(t)
        t *= 2
    return out


def fabric_accelerator(acc: Accelerator, interconnect: str) -> Accelerator:
    """The accelerator as installed in the offer: an NVLink part in a PCIe-only box talks over PCIe."""
    if interconnect == Interconnect.PCIE.value and acc.has_nvlink_class_fabric:
        return dataclasses.replace(acc, interconnect="PCIe", interconnect_gbps=PCIE_GBPS)
    return acc


class Evaluator:
    """Evaluates configurations for one workload, memoising every estimator call."""

    def __init__(self, workload: AnyWorkload, backends: Backends, assumptions: Assumptions) -> None:
        self.w = workload
        self.be = backends
        self.a = assumptions
        self._acc: dict[str, Accelerator | None] = {}
        self._acc_err: dict[str, str] = {}
        self._inf: dict[tuple[str, str | None, int, int | str], Estimate | None] = {}
        self._inf_err: dict[tuple[str, str | None, int, int | str], str] = {}
        self._configs: dict[ConfigKey, ConfigEval] = {}
        self._detailed: dict[ConfigKey, ConfigEval] = {}
        self.last_error: str | None = None
        self.estimator_calls = 0
        # the model the estimator sees: a registry name, or a stand-in when pretraining "N billion params"
        self.model: str | ModelSpec = workload.model
        if isinstance(workload, PretrainWorkload) and workload.params_b is not None:
            self.model = dense_model(workload.params_b, workload.model)

    # ---- look-ups -------------------------------------------------------------------------------
    def accelerator(self, name: str) -> Accelerator | None:
        if name not in self._acc:
            try:
                self._acc[name] = self.be.accelerator(name)
            except GpuscoutError as exc:
                self._acc[name] = None
                self._acc_err[name] = str(exc)
        return self._acc[name]

    def infer(self, acc: Accelerator, tp: int, batch: int | str) -> Estimate | None:
        """Inference estimate for one replica (``tp`` GPUs); ``None`` if the estimator refuses."""
        w = self.w
        assert isinstance(w, ServeWorkload | BatchWorkload)
        if tp == 1:
            acc = self._acc.get(acc.name) or acc  # one GPU: the fabric plays no part
        k = self._inf_key(acc, tp, batch)
        if k not in self._inf:
            self.estimator_calls += 1
            try:
                self._inf[k] = self.be.inference(
                    w.model, acc, gpus=tp, precision=w.precision, engine=w.engine, batch=batch,
                    context_in=w.prompt_tokens, context_out=w.output_tokens,
                )
            except InvalidInputError as exc:
                if exc.field not in CONFIG_FIELDS:
                    raise
                self._inf[k] = None
                self._inf_err[k] = str(exc)
        if self._inf[k] is None:
            self.last_error = self._inf_err.get(k)
        return self._inf[k]

    @staticmethod
    def _inf_key(acc: Accelerator, tp: int, batch: int | str) -> tuple[str, str | None, int, int | str]:
        return (acc.name, acc.interconnect, tp, batch)

    def evaluate(self, offer: Offer) -> ConfigEval:
        key = config_key(offer)
        ev = self._configs.get(key)
        if ev is None:
            ev = self._evaluate(key)
            self._configs[key] = ev
        return ev

    def _evaluate(self, key: ConfigKey) -> ConfigEval:
        acc = self.accelerator(key[0])
        if acc is None:
            return _reject(key, None, f"unknown accelerator {key[0]!r}")
        acc = fabric_accelerator(acc, key[2])
        w = self.w
        if isinstance(w, ServeWorkload):
            return self._serve(key, acc, w)
        if isinstance(w, BatchWorkload):
            return self._batch_images(key, acc, w) if w.is_images else self._batch_tokens(key, acc, w)
        return self._training(key, acc, w)

    # ---- serving --------------------------------------------------------------------------------
    def _latency_ok(self, e: Estimate) -> bool:
        w = self.w
        assert isinstance(w, ServeWorkload)
        if w.ttft_ms_max is not None and e.ttft_ms > w.ttft_ms_max:
            return False
        return not (w.tpot_ms_max is not None and _tpot_ms(e) > w.tpot_ms_max)

    def _serve_replica(self, acc: Accelerator, tp: int, users: int | None
                       ) -> tuple[Estimate | None, int, str | None]:
        """(estimate at the replica's usable batch, that batch, why not) for one replica of ``tp`` GPUs.

        The usable batch is the load asked for (``concurrency``) or the most that fits (``requests_per_s``),
        lowered until the latency targets are met.
        """
        w = self.w
        assert isinstance(w, ServeWorkload)
        first: int | str = "max" if users is None else users
        e = self.infer(acc, tp, first)
        if e is None:
            return None, 0, self.last_error or "estimator refused"
        if e.max_batch < 1:
            return e, 0, f"does not fit: {e.binding_constraint}"
        want = e.batch if first == "max" else min(e.max_batch, int(first))
        if want != e.batch or not e.fits:
            e = self.infer(acc, tp, want)
        if e is not None and e.fits and self._latency_ok(e):
            return e, want, None
        lo, hi = 1, want - 1
        e1 = self.infer(acc, tp, 1)
        if e1 is None or not e1.fits or not self._latency_ok(e1):
            return e1, 0, "latency target missed even at 1 user"
        best, best_e = 1, e1
        while lo <= hi:
            mid = (lo + hi) // 2
            em = self.infer(acc, tp, mid)
            if em is not None and em.fits and self._latency_ok(em):
                best, best_e, lo = mid, em, mid + 1
            else:
                hi = mid - 1
        return best_e, best, None

    def _serve(self, key: ConfigKey, acc: Accelerator, w: ServeWorkload) -> ConfigEval:
        """Choose tp and the number of instances; the operating point is filled in by ``detail``."""
        g = key[1]
        active_s_month = w.active_hours_per_day * 3600.0 * w.days_per_month
        best: tuple[int, int] | None = None
        chosen: tuple[int, Estimate, int, int] | None = None  # tp, estimate at cap, cap, instances
        last_why = "does not fit"
        any_fit = False
        outcome: dict[int, str] = {}  # tp -> why it was not enough, or how many instances it needs
        for tp in tp_degrees(g):
            e_cap, cap, why = self._serve_replica(acc, tp, w.concurrency)
            if why is not None or e_cap is None:
                last_why = why or last_why
                outcome[tp] = last_why
                if e_cap is not None and e_cap.max_batch >= 1:
                    any_fit = True
                continue
            any_fit = True
            replicas = g // tp
            if w.requests_per_s is not None:
                rps_per_replica = e_cap.output_tokens_per_s_total / w.output_tokens
                inst = math.ceil(w.requests_per_s / (replicas * rps_per_replica) - 1e-9)
            else:
                inst = math.ceil((w.concurrency or 1) / (replicas * cap))
            if w.monthly_output_tokens is not None:
                # the volume may need more than the stated users: size on the replica's full throughput
                e_rate = e_cap if w.concurrency is None else self._serve_replica(acc, tp, None)[0]
                rate = (e_rate or e_cap).output_tokens_per_s_total
                need_tps = w.monthly_output_tokens / active_s_month
                inst = max(inst, math.ceil(need_tps / (replicas * rate) - 1e-9))
            inst = max(inst, 1)
            outcome[tp] = f"{inst} instance{'s' if inst > 1 else ''}"
            rank_key = (inst, tp)
            if best is None or rank_key < best:
                best, chosen = rank_key, (tp, e_cap, cap, inst)
            if inst == 1:
                break  # a larger split cannot need fewer instances; the smaller split wins ties
        if chosen is None:
            return _reject(key, acc, last_why, fits=any_fit and "latency" in last_why)
        tp, e_cap, cap, inst = chosen
        if inst > self.a.max_instances:
            return _reject(key, acc, f"needs {inst} instances (> {self.a.max_instances})", fits=True)
        weights_total = e_cap.memory.weights_gb * tp
        download = w.download_weights_gb if w.download_weights_gb is not None else weights_total
        split_why = _split_why(outcome.get(1, "")) if tp > 1 else None
        return ConfigEval(
            key=key, fits=True, rejected=None, accelerator=acc, instances=inst, tp=tp, split_why=split_why,
            replicas_per_instance=g // tp, gpus_per_instance=g, nodes=1,
            time_s=w.active_hours_per_day * 3600.0, download_gb_per_instance=download + w.dataset_gb,
            load_gb=download, estimate=e_cap, cap_batch=cap, detailed=False,
        )

    def detail(self, ev: ConfigEval) -> ConfigEval:
        """``ev`` with its operating point (speed at the load actually spread over the replicas).

        Costs do not depend on it, so ranking by cost estimates it only for the rows shown.
        """
        if ev.detailed:
            return ev
        done = self._detailed.get(ev.key)
        if done is None:
            done = self._serve_detail(ev)
            self._detailed[ev.key] = done
        return done

    def _serve_detail(self, ev: ConfigEval) -> ConfigEval:
        w = self.w
        assert isinstance(w, ServeWorkload) and ev.estimate is not None and ev.accelerator is not None
        acc, tp, cap, e_cap = ev.accelerator, ev.tp, ev.cap_batch, ev.estimate
        active_s_month = w.active_hours_per_day * 3600.0 * w.days_per_month
        users: float
        if w.requests_per_s is not None:
            users = w.requests_per_s * _request_latency_s(e_cap, w.output_tokens)
        else:
            users = float(w.concurrency or 1)
        b_op = max(1, min(cap, math.ceil(users / (ev.instances * ev.replicas_per_instance) - 1e-9)))
        e_op = self.infer(acc, tp, b_op) or e_cap
        if w.requests_per_s is not None:
            served_tps = w.requests_per_s * w.output_tokens
        else:
            # the estimator's aggregate at this batch (prefills of arriving requests included), per user
            served_tps = users * e_op.output_tokens_per_s_total / max(e_op.batch, 1)
        monthly = w.monthly_output_tokens if w.monthly_output_tokens is not None \
            else served_tps * active_s_month
        # sustainable load: as many users per replica as memory allows (or as the latency search kept)
        targets = w.ttft_ms_max is not None or w.tpot_ms_max is not None
        e_full = e_cap if targets else (self.infer(acc, tp, "max") or e_cap)
        per_replica = cap if targets else e_full.batch
        replicas_total = ev.instances * ev.replicas_per_instance
        summary = EstimateSummary(
            capacity_users=per_replica * replicas_total,
            capacity_tokens_per_s=e_full.output_tokens_per_s_total * replicas_total,
            throughput=served_tps, throughput_unit="tok/s",
            per_user_tokens_per_s=e_op.decode_tokens_per_s, ttft_ms=e_op.ttft_ms, tpot_ms=_tpot_ms(e_op),
            memory_per_gpu_gb=e_op.memory.total_gb, memory_capacity_gb=_capacity(e_op.memory, acc),
            weights_gb=e_op.memory.weights_gb, kv_cache_gb=e_op.memory.kv_cache_gb,
            batch_per_replica=b_op, max_batch_per_replica=e_op.max_batch, bound=e_op.bound,
        )
        return dataclasses.replace(
            ev, summary=summary, output_tokens=monthly, estimate=e_op, detailed=True,
            pcie_tp_slowdown=self._pcie_slowdown(acc, ev.key, tp, b_op, e_op), warnings=tuple(e_op.warnings),
        )

    def _pcie_slowdown(
        self, acc: Accelerator, key: ConfigKey, tp: int, batch: int, e: Estimate
    ) -> float | None:
        """Fraction of decode speed lost because this box's NVLink-class GPUs talk over PCIe."""
        if tp < 2 or key[2] != Interconnect.PCIE.value:
            return None
        native = self.accelerator(key[0])
        if native is None or native is acc or not native.has_nvlink_class_fabric:
            return None
        e_nv = self.infer(native, tp, batch)
        if e_nv is None or e_nv.decode_tokens_per_s <= 0:
            return None
        return max(0.0, 1.0 - e.decode_tokens_per_s / e_nv.decode_tokens_per_s)

    # ---- batch ----------------------------------------------------------------------------------
    def _scale_to_deadline(self, time_1: float) -> int:
        w = self.w
        assert isinstance(w, BatchWorkload)
        if w.deadline_hours is None:
            return 1
        return max(1, math.ceil(time_1 / (w.deadline_hours * 3600.0) - 1e-9))

    def _batch_tokens(self, key: ConfigKey, acc: Accelerator, w: BatchWorkload) -> ConfigEval:
        g = key[1]
        out_total = w.output_tokens_total or 0.0
        best: tuple[float, int, Estimate] | None = None
        why = "does not fit"
        for tp in tp_degrees(g):
            e = self.infer(acc, tp, "max")
            if e is None or not e.fits or e.output_tokens_per_s_total <= 0:
                why = f"does not fit: {e.binding_constraint}" if e is not None else why
                continue
            replicas = g // tp
            prefill = w.input_tokens / e.prefill_tokens_per_s if e.prefill_tokens_per_s > 0 else 0.0
            time_1 = (prefill + out_total / e.output_tokens_per_s_total) / replicas
            if best is None or (time_1, tp) < (best[0], best[1]):
                best = (time_1, tp, e)
        if best is None:
            return _reject(key, acc, why)
        time_1, tp, e = best
        inst = self._scale_to_deadline(time_1)
        if inst > self.a.max_instances:
            return _reject(key, acc, f"deadline needs {inst} instances (> {self.a.max_instances})", fits=True)
        replicas = g // tp
        weights_total = e.memory.weights_gb * tp
        download = w.download_weights_gb if w.download_weights_gb is not None else weights_total
        summary = EstimateSummary(
            throughput=e.output_tokens_per_s_total * replicas * inst, throughput_unit="tok/s",
            per_user_tokens_per_s=e.decode_tokens_per_s, ttft_ms=e.ttft_ms, tpot_ms=_tpot_ms(e),
            memory_per_gpu_gb=e.memory.total_gb, memory_capacity_gb=_capacity(e.memory, acc),
            weights_gb=e.memory.weights_gb, kv_cache_gb=e.memory.kv_cache_gb,
            batch_per_replica=e.batch, max_batch_per_replica=e.max_batch, bound=e.bound,
        )
        return ConfigEval(
            key=key, fits=True, rejected=None, accelerator=acc, instances=inst, tp=tp,
            replicas_per_instance=replicas, gpus_per_instance=g, summary=summary, time_s=time_1 / inst,
            download_gb_per_instance=download + w.dataset_gb, load_gb=download, output_tokens=out_total,
            estimate=e, pcie_tp_slowdown=self._pcie_slowdown(acc, key, tp, e.batch, e),
            warnings=tuple(e.warnings),
        )

    def _batch_images(self, key: ConfigKey, acc: Accelerator, w: BatchWorkload) -> ConfigEval:
        g = key[1]
        self.estimator_calls += 1
        try:
            kwargs: dict[str, int] = {"width": w.width, "height": w.height, "batch": 1}
            if w.steps is not None:
                kwargs["steps"] = w.steps
            r: ImageResult = self.be.images(w.model, acc, **kwargs)
        except InvalidInputError as exc:
            if exc.field not in CONFIG_FIELDS:
                raise
            return _reject(key, acc, str(exc))
        if not r.fits or r.seconds_per_image <= 0:
            return _reject(key, acc, "does not fit")
        images = float(w.images_total or 0)
        time_1 = images * r.seconds_per_image / g
        inst = self._scale_to_deadline(time_1)
        if inst > self.a.max_instances:
            return _reject(key, acc, f"deadline needs {inst} instances (> {self.a.max_instances})", fits=True)
        weights = r.memory.weights_gb
        download = w.download_weights_gb if w.download_weights_gb is not None else weights
        summary = EstimateSummary(
            throughput=g * inst / r.seconds_per_image, throughput_unit="img/s", per_user_tokens_per_s=None,
            ttft_ms=None, tpot_ms=None, memory_per_gpu_gb=r.memory.total_gb,
            memory_capacity_gb=_capacity(r.memory, acc),
            weights_gb=weights, kv_cache_gb=0.0, batch_per_replica=1, max_batch_per_replica=None, bound=None,
        )
        return ConfigEval(
            key=key, fits=True, rejected=None, accelerator=acc, instances=inst, tp=1, replicas_per_instance=g,
            gpus_per_instance=g, summary=summary, time_s=time_1 / inst,
            download_gb_per_instance=download + w.dataset_gb, load_gb=download, images=images,
        )

    # ---- training -------------------------------------------------------------------------------
    def _train_call(self, acc: Accelerator, gpus: int, nodes: int) -> TrainingResult | str:
        """Training estimate on ``nodes`` x ``gpus``: data parallel first, FSDP when that does not fit."""
        w = self.w
        assert isinstance(w, FinetuneWorkload | PretrainWorkload)
        if isinstance(w, FinetuneWorkload):
            method, tokens, epochs = w.method, w.dataset_tokens, w.epochs
        else:
            method, tokens, epochs = "full", w.token_budget, 1.0
        # Cheapest-to-run first: plain data parallel, then FSDP, then FSDP with the optimizer and
        # parameters offloaded to host RAM (how a 70B full fine-tune runs on one 8x80 GB node).
        options = [("none", False)]
        if gpus * nodes > 1:
            options += [("fsdp", False), ("fsdp", True)]
        result: TrainingResult | str = "does not fit"
        for sharding, offload in options:
            self.estimator_calls += 1
            try:
                result = self.be.training(
                    self.model, acc, gpus=gpus, nodes=nodes, method=method, seq_len=w.seq_len,
                    micro_batch=w.micro_batch, tokens=tokens, epochs=epochs, precision=w.precision,
                    sharding=sharding, cpu_offload=offload,
                )
            except InvalidInputError as exc:
                if exc.field not in CONFIG_FIELDS:
                    raise
                return str(exc)
            if result.fits:
                return result
        return result

    def _training(self, key: ConfigKey, acc: Accelerator, w: AnyWorkload) -> ConfigEval:
        assert isinstance(w, FinetuneWorkload | PretrainWorkload)
        g = key[1]
        fabric = key[3]
        if isinstance(w, PretrainWorkload) and (w.gpus is not None or w.nodes is not None):
            n = w.nodes if w.nodes is not None else math.ceil((w.gpus or g) / g)
            candidates = [n]
        else:
            candidates = [1]
            n = 2
            while fabric and n <= w.max_nodes:
                candidates.append(n)
                n *= 2
        result: TrainingResult | None = None
        nodes = 1
        why = "does not fit"
        for n in candidates:
            if n > 1 and not fabric:
                return _reject(key, acc, f"{n} nodes need an inter-node fabric (none stated for this offer)")
            r = self._train_call(acc, g, n)
            if isinstance(r, str):
                why = r
                continue
            if r.fits and r.time_s is not None and r.time_s > 0:
                result, nodes = r, n
                break
            why = "does not fit" if n == 1 else f"does not fit on {n} nodes"
        if result is None:
            if not fabric and not (isinstance(w, PretrainWorkload) and (w.gpus or w.nodes)):
                why += f" on {g} GPU(s); multi-node needs an inter-node fabric"
            return _reject(key, acc, why)
        params_b = w.params_b if isinstance(w, PretrainWorkload) and w.params_b else self.be.params_b(w.model)
        notes = (f"{self.model.notes} (no architecture named)",) if isinstance(self.model, ModelSpec) else ()
        weights = w.download_weights_gb if w.download_weights_gb is not None else params_b * 2.0
        if w.checkpoint_gb is not None:
            ckpt = w.checkpoint_gb
        elif isinstance(w, FinetuneWorkload) and w.method != "full":
            adapters = result.memory.adapters_gb
            ckpt = adapters if adapters > 0 else params_b * 2.0 * ADAPTER_SHARE
        else:
            ckpt = params_b * FULL_CHECKPOINT_BYTES_PER_PARAM
        tokens = w.train_tokens if isinstance(w, FinetuneWorkload) else w.token_budget
        summary = EstimateSummary(
            throughput=result.tokens_per_s, throughput_unit="train tok/s", per_user_tokens_per_s=None,
            ttft_ms=None, tpot_ms=None, memory_per_gpu_gb=result.memory.total_gb,
            memory_capacity_gb=_capacity(result.memory, acc), weights_gb=result.memory.weights_gb,
            kv_cache_gb=0.0,
            batch_per_replica=None, max_batch_per_replica=None, bound=None,
        )
        return ConfigEval(
            key=key, fits=True, rejected=None, accelerator=acc, instances=nodes, tp=1,
            replicas_per_instance=1, gpus_per_instance=g, nodes=nodes, summary=summary,
            time_s=result.time_s or 0.0,
            download_gb_per_instance=weights + w.dataset_gb, load_gb=weights, checkpoint_gb=ckpt,
            train_tokens=tokens, warnings=(*notes, *result.warnings),
        )


def _split_why(alone: str) -> str:
    """Why one GPU was not enough, from what the single-GPU attempt returned."""
    if alone.endswith(("instance", "instances")):
        return f"one GPU per replica would need {alone}"
    if "latency" in alone:
        return "one GPU misses the latency target"
    what = alone.removeprefix("does not fit: ").replace("_", " ") or "the model"
    return f"{what} do not fit one GPU" if what == "weights" else f"{what} does not fit one GPU"


def _capacity(memory: MemoryBreakdown, acc: Accelerator) -> float:
    """The GPU memory the estimator sized against (GB, 1e9 B), else the datasheet figure."""
    return memory.capacity_gb if memory.capacity_gb > 0 else acc.memory_gb


def _tpot_ms(e: Estimate) -> float:
    return 1000.0 / e.decode_tokens_per_s if e.decode_tokens_per_s > 0 else math.inf


def _request_latency_s(e: Estimate, output_tokens: int) -> float:
    """Seconds one request takes: time to first token + the output at this decode speed."""
    return e.ttft_ms / 1000.0 + output_tokens * _tpot_ms(e) / 1000.0
