"""Errors raised by gpuscout: each names the field at fault and what is accepted."""

from __future__ import annotations

import difflib
import reprlib
import unicodedata
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


class KnownNames(list[str]):
    """Names an :class:`UnknownNameError` shows where none is close to the one given: a few known ones,
    said as such ("none close; known names include H100-SXM, ..."), never as the closest. A face that
    names the error anew (its own option for the field) passes ``suggestions`` on as they are, and
    keeps this."""


class UnknownNameError(InvalidInputError, LookupError):
    """An unknown or ambiguous GPU / model / provider / engine name, with the closest known names (or,
    where none is close, a few known ones: :class:`KnownNames`). An empty or blank name is said to be
    empty (:attr:`empty`), with a few known names, never as an unknown name '' closest to some."""

    @property
    def empty(self) -> bool:
        """Whether the name given was empty or blank (no name at all)."""
        return isinstance(self.name, str) and not self.name.strip()

    def __init__(
        self, field: str, name: str, suggestions: Iterable[str], *, ambiguous: bool = False, reason: str = ""
    ) -> None:
        self.name = name
        # why a known kind of thing has no row ("Qwen3.5 ... has linear-attention layers ..."): said after the
        # name (:mod:`gpuscout.knowledge.unmodelled`); "" for a name that is simply unknown
        self.reason = reason
        examples = isinstance(suggestions, KnownNames)
        self.suggestions: list[str] = KnownNames(suggestions) if examples else list(suggestions)
        self.ambiguous = ambiguous
        if isinstance(name, str) and not name.strip():  # "" or blanks: no name at all, so none is close
            self.suggestions = KnownNames(self.suggestions)
            known = f"; known names include {', '.join(self.suggestions)}" if self.suggestions else ""
            super().__init__(field, f"is empty{known}")
            return
        what = "ambiguous" if ambiguous else "unknown"
        said = quoted_name(name)
        if examples and self.suggestions and not ambiguous:
            super().__init__(
                field, f"{what} name {said}; none close; known names include {', '.join(self.suggestions)}"
            )
            return
        hint = ", ".join(self.suggestions) if self.suggestions else "none close"
        label = "matches" if ambiguous else "closest known"
        why = f": {reason}" if reason else ""
        super().__init__(field, f"{what} name {said}{why}; {label}: {hint}")

    def named_as(self, field: str) -> UnknownNameError:
        """The same error named by ``field`` (the option the user typed: ``--engine``): a copy, of the same
        class, with its message, suggestions and what a subclass adds (an engine's list of every engine
        accepted) kept."""
        text = f"{field}: {self.message}" + (f" (accepted: {self.accepted})" if self.accepted else "")
        renamed = type(self).__new__(type(self), text)  # not __init__: subclasses take other arguments
        renamed.__dict__.update(self.__dict__)
        renamed.field = field
        return renamed


#: At most this many characters of a name are quoted in an error (a pasted page is not echoed whole).
QUOTED_NAME_CHARS = 50


def quoted_name(name: str) -> str:
    """``repr(name)``, cut to :data:`QUOTED_NAME_CHARS` characters with how long it was where longer."""
    if not isinstance(name, str) or len(name) <= QUOTED_NAME_CHARS:
        return repr(name)
    return f"{name[:QUOTED_NAME_CHARS]!r}... ({len(name):,} characters)"


_VALUE_REPR = reprlib.Repr()  # attributes, not keywords: Repr takes none before Python 3.12
_VALUE_REPR.maxother = _VALUE_REPR.maxlong = _VALUE_REPR.maxstring = QUOTED_NAME_CHARS
_VALUE_REPR.maxlevel = 2


def quoted_value(value: object) -> str:
    """``value`` as an error quotes it: text by :func:`quoted_name`, anything else as a ``repr`` cut to
    :data:`QUOTED_NAME_CHARS` characters (a 3,000-digit number or a long list is not echoed whole)."""
    if isinstance(value, str):
        return quoted_name(value)
    text = _VALUE_REPR.repr(value)
    return text if len(text) <= QUOTED_NAME_CHARS else f"{text[:QUOTED_NAME_CHARS]}..."


class WrongModelKind(InvalidInputError):
    """A model of another kind than the entry point answers (an image model given to the language-model
    estimator, a language model to the speech one): ``kind`` is the model's (``llm``, ``diffusion``,
    ``audio``), ``wanted`` what was expected, so a face can point to where that kind is answered."""

    def __init__(self, model: str, kind: str, wanted: str, message: str, accepted: str | None = None) -> None:
        self.model = model
        self.kind = kind
        self.wanted = wanted
        super().__init__("model", message, accepted)


#: Characters that read as "-" or " " where a name is pasted from a web page or a PDF, mapped to them
#: after NFKC (which already turns fullwidth letters and digits, U+FE63 and U+FF0D, and most spaces
#: into ASCII; U+2011 into U+2010). Format characters (category Cf: zero-width space and joiners, the
#: byte-order mark U+FEFF, the soft hyphen U+00AD, direction marks) are dropped.
_LOOK_ALIKES = {
    **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212"), "-"),
    **dict.fromkeys(map(ord, "\u02d7\u2796\ufe58\u2e3a\u2e3b"), "-"),
    **dict.fromkeys(map(ord, "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"), " "),
    **dict.fromkeys(map(ord, "\u2008\u2009\u200a\u202f\u205f\u3000"), " "),
    # Cyrillic and Greek letters drawn as Latin ones (a name typed on a Cyrillic or Greek keyboard layout:
    # "Н100" with U+041D is H100), upper and lower case
    **{ord(c): latin for c, latin in zip("АВЕКМНОРСТХаеорсхуіјѕԁ", "ABEKMHOPCTXaeopcxyijsd", strict=True)},
    **{ord(c): latin for c, latin in zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧον", "ABEZHIKMNOPTYXov", strict=True)},
}


def fold_name(text: str) -> str:
    """``text`` with look-alike characters as the ASCII ones a name is known by: NFKC (fullwidth
    ``Ｈ１００`` reads ``H100``), dashes and minus signs as ``-``, no-break and other spaces as ``" "``,
    zero-width and other format characters dropped. Case and surrounding space are left to the caller.

    Every name lookup (models, GPUs, engines, precisions, providers) folds what it is given with this,
    so a name pasted as ``Llama‑3.1‑8B`` (U+2011) is ``llama-3.1-8b``; an error still shows the name as
    typed."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def closest(name: str, candidates: Iterable[str], n: int = 5) -> list[str]:
    """Return up to ``n`` candidates closest to ``name`` (case-insensitive, look-alike characters
    folded: :func:`fold_name`), best first."""
    pool = {fold_name(c).lower(): c for c in candidates}
    key = fold_name(name).lower()
    hits = difflib.get_close_matches(key, list(pool), n=n, cutoff=0.3)
    if not hits:
        return []
    # a list of far matches after a near one is noise ("whisper": whisper-large-v3, then phi-4, kimi-k2):
    # keep those within 0.8 of the best score
    score = {h: difflib.SequenceMatcher(None, key, h).ratio() for h in hits}
    best = score[hits[0]]
    return [pool[h] for h in hits if score[h] >= 0.8 * best]


class ConfigurationRejected(InvalidInputError):
    """A workload cannot run on one hardware configuration (it does not fit, the engine cannot run that
    precision there, the parallel layout is impossible...).

    Raised by the estimators for a *configuration* the caller chose (GPU, count, batch, parallel layout),
    as opposed to a bad user input. The advisor catches this type to reject one offer and go on; any
    other :class:`InvalidInputError` aborts the request.
    """
