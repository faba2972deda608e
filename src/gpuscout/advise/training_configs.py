"""The evaluator of fine-tuning and pre-training: all the instance's GPUs work together (data parallel
or sharded); more than one instance only with an inter-node fabric stated for the offer. Data parallel
first, then FSDP, then FSDP with the optimizer and parameters offloaded to host RAM, each with no, selective
or full activation checkpointing, and (unless the workload fixes it) 1, 2, 4... sequences per GPU per
step while a doubling still pays: the fastest layout that fits is the row's.

A layout whose memory leaves less than ``Assumptions.min_training_headroom`` (5 %) of the GPU free
does not count as fitting: activation peaks, allocator fragmentation and a longer batch than average
turn such a run into an out-of-memory at step 1,000. With a deadline, nodes are added (over a stated
inter-node fabric) until the run finishes in time.
"""

from __future__ import annotations

import math

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, TrainingResult
from gpuscout.advise.configs import (
    BaseEvaluator,
    ConfigEval,
    ConfigKey,
    capacity_gb,
    fabric_unstated,
    reject,
    reject_kind_of,
)
from gpuscout.advise.synthetic import dense_model
from gpuscout.advise.types import EstimateSummary
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload
from gpuscout.errors import ConfigurationRejected
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

#: Bytes per parameter of a full-training checkpoint: bf16 weights + fp32 master + Adam moments.
FULL_CHECKPOINT_BYTES_PER_PARAM = 14.0
#: LoRA/QLoRA adapters as a share of the base model's bf16 size when the estimator gives no figure.
ADAPTER_SHARE = 0.01


#: a more involved layout (sharding, offload, recompute) must be this much faster to be preferred: within
#: it the speeds are the same to the estimate's precision, and the simpler setup is the one to run
SIMPLER_WITHIN = 0.02
#: activation checkpointing tried per layout, cheapest first: none, selective recompute, full per layer
CHECKPOINTING_CHOICES = ("none", "selective", "full")
#: micro-batches tried when the workload fixes none, smallest first (each doubling is kept only while it is
#: over ``SIMPLER_WITHIN`` faster and fits with the headroom margin)
MICRO_BATCH_CHOICES = tuple(2**k for k in range(13))  # 1 ... 4096, the workload field's bound


class TrainingEvaluator(BaseEvaluator[FinetuneWorkload | PretrainWorkload]):
    """Fine-tuning and pre-training: all the instance's GPUs together; several instances only over a
    stated inter-node fabric."""

    def __init__(
        self, workload: FinetuneWorkload | PretrainWorkload, backends: Backends, assumptions: Assumptions
    ) -> None:
        super().__init__(workload, backends, assumptions)
        # the model the estimator sees: a registry name, or a stand-in when pretraining "N billion params"
        self.model: str | ModelSpec = workload.model
        if isinstance(workload, PretrainWorkload) and workload.params_b is not None:
            self.model = dense_model(workload.params_b, workload.model)

    def _headroom(self, result: TrainingResult, acc: Accelerator) -> float:
        """Share of the GPU's memory this layout leaves free."""
        cap = capacity_gb(result.memory, acc)
        return 1.0 - result.memory.total_gb / cap if cap > 0 else 0.0

    def _train_call(
        self, acc: Accelerator, gpus: int, nodes: int
    ) -> tuple[TrainingResult | None, str, str, str]:
        """(estimate, why not, kind of why, how it trains) on ``nodes`` x ``gpus``: the fastest layout that
        fits with the memory headroom margin, among data parallel, FSDP and FSDP with host offload, each
        with no, selective or full activation checkpointing (recomputing costs time; it is only worth
        paying when the activations would not fit otherwise), at the workload's micro-batch or the one past
        which doubling no longer pays."""
        from gpuscout.estimate.training import describe_layout  # the estimator's, loaded with it

        w = self.w
        if isinstance(w, FinetuneWorkload):
            method, tokens, epochs = w.method, w.dataset_tokens, w.epochs
        else:
            method, tokens, epochs = "full", w.token_budget, 1.0
        # Simplest first: plain data parallel, then FSDP, then FSDP with the optimizer and parameters
        # offloaded to host RAM (how a 70B full fine-tune runs on one 8x80 GB node); a later layout is
        # taken only when it is faster.
        options = [("none", False)]
        if gpus * nodes > 1:
            options += [("fsdp", False), ("fsdp", True)]
        # the user's micro-batch, or doubling ones until the next stops paying (launch-bound steps at
        # short sequences run several times faster with more sequences per step) or stops fitting
        micro_batches = (w.micro_batch,) if w.micro_batch is not None else MICRO_BATCH_CHOICES
        margin = self.a.min_training_headroom
        why, kind = "does not fit", "fit"

        def fitting(sharding: str, offload: bool, recompute: str, micro_batch: int) -> TrainingResult | None:
            """The estimate of one layout if it fits with the headroom margin (else None, noting why)."""
            nonlocal why, kind
            self.estimator_calls += 1
            result = self.be.training(
                self.model,
                acc,
                gpus=gpus,
                nodes=nodes,
                method=method,
                seq_len=w.seq_len,
                micro_batch=micro_batch,
                tokens=tokens,
                epochs=epochs,
                precision=w.precision,
                sharding=sharding,
                cpu_offload=offload,
                checkpointing=recompute,
            )
            if not result.fits:
                return None
            headroom = self._headroom(result, acc)
            if headroom >= margin:
                return result
            if kind != "headroom":  # the first layout that fits, but too tightly, says why
                cap = capacity_gb(result.memory, acc)
                why = (
                    f"only {max(headroom, 0.0):.0%} memory headroom ({result.memory.total_gb:.1f} of "
                    f"{cap:.1f} GB per GPU; the margin is {margin:.0%}): an out-of-memory risk"
                )
                kind = "headroom"
            return None

        best: tuple[TrainingResult, str] | None = None
        try:
            for sharding, offload in options:
                # recomputing only slows a step, and more sequences per step only need more memory: at
                # each micro-batch the least recompute that fits, starting from the last one's
                level = 0
                previous: tuple[float, int] | None = None  # (tokens/s, recompute level), last micro-batch
                for micro_batch in micro_batches:
                    result = None
                    while level < len(CHECKPOINTING_CHOICES):
                        result = fitting(sharding, offload, CHECKPOINTING_CHOICES[level], micro_batch)
                        if result is not None:
                            break
                        level += 1
                    if result is None:
                        break  # nothing fits at this micro-batch, nor at a larger one
                    if best is None or result.tokens_per_s > best[0].tokens_per_s * (1.0 + SIMPLER_WITHIN):
                        recompute = CHECKPOINTING_CHOICES[level]
                        how = describe_layout(
                            sharding, offload, recompute, gpus * nodes, w.seq_len, micro_batch
                        )
                        best = (result, how)
                    if (
                        previous is not None
                        and previous[1] == level
                        and result.tokens_per_s <= previous[0] * (1.0 + SIMPLER_WITHIN)
                    ):
                        break  # twice the sequences per step, recomputed alike, no longer pays
                    previous = (result.tokens_per_s, level)
        except ConfigurationRejected as exc:  # this configuration only; other errors abort
            return None, str(exc), reject_kind_of(str(exc)), ""
        if best is not None:
            return best[0], "", "", best[1]
        return None, why, kind, ""

    def _configure(self, key: ConfigKey, acc: Accelerator) -> ConfigEval:
        w = self.w
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
        how = ""
        why, kind = "does not fit", "fit"
        deadline_s = w.deadline_hours * 3600.0 if w.deadline_hours is not None else None
        for n in candidates:
            if n > 1 and not fabric:
                return reject(
                    key,
                    acc,
                    f"{n} nodes need an inter-node fabric (none stated for this offer)",
                    kind="fabric",
                )
            r, why_n, kind_n, how_n = self._train_call(acc, g, n)
            if r is None:
                why, kind = (why_n if n == 1 else f"{why_n} on {n} nodes"), kind_n
                continue
            if r.time_s is None or r.time_s <= 0:
                why, kind = "the estimator gives no training time", "estimator"
                continue
            result, nodes, how = r, n, how_n
            if deadline_s is None or r.time_s <= deadline_s:
                break  # the fewest nodes that fit (and finish in time)
        if result is None:
            if kind == "fit" and not fabric and not (isinstance(w, PretrainWorkload) and (w.gpus or w.nodes)):
                why += f" on {g} GPU(s); multi-node needs an inter-node fabric"
            return reject(key, acc, why, kind=kind)
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
            throughput=result.tokens_per_s,
            throughput_unit="train tok/s",
            per_user_tokens_per_s=None,
            ttft_ms=None,
            tpot_ms=None,
            memory_per_gpu_gb=result.memory.total_gb,
            memory_capacity_gb=capacity_gb(result.memory, acc),
            weights_gb=result.memory.weights_gb,
            kv_cache_gb=0.0,
            batch_per_replica=None,
            max_batch_per_replica=None,
            bound=None,
        )
        return ConfigEval(
            key=key,
            fits=True,
            rejected=None,
            accelerator=acc,
            instances=nodes,
            tp=1,
            replicas_per_instance=1,
            gpus_per_instance=g,
            nodes=nodes,
            summary=summary,
            time_s=result.time_s or 0.0,
            download_gb_per_instance=weights + w.dataset_gb,
            load_gb=weights,
            checkpoint_gb=ckpt,
            train_tokens=tokens,
            warnings=(*notes, *result.warnings),
            fabric_assumed=fabric_unstated(key, g),
            training=how,
        )
