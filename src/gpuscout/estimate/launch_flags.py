"""Launch flags an engine was started with, as profile attributes.

A renter writes them after the engine's name, as on its command line: ``"vllm --max-num-seqs 512
--gpu-memory-utilization 0.95"``, ``"sglang --mem-fraction-static 0.85 --chunked-prefill-size 4096"``,
``"vllm 0.6.3 --num-scheduler-steps 10"``. :func:`read_flags` turns those gpuscout models into the
:class:`~gpuscout.estimate.engines.EngineProfile` attributes they set and lists the rest, which the
estimate then names as ignored (a flag is never dropped silently). The benchmark reads the same flags out
of a measurement's notes, so a row and a user's engine text mean the same thing.

What each flag sets (the engine's own name for it, and its aliases in other engines):

* ``--gpu-memory-utilization`` (vLLM) / ``--mem-fraction-static`` (SGLang): ``memory_utilization``.
* ``--cuda-memory-fraction`` (TGI only; elsewhere it is named as ignored): the share of each GPU's memory
  a TGI shard may use (default 1.0), which scales the budget the profile holds at that default
  (:func:`profile_settings`).
* ``--max-num-seqs`` (vLLM) / ``--max-running-requests`` (SGLang) / ``--max_batch_size`` (TensorRT-LLM):
  ``max_num_seqs``, the cap on running sequences.
* ``--max-num-batched-tokens`` (vLLM) / ``--chunked-prefill-size`` (SGLang) / ``--max_num_tokens``
  (TensorRT-LLM): ``max_num_batched_tokens``, the step's token budget (see ``api._for_model``).
* ``--max-model-len`` (vLLM) / ``--context-length`` (SGLang): ``max_model_len``.
* ``--enable-chunked-prefill[=true|false]``: ``enable_chunked_prefill``.
* ``--num-scheduler-steps N`` (vLLM 0.6 multi-step scheduling): one scheduler pass per N decode steps,
  so the per-step and per-sequence host costs divide by N (``multi_step``).
* ``--kv-cache-dtype`` (vLLM, SGLang, TGI; TensorRT-LLM's ``--kv_cache_dtype``) and llama.cpp's ``-ctk`` /
  ``-ctv`` (``--cache-type-k`` / ``--cache-type-v``): ``kv_cache_dtype``, the KV cache's element type as
  gpuscout names it (:data:`KV_CACHE_VALUES`: each engine's own values); the estimate sizes the cache in
  it, as it does a ``kv_dtype``, and refuses the two when they disagree.
* Flags that name an engine variant the profiles know (``--enforce-eager``, ``--enable-dp-attention``)
  are read by the profile itself (``EngineEra``) and are not reported as ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpuscout.errors import QUOTED_NAME_CHARS, InvalidInputError
from gpuscout.estimate.precision import SPARSE_MLA_FP8

_NUMBER = r"[ =]([0-9][0-9_,.]*)"


@dataclass(frozen=True, slots=True)
class _Flag:
    attr: str
    names: str  # regex alternatives of the flag's names (without the leading dashes)
    shown: str  # the spellings a message names
    integer: bool
    low: float  # accepted range, inclusive
    high: float
    engines: tuple[str, ...] = ()  # the engines (profile names) whose flag it is; () = read for every engine

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(rf"(?<![\w-])(-{{0,2}}(?:{self.names})){_NUMBER}", re.I)

    @property
    def bare(self) -> re.Pattern[str]:
        """The flag's name written without a number after it."""
        return re.compile(rf"(?<![\w-])(-{{0,2}}(?:{self.names}))(?![\w-])(?![ =][0-9])", re.I)

    def accepted(self) -> str:
        kind = "an integer" if self.integer else "a number"
        return f"{kind} from {self.low:g} to {self.high:g}"


_FLAGS = (
    _Flag(
        "memory_utilization",
        r"gpu[-_]memory[-_]utilization|mem[-_]frac(?:tion[-_]static)?",
        "--gpu-memory-utilization / --mem-fraction-static",
        False,
        0.1,
        1.0,
    ),
    _Flag(
        "max_num_seqs",
        r"max[-_]num[-_]seqs?|max[-_]running[-_]requests|max[-_]batch(?:[-_]size)?|parallel",
        "--max-num-seqs / --max-running-requests / --max_batch_size / --parallel",
        True,
        1,
        1e6,
    ),
    _Flag(
        "max_num_batched_tokens",
        r"max[-_]num[-_](?:batched[-_])?tokens|chunked[-_]prefill[-_]size",
        "--max-num-batched-tokens / --chunked-prefill-size / --max_num_tokens",
        True,
        1,
        1e8,
    ),
    _Flag(
        "max_model_len",
        r"max[-_]model[-_]len|context[-_]length",
        "--max-model-len / --context-length",
        True,
        1,
        1e8,
    ),
    _Flag("multi_step", r"num[-_]scheduler[-_]steps?", "--num-scheduler-steps", True, 1, 1024),
    # text-generation-launcher --cuda-memory-fraction (env CUDA_MEMORY_FRACTION, default 1.0; TGI
    # docs/source/reference/launcher.md): the warm-up sizes the KV cache from the free memory less
    # (1 - fraction) x the GPU's total, so the fraction scales TGI's whole budget
    _Flag(
        "cuda_memory_fraction",
        r"cuda[-_]memory[-_]fraction",
        "--cuda-memory-fraction (TGI)",
        False,
        0.1,
        1.0,
        engines=("tgi",),
    ),
)
_CHUNKED = re.compile(r"(?<![\w-])-{0,2}enable[-_]chunked[-_]prefill(?:[ =](true|false))?(?![\w-])", re.I)
_ANY_FLAG = re.compile(r"(?<![\w-])--?([a-z][\w-]*)(?:[ =]([^\s-][^\s]*))?", re.I)


#: The values each engine's KV-cache flag takes, as gpuscout's KV dtype names (``precision.kv_dtype_names``;
#: "auto": the engine's default, the model's dtype). What an engine offers besides is
#: ``kv_cache.ENGINE_KV_DTYPES``'s; a value not listed here (vLLM's fp8_inc, Intel Gaudi's) is refused.
_LLAMA_CPP_CACHE_TYPES = {
    # common/arg.cpp kv_cache_types (llama.cpp's default for K and V: f16)
    **{"f32": "fp32", "f16": "fp16", "bf16": "bf16"},
    **{t: t for t in ("q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")},
}
KV_CACHE_VALUES: dict[str, dict[str, str]] = {
    # vllm/config/cache.py CacheDType: auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla
    "vllm": {
        "auto": "auto",
        "bfloat16": "bf16",
        **dict.fromkeys(("fp8", "fp8_e4m3", "fp8_e5m2"), "fp8"),
        "fp8_ds_mla": SPARSE_MLA_FP8,
    },
    # sglang/srt/server_args.py --kv-cache-dtype choices: auto, fp8_e5m2, fp8_e4m3
    "sglang": {"auto": "auto", **dict.fromkeys(("fp8_e5m2", "fp8_e4m3"), "fp8")},
    # text-generation-launcher --kv-cache-dtype: fp8_e4m3fn, fp8_e5m2 (unset: the model's dtype)
    "tgi": dict.fromkeys(("fp8_e4m3fn", "fp8_e5m2"), "fp8"),
    # --kv_cache_dtype fp8 / int8 (kv_cache_quant_algo FP8 / INT8), as ``kv_cache.ENGINE_KV_DTYPES`` names it
    # (TensorRT-LLM's examples/quantization/quantize.py; recalled, not read here)
    "tensorrt-llm": {"fp8": "fp8", "int8": "int8"},
    "llama.cpp": _LLAMA_CPP_CACHE_TYPES,
}
_KV_CACHE_FLAG = r"kv[-_]cache[-_]dtype"
#: llama.cpp's flags, K then V: "ctk" (short, one dash) and "cache-type-k" (long)
_CACHE_TYPE_FLAGS = (r"ctk|cache[-_]type[-_]k", r"ctv|cache[-_]type[-_]v")
KV_CACHE_FLAG_NAMES = "--kv-cache-dtype, -ctk / -ctv (llama.cpp)"


def _word_flag(names: str) -> re.Pattern[str]:
    """A flag of ``names`` (dashes required) and its word value: ``--kv-cache-dtype fp8``, ``-ctk=q8_0``;
    group 2 is the value, missing where the flag has none (next comes another flag, or nothing)."""
    return re.compile(rf"(?<![\w-])(--?(?:{names}))(?![\w-])(?:[ =]+([^\s-]\S*))?", re.I)


def _kv_cache_values(engine: str, llama: bool) -> dict[str, str]:
    """The values the cache flag of ``engine`` takes ("": every engine's that writes it so)."""
    if engine:
        return KV_CACHE_VALUES.get(engine, {})
    if llama:
        return _LLAMA_CPP_CACHE_TYPES
    return {k: v for e, table in KV_CACHE_VALUES.items() if e != "llama.cpp" for k, v in table.items()}


def _read_cache_value(
    m: re.Match[str], values: dict[str, str], strict: bool, engine: str
) -> tuple[str, str] | None:
    """(gpuscout's dtype name, the flag as written) of a cache flag's match, or None where its value is
    missing or not one ``values`` has (an error when ``strict``)."""
    raw = (m.group(2) or "").rstrip(".,;)")
    if not raw:
        if strict:
            raise InvalidInputError("engine", f"{m.group(1)} needs a value", ", ".join(values))
        return None
    dtype = values.get(raw.lower())
    if dtype is None:
        if strict:
            who = f"{engine} " if engine else ""
            raise InvalidInputError(
                "engine",
                f"{m.group(1)} {raw[:QUOTED_NAME_CHARS]!r} is not a KV cache dtype {who}takes",
                ", ".join(values),
            )
        return None
    return dtype, f"{m.group(1)} {raw}"


_NOTHING: tuple[str, str, list[tuple[int, int]]] = ("", "", [])


def _read_kv_cache(text: str, strict: bool, engine: str) -> tuple[str, str, list[tuple[int, int]]]:
    """(gpuscout's KV dtype name, the flags as written, their spans) that ``text``'s cache flags set for
    ``engine`` ("": any engine's), or ("", "", []) where it has none of them."""
    if engine in ("", "llama.cpp"):
        found = [_word_flag(names).search(text) for names in _CACHE_TYPE_FLAGS]
        if found[0] is not None or found[1] is not None:
            return _read_cache_types(found, strict, engine)
    if engine == "llama.cpp" or (engine and engine not in KV_CACHE_VALUES):
        return _NOTHING
    m = _word_flag(_KV_CACHE_FLAG).search(text)
    read = None if m is None else _read_cache_value(m, _kv_cache_values(engine, llama=False), strict, engine)
    return _NOTHING if m is None or read is None else (read[0], read[1], [m.span()])


def _read_cache_types(
    found: list[re.Match[str] | None], strict: bool, engine: str
) -> tuple[str, str, list[tuple[int, int]]]:
    """llama.cpp's ``-ctk`` and ``-ctv`` (``found``, K then V; one may be missing, its type then f16, the
    default), as :func:`_read_kv_cache` says them. gpuscout sizes one dtype for the whole cache, so K and V
    of different types are an error when ``strict`` (unread in free text)."""
    values = _kv_cache_values(engine, llama=True)
    read = [None if m is None else _read_cache_value(m, values, strict, engine) for m in found]
    if any(m is not None and r is None for m, r in zip(found, read, strict=True)):
        return _NOTHING  # a value free text mangled
    said = [
        r[1] if r is not None else f"{flag} f16, llama.cpp's default"
        for r, flag in zip(read, ("-ctk", "-ctv"), strict=True)
    ]
    types = {"fp16" if r is None else r[0] for r in read}
    if len(types) > 1:
        if not strict:
            return _NOTHING
        raise InvalidInputError(
            "engine",
            f"{said[0]} and {said[1]} give the K and V caches different types: gpuscout sizes one type "
            "for both",
            f"the same type for -ctk and -ctv ({', '.join(values)})",
        )
    written = " ".join(r[1] for r in read if r is not None)
    return types.pop(), written, [m.span() for m in found if m is not None]


@dataclass(frozen=True, slots=True)
class LaunchFlags:
    """What a text's flags set: profile attributes (``settings``) and the flags left unread."""

    settings: dict[str, Any]
    stated: tuple[str, ...]  # "max_num_seqs 512", as read, for the estimate's assumptions
    ignored: tuple[str, ...]  # "--foo 3": flags gpuscout does not model


def _value(flag: _Flag, name: str, raw: str, strict: bool) -> float | None:
    text = raw.replace("_", "").replace(",", "").rstrip(".")
    try:
        value = float(text)
    except ValueError:
        value = None
    ok = value is not None and flag.low <= value <= flag.high and (not flag.integer or value == int(value))
    if ok:
        return value
    if strict:
        raise InvalidInputError("engine", f"{name} {raw!r} is out of range", flag.accepted())
    return None


#: Launch flags that set the parallel layout, which gpuscout takes as its own inputs (the GPUs and the
#: split), and the input that says it: read as an engine setting they would be ignored, and the answer
#: given for another layout than the one the renter typed.
_LAYOUT_FLAGS = re.compile(
    r"(?<![\w-])(--(?:tensor-parallel-size|tp-size|tp|pipeline-parallel-size|pp-size|pp|"
    r"data-parallel-size|dp-size|dp|tensor_parallel_size|tp_size|pp_size)|-tp|-pp|-dp)(?:[ =]+(\S+))?",
    re.I,
)
_LAYOUT_INPUT = {
    "t": "gpus (CLI --gpus N)",
    "p": "gpus with parallel='layer' (CLI --gpus N --parallel layer)",
    "d": "gpus with parallel='replicas' (CLI --gpus N --parallel replicas)",
}


class LayoutFlagError(InvalidInputError):
    """A layout flag in the engine's text (``said``: "--tensor-parallel-size 2"): gpuscout takes the layout as
    an input of its own, which each face names (the advisor chooses it per offer)."""

    def __init__(self, said: str, instead: str) -> None:
        self.said = said
        super().__init__(
            "engine",
            f"{said} sets the parallel layout, which gpuscout takes as an input of its own: give {instead} "
            "instead",
            "engine launch flags other than the layout's",
        )


def _refuse_layout_flags(text: str) -> None:
    m = _LAYOUT_FLAGS.search(text)
    if m is None:
        return
    name = m.group(1)
    kind = name.lstrip("-")[0].lower()
    raise LayoutFlagError(f"{name} {m.group(2)}" if m.group(2) else name, _LAYOUT_INPUT[kind])


def read_flags(
    text: str, *, strict: bool = True, known: tuple[str, ...] = (), engine: str = ""
) -> LaunchFlags:
    """The flags in ``text`` (an engine name with its launch flags, or a measurement's notes).

    ``strict``: a value out of range is an error naming the flag (a user's input); otherwise it is
    skipped (free-text notes). ``known``: regexes of variant flags a profile reads itself (not ignored).
    ``engine``: the profile name of the engine started ("" = any); a flag of other engines only
    (TGI's ``--cuda-memory-fraction`` for vLLM) is then not read but named as ignored.
    A layout flag (``--tensor-parallel-size 2``) in a user's text is an error naming the input that
    sets the layout.
    """
    if strict:
        _refuse_layout_flags(text)
    settings: dict[str, Any] = {}
    stated: list[str] = []
    spans: list[tuple[int, int]] = []
    for flag in _FLAGS:
        if engine and flag.engines and engine not in flag.engines:
            continue
        m = flag.pattern.search(text)
        if m is None:
            bare = flag.bare.search(text) if strict else None
            if bare is not None:
                given = re.match(r"[ =]+(-[0-9]\S*)", text[bare.end() :])
                if given is not None:  # a negative number: the pattern reads digits only
                    raise InvalidInputError(
                        "engine", f"{bare.group(1)} {given.group(1)} is out of range", flag.accepted()
                    )
                word = re.match(r"[ =]+([^\s-]\S*)", text[bare.end() :])
                if word is not None:  # a value that is not a number: "--max-num-seqs abc"
                    number = "a whole number" if flag.integer else "a number"
                    raise InvalidInputError(
                        "engine",
                        f"{bare.group(1)} needs {number}, not {word.group(1)[:QUOTED_NAME_CHARS]!r}",
                        flag.accepted(),
                    )
                raise InvalidInputError("engine", f"{bare.group(1)} needs a value", flag.accepted())
            continue
        value = _value(flag, m.group(1), m.group(2), strict)
        if value is None:
            continue
        settings[flag.attr] = int(value) if flag.integer else value
        stated.append(f"{flag.attr} {settings[flag.attr]:g}")
        spans.append(m.span())
    kv, said, kv_spans = _read_kv_cache(text, strict, engine)
    if kv:
        settings["kv_cache_dtype"] = kv
        stated.append(f"kv_cache_dtype {kv} ({said})")
        spans.extend(kv_spans)
    chunked = _CHUNKED.search(text)
    if chunked:
        settings["enable_chunked_prefill"] = (chunked.group(1) or "true").lower() == "true"
        stated.append(f"enable_chunked_prefill {settings['enable_chunked_prefill']}")
        spans.append(chunked.span())
    ignored = []
    for m in _ANY_FLAG.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        if any(re.search(k, m.group(0), re.I) for k in known):
            continue
        ignored.append(m.group(0).strip())
    return LaunchFlags(settings, tuple(stated), tuple(ignored))


def profile_settings(
    flags: LaunchFlags, step_overhead_us: float, seq_overhead_us: float, memory_utilization: float = 1.0
) -> dict[str, Any]:
    """``flags.settings`` as profile attributes: multi-step scheduling also divides the per-step and
    per-sequence host costs by the steps one scheduler pass covers (a single step is the default); TGI's
    ``--cuda-memory-fraction`` scales ``memory_utilization``, the share the profile holds at TGI's
    default fraction 1.0 (pass it), unless a memory share was stated outright."""
    out = dict(flags.settings)
    fraction = out.pop("cuda_memory_fraction", None)
    if fraction is not None:
        out.setdefault("memory_utilization", memory_utilization * float(fraction))
    steps = int(out.pop("multi_step", 1))
    if steps > 1:
        out["step_overhead_us"] = step_overhead_us / steps
        out["seq_overhead_us"] = seq_overhead_us / steps
        out["multi_step"] = steps
    return out


#: The engine's own spelling of the flag that sets ``max_model_len`` (``--max-model-len`` elsewhere:
#: vLLM's, which gpuscout reads for every engine).
_MAX_MODEL_LEN_FLAG = {"sglang": "--context-length"}


def max_model_len_flag(engine: str) -> str:
    """How a message names the flag that set ``max_model_len`` for ``engine`` (a profile's ``name``):
    SGLang's ``--context-length``, vLLM's ``--max-model-len`` otherwise."""
    return _MAX_MODEL_LEN_FLAG.get(engine, "--max-model-len")


# The flag each engine sets its memory budget with (``memory_utilization``); TGI's --cuda-memory-fraction
# scales its whole budget instead and is not offered as a remedy
_MEMORY_SHARE_FLAG = {"vllm": "--gpu-memory-utilization", "sglang": "--mem-fraction-static"}


def memory_share_flag(engine: str) -> str:
    """The flag that sets ``engine``'s memory budget (a profile's ``name``), "" for an engine without one."""
    return _MEMORY_SHARE_FLAG.get(engine, "")


def with_flags(engine: str, flags: str) -> str:
    """``engine`` (a name with launch flags or without) started with ``flags`` too, each flag of ``flags``
    that sets an attribute replacing the same flag's spellings already in ``engine`` (a flag is read at
    its first occurrence, so appending a second one would be ignored)."""
    if not flags:
        return engine
    for flag in _FLAGS:
        if flag.pattern.search(flags):
            engine = flag.pattern.sub("", engine)
    return f"{' '.join(engine.split())} {flags}"


def read_flag_names() -> str:
    """The flags :func:`read_flags` sets something from, for messages."""
    return ", ".join([f.shown for f in _FLAGS] + ["--enable-chunked-prefill", KV_CACHE_FLAG_NAMES])


def split_flags(text: str) -> tuple[str, str]:
    """(the engine's name and version, its flags): the text before the first ``--flag`` (or short
    ``-tp``) outside parentheses, and the rest ("vLLM 0.9.1 (--enforce-eager)" is a name: the variant it
    names is read by the profile)."""
    for m in re.finditer(r"(?:^|\s)--?[a-z]", text, re.I):
        before = text[: m.start()]
        if before.count("(") == before.count(")"):
            return before.strip(), text[m.start() :].strip()
    return text, ""
