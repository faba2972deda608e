"""Which release of an engine first ran a model architecture: a named release older than that cannot load it.

The support rules (:mod:`gpuscout.knowledge.engine_support`) say whether an engine runs a precision on an
accelerator; they hold for the engine's releases whatever the model. A model's architecture has a first
release of its own: vLLM 0.6.3 (Oct 2024) cannot load DeepSeek-V3 (Dec 2024; first run by 0.6.6), nor
transformers 4.50 Qwen3 (``KeyError: 'qwen3'`` before 4.51.0). The rules (``data/architecture_support.csv``)
give, per engine and model family (``ModelSpec.family``: the model table's, or an imported config's
``model_type``, "llama (rope_type llama3)" for a Llama config with Llama 3.1's rope scaling), that first
release, its words and its source: an engine's release notes, the model's
README or card. They are tagged ``inferred``: each is what those pages say as recalled when the table
was written (stop 56, with no network to re-read them), cross-checked only against the calibration runs
(every measured run with a named release passes its rule) and a second reader's memory; the cited URLs
are where to verify them. Where only a lower bound is known the row's ``bound`` is "at least": Kimi K2 and
DeepSeek-V3.2 (not before DeepSeek-V3's first release), and the rows for TensorRT-LLM, for TGI's
DeepSeek-V3, Qwen3 and gpt-oss and for SGLang's gpt-oss (stop 57), which rest on dates alone: the model was
published after every release below the bound, so none of those loads it (which release first did is not
recorded). A refusal on such a row never says "since or later".

llama.cpp numbers builds, not releases: its rows name a year ("2025"), and the era a user names by its year
("llama.cpp 2024": the 2023-2024 builds) is judged as the release its ``EngineEra.release`` gives. Its rows
(stop 60) rest on dates as recalled, DeepSeek-V3's on the PR that added it (January 2025).

Only a release the user names is judged: today's release (no version named) runs every family the model
table lists. A family with no row is not judged (no claim made).

Pure: no I/O beyond reading the packaged data file.
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass
from importlib import resources

from gpuscout.knowledge.engine_support import ENGINES, TAGS, release_number

_DATA_FILE = "architecture_support.csv"
BOUNDS = ("first", "at least")
#: How a refusal by these rules reads after the release ("vLLM 0.6.3 predates this model's architecture: ...")
PREDATES = "predates this model's architecture"


@dataclass(frozen=True, slots=True)
class ArchitectureRule:
    """``engine`` runs models of ``family`` from release ``since`` on (``rule`` says why, ``source_url``
    where it is read; several URLs joined by " ; ")."""

    engine: str
    family: str
    since: str
    bound: str  # "first": ``since`` is the first release that runs it; "at least": only no earlier one does
    tag: str
    rule: str
    source_url: str

    @property
    def at_least(self) -> bool:
        """Whether ``since`` is only a lower bound (the model postdates every earlier release; which release
        first ran it is not recorded), so "since or later" would overclaim."""
        return self.bound == "at least"

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(u.strip() for u in self.source_url.split(";") if u.strip())

    def refusal(self, release: str, label: str) -> str:
        """Why ``label`` ``release`` ("vLLM", "0.6.3") cannot load this family, with the tag where the rule
        is not sourced."""
        tag = "" if self.tag == "sourced" else f" [{self.tag}]"
        return f"{label} {release} {PREDATES}: {self.rule}{tag}"


def _validate(r: ArchitectureRule) -> None:
    problem = ""
    if r.engine not in ENGINES:
        problem = f"unknown engine {r.engine!r}"
    elif r.tag not in TAGS or r.tag == "unverified":
        problem = f"tag {r.tag!r}: a refusal needs better than an unverified rule"
    elif r.bound not in BOUNDS:
        problem = f"bound {r.bound!r} is not one of {', '.join(BOUNDS)}"
    elif release_number(r.since) is None:
        problem = f"since {r.since!r} is not a release number"
    elif not r.family.strip() or not r.rule.strip() or not r.sources:
        problem = "a family, its words and a source are required"
    if problem:
        raise ValueError(f"{_DATA_FILE}: {problem} in {r}")


@functools.cache
def architecture_rules() -> tuple[ArchitectureRule, ...]:
    """Every rule, in file order; one per (engine, family)."""
    text = resources.files("gpuscout.knowledge").joinpath("data", _DATA_FILE).read_text(encoding="utf-8")
    rules = tuple(ArchitectureRule(**row) for row in csv.DictReader(io.StringIO(text)))
    seen: set[tuple[str, str]] = set()
    for r in rules:
        _validate(r)
        if (r.engine, r.family) in seen:
            raise ValueError(f"{_DATA_FILE}: two rows for {r.engine} / {r.family}")
        seen.add((r.engine, r.family))
    return rules


def architecture_rule(engine: str, family: str) -> ArchitectureRule | None:
    """The rule for ``engine`` (a canonical :data:`ENGINES` name) and model ``family``; None where none."""
    return next((r for r in architecture_rules() if r.engine == engine and r.family == family), None)


def too_old_for(engine: str, release: str, family: str) -> ArchitectureRule | None:
    """The rule a named ``release`` of ``engine`` fails for ``family`` (it is older than the first release
    that runs it); None where it passes, no release is named ("": today's) or no rule speaks of the pair.
    A release that is no number ("nightly") is not judged."""
    asked = release_number(release) if release else None
    if asked is None:  # today's release (the usual case): nothing to look up
        return None
    rule = architecture_rule(engine, family)
    first = release_number(rule.since) if rule is not None else None
    if rule is None or first is None:
        return None
    return rule if asked < first else None
