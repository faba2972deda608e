"""Errors raised by gpuscout: each names the field at fault and what is accepted."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class GpuscoutError(Exception):
    """Base class of every error gpuscout raises on purpose."""


class InvalidInputError(GpuscoutError, ValueError):
    """A value the user gave is out of range or of the wrong kind.

    ``field`` names the parameter (``context_in``, ``--gpus``, ``price_usd_per_hour``...)
    and ``accepted`` says what would be accepted. ``names`` lists the other input fields the message
    and ``accepted`` name (``width``, ``gpus``...), so a face can write each as its own option or label
    where a plain word could not be told from prose.
    """

    def __init__(
        self, field: str, message: str, accepted: str | None = None, *, names: tuple[str, ...] = ()
    ) -> None:
        self.field = field
        self.message = message
        self.accepted = accepted
        self.names = names
        text = f"{field}: {message}"
        if accepted:
            text += f" (accepted: {accepted})"
        super().__init__(text)


class UnknownNameError(InvalidInputError, LookupError):
    """An unknown or ambiguous GPU / model / provider / engine name, with the closest known names."""

    def __init__(self, field: str, name: str, suggestions: Iterable[str], *, ambiguous: bool = False) -> None:
        self.name = name
        self.suggestions = list(suggestions)
        self.ambiguous = ambiguous
        what = "ambiguous" if ambiguous else "unknown"
        hint = ", ".join(self.suggestions) if self.suggestions else "none close"
        label = "matches" if ambiguous else "closest known"
        super().__init__(field, f"{what} name {name!r}; {label}: {hint}")


class WrongModelKind(InvalidInputError):
    """A model of another kind than the entry point answers (an image model given to the language-model
    estimator, a language model to the speech one): ``kind`` is the model's (``llm``, ``diffusion``,
    ``audio``), ``wanted`` what was expected, so a face can point to where that kind is answered."""

    def __init__(self, model: str, kind: str, wanted: str, message: str, accepted: str | None = None) -> None:
        self.model = model
        self.kind = kind
        self.wanted = wanted
        super().__init__("model", message, accepted)


def closest(name: str, candidates: Iterable[str], n: int = 5) -> list[str]:
    """Return up to ``n`` candidates closest to ``name`` (case-insensitive), best first."""
    pool = {c.lower(): c for c in candidates}
    hits = difflib.get_close_matches(name.lower(), list(pool), n=n, cutoff=0.3)
    return [pool[h] for h in hits]


class ConfigurationRejected(InvalidInputError):
    """A workload cannot run on one hardware configuration (it does not fit, the engine cannot run that
    precision there, the parallel layout is impossible...).

    Raised by the estimators for a *configuration* the caller chose (GPU, count, batch, parallel layout),
    as opposed to a bad user input. The advisor catches this type to reject one offer and go on; any
    other :class:`InvalidInputError` aborts the request.
    """
