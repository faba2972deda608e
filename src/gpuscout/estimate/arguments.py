"""Checking the arguments of the estimate entry points: names resolved, numbers in range.

Every failure is an :class:`InvalidInputError` naming the field and what it accepts (an unknown
model or GPU name raises the knowledge table's ``UnknownNameError`` with the closest names).

This module is also the one place the input limits every face shares are stated (``MAX_*`` below):
the estimator checks them, the workload types (``advise.workload``) declare them on their fields, the
CLI and the web API read them from here, so a number is refused at the same bound, with the same words
(``field: X is out of range (accepted: ...)``), whether it was typed as an option, written in a
workload file, sent as JSON or passed to the Python API. A count of tokens is read from text by the one
parser :func:`token_count` (``32k``, ``1.5M``, ``1e9``) on every face.
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from gpuscout.errors import InvalidInputError, WrongModelKind, quoted_value
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

if TYPE_CHECKING:
    from gpuscout.estimate.engines import EngineProfile


# ---- the input limits (one place each) ------------------------------------------------------------
#: GPUs one deployment (one engine instance, tensor x pipeline, or replicas) is sized on.
MAX_GPUS = 64
#: Sequences one engine instance runs at once (its scheduler's cap: vLLM max_num_seqs, SGLang
#: max_running_requests); the batch a diagnosis times in one step.
MAX_BATCH = 4096
#: Requests in flight (``concurrency``, ``num_requests``, and the ``batch`` of an estimate or a VRAM sizing,
#: the sequences in flight over every replica) on every face: the estimator, ``recommend serve
#: --concurrency``, a workload file's ``concurrency`` and the web API. A guard against typos, not a claim
#: about demand, so it must sit above what the largest configuration sized holds running at once:
#: MAX_GPUS x MAX_BATCH = 262,144 sequences (64 single-GPU replicas at the scheduler's cap). The
#: advisor's former 100,000 refused loads that configuration runs without a queue; 1,000,000 (the
#: estimator's and the web API's) keeps ~4x that for the queue, and every figure derived from it stays
#: finite.
MAX_CONCURRENCY = 1_000_000
#: Arrivals per second (``request_rate``, ``requests_per_s``): MAX_CONCURRENCY requests of about a
#: second each, by Little's law (the advisor's former 10^7 was ten times what MAX_CONCURRENCY holds).
MAX_RATE = 1e6
#: The slowest load an endpoint is sized for (the advisor's ``requests_per_s``): one request in about
#: 11.6 days. Below it the rate per replica rounds to nothing (a subnormal 5e-324 became 0.0 and the
#: estimator refused "request_rate").
MIN_RATE = 1e-6
#: Tokens of one sequence (a prompt, an output, a training sequence): Llama 4 Scout's 10M-token window,
#: the longest published; a model's own window (``max_position_embeddings``) is checked besides.
MAX_CONTEXT = 10_000_000
#: Tokens of a job or a month (a dataset, a pre-training budget, a batch's total, a month's output):
#: ~30x the largest published pre-training runs (Qwen3: 36T).
MAX_TOKENS = 10**15
#: GPUs of one training cluster (a pre-training workload's ``gpus``; not one deployment: MAX_GPUS):
#: xAI's Colossus, the largest published, started at 100k H100s.
MAX_TRAINING_GPUS = 100_000
#: Nodes of one training job (``estimate_training(nodes=)``, a workload's ``nodes`` and ``max_nodes``):
#: a node holds at least one GPU, so as many as MAX_TRAINING_GPUS (a pre-training run of 100,000 GPUs
#: rented as single-GPU instances is 100,000 nodes; the advisor's former 10,000 refused the node count
#: such a run derives, 1,024 a fine-tune's search past it).
MAX_NODES = MAX_TRAINING_GPUS
#: Passes over a fine-tuning dataset (``epochs``): far beyond the 1-10 a fine-tune takes.
MAX_EPOCHS = 1000
#: Denoising steps of one image (``steps``): a DDPM sampler's 1,000 with a 10x margin.
MAX_STEPS = 10_000
#: The side of an image in pixels (``width``, ``height``): a VAE's 8x downsampling of one latent pixel,
#: to 16K (a latent of 2,048 x 2,048).
MIN_IMAGE_PX = 64
MAX_IMAGE_PX = 16_384
#: Images one diffusers pipeline generates together (``batch``).
MAX_IMAGE_BATCH = 4096
#: Images of a job (``images``, ``images_total``).
MAX_IMAGES = 10**12
#: A measured decode speed per sequence (``measured_tps``), and how its error says it.
MAX_MEASURED_TPS = 1e6
MEASURED_TPS_ACCEPTED = "0 < tokens/s < 1e6"


def positive_words(high: float) -> str:
    """What a positive number up to ``high`` accepts, as :func:`positive_float` and the CLI say it:
    ``> 0, <= 1e+06``."""
    return f"> 0, <= {high:g}"


# ---- token counts as renters write them ----------------------------------------------------------
#: What a token count may be written as (said by a parser error; its range is the field's).
TOKENS_ACCEPTED = "a whole number like 32768, 32k, 1.5M or 1e9; k = 1,000, M = 10^6, B or G = 10^9, T = 10^12"
#: The help's note on the suffixes of a token count: some renters mean 32,768 by 32k.
TOKENS_HELP = "32k = 32,000; also 1.5M, 1e9"
#: A longer text is not read at all (Python reads at most 4,300 digits into an int; a count that long
#: is a paste gone wrong).
MAX_TOKEN_TEXT = 40
TOKEN_COUNT = re.compile(
    r"(?P<int>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+(?:_[0-9]+)*)"  # 1,000,000 | 10_000 | 32768
    r"(?:\.(?P<frac>[0-9]+(?:_[0-9]+)*))?"
    r"(?:[eE](?P<exp>[-+]?[0-9]{1,2}))?"
    r" ?(?P<unit>[kKmMbBgGtT])?"
)
_UNIT_POWERS = {"k": 3, "m": 6, "b": 9, "g": 9, "t": 12}


#: What a count of images (or any other whole count) may be written as, and the help's note on it.
COUNT_ACCEPTED = "a whole number like 5000, 100k, 1.5M or 1e6; k = 1,000, M = 10^6, B or G = 10^9"
COUNT_HELP = "100k = 100,000; also 1.5M, 1e6"


def whole_count(value: Any, field: str) -> int:
    """A count of things other than tokens (images), written as renters write counts and read as
    :func:`token_count` reads one (``100k``, ``1.5M``, ``1e6``); its errors speak of a count, not tokens."""
    return _count(value, field, "count", "whole number", COUNT_ACCEPTED)


def token_count(value: Any, field: str) -> int:
    """A count of tokens as a renter writes it: ``32768``, ``32k`` (k = 1,000, not 1,024), ``128K``,
    ``1.5M``, ``2B`` or ``2G``, ``15T``, ``1e9``, ``10_000``, ``1,000``; a number already read (an
    option's default, a YAML integer) is taken as it is. Anything that is not a whole number of tokens
    is an :class:`~gpuscout.errors.InvalidInputError` naming ``field`` and :data:`TOKENS_ACCEPTED`.

    The count is not bounded here: each field has its own range (a prompt: MAX_CONTEXT; a dataset:
    MAX_TOKENS), which its caller checks and states, so that ``1e16`` and ``1e30`` are refused by the
    same words. A negative count (``-5``, ``-1k``) is read as one, for the same reason."""
    return _count(value, field, "token count", "whole number of tokens", TOKENS_ACCEPTED)


def _count(value: Any, field: str, a_count: str, whole: str, accepted: str) -> int:
    """:func:`token_count`'s reading, its refusals saying "not a {a_count}" / "not a {whole}"."""
    if _is_bool(value):
        raise InvalidInputError(field, f"{value} is not a {a_count}", accepted)
    if isinstance(value, numbers.Integral):
        return operator.index(value)
    if isinstance(value, float):
        if not value.is_integer():  # nan and inf are not either
            raise InvalidInputError(field, f"{value:g} is not a {whole}", accepted)
        return int(value)
    text = str(value).strip()
    sign = -1 if text.startswith("-") else 1
    number = text[1:] if sign < 0 else text
    found = TOKEN_COUNT.fullmatch(number) if len(text) <= MAX_TOKEN_TEXT else None
    if found is None or (found["exp"] and found["unit"]):
        raise InvalidInputError(field, f"{text[:MAX_TOKEN_TEXT]!r} is not a {a_count}", accepted)
    frac = (found["frac"] or "").replace("_", "")
    digits = int(found["int"].replace(",", "").replace("_", "") + frac)
    power = int(found["exp"] or 0) + _UNIT_POWERS.get((found["unit"] or "").lower(), 0) - len(frac)
    scale: int = 10 ** abs(power)
    if power >= 0:
        return sign * digits * scale
    count, rest = divmod(digits, scale)
    if rest:
        raise InvalidInputError(field, f"{quoted_value(text)} is not a {whole}", accepted)
    return sign * count


#: The largest power of ten a whole number written in scientific notation may have (``1e30`` is read;
#: ``1e999999999`` is not expanded into a billion digits).
_MAX_WHOLE_EXPONENT = 300


def whole_number_text(text: str) -> int | None:
    """The whole number ``text`` writes in decimal or scientific notation (``"1e9"``, ``"2.0"``,
    ``"-3"``, ``"1E+3"``), else None (``"2.5"``, ``"abc"``, ``"nan"``, ``"0x10"``, a text longer than
    40 characters): a count typed as ``1e9`` is a count, refused by its range if it is out of it
    rather than as "not an integer"."""
    if not isinstance(text, str) or len(text) > MAX_TOKEN_TEXT or not text.isascii():
        return None
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or number.adjusted() > _MAX_WHOLE_EXPONENT:
        return None
    if number != number.to_integral_value():
        return None
    return int(number)


def shown_number(value: object) -> str:
    """A number as an error shows it: an int as its digits up to 15 of them, else as ``1e+30`` (an int
    of more than 4,300 digits cannot even be written out); a float as ``%g``; a text as typed (cut to
    40 characters)."""
    if isinstance(value, str):
        return value.strip()[:MAX_TOKEN_TEXT]
    if _is_bool(value) or not isinstance(value, numbers.Real):
        return repr(value)[:MAX_TOKEN_TEXT]
    if isinstance(value, numbers.Integral):
        number = operator.index(value)
        if abs(number) < 10**15:
            return str(number)
        if abs(number) < 10**300:
            return f"{float(number):g}"
        sign = "-" if number < 0 else ""
        return f"{sign}~1e+{int((abs(number).bit_length() - 1) * math.log10(2))}"
    real = _real(value)
    return f"{real:g}" if real is not None else repr(value)[:MAX_TOKEN_TEXT]


def resolve_model_arg(model: str | ModelSpec) -> ModelSpec:
    """A ``ModelSpec`` as given, or the one a model name resolves to."""
    if isinstance(model, ModelSpec):
        return model
    if not isinstance(model, str):  # a blank name is the resolver's to refuse: "is empty", with known names
        raise InvalidInputError(
            "model", f"expected a model name or a ModelSpec, got {quoted_value(model)}", "e.g. llama-3.1-8b"
        )
    from gpuscout.knowledge.models import resolve_model

    return resolve_model(model)


def refuse_blank_model(model: object, kind: str) -> None:
    """Nothing unless ``model`` is an empty or blank name: then the ``model`` field's "is empty" error with
    a few known models of ``kind`` ("audio", "diffusion"), not the registry's first (language) models."""
    if not isinstance(model, str) or model.strip():
        return
    from gpuscout.errors import KnownNames, UnknownNameError
    from gpuscout.knowledge.models import all_models

    raise UnknownNameError("model", model, KnownNames(m.name for m in all_models() if m.kind == kind))


#: Where each kind of model is answered: what it is, the command that times it, the Python function
#: behind that command, and the command that prices it (empty: none does).
FACES: dict[str, tuple[str, str, str, str]] = {
    "llm": (
        "a language model",
        "gpuscout estimate {name} --gpu GPU",
        "gpuscout.estimate",
        "gpuscout recommend serve|batch|finetune {name}",
    ),
    "diffusion": (
        "an image (diffusion) model",
        "gpuscout images {name} --gpu GPU",
        "gpuscout.estimate_images",
        "gpuscout recommend batch {name} --images N",
    ),
    "audio": (
        "a speech-to-text model",
        "gpuscout transcribe {name} --gpu GPU",
        "gpuscout.estimate_transcription",
        "",
    ),
}


def within_window(context: int, model: str, window: int | None, field: str = "context") -> None:
    """Refuse a ``context`` past ``model``'s context ``window`` (``max_position_embeddings``; None or 0:
    none known), in the words every page that asks for a context uses (the FAQ, a model's page):
    "200,000 tokens exceed llama-3.1-8b's context of 131,072"."""
    if window and context > window:
        raise InvalidInputError(
            field, f"{context:,} tokens exceed {model}'s context of {window:,}", f"<= {window:,}"
        )


_IMPORTED = "the name of a model imported from it by gpuscout models import PATH"
#: How the Python API takes a model's config.json: the words of the estimator (the Python face) itself.
PYTHON_CONFIG = f"model=gpuscout.loaders.model_from_hf_config(path), or {_IMPORTED}"


def imported_config(field: str) -> str:
    """How a face that takes no config.json file (the JSON API, ``gpuscout diagnose``) takes one: by name,
    as the model imported from it, in its model ``field``."""
    return f"{field}: {_IMPORTED}"


class ContextPastWindow(InvalidInputError):
    """A context past a model's window (``max_position_embeddings``): ``said`` how long it is ("200,000
    tokens"), ``window`` the window, ``what`` what the window is read from. Its message is one text for
    every face, which names where the face asking takes the config.json of a model served with RoPE
    scaling (``config_input``): the Python API's as the estimator raises it, a face's own through
    :meth:`given_as` (the CLI's ``--config``, the JSON API's ``model`` parameter)."""

    def __init__(
        self,
        field: str,
        said: str,
        model: str,
        window: int,
        what: str,
        accepted: str,
        config_input: str = PYTHON_CONFIG,
    ) -> None:
        self.said, self.model, self.window, self.what = said, model, window, what
        self.config_input = config_input
        super().__init__(
            field,
            f"{said} exceed {model}'s context window of {window:,} tokens ({what}): vLLM and SGLang refuse a "
            "longer context unless forced, and past the window the output is wrong without RoPE scaling; a "
            "model served with RoPE scaling (YaRN) is estimated from its config.json with that rope_scaling, "
            f"or a max_position_embeddings of the scaled length ({config_input})",
            accepted,
        )

    def given_as(self, config_input: str) -> ContextPastWindow:
        """The same error, naming ``config_input`` as where the config.json is given."""
        return ContextPastWindow(
            self.field, self.said, self.model, self.window, self.what, self.accepted or "", config_input
        )


def other_face(name: str, kind: str, wanted: str = "a language model") -> str:
    """Why a model of ``kind`` is not what an entry point answers (``wanted``), and where it is answered:
    "flux.1-dev is an image (diffusion) model, not a language model: `gpuscout images ...` times it"."""
    face = FACES.get(kind)
    if face is None:
        return f"{name} is a {kind} model, not {wanted}"
    what, command, function, priced = face
    text = f"{name} is {what}, not {wanted}: `{command.format(name=name)}` times it (Python: {function})"
    if priced:
        text += f" and `{priced.format(name=name)}` prices it"
    return text


def require_language_model(spec: ModelSpec) -> None:
    """Nothing for a language model; otherwise an error naming the ``model`` field and where a model of
    its kind is answered (the LLM estimators size tokens, not images or audio)."""
    if spec.kind != "llm":
        raise WrongModelKind(
            spec.name, spec.kind, "a language model", other_face(spec.name, spec.kind), "a language model"
        )


def resolve_gpu_arg(gpu: str | Accelerator) -> Accelerator:
    """An ``Accelerator`` as given, or the one a GPU name resolves to."""
    if isinstance(gpu, Accelerator):
        return gpu
    if not isinstance(gpu, str):  # a blank name is the resolver's to refuse: "is empty", with known names
        raise InvalidInputError(
            "gpu", f"expected a GPU name or an Accelerator, got {quoted_value(gpu)}", "e.g. H100, RTX 4090"
        )
    from gpuscout.knowledge.accelerators import resolve_gpu

    return resolve_gpu(gpu)


def whole_number(value: object) -> int | None:
    """``value`` as an ``int`` when it is a whole number, None otherwise.

    A whole number is an int (numpy's integers too: anything ``numbers.Integral``) or a real number
    equal to one, as a count typed or computed arrives (``2.0``, ``numpy.float64(2.0)``,
    ``Fraction(4, 2)``); not a bool (``True`` is no count), not ``2.5``, nan or infinity, and not a
    string (a face parses text before it calls the core)."""
    if _is_bool(value):
        return None
    if isinstance(value, numbers.Integral):
        return operator.index(value)
    if isinstance(value, numbers.Rational):  # exact, however large
        return int(value.numerator) if value.denominator == 1 else None
    real = _real(value)
    if real is not None and math.isfinite(real) and real.is_integer():
        return int(real)
    return None


def text_number_hint(value: object) -> str:
    """ " (pass the number 8, not text)" where ``value`` is a whole number written as text (``"8"``, from
    argv or a form): the Python API takes numbers, and says which one was meant; else ""."""
    digits = value.strip().lstrip("+") if isinstance(value, str) else ""
    if digits.isascii() and digits.isdigit() and len(digits) <= 18:
        return f" (pass the number {int(digits)}, not text)"
    return ""


def int_in(
    field: str, value: object, low: int, high: int, *, error: type[InvalidInputError] = InvalidInputError
) -> int:
    """``value`` as an ``int`` when it is a whole number (:func:`whole_number`: ``2`` or ``2.0``, not a
    bool) in ``low..high``; else ``error`` (pass ``ConfigurationRejected`` where the value is a hardware
    configuration: GPUs, nodes, batch). Use the value returned: ``2.0`` comes back as ``2``."""
    number = whole_number(value)
    if number is None:
        said = f"must be a whole number, got {quoted_value(value)}{text_number_hint(value)}"
        raise error(field, said, f"{low}..{high}")
    if not low <= number <= high:
        raise error(field, f"{shown_number(number)} is out of range", f"{low}..{high}")
    return number


def positive_float(field: str, value: object, high: float) -> float:
    """``value`` as float when it is a finite real number (not a bool; numpy's numbers too) in
    ``(0, high]``."""
    number = _real(value)
    if number is None or not math.isfinite(number):
        raise InvalidInputError(
            field, f"must be a positive number, got {quoted_value(value)}", positive_words(high)
        )
    if not 0 < number <= high:
        raise InvalidInputError(field, f"{value} is out of range", positive_words(high))
    return number


def _is_bool(value: object) -> bool:
    """A bool, Python's or numpy's (``numpy.bool_`` is not a subclass of ``bool``)."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _real(value: object) -> float | None:
    """``value`` as a float when it is a real number and not a bool (None otherwise)."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except (OverflowError, ValueError):  # a Fraction or Integral too large for a float
        return None


#: Engines that refuse to start with a context length above the model's window, and the override.
#: vLLM derives its max_model_len from the config (max_position_embeddings, RoPE scaling weighed) and
#: refuses a larger --max-model-len ("User-specified max_model_len ... is greater than the derived
#: max_model_len") unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set; SGLang refuses a larger
#: --context-length unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set.
REFUSE_PAST_WINDOW: dict[str, str] = {
    "vllm": "vLLM refuses a max_model_len above the model's derived one (unless "
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set)",
    "sglang": "SGLang refuses a context length above the model's (unless "
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set)",
}


#: How an engine takes the YaRN rope scaling a checkpoint's model card documents but its config.json leaves
#: out, by profile name: (the engine as a message names it, the setting: ``{rope}`` is the rope_scaling
#: JSON, ``{factor}`` and ``{native}`` its numbers). An engine not named here reads rope scaling from the
#: checkpoint's config.json only (TGI, HF transformers, TensorRT-LLM's checkpoint conversion, gpt-fast):
#: what Qwen2.5's model card says to do. Sources of the flags:
#: - llama.cpp --rope-scaling yarn, --rope-scale, --yarn-orig-ctx (llama-server and llama-cli share them):
#:   https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md; convert_hf_to_gguf.py writes
#:   a config.json's rope_scaling into the GGUF's metadata, which llama.cpp reads as its default.
#: - vLLM --hf-overrides: https://docs.vllm.ai/en/latest/configuration/engine_args.html
#: - SGLang --json-model-override-args: https://docs.sglang.ai/advanced_features/server_arguments.html
YARN_SETTINGS: dict[str, tuple[str, str]] = {
    "llama.cpp": (
        "llama.cpp",
        "llama-server / llama-cli --rope-scaling yarn --rope-scale {factor} --yarn-orig-ctx {native} "
        "(a GGUF converted from a config.json with rope_scaling {rope} carries it in its metadata)",
    ),
    "vllm": (
        "vLLM",
        "rope_scaling {rope} in config.json, or vLLM --hf-overrides '{{\"rope_scaling\": {rope}}}'",
    ),
    "sglang": (
        "SGLang",
        "SGLang --json-model-override-args '{{\"rope_scaling\": {rope}}}', "
        "or rope_scaling {rope} in config.json",
    ),
}


def past_native_window(spec: ModelSpec, total: int, engine: str) -> str:
    """The warning for a context of ``total`` tokens past a checkpoint's config.json window
    (``ModelSpec.native_context``) but within the window its model card documents with static YaRN
    (``max_position_embeddings``; past that the context is refused): the engine derives its context
    length from config.json, so the rope scaling must be configured, as ``engine`` (a profile's ``name``)
    takes it (:data:`YARN_SETTINGS`); "" where there is nothing to say."""
    native, scaled = spec.native_context, spec.max_position_embeddings
    if not native or total <= native or not scaled or scaled <= native:
        return ""
    factor = scaled / native
    rope = f'{{"rope_type": "yarn", "factor": {factor:g}, "original_max_position_embeddings": {native}}}'
    named, setting = YARN_SETTINGS.get(engine, ("", "rope_scaling {rope} in the checkpoint's config.json"))
    how = setting.format(rope=rope, factor=f"{factor:g}", native=native)
    if engine in REFUSE_PAST_WINDOW:
        without = f"{named} refuses the context without it"
    else:
        without = f"without it the output past {native:,} tokens degrades"
    return (
        f"{total:,} tokens exceed {spec.hf_id or spec.name}'s native window of {native:,} (config.json "
        f"max_position_embeddings): it needs YaRN rope scaling configured (its model card documents factor "
        f"{factor:g}, to {scaled:,}: {how}; {without}), and static YaRN scales every request, which can "
        "lower quality on short texts"
    )


def within_max_model_len(
    spec: ModelSpec,
    eng: EngineProfile,
    context_in: int,
    context_out: int,
    asked: str = "context_in + context_out",
) -> str:
    """Check the engine's stated ``--max-model-len`` (SGLang: ``--context-length``) against the context
    asked (``asked`` names it: "context_in + context_out", or "context") and the model's window, and
    the context against a checkpoint's native window (:func:`past_native_window`, whose warning comes
    first).

    A max_model_len shorter than the context asked is an input error naming the ``engine`` field and
    both figures: the engine rejects a request whose prompt plus output exceeds it (vLLM answers 400,
    "This model's maximum context length is ..."), so no estimate at that context is an answer. One
    longer than the model's window (``max_position_embeddings``) is the returned warning: vLLM and
    SGLang refuse to start with it unless an override is set (:data:`REFUSE_PAST_WINDOW`; the engine
    text cannot say whether it is, and Qwen's SGLang speed benchmark ran Qwen3 with
    context_length=140000, so it was), and past the window the output is wrong without RoPE scaling.
    "" when there is nothing to say.
    """
    scaled = past_native_window(spec, context_in + context_out, eng.name)
    stated = _within_stated_len(spec, eng, context_in, context_out, asked)
    return "; ".join(w for w in (scaled, stated) if w)


def _within_stated_len(
    spec: ModelSpec, eng: EngineProfile, context_in: int, context_out: int, asked: str
) -> str:
    """:func:`within_max_model_len`'s check of the engine's stated context length."""
    from gpuscout.estimate.launch_flags import max_model_len_flag

    limit = eng.max_model_len
    if not limit:
        return ""
    flag = max_model_len_flag(eng.name)
    window = spec.max_position_embeddings
    if window and limit > window:
        said = (
            f"{flag} {limit} is longer than {spec.name}'s context window of {window:,} tokens "
            "(max_position_embeddings)"
        )
        refusal = REFUSE_PAST_WINDOW.get(eng.name)
        started = f"{refusal}: taken as started with that override; " if refusal else ""
        warning = f"{said}: {started}past the window the output is wrong without RoPE scaling"
    else:
        warning = ""
    total = context_in + context_out
    if total > limit:
        parts = f": {context_in:,} + {context_out:,}" if asked == "context_in + context_out" else ""
        raise InvalidInputError(
            "engine",
            f"{flag} {limit} is shorter than the {total:,}-token context asked ({asked}{parts}): "
            f"{eng.label} rejects a request whose prompt and output exceed it",
            f"{flag} >= {total}, or {asked} <= {limit}",
        )
    return warning
