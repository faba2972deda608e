"""``evaluator_for``: the configuration evaluator of a workload's kind."""

from __future__ import annotations

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends
from gpuscout.advise.configs import WorkloadEvaluator
from gpuscout.advise.inference_configs import BatchImagesEvaluator, BatchTokensEvaluator, ServeEvaluator
from gpuscout.advise.training_configs import TrainingEvaluator
from gpuscout.advise.workload import AnyWorkload, BatchWorkload, ServeWorkload


def evaluator_for(workload: AnyWorkload, backends: Backends, assumptions: Assumptions) -> WorkloadEvaluator:
    """The evaluator of ``workload``'s kind."""
    if isinstance(workload, ServeWorkload):
        return ServeEvaluator(workload, backends, assumptions)
    if isinstance(workload, BatchWorkload):
        if workload.is_images:
            return BatchImagesEvaluator(workload, backends, assumptions)
        return BatchTokensEvaluator(workload, backends, assumptions)
    return TrainingEvaluator(workload, backends, assumptions)
