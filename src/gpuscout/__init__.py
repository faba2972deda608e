"""gpuscout: which cloud GPU offer to rent for a generative-AI workload, and what it will really cost.

Python API::

    import gpuscout
    est = gpuscout.estimate("llama-3.1-8b", "H100", precision="fp8", concurrency=16)
    check = gpuscout.can_run("vllm", "fp8", "V100")  # native / weight-only / no, why, alternatives
    recs = gpuscout.recommend(workload)            # ranked offers from the current catalog
    whisper = gpuscout.estimate_transcription("whisper-large-v3", "L4", audio_s=3600)
    run = gpuscout.estimate_training("llama-3.1-8b", "H100", method="lora", tokens=50e6)

This module is the Python face: ``recommend`` reads the current catalog (the store) when no offers are
given, then calls the pure advisor (:func:`gpuscout.advise.api.recommend`). Everything is imported
lazily, so that ``import gpuscout`` stays cheap for the CLI.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from datetime import datetime

    from gpuscout.advise.assumptions import Assumptions
    from gpuscout.advise.backends import Backends
    from gpuscout.advise.types import Recommendation
    from gpuscout.advise.workload import AnyWorkload
    from gpuscout.catalog.offer import Offer
    from gpuscout.estimate.api import estimate
    from gpuscout.estimate.support import can_run
    from gpuscout.estimate.training import estimate_training
    from gpuscout.estimate.transcription import estimate_transcription

__all__ = ["__version__", "can_run", "estimate", "estimate_training", "estimate_transcription", "recommend"]


def recommend(
    workload: AnyWorkload | Mapping[str, Any],
    offers: Iterable[Offer] | None = None,
    *,
    objective: str = "cost",
    top: int | None = None,
    include_rejected: bool = False,
    db: str | None = None,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> list[Recommendation]:
    """Rank ``offers`` (default: the current catalog of the store at ``db``) for ``workload``, best first.

    See :func:`gpuscout.advise.api.recommend` for the objectives and what is left out.
    """
    from gpuscout.advise.api import recommend as rank_offers

    if offers is None:
        from gpuscout.catalog.api import current_offers

        offers = current_offers(db=db)
    return rank_offers(
        workload,
        offers,
        objective=objective,
        top=top,
        include_rejected=include_rejected,
        backends=backends,
        assumptions=assumptions,
        now=now,
    )


def __getattr__(name: str) -> Any:
    # Imported lazily so that `import gpuscout` stays cheap for the CLI.
    if name == "estimate":
        from gpuscout.estimate.api import estimate

        return estimate
    if name == "estimate_training":
        from gpuscout.estimate.training import estimate_training

        return estimate_training
    if name == "estimate_transcription":
        from gpuscout.estimate.transcription import estimate_transcription

        return estimate_transcription
    if name == "can_run":
        from gpuscout.estimate.support import can_run

        return can_run
    raise AttributeError(name)
