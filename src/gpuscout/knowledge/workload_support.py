"""Which accelerators run image generation (diffusers), speech recognition (transformers' ASR pipeline,
faster-whisper) and PyTorch training at all: sourced platform rules.

The inference engines have their support rules (:mod:`gpuscout.knowledge.engine_support`); the two other
workloads the estimators time run on a PyTorch stack (diffusers' pipelines; transformers / PEFT /
bitsandbytes for fine-tuning and pre-training) whose platform truth is the same: no current PyTorch
binary runs on a Kepler GPU, a TPU runs PyTorch only through PyTorch/XLA, AWS trains on Trainium, not on
Inferentia. The rules (``data/workload_support.csv``) keep the engine rules' format and machinery (one
:class:`~gpuscout.knowledge.engine_support.SupportRule` per row, matched by
:func:`~gpuscout.knowledge.engine_support.platform_of`, with its source URL and tag) and add a column,
``instead``: what would run the workload, said where a row refuses. The NVIDIA, ROCm and bitsandbytes rows
are the engine rules' ``hf-transformers`` facts (the project's reference matrix,
``tests/fixtures/reference/engine_support.md``: PyTorch 2.14 wheels, bitsandbytes main 2026-08); the TPU,
Gaudi and AWS Neuron rows cite the public docs of PyTorch/XLA, diffusers, optimum-habana, optimum-neuron
and AWS.

``engine`` is the workload's stack: ``diffusers``, ``pytorch-training``, ``transformers-speech`` (Whisper
through transformers on PyTorch: PyTorch's platform rows) or ``faster-whisper`` (CTranslate2: CPU and
NVIDIA CUDA backends, and per compute type the compute capability CTranslate2 asks: float16 7.0+, int8
6.1+, bfloat16 8.0+). ``precision`` is ``*`` for a
platform row, or a key of :data:`~gpuscout.knowledge.engine_support.PRECISIONS` for a row about one
storage format (``nf4``: QLoRA's bitsandbytes base; ``int8``: an LLM.int8() base). For one accelerator the
first matching platform row decides whether the workload runs there, and the first matching row of the
precision asked (where any) how its format does; a precision with no row is the platform's verdict. Modes:

* ``native``: runs on the stack's default binaries; nothing to say;
* ``caveat``: runs, with what the rule says (a legacy wheel, PyTorch/XLA instead of CUDA, bitsandbytes'
  ROCm build): the estimate warns in its words;
* ``unsupported``: cannot run there; the estimate refuses, says why and what would run (``instead``).

Tags are the engine rules' (``sourced``, ``inferred``, ``partial``, ``unverified``); a verdict resting on
a rule that is not ``sourced`` says its tag in its words. A refusal needs better than indirect evidence:
an ``unsupported`` row is never ``unverified`` (where unsure, a row is a ``caveat`` tagged
``unverified``), and every row that refuses says what would run instead.

Pure: no I/O beyond reading the packaged data file.
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass
from importlib import resources

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.engine_support import PRECISIONS, TAGS, SupportRule, platform_of

_DATA_FILE = "workload_support.csv"

#: The workloads' stacks the rules speak of, and how a verdict names each.
WORKLOADS: dict[str, str] = {
    "diffusers": "diffusers",
    "pytorch-training": "PyTorch training",
    "transformers-speech": "transformers (PyTorch) speech recognition",
    "faster-whisper": "faster-whisper (CTranslate2)",
}
WORKLOAD_MODES: tuple[str, ...] = ("native", "caveat", "unsupported")
#: How a refusal by a precision's own row names what is refused ("PyTorch training with a bitsandbytes NF4
#: base (QLoRA)"), per workload; a precision not listed is named by its key.
_PRECISION_WORDS = {
    "pytorch-training": {"nf4": "a bitsandbytes NF4 base (QLoRA)", "int8": "a bitsandbytes LLM.int8() base"},
    "faster-whisper": {"fp16": "float16 compute", "int8": "int8 compute", "bf16": "bfloat16 compute"},
}


@dataclass(frozen=True, slots=True)
class WorkloadRule(SupportRule):
    """One sourced claim: the workload's stack (``engine``) runs on ``target`` in ``mode``, and where it
    does not, what would (``instead``)."""

    instead: str = ""

    @property
    def said(self) -> str:
        """The rule's words, with its tag where it is not ``sourced`` ("... [unverified]")."""
        return self.rule if self.tag == "sourced" else f"{self.rule} [{self.tag}]"


def _validate(r: WorkloadRule) -> None:
    problem = ""
    if r.engine not in WORKLOADS:
        problem = f"unknown workload {r.engine!r}"
    elif r.precision != "*" and r.precision not in PRECISIONS:
        problem = f"unknown precision {r.precision!r}"
    elif r.mode not in WORKLOAD_MODES or r.tag not in TAGS:
        problem = f"unknown mode/tag {r.mode!r}/{r.tag!r}"
    elif not r.sources:
        problem = "no source"
    elif r.mode == "unsupported" and (r.tag == "unverified" or not r.instead.strip()):
        problem = "a refusal needs better than an unverified rule and says what would run instead"
    elif r.versions:
        problem = "release ranges are not read for workload rules"
    if problem:
        raise ValueError(f"{_DATA_FILE}: {problem} in {r}")


@functools.cache
def workload_rules() -> tuple[WorkloadRule, ...]:
    """Every rule, in file order (the order decides which of several applies)."""
    text = resources.files("gpuscout.knowledge").joinpath("data", _DATA_FILE).read_text(encoding="utf-8")
    rules = tuple(WorkloadRule(**row) for row in csv.DictReader(io.StringIO(text)))
    for r in rules:
        _validate(r)
    for workload in WORKLOADS:  # every accelerator gets a verdict: a last platform row for any target
        if not any(r.engine == workload and r.precision == "*" and r.target == "*" for r in rules):
            raise ValueError(f"{_DATA_FILE}: no catch-all platform row ('*') for {workload}")
    return rules


@dataclass(frozen=True, slots=True)
class WorkloadVerdict:
    """Whether ``workload`` runs on ``accelerator`` (and, where a row speaks of it, in ``precision``):
    the rules that decided, and what they say."""

    workload: str  # a WORKLOADS key
    precision: str  # the key asked ("" or "*": the platform alone)
    accelerator: str
    platform_rule: WorkloadRule
    precision_rule: WorkloadRule | None  # None where no row speaks of the precision asked

    @property
    def rules(self) -> tuple[WorkloadRule, ...]:
        """The deciding rules, the platform's first."""
        return (self.platform_rule,) + ((self.precision_rule,) if self.precision_rule is not None else ())

    @property
    def refusal(self) -> WorkloadRule | None:
        """The rule that refuses (the platform's before the precision's), None where the workload runs."""
        return next((r for r in self.rules if r.mode == "unsupported"), None)

    @property
    def supported(self) -> bool:
        return self.refusal is None

    @property
    def caveats(self) -> tuple[WorkloadRule, ...]:
        """The rules that let it run with something to say (a warning each), the platform's first."""
        return tuple(r for r in self.rules if r.mode == "caveat")

    @property
    def sources(self) -> tuple[str, ...]:
        out: list[str] = []
        for r in self.rules:
            out += [s for s in r.sources if s not in out]
        return tuple(out)

    @property
    def label(self) -> str:
        """How the workload is named in words ("PyTorch training")."""
        return WORKLOADS[self.workload]

    def instead(self) -> str:
        """What would run it, where it cannot run here ("")."""
        refusal = self.refusal
        return "" if refusal is None else refusal.instead

    def message(self) -> str:
        """One line: "PyTorch training is not supported on Inferentia2: <rule> [partial]" ("PyTorch
        training with a bitsandbytes NF4 base (QLoRA) is not supported on M60: ..." where the precision's
        row refuses); "" where it runs."""
        refusal = self.refusal
        if refusal is None:
            return ""
        what = self.label
        if refusal is not self.platform_rule:
            what += f" with {_PRECISION_WORDS.get(self.workload, {}).get(self.precision, self.precision)}"
        return f"{what} is not supported on {self.accelerator}: {refusal.said}"


def check_workload(workload: str, acc: Accelerator, precision: str = "") -> WorkloadVerdict:
    """The verdict for ``workload`` (a :data:`WORKLOADS` key) on ``acc``; ``precision`` a
    :data:`~gpuscout.knowledge.engine_support.PRECISIONS` key whose own rows apply too ("nf4" for QLoRA's
    base), "" for the platform alone. InvalidInputError for an unknown workload or precision."""
    key = workload.strip().lower()
    if key not in WORKLOADS:
        raise InvalidInputError("workload", f"unknown workload {workload!r}", ", ".join(WORKLOADS))
    prec = precision.strip().lower()
    if prec and prec != "*" and prec not in PRECISIONS:
        raise InvalidInputError("precision", f"unknown precision {precision!r}", ", ".join(PRECISIONS))
    return _verdict(key, acc, prec)


@functools.lru_cache(maxsize=4096)
def _verdict(workload: str, acc: Accelerator, precision: str) -> WorkloadVerdict:
    plat = platform_of(acc)
    rules = [r for r in workload_rules() if r.engine == workload and r.matches(plat)]
    platform_rule = next(r for r in rules if r.precision == "*")  # a catch-all row exists (loader)
    own = None
    if precision and precision != "*":
        own = next((r for r in rules if r.precision == precision), None)
    return WorkloadVerdict(workload, precision, acc.name, platform_rule, own)
