"""Which inference engine runs which precision on which accelerator: sourced rules and verdicts.

The rules (``data/engine_support.csv``) are distilled from the project's engine support matrix
(``tests/fixtures/reference/engine_support.md`` / ``.csv``: vLLM 0.33.0, SGLang 0.5.23, TGI 3.3.6-dev0,
transformers 5.24.0 / PyTorch 2.14, TensorRT-LLM support matrix, llama.cpp master 2026). Each row is one
claim with its source URL and how well it is known:

* ``sourced``: read in source code, official docs, release notes or a maintainer issue;
* ``inferred``: worked out from build files or the kernels inside a wheel;
* ``partial``: sources disagree or cover part of the claim;
* ``unverified``: indirect evidence only (the verdict says so).

A row applies to an ``engine``, a ``precision`` key ("*" for the engine's platform rows), optionally narrowed
to one checkpoint format (``int4:awq``: an AWQ checkpoint only; a bare ``int4`` row holds for every int4
checkpoint, AWQ and GPTQ alike; ``fp8:fbgemm``: Meta's FBGEMM FP8 checkpoints, which engines gate apart from
their other FP8 formats; ``mxfp4:dense``: a checkpoint with every linear layer in MXFP4, where the bare
``mxfp4`` rows speak of gpt-oss's, whose MXFP4 is its MoE experts alone) and a ``target``: ``nvidia`` with a
compute-capability range ``min_cc``..``max_cc``, ``amd`` (optionally ``amd:gfx942;gfx950``),
``tpu[:v5e;...]``, ``gaudi``, ``neuron[:trainium2;...]`` or ``*``. For one combination the first matching
platform row decides whether the engine runs on the accelerator at all, then the first matching precision row
how it runs that precision. A row may hold for a range of the engine's releases only (``versions``: ">=0.20",
"<0.20"; empty for every release): vLLM ran Volta through 0.19 and dropped it in 0.20. A verdict is for the
release asked ("vllm 0.6"; none: today's), and where a deciding row without a range was read in a later
release than the one asked, the reason says so (what held then was not checked). A platform refusal that is
only inferred or unverified (an engine on a target its plugin does not list) does not hide a refusal of the
precision itself that is known better (sourced): the verdict gives that rule first, the platform's after it
(the tag, the weaker of the two, is the platform's).

CC 12.x (RTX 50, RTX PRO Blackwell) is not "newer than" CC 10.0 for kernels built for sm_100a (reference
matrix, section 1): a row claiming a Blackwell kernel path is bounded to the SM100 family (CC 10.x) unless its
source names CC 12.x too, and a row kept open above it for lack of a source says so in its tag. Modes:

* ``native``: the matmuls run in that format on its tensor cores;
* ``weight-only``: weights stored narrow, dequantised in the kernel, math at the 16-bit rate
  (Marlin W8A16 FP8 on Ampere, MXFP4 W4A16 on Hopper, a dense MXFP4 checkpoint in vLLM / SGLang /
  TensorRT-LLM on Blackwell, AWQ/GPTQ everywhere);
* ``fallback-fp16``: bf16 requested on a part without bf16 (before CC 8.0): runs as fp16;
* ``dequantized``: the checkpoint is expanded to 16-bit on load (16-bit memory and speed);
* ``unsupported``: the engine cannot run it there.

Pure: no I/O beyond reading the packaged data file.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from dataclasses import dataclass, replace
from importlib import resources
from typing import Literal, NamedTuple

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.accelerator_types import Accelerator

_DATA_FILE = "engine_support.csv"

Mode = Literal["native", "weight-only", "fallback-fp16", "dequantized", "unsupported"]
MODES: tuple[str, ...] = ("native", "weight-only", "fallback-fp16", "dequantized", "unsupported")
TAGS: tuple[str, ...] = ("sourced", "inferred", "partial", "unverified")
#: Canonical engine names the rules use (``gpuscout.estimate.engines`` resolves aliases to these).
ENGINES: tuple[str, ...] = (
    "vllm",
    "sglang",
    "tensorrt-llm",
    "tgi",
    "hf-transformers",
    "llama.cpp",
    "gpt-fast",
)
#: Checkpoint formats a precision row may be narrowed to (``int4:awq``), by precision key: engines that
#: load both AWQ and GPTQ as "int4" do not always run both on every platform (TGI: no AWQ on ROCm), and
#: FBGEMM FP8 (``quant_method: fbgemm_fp8``, Meta's Llama 3.1 FP8) has its own gates (transformers CC 9.0,
#: vLLM CC 8.0) apart from the other FP8 checkpoints. ``mxfp4:dense``: every linear layer in MXFP4 (a dense
#: model quantised to MXFP4), apart from gpt-oss's checkpoints (MXFP4 MoE experts, the rest bf16) that the
#: bare ``mxfp4`` rows describe: the engines' MXFP4 kernels there are MoE ones, W4A16 by default, so a dense
#: checkpoint's linear layers are not timed at the FP4 rate on their word (``mxfp4:dense`` rows, CC 10.x+).
CHECKPOINTS: dict[str, tuple[str, ...]] = {"int4": ("awq", "gptq"), "fp8": ("fbgemm",), "mxfp4": ("dense",)}
# How a checkpoint format is written in verdicts ("int4 (AWQ)", "mxfp4 (dense)"); upper case when not listed
_CHECKPOINT_WORDS = {"dense": "dense"}


def checkpoint_label(checkpoint: str) -> str:
    """A checkpoint format as verdicts write it: "AWQ", "GPTQ", "FBGEMM", "dense"."""
    return _CHECKPOINT_WORDS.get(checkpoint, checkpoint.upper())


#: Precision keys of the rules. ``int8`` = 8-bit weight-only (GPTQ-Int8, LLM.int8), ``w8a8`` = INT8
#: weights and activations (SmoothQuant), ``int4`` = AWQ/GPTQ 4-bit, ``nf4`` = bitsandbytes 4-bit.
PRECISIONS: tuple[str, ...] = (
    "bf16",
    "fp16",
    "fp32",
    "fp8",
    "int8",
    "w8a8",
    "int4",
    "nf4",
    "nvfp4",
    "mxfp4",
    "gguf",
)

# Nearest precisions to try when one is not supported, best first (memory close to the asked format).
_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    "bf16": ("fp16", "fp8", "int8"),
    "fp16": ("bf16", "fp8", "int8"),
    "fp32": ("bf16", "fp16"),
    "fp8": ("int8", "w8a8", "bf16", "fp16", "int4"),
    "int8": ("fp8", "w8a8", "int4", "bf16", "fp16"),
    "w8a8": ("fp8", "int8", "bf16", "fp16"),
    "int4": ("nf4", "mxfp4", "nvfp4", "int8", "fp8"),
    "nf4": ("int4", "int8"),
    "nvfp4": ("mxfp4", "int4", "fp8", "bf16", "fp16"),
    "mxfp4": ("int4", "nvfp4", "fp8", "bf16", "fp16"),
    "gguf": ("int4", "int8", "bf16", "fp16"),
}


@dataclass(frozen=True, slots=True)
class Platform:
    """What a rule's ``target`` is matched against: the accelerator family and its exact target."""

    family: str  # "nvidia", "amd", "tpu", "gaudi", "neuron", "other"
    target: str  # compute capability "9.0", gfx "gfx942", "v5e", "gaudi3", "trainium2"
    cc: tuple[int, int] | None  # NVIDIA compute capability, else None

    @property
    def label(self) -> str:
        if self.family == "nvidia":
            return f"NVIDIA CC {self.target}" if self.target else "NVIDIA (compute capability unknown)"
        return f"{self.family} {self.target}".strip()


def platform_of(acc: Accelerator) -> Platform:
    """The rule target an accelerator falls under."""
    arch = acc.architecture.lower()
    if acc.vendor == "NVIDIA":
        return Platform("nvidia", acc.compute_capability, acc.nvidia_cc)
    if acc.vendor == "AMD":
        return Platform("amd", acc.compute_capability.lower(), None)
    if acc.kind == "tpu" or acc.vendor == "Google":
        return Platform("tpu", arch.replace("tpu", "").strip(), None)
    if "gaudi" in arch:
        return Platform("gaudi", re.sub(r"\s+", "", arch), None)
    if acc.vendor == "AWS" or "neuron" in arch:
        inner = re.search(r"\(([^)]*)\)", arch)
        return Platform("neuron", re.sub(r"\s+", "", inner.group(1) if inner else arch), None)
    return Platform("other", arch, None)


def _cc(text: str) -> tuple[int, int] | None:
    text = text.strip()
    if not text:
        return None
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


@dataclass(frozen=True, slots=True)
class SupportRule:
    """One sourced claim: ``engine`` runs ``precision`` on ``target`` in ``mode``."""

    engine: str
    precision: str  # a PRECISIONS key, "*" for the engine's platform rows, "int4:awq" for one checkpoint
    target: str
    min_cc: str
    max_cc: str
    mode: str
    tag: str
    version: str
    rule: str
    source_url: str
    versions: str = ""  # the releases the row holds for (">=0.20", "<0.20", both comma-joined); "" = all

    def applies_to(self, release: str) -> bool:
        """Whether the row holds for ``release`` ("0.6.3"; "" = today's, newer than every bound)."""
        asked = release_number(release)
        for op, bound in _bounds(self.versions):
            if asked is None:  # today's release: past every bound
                if op in ("<", "<="):
                    return False
                continue
            if not _BOUND_OPS[op](asked, bound):
                return False
        return True

    @property
    def lower_bound(self) -> bool:
        """Whether the row's release bound is only a lower bound (its ``version`` cell says "a lower
        bound"): no release below it runs this, which later one first does is not recorded."""
        return "lower bound" in self.version

    @property
    def before(self) -> ReleaseNumber | None:
        """The release the row stops holding at ("<0.9": 0.9.0): the smallest of its "<" bounds; None
        for a row that holds for every later release."""
        below = [b for op, b in _bounds(self.versions) if op == "<"]
        return min(below) if below else None

    def matches(self, platform: Platform) -> bool:
        family, _, listed = self.target.partition(":")
        if family != "*" and family != platform.family:
            return False
        if listed and platform.target not in {t.strip() for t in listed.split(";")}:
            return False
        if family == "nvidia" and (self.min_cc or self.max_cc):
            if platform.cc is None:
                return False
            lo, hi = _cc(self.min_cc), _cc(self.max_cc)
            if lo is not None and platform.cc < lo:
                return False
            if hi is not None and platform.cc > hi:
                return False
        return True

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(u.strip() for u in self.source_url.split(" ; ") if u.strip())

    @property
    def precision_key(self) -> str:
        """The precision key the row is for ("int4" of "int4:awq")."""
        return self.precision.partition(":")[0]

    @property
    def checkpoint(self) -> str:
        """The checkpoint format the row is narrowed to ("awq" of "int4:awq"); "" for every one."""
        return self.precision.partition(":")[2]

    def holds_for(self, precision: str, checkpoint: str) -> bool:
        """Whether the row speaks of ``precision`` as stored in ``checkpoint`` ("" when not said): a row
        narrowed to one format holds only when that format is asked."""
        return self.precision_key == precision and self.checkpoint in ("", checkpoint)


_BOUND_OPS = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
}
_BOUND = re.compile(r"(>=|<=|>|<)\s*(\d+(?:\.\d+)*)")


class ReleaseNumber(NamedTuple):
    """A release as releases compare (PEP 440's order for a release and a post release): its ``numbers``
    padded with zeros to three (0.20 == 0.20.0 == 0.20.0.0), then its ``post`` release (-1: none), so that
    0.4.9 < 0.4.9.post3 < 0.4.9.post5 < 0.4.9.1 < 0.4.10."""

    numbers: tuple[int, ...]
    post: int = -1


# "0.4.9", "v0.4.9", "0.4.9.post5" (also PEP 440's "0.4.9-post5", "0.4.9post5", and "0.4.9.post" = post0)
_RELEASE = re.compile(r"v?(\d+(?:\.\d+)*)(?:[-.]?post(\d*))?")


def release_number(text: str) -> ReleaseNumber | None:
    """``"0.6.3"`` -> ((0, 6, 3), -1), ``"0.4.9.post5"`` -> ((0, 4, 9), 5); None for "" or a non-number.

    A pre-release ("0.9.0rc1", "0.6.3.dev116") is none here: the engine's text is read by
    :func:`gpuscout.estimate.engines.profile_for`, which judges a pre-release as its release and says so."""
    m = _RELEASE.fullmatch(text.strip())
    if m is None:
        return None
    numbers = [int(p) for p in m.group(1).split(".")]
    numbers += [0] * max(0, 3 - len(numbers))
    while len(numbers) > 3 and numbers[-1] == 0:
        numbers.pop()
    post = m.group(2)
    return ReleaseNumber(tuple(numbers), -1 if post is None else int(post or 0))


def _bounds(spec: str) -> list[tuple[str, ReleaseNumber]]:
    """The comparisons of a ``versions`` cell (">=0.20", "<0.20", ">=0.8,<0.20"); ValueError if malformed."""
    out: list[tuple[str, ReleaseNumber]] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        m = _BOUND.fullmatch(part)
        release = release_number(m.group(2)) if m else None
        if m is None or release is None:
            raise ValueError(f"engine_support.csv: versions {spec!r} is not like '>=0.20' or '<0.20'")
        out.append((m.group(1), release))
    return out


@functools.cache
def support_rules() -> tuple[SupportRule, ...]:
    """Every rule, in file order (the order decides which rule of several applies)."""
    text = resources.files("gpuscout.knowledge").joinpath("data", _DATA_FILE).read_text(encoding="utf-8")
    rules = tuple(SupportRule(**row) for row in csv.DictReader(io.StringIO(text)))
    for r in rules:
        if r.engine not in ENGINES or (r.precision != "*" and r.precision_key not in PRECISIONS):
            raise ValueError(f"engine_support.csv: unknown engine/precision in {r}")
        if r.checkpoint and r.checkpoint not in CHECKPOINTS.get(r.precision_key, ()):
            raise ValueError(f"engine_support.csv: unknown checkpoint format in {r}")
        if r.mode not in MODES or r.tag not in TAGS:
            raise ValueError(f"engine_support.csv: unknown mode/tag in {r}")
        _bounds(r.versions)
    return rules


@dataclass(frozen=True, slots=True)
class SupportVerdict:
    """Whether ``engine`` runs ``precision`` on ``accelerator``, how, why, and how sure we are."""

    engine: str
    precision: str
    accelerator: str
    mode: str  # one of MODES
    reason: str
    tag: str  # the weakest tag of the rules that decided (sourced < inferred < partial < unverified)
    sources: tuple[str, ...]
    platform_rule: SupportRule | None
    precision_rule: SupportRule | None
    checkpoint: str = ""  # the checkpoint format asked ("awq", "gptq", "fbgemm"), "" when not said
    release: str = ""  # the engine release asked ("0.6.3"), "" = today's

    @property
    def asked(self) -> str:
        """The precision as asked: "int4 (AWQ)" for an AWQ checkpoint, else the key."""
        return (
            f"{self.precision} ({checkpoint_label(self.checkpoint)})" if self.checkpoint else self.precision
        )

    @property
    def supported(self) -> bool:
        return self.mode != "unsupported"

    @property
    def verified(self) -> bool:
        """True when every rule that decided is read in a source (tag ``sourced``)."""
        return self.tag == "sourced"

    @property
    def runs_as(self) -> str:
        """The precision the weights are held and multiplied in when it is not the one asked for."""
        if self.mode == "fallback-fp16":
            return "fp16"
        if self.mode == "dequantized":
            return "bf16" if self.precision != "fp16" else "fp16"
        return self.precision

    def message(self) -> str:
        """One line for users: verdict, reason, tag."""
        what = {
            "native": "runs natively",
            "weight-only": "runs weight-only (16-bit math)",
            "fallback-fp16": "runs as fp16",
            "dequantized": "is dequantized to 16-bit",
            "unsupported": "is not supported",
        }[self.mode]
        tag = "" if self.tag == "sourced" else f" [{self.tag}]"
        # the release asked, where one was ("vllm 0.6.3: bf16 on B200 is not supported"): its rules decided
        engine = f"{self.engine} {self.release}" if self.release else self.engine
        return f"{engine}: {self.asked} on {self.accelerator} {what}: {self.reason}{tag}"


def _check_choice(field: str, value: str, accepted: tuple[str, ...]) -> str:
    key = value.strip().lower()
    if key not in accepted:
        raise InvalidInputError(
            field, f"unknown {field} {value!r} for the support rules", ", ".join(accepted)
        )
    return key


_TAG_ORDER = {t: i for i, t in enumerate(TAGS)}


#: Verdicts already given: the rules are fixed data and a verdict a frozen value, so one
#: (engine, precision, accelerator) is judged once per process (the advisor asks thousands of times).
_VERDICTS: dict[tuple[str, str, Accelerator, str, str], SupportVerdict] = {}
_MAX_VERDICTS = 20_000


def check_support(
    engine: str, precision: str, acc: Accelerator, checkpoint: str = "", release: str = ""
) -> SupportVerdict:
    """The verdict for one (engine, precision key, accelerator).

    ``engine`` is a canonical name of ``ENGINES`` and ``precision`` a ``PRECISIONS`` key (the estimator
    maps its formats onto them: ``gpuscout.estimate.support``). ``checkpoint`` names the checkpoint format
    when it was asked ("awq", "gptq", "fbgemm": ``CHECKPOINTS``): rows narrowed to another format do not
    apply. ``release`` is the engine release asked ("0.6.3"; "" = today's): rows bounded to other releases
    (``versions``) do not apply, and a row read in a later release than the one asked says so. Raises
    InvalidInputError otherwise.
    """
    key = (engine, precision, acc, checkpoint, release)
    verdict = _VERDICTS.get(key)
    if verdict is None:
        if len(_VERDICTS) >= _MAX_VERDICTS:  # releases are typed by users: keep the cache bounded
            _VERDICTS.clear()
        verdict = _VERDICTS[key] = _judge(engine, precision, acc, checkpoint, release)
    return verdict


def _judge(
    engine: str, precision: str, acc: Accelerator, checkpoint: str = "", release: str = ""
) -> SupportVerdict:
    verdict = _judge_rules(engine, precision, acc, checkpoint, release)
    caveat = _read_later(verdict, release)
    return replace(verdict, release=release, reason=verdict.reason + caveat)


def _read_later(verdict: SupportVerdict, release: str) -> str:
    """ "; read in vllm 0.33.0, not checked for 0.6.3" when a row the verdict quotes, without a release range,
    was read in a later release than the one asked (what held then may differ), else ""."""
    asked = release_number(release)
    if asked is None:
        return ""
    later = [
        (read, r.version.split(" / ")[0].split(" (")[0])
        for r in (verdict.platform_rule, verdict.precision_rule)
        # a row the reason quotes: a platform row that only admits the engine is not the verdict's word
        if r is not None
        and r.rule in verdict.reason
        and not r.versions
        and (read := _read_release(r.version))
        and read > asked
    ]
    if not later:
        return ""
    return f"; read in {max(later)[1]}, not checked for {release}"


_READ_RELEASE = re.compile(r"^\S+ v?(\d+(?:\.\d+)+)")


def _read_release(version: str) -> ReleaseNumber | None:
    """The release a row was read in, from its ``version`` cell: the number right after the product's
    name ("vllm 0.33.0", "transformers 5.24.0 / PyTorch 2.14" -> 5.24.0, "tgi 3.3.6-dev0 (maintenance
    mode)" -> 3.3.6); None where the cell names none ("llama.cpp master 2026", a support matrix)."""
    m = _READ_RELEASE.match(version.strip())
    return release_number(m.group(1)) if m else None


def _judge_rules(
    engine: str, precision: str, acc: Accelerator, checkpoint: str, release: str
) -> SupportVerdict:
    engine = _check_choice("engine", engine, ENGINES)
    precision = _check_choice("precision", precision, PRECISIONS)
    if checkpoint:
        checkpoint = _check_choice("checkpoint", checkpoint, CHECKPOINTS.get(precision, ()))
    plat = platform_of(acc)
    rules = [r for r in support_rules() if r.engine == engine and r.applies_to(release)]
    platform_rule = next((r for r in rules if r.precision == "*" and r.matches(plat)), None)
    if platform_rule is None:
        return SupportVerdict(
            engine,
            precision,
            acc.name,
            "unsupported",
            f"no rule says {engine} runs on {plat.label}",
            "unverified",
            (),
            None,
            None,
            checkpoint,
        )
    if platform_rule.mode == "unsupported":
        own = _precision_refusal(rules, precision, checkpoint, plat, platform_rule)
        if own is not None:  # both rules decide: the tag is the weaker, the platform's (said last)
            return SupportVerdict(
                engine,
                precision,
                acc.name,
                "unsupported",
                f"{own.rule}; platform: {platform_rule.rule}",
                platform_rule.tag,
                platform_rule.sources + tuple(s for s in own.sources if s not in platform_rule.sources),
                platform_rule,
                own,
                checkpoint,
            )
        return SupportVerdict(
            engine,
            precision,
            acc.name,
            "unsupported",
            platform_rule.rule,
            platform_rule.tag,
            platform_rule.sources,
            platform_rule,
            None,
            checkpoint,
        )
    precision_rule = next((r for r in rules if r.holds_for(precision, checkpoint) and r.matches(plat)), None)
    if precision_rule is None:
        return SupportVerdict(
            engine,
            precision,
            acc.name,
            "unsupported",
            f"no rule says {engine} runs {precision} on {plat.label}",
            "unverified",
            platform_rule.sources,
            platform_rule,
            None,
            checkpoint,
        )
    tag = max((platform_rule.tag, precision_rule.tag), key=_TAG_ORDER.__getitem__)
    reason = precision_rule.rule
    # an unverified platform, or a legacy range's caveat ("only with the legacy cu126 PyTorch wheels"): said
    legacy = bool(platform_rule.max_cc)
    if (platform_rule.tag != "sourced" or legacy) and precision_rule.mode != "unsupported":
        reason += f"; platform: {platform_rule.rule}"
    return SupportVerdict(
        engine,
        precision,
        acc.name,
        precision_rule.mode,
        reason,
        tag,
        platform_rule.sources + tuple(s for s in precision_rule.sources if s not in platform_rule.sources),
        platform_rule,
        precision_rule,
        checkpoint,
    )


def _precision_refusal(
    rules: list[SupportRule], precision: str, checkpoint: str, plat: Platform, platform_rule: SupportRule
) -> SupportRule | None:
    """The precision's own refusal on ``plat``, when the platform's refusal is only inferred or unverified
    and that rule is known better: it holds whatever the platform's caveat (a source build of vLLM for a
    V100 would still refuse FP8 there). None otherwise (two guesses are not worth more than one)."""
    if platform_rule.tag == "sourced":
        return None
    own = next((r for r in rules if r.holds_for(precision, checkpoint) and r.matches(plat)), None)
    if own is None or own.mode != "unsupported" or _TAG_ORDER[own.tag] >= _TAG_ORDER[platform_rule.tag]:
        return None
    return own


@dataclass(frozen=True, slots=True)
class Alternative:
    """A combination that would run: another engine with the same precision, or a nearby precision."""

    engine: str
    precision: str
    mode: str
    reason: str
    tag: str
    checkpoint: str = ""  # the checkpoint format, when the alternative is another format's ("gptq")
    since: str = ""  # the same engine from this release on ("0.9"), where the release asked is too old
    at_least: bool = False  # ``since`` is only a lower bound: today's release runs it, which first is unknown
    until: str = ""  # with ``since``: the release from which the same engine is refused again ("0.20")

    def message(self) -> str:
        tag = "" if self.tag == "sourced" else f" [{self.tag}]"
        what = (
            _GGUF_EQUIVALENT.get(self.precision, self.precision)
            if self.engine == "llama.cpp"
            else self.precision
        )
        if self.checkpoint:
            what = f"{checkpoint_label(self.checkpoint)} {what}"
        engine = (
            later_release_words(self.engine, self.since, self.at_least, self.until)
            if self.since
            else self.engine
        )
        return f"{engine} with {what} ({self.mode}){tag}"


# What llama.cpp runs for a precision asked by name (it only runs GGUF formats).
_GGUF_EQUIVALENT = {
    "int4": "GGUF Q4_K_M",
    "nf4": "GGUF Q4_K_M",
    "int8": "GGUF Q8_0",
    "bf16": "GGUF BF16/F16",
    "fp16": "GGUF F16",
    "fp32": "GGUF F32",
    "mxfp4": "GGUF MXFP4",
    "nvfp4": "GGUF NVFP4",
}


def alternatives(
    engine: str,
    precision: str,
    acc: Accelerator,
    *,
    checkpoint: str = "",
    limit: int = 4,
    dense_model: bool = False,
    release: str = "",
) -> tuple[Alternative, ...]:
    """What nearest combinations would run on ``acc``: for a checkpoint format asked (``checkpoint``,
    "awq"), this engine with the precision's other formats first (GPTQ where AWQ is refused); then other
    engines with the same precision (native before weight-only, sourced before unverified), then this
    engine with the nearest precisions (``_NEIGHBOURS``), then other engines with those. At most ``limit``.

    ``dense_model``: the model has no experts, so a neighbouring MXFP4 is a dense MXFP4 checkpoint, judged
    by the ``mxfp4:dense`` rows (gpt-oss's MoE kernels would not run it). ``release``: the release of
    ``engine`` asked ("0.6.3"), which its own combinations are judged for; other engines are today's."""
    engine = _check_choice("engine", engine, ENGINES)
    precision = _check_choice("precision", precision, PRECISIONS)
    if checkpoint:
        checkpoint = _check_choice("checkpoint", checkpoint, CHECKPOINTS.get(precision, ()))
    found: list[Alternative] = []

    def judge(e: str, p: str, ck: str) -> SupportVerdict:
        return check_support(e, p, acc, ck, release if e == engine else "")

    def consider(e: str, p: str, ck: str = "") -> None:
        if (e, p) == (engine, precision) and (not ck or ck == checkpoint):
            return
        v = judge(e, p, ck)
        if not v.supported or v.mode == "dequantized":
            return
        if any(
            a.engine == e and _same_run(e, judge(e, a.precision, a.checkpoint).runs_as, v.runs_as)
            for a in found
        ):
            return  # the engine would run the same thing as an alternative already listed
        # llama.cpp runs its GGUF equivalent, not the checkpoint format asked
        found.append(Alternative(e, p, v.mode, v.reason, v.tag, "" if e == "llama.cpp" else ck))

    later = _later_release(engine, precision, acc, checkpoint, release)
    if later is not None:  # the release asked is too old for it: the same engine, a later release
        found.append(later)
    if checkpoint:  # another format this engine treats differently here (GPTQ where AWQ is refused)
        asked = judge(engine, precision, checkpoint).precision_rule
        for other in CHECKPOINTS[precision]:
            if judge(engine, precision, other).precision_rule is not asked:
                consider(engine, precision, other)
    same = [(e, precision) for e in ENGINES if e != engine]
    same.sort(key=lambda ep: _rank(check_support(ep[0], ep[1], acc, checkpoint)))
    for e, p in same:
        consider(e, p, checkpoint)
        if len(found) >= 2:
            break

    def form(p: str) -> str:  # the checkpoint a neighbouring precision would be for this model
        return "dense" if dense_model and "dense" in CHECKPOINTS.get(p, ()) else ""

    for p in _NEIGHBOURS.get(precision, ()):
        consider(engine, p, form(p))
    for p in _NEIGHBOURS.get(precision, ()):
        for e in ENGINES:
            consider(e, p, form(p))
    return tuple(found[:limit])


def later_release_words(engine: str, since: str, at_least: bool, until: str = "") -> str:
    """How a later release of ``engine`` is named where the one asked is too old: "vllm 0.9 or later", or
    where ``since`` is only a lower bound "a later vllm release (none before 0.7 runs it)" (never "0.7 or
    later": whether 0.7 does is not known). ``until``: the release from which the rules refuse it again
    (vLLM dropped Volta at 0.20: "vllm 0.5.3 or later, before 0.20"). The one wording of the support
    rules and the architecture rules."""
    if at_least:
        before = f" before {until}" if until else ""
        return f"a later {engine} release{before} (none before {since} runs it)"
    return f"{engine} {since} or later, before {until}" if until else f"{engine} {since} or later"


def refused_again_at(engine: str, precision: str, acc: Accelerator, checkpoint: str, since: str) -> str:
    """The first release after ``since`` from which the rules refuse ``engine`` ``precision`` on ``acc``
    again ("0.20": vLLM's wheels dropped Volta there), as its bound is written; "" where every later
    release the rules know runs it. Only the releases where a rule starts (">=") or stops ("<") holding
    are judged: between two of them nothing the rules say changes."""
    start = release_number(since)
    if start is None:
        return ""
    bounds = sorted(
        {
            b
            for r in support_rules()
            if r.engine == engine
            for op, b in _bounds(r.versions)
            if op in (">=", "<") and b > start
        }
    )
    for b in bounds:
        text = _release_text(b)
        if not check_support(engine, precision, acc, checkpoint, text).supported:
            return text
    return ""


@dataclass(frozen=True, slots=True)
class LaterRelease:
    """The first release of an engine that runs a combination its asked release cannot (``since``, as its
    rule wrote it: "0.9"), and whether that is only a lower bound."""

    since: str
    at_least: bool
    until: str = ""  # the release from which it is refused again (:func:`refused_again_at`), "" = none


_MAX_RELEASE_STEPS = 8  # bounds followed one after another (hardware, then precision, ...)


def first_running_release(
    engine: str, precision: str, acc: Accelerator, checkpoint: str = "", release: str = ""
) -> LaterRelease | None:
    """Where ``release`` of ``engine`` cannot run ``precision`` on ``acc`` only because it is too old: the
    first release that does, following each refusing row's bound ("<0.9") and judging again there (vLLM
    0.3 with FP8 on a T4: refused before 0.4 by the FP8 row, then before 0.14 by Turing's: 0.14). None
    where the release asked runs it, none is asked (today's), a refusing row holds for every later release
    (vLLM with NF4, on a B200 or anywhere), or no release the rules know runs it. ``until`` of the answer
    is where a later rule refuses it again (:func:`refused_again_at`)."""
    if not release:
        return None
    at: ReleaseNumber | None = release_number(release)
    if at is None:
        return None
    lower = False
    for step in range(_MAX_RELEASE_STEPS):
        text = release if step == 0 else _release_text(at)
        v = check_support(engine, precision, acc, checkpoint, text)
        if v.supported:
            if step == 0:
                return None
            return LaterRelease(text, lower, refused_again_at(engine, precision, acc, checkpoint, text))
        refusing = [
            r for r in (v.platform_rule, v.precision_rule) if r is not None and r.mode == "unsupported"
        ]
        if not refusing or any(r.before is None for r in refusing):
            return None  # refused whatever the release
        nxt = max(b for r in refusing if (b := r.before) is not None)
        if nxt <= at:
            return None
        lower = lower or any(r.lower_bound for r in refusing)
        at = nxt
    return None


def _release_text(release: ReleaseNumber) -> str:
    """ "0.9" of 0.9.0: a release as its bound was written (at least major.minor), ".postN" after it."""
    out = list(release.numbers)
    while len(out) > 2 and out[-1] == 0:
        out.pop()
    post = f".post{release.post}" if release.post >= 0 else ""
    return ".".join(str(n) for n in out) + post


def _later_release(
    engine: str, precision: str, acc: Accelerator, checkpoint: str, release: str
) -> Alternative | None:
    """``engine`` from the first release that runs ``precision`` on ``acc``, judged at that release
    (:func:`first_running_release`), where the ``release`` asked is refused for being too old; None
    otherwise."""
    later = first_running_release(engine, precision, acc, checkpoint, release)
    if later is None:
        return None
    there = check_support(engine, precision, acc, checkpoint, later.since)
    asked = check_support(engine, precision, acc, checkpoint, release)
    tag = max((there.tag, asked.tag), key=_TAG_ORDER.__getitem__)  # the bound is as sure as its rule
    return Alternative(
        engine,
        precision,
        there.mode,
        there.reason,
        tag,
        checkpoint,
        since=later.since,
        at_least=later.at_least,
        until=later.until,
    )


# precisions llama.cpp runs from one GGUF file: its F16 / BF16 file for either 16-bit type
_SAME_GGUF_FILE = {"bf16": "fp16"}


def _same_run(engine: str, a: str, b: str) -> bool:
    """Whether ``engine`` runs ``a`` and ``b`` (what two verdicts run as) as the same thing: the same
    precision, or for llama.cpp the same GGUF file (:data:`_GGUF_EQUIVALENT`: Q4_K_M for int4 and nf4)."""
    if engine != "llama.cpp":
        return a == b

    def file(p: str) -> str:
        p = _SAME_GGUF_FILE.get(p, p)
        return _GGUF_EQUIVALENT.get(p, p)

    return file(a) == file(b)


def _rank(v: SupportVerdict) -> tuple[int, int]:
    mode_rank = {"native": 0, "weight-only": 1, "fallback-fp16": 2, "dequantized": 3, "unsupported": 4}
    return mode_rank[v.mode], _TAG_ORDER[v.tag]
