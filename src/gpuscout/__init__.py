"""gpuscout: which cloud GPU offer to rent for a generative-AI workload, and what it will really cost.

Python API::

    import gpuscout
    est = gpuscout.estimate("llama-3.1-8b", "H100", precision="fp8", concurrency=16)
    check = gpuscout.can_run("vllm", "fp8", "V100")  # native / weight-only / no, why, alternatives
    recs = gpuscout.recommend(workload)            # ranked offers from the current catalog
    answer = gpuscout.advice(workload)             # the same with the Pareto front, picks and targets
    whisper = gpuscout.estimate_transcription("whisper-large-v3", "L4", audio_s=3600)
    image = gpuscout.estimate_images("flux.1-dev", "L40S", steps=28)  # seconds per image, memory
    run = gpuscout.estimate_training("llama-3.1-8b", "H100", method="lora", tokens=50e6)

Functions (``help(gpuscout.<name>)`` documents each):

- ``estimate(model, gpu, ...)``: memory fit, engine support and speed of serving a model on a GPU.
- ``estimate_training(model, gpu, method=..., tokens=...)``: memory, time and layout of a fine-tune or
  pre-training run.
- ``estimate_images(model, gpu, ...)``: seconds per image and memory of a diffusion model.
- ``estimate_transcription(model, gpu, audio_s=...)``: speed (seconds of audio per second) and memory of
  a speech model.
- ``can_run(engine, precision, gpu)``: whether an engine runs a weight format on a GPU, and how.
- ``advice(workload, offers=None)``: the advisor's whole answer over the current catalog (or ``offers``).
- ``recommend(workload, offers=None)``: its rows, as a list.

This module is the Python face: ``advice`` and ``recommend`` read the current catalog (the store) when no
offers are given, then call the pure advisor (:func:`gpuscout.advise.api.advise`), and name the options
in its texts as Python does (``budget_usd=937``, ``include_stale=True``; the core says the CLI's flags,
which the CLI prints as they are). Everything is imported lazily, so that ``import gpuscout`` stays
cheap for the CLI.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"


def _imported_models() -> tuple[Any, ...]:
    """The models the user imported (``gpuscout models import``), read from the data dir when the core
    meets a name its curated table does not know (``knowledge.edge_models``)."""
    from gpuscout.user_models import load_imported

    return load_imported().specs


def _install_imported_models() -> None:
    from gpuscout.knowledge import edge_models

    edge_models.install(_imported_models)


_install_imported_models()

if TYPE_CHECKING:
    from datetime import datetime

    from gpuscout.advise.assumptions import Assumptions
    from gpuscout.advise.backends import Backends
    from gpuscout.advise.types import Advice, Recommendation
    from gpuscout.advise.workload import AnyWorkload
    from gpuscout.catalog.offer import Offer
    from gpuscout.estimate.api import estimate
    from gpuscout.estimate.diffusion import estimate_images
    from gpuscout.estimate.support import can_run
    from gpuscout.estimate.training import estimate_training
    from gpuscout.estimate.transcription import estimate_transcription

__all__ = [
    "__version__",
    "advice",
    "can_run",
    "estimate",
    "estimate_images",
    "estimate_training",
    "estimate_transcription",
    "recommend",
]


def advice(
    workload: AnyWorkload | Mapping[str, Any],
    offers: Iterable[Offer] | None = None,
    *,
    objective: str = "cost",
    top: int | None = None,
    include_rejected: bool = False,
    include_stale: bool = False,
    db: str | None = None,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> Advice:
    """The advisor's whole answer for ``workload`` over ``offers`` (default: the current catalog of the
    store at ``db``): the Pareto front of cost against time with the cheapest, balanced and fastest
    picks, the dominated rows, the targets applied and what binds when nothing passes. (Named
    ``advice`` because ``gpuscout.advise`` is the advisor's package.)

    Its texts (targets, notes, binding, a row's reasons, warnings and ``rejected``) name the options that
    would change the answer as this API does: the workload's fields and this function's keywords
    ("budget_usd=937 would show it", "spot_allowed=True allows it", "include_stale=True shows them"),
    where the pure core :func:`gpuscout.advise.api.advise` names ``gpuscout recommend``'s flags.

    See :func:`gpuscout.advise.api.advise` for the objectives and what is left out. ``offers``: ``Offer``
    objects (:func:`gpuscout.catalog.api.current_offers` reads a store's), or None for the catalog; anything
    else is an ``InvalidInputError`` naming ``offers``.
    """
    from gpuscout.advise.api import advise as advise_offers
    from gpuscout.advise.option_words import translate_advice

    if backends is None:  # model names resolve through the user's imported models too
        from gpuscout.advise.backends import default_backends
        from gpuscout.user_models import registry

        backends = default_backends(registry())
    if offers is None:
        from gpuscout.catalog.api import current_offers

        offers = current_offers(db=db)
    answer = advise_offers(
        workload,
        offers,
        objective=objective,
        top=top,
        include_rejected=include_rejected,
        include_stale=include_stale,
        backends=backends,
        assumptions=assumptions,
        now=now,
    )
    return translate_advice(answer, "python")


def recommend(
    workload: AnyWorkload | Mapping[str, Any],
    offers: Iterable[Offer] | None = None,
    *,
    objective: str = "cost",
    top: int | None = None,
    include_rejected: bool = False,
    include_stale: bool = False,
    db: str | None = None,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> list[Recommendation]:
    """The rows of :func:`advice` (the Pareto front first, then dominated rows), then the rejected
    ones when ``include_rejected``."""
    return advice(
        workload,
        offers,
        objective=objective,
        top=top,
        include_rejected=include_rejected,
        include_stale=include_stale,
        db=db,
        backends=backends,
        assumptions=assumptions,
        now=now,
    ).recommendations


def __dir__() -> list[str]:
    # the lazy functions too, so that help(gpuscout) and dir(gpuscout) list every public function
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    # Imported lazily so that `import gpuscout` stays cheap for the CLI.
    if name == "estimate":
        from gpuscout.estimate.api import estimate

        return estimate
    if name == "estimate_training":
        from gpuscout.estimate.training import estimate_training

        return estimate_training
    if name == "estimate_images":
        from gpuscout.estimate.diffusion import estimate_images

        return estimate_images
    if name == "estimate_transcription":
        from gpuscout.estimate.transcription import estimate_transcription

        return estimate_transcription
    if name == "can_run":
        from gpuscout.estimate.support import can_run

        return can_run
    raise AttributeError(name)
