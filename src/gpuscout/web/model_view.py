"""What the model pages show, computed with the estimator: memory by precision, VRAM against
context length and concurrency, and the smallest count of each GPU that holds the model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, urlencode

from gpuscout.errors import InvalidInputError, WrongModelKind
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.arguments import MAX_CONTEXT as MAX_CONTEXT  # the estimator's (page and API)
from gpuscout.estimate.memory import gib
from gpuscout.estimate.precision import published_checkpoint
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.params import count_params
from gpuscout.web.form_errors import FieldError

PRECISIONS: tuple[str, ...] = ("bf16", "fp8", "int8", "int4")
CONTEXTS: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
CONCURRENCIES: tuple[int, ...] = (1, 8, 32, 128)
GPU_COUNTS: tuple[int, ...] = (1, 2, 4, 8)
DEFAULT_CONTEXT = 4096  # tokens per sequence when none is given, or the model's window where shorter
# Memory per model is the same on any GPU big enough not to matter; one large part is used to size it.
_SIZING_GPU = "B200"


@dataclass(frozen=True, slots=True)
class Fit:
    gpu: Accelerator
    gpus_needed: int | None  # None: not even 8 of them, or the engine does not run the format there
    unsupported: str = ""  # why the default engine cannot run the format on this GPU ("": it can)


UNSUPPORTED = "unsupported"  # the group of GPUs that cannot run the format at all (``group_fits``)


def params_b(spec: ModelSpec) -> tuple[float | None, float | None]:
    """Total and active parameters (billions); ``None`` when they cannot be counted."""
    try:
        count = count_params(spec)
    except InvalidInputError:
        return spec.total_params_b, None
    return count.total_b, count.active_b


def memory(spec: ModelSpec, precision: str, context: int, concurrency: int) -> MemoryBreakdown:
    """Whole-model memory (one GPU, no tensor parallelism) for ``concurrency`` sequences of ``context``."""
    return memory_needed(spec, _SIZING_GPU, precision=precision, batch=concurrency, context=context).memory


def published_precision(spec: ModelSpec) -> str:
    """The format the checkpoint is published in (FP8 for DeepSeek-V3/R1, MXFP4 experts for gpt-oss),
    which the estimator sizes by default; bf16 for most."""
    return spec.native_precision or "bf16"


def precisions_for(spec: ModelSpec) -> tuple[str, ...]:
    """The formats a model's page sizes: its published one first when it is not among ``PRECISIONS``, and
    none that means the published one again (Kimi-K2-Thinking's "int4" is its int4-experts checkpoint)."""
    native = published_precision(spec)
    if native in PRECISIONS:
        return PRECISIONS
    return (native, *(p for p in PRECISIONS if published_checkpoint(native, p) != native))


def default_context(spec: ModelSpec) -> int:
    """The context a model's page and ``/api/v1/models/{name}`` size at when none is given:
    :data:`DEFAULT_CONTEXT`, or the model's whole window (``max_position_embeddings``) where that is
    shorter (2,048 tokens for falcon-40b or phi-1.5), since the estimator refuses a context past the
    window. A context the user gives is used as given."""
    window = spec.max_position_embeddings
    return min(DEFAULT_CONTEXT, window) if window and window > 0 else DEFAULT_CONTEXT


def context_note(spec: ModelSpec, context: int) -> str:
    """What a page says of a default ``context`` the model's window shortened ("" when it did not)."""
    if context >= DEFAULT_CONTEXT or context != default_context(spec):
        return ""
    return (
        f"Sized at {context:,} tokens, {spec.name}'s whole context window: "
        f"the default {DEFAULT_CONTEXT:,} is longer than the model reads."
    )


def memory_by_precision(
    spec: ModelSpec, context: int | None = None, concurrency: int = 1
) -> list[tuple[str, MemoryBreakdown]]:
    """Memory in each format the page sizes at ``context`` (default: :func:`default_context`)."""
    at = default_context(spec) if context is None else context
    return [(p, memory(spec, p, at, concurrency)) for p in precisions_for(spec)]


def vram_series(spec: ModelSpec, precision: str) -> tuple[list[int], dict[str, list[float]]]:
    """Total GiB per context length (up to the model's window), one series per concurrency."""
    limit = spec.max_position_embeddings or CONTEXTS[0]
    contexts = [c for c in CONTEXTS if c <= limit] or [limit]
    series = {
        f"{n} concurrent": [round(gib(memory(spec, precision, c, n).total_gb), 2) for c in contexts]
        for n in CONCURRENCIES
    }
    return contexts, series


@lru_cache(maxsize=512)
def weights_gib(spec: ModelSpec) -> tuple[float | None, float | None]:
    """Weights in the published format (:func:`published_precision`) and at int4, GiB (``None`` where the
    estimator cannot size the model)."""
    if spec.kind != "llm":
        return None, None
    try:
        published = memory(spec, published_precision(spec), 1, 1).weights_gb
        return gib(published), gib(memory(spec, "int4", 1, 1).weights_gb)
    except InvalidInputError:
        return None, None


def reference_cards() -> list[Accelerator]:
    """The cards drawn as dashed lines on the VRAM chart (see ``charts.REFERENCE_CARDS``)."""
    from gpuscout.web.charts import REFERENCE_CARDS

    by_name = {a.name: a for a in all_accelerators()}
    return [by_name[name] for _, name in REFERENCE_CARDS if name in by_name]


@lru_cache(maxsize=256)
def fits(spec: ModelSpec, precision: str, context: int | None = None) -> tuple[Fit, ...]:
    """For each accelerator, the smallest of 1/2/4/8 GPUs (split as the default engine splits a model:
    tensor parallel, a layer split for llama.cpp's GGUF formats) that holds one sequence of ``context``
    tokens (default: :func:`default_context`), or
    why the default engine cannot run ``precision`` there (an unknown ``precision`` is an
    ``InvalidInputError`` naming it, not eight "does not fit" answers)."""
    from gpuscout.estimate.precision import resolve_precision

    resolve_precision(precision)
    if context is None:
        context = default_context(spec)
    out: list[Fit] = []
    for acc in all_accelerators():
        needed = None
        why = ""
        for n in GPU_COUNTS:
            try:
                need = memory_needed(spec, acc, gpus=n, precision=precision, context=context)
            except InvalidInputError as exc:  # e.g. a layout this accelerator cannot take
                why = exc.message
                break
            if not need.supported:
                why = need.assumptions.get("support") or need.binding_constraint
                break
            if need.fits:
                needed = n
                break
        out.append(Fit(acc, needed, why))
    return tuple(out)


def sort_fits(items: Sequence[Fit]) -> list[Fit]:
    return sorted(
        items,
        key=lambda f: (bool(f.unsupported), f.gpus_needed is None, f.gpus_needed or 0, f.gpu.memory_gb),
    )


def group_fits(items: Sequence[Fit]) -> list[tuple[int | str | None, list[Fit]]]:
    """Fits grouped by GPUs needed (1, 2, 4, 8, then None = more than 8, then ``UNSUPPORTED``: the
    engine does not run the format there), each group by memory."""
    groups: dict[int | str | None, list[Fit]] = {}
    for f in sort_fits(items):
        groups.setdefault(UNSUPPORTED if f.unsupported else f.gpus_needed, []).append(f)
    return list(groups.items())


def model_label(spec: ModelSpec) -> str:
    """The name people write for a model, from its Hugging Face id: "meta-llama/Llama-2-70b-hf" ->
    "Llama 2 70B", "Qwen/Qwen3-30B-A3B" -> "Qwen3 30B A3B", "openai/gpt-oss-120b" -> "gpt-oss-120b".
    An id written all in lower case is given its capitals and acronyms back
    ("stabilityai/stable-diffusion-xl-base-1.0" -> "Stable Diffusion XL 1.0", "mosaicml/mpt-7b" -> "MPT
    7B"); a version written with an underscore reads with its point ("Qwen/Qwen-1_8B" -> "Qwen 1.8B"); an
    id that is no Hugging Face repository (a recipe, "mosaicml/llm-foundry:mpt-1b.yaml") gives the
    registry's name."""
    if spec.hf_id and ":" in spec.hf_id:
        return spec.name
    tail = spec.hf_id.rsplit("/", 1)[-1] if spec.hf_id else spec.name
    if tail.lower().startswith("gpt-oss"):
        return tail
    tail = re.sub(r"(?<=\d)_(?=\d)", ".", tail)  # Qwen-1_8B, phi-1_5: versions, not two words
    # written all in lower case but for a size ("nemo-megatron-gpt-20B")
    unsized = re.sub(r"\d+(?:\.\d+)?B\b", "", tail)
    lower = unsized == unsized.lower()
    words = [w for w in re.split(r"[-_ ]+", tail) if w and w.lower() not in _LABEL_NOISE]
    shown = [re.sub(r"^(\d+(?:\.\d+)?)b$", r"\1B", w) for w in words]
    if lower:
        shown = [_LABEL_ACRONYMS.get(w, _capitalised(w)) for w in shown]
    if shown and shown[0][:1].islower():
        shown[0] = shown[0][:1].upper() + shown[0][1:]
    return " ".join(shown) or spec.name


_LABEL_NOISE = frozenset({"hf", "instruct", "it", "meta", "base"})


def _capitalised(word: str) -> str:
    """A word of a lower-case id as a name writes it: "diffusion" -> "Diffusion"; a version ("v3") or a
    figure ("1.0", "4k") as it is."""
    return word if re.fullmatch(r"v?\d.*", word) else word[:1].upper() + word[1:]


#: Words of an all-lower-case id that are acronyms (or written so), with how people write them.
_LABEL_ACRONYMS = {"xl": "XL", "sdxl": "SDXL", "mpt": "MPT", "gpt": "GPT", "vl": "VL", "stablelm": "StableLM"}


@dataclass(frozen=True, slots=True)
class Resolved:
    """How a typed model name was read: the model, whether the name is one of its own names, the
    registry's note when it is not, and the models the user may have meant instead."""

    typed: str
    spec: ModelSpec
    exact: bool
    note: str
    alternatives: tuple[ModelSpec, ...]

    @property
    def renamed(self) -> bool:
        return self.typed.strip() != self.spec.name


IMAGES_TO_RANK = 1000  # the image count of the links that rank offers for an image model


def other_kind_error(error: WrongModelKind, label: str) -> FieldError:
    """The ``model`` field's error for a model of another kind than the page answers (an image or
    speech model on a language-model form, a language model on an image batch): what it is, with links
    to the pages that answer it (its model page; the advisor's image batch for an image model, its
    serving ranking for a language model) in place of the CLI commands the estimator's message names."""
    from gpuscout.estimate.arguments import FACES

    name, kind = error.model, error.kind
    what = FACES[kind][0] if kind in FACES else f"a {kind} model"
    page = f"/models/{quote(name)}"
    links: tuple[tuple[str, str], ...] = (("its page", page),)
    if kind == "llm":
        serve = urlencode({"kind": "serve", "model": name})
        links = (("its memory by GPU", page), ("rank offers for serving it", f"/advise?{serve}"))
    elif kind == "diffusion":
        batch = urlencode({"kind": "batch", "model": name, "images_total": IMAGES_TO_RANK})
        links = (
            ("its seconds per image by GPU", page),
            (f"rank offers for {IMAGES_TO_RANK:,} images", f"/advise?{batch}"),
        )
    elif kind == "audio":
        links = (("its transcription speed (RTFx) by GPU", page),)
    return FieldError("model", f"{label}: {name} is {what}, not {error.wanted}.", links=links)


def other_kind_words(error: WrongModelKind, *, api: bool = True) -> str:
    """The message of a model of another kind than a route answers, naming where the web app answers
    it (its API routes, or with ``api=False`` its pages) in place of the CLI commands the estimator's
    message names: "sdxl is an image (diffusion) model, not a language model: GET /api/v1/models/sdxl
    gives its seconds per image by GPU; POST /api/v1/advise with a batch workload of images_total ranks
    offers for it"."""
    from gpuscout.estimate.arguments import FACES

    name, kind = error.model, error.kind
    what = FACES[kind][0] if kind in FACES else f"a {kind} model"
    path = quote(name, safe="")
    if api:
        page = f"GET /api/v1/models/{path}"
        where = {
            "llm": f"GET /api/v1/estimate?{urlencode({'model': name, 'gpu': 'GPU'})} times it; POST "
            "/api/v1/advise (or /api/v1/recommend) with a serve, batch or finetune workload ranks offers "
            "for it",
            "diffusion": f"{page} gives its seconds per image by GPU; POST /api/v1/advise (or "
            f'/api/v1/recommend) with a batch workload, {{"kind": "batch", "model": "{name}", '
            f'"images_total": {IMAGES_TO_RANK}}}, ranks offers for it',
            "audio": f"{page} describes it and its page /models/{path} gives its transcription speed "
            "(RTFx) by GPU; no API route times it",
        }
    else:
        page = f"its page /models/{path}"
        batch = urlencode({"kind": "batch", "model": name, "images_total": IMAGES_TO_RANK})
        where = {
            "llm": f"{page} gives its memory by GPU; /advise?{urlencode({'kind': 'serve', 'model': name})} "
            "ranks offers for serving it",
            "diffusion": f"{page} gives its seconds per image by GPU; /advise?{batch} ranks offers for "
            f"{IMAGES_TO_RANK:,} images",
            "audio": f"{page} gives its transcription speed (RTFx) by GPU",
        }
    text = f"{name} is {what}, not {error.wanted}"
    return f"{text}: {where[kind]}" if kind in where else text


def resolve_typed(typed: str) -> Resolved:
    """Resolve ``typed`` among the curated and the user's imported models (``UnknownNameError`` with
    the closest names when unknown)."""
    from gpuscout.user_models import registry

    models = registry()
    found = models.resolve_detail(typed)
    spec = found.model
    alternatives: tuple[ModelSpec, ...] = ()
    if not found.exact:
        tokens = [t for t in re.split(r"[-_ .]+", typed.lower()) if t]
        size = next((t for t in tokens if re.fullmatch(r"\d+(\.\d+)?b", t)), None)
        stem = next((t for t in tokens if t.isalpha()), None)
        similar = [
            m
            for m in models.all()
            if m.name != spec.name
            and (stem is None or m.name.startswith(stem))
            and (size is None or size in m.name.split("-"))
        ]
        alternatives = tuple(sorted(similar, key=lambda m: m.name, reverse=True)[:3])
    return Resolved(typed, spec, found.exact, found.note, alternatives)


#: The GPUs an image model's page times it on: consumer, inference and training parts people rent for it.
IMAGE_GPUS: tuple[str, ...] = (
    "RTX4090",
    "RTX5090",
    "L4",
    "L40S",
    "A100-SXM4-80GB",
    "H100-SXM",
    "H200-SXM",
    "B200",
)


def table_gpus() -> list[Accelerator]:
    """The accelerators of :data:`IMAGE_GPUS`, in its order (those the table knows)."""
    by_name = {a.name: a for a in all_accelerators()}
    return [by_name[name] for name in IMAGE_GPUS if name in by_name]


@dataclass(frozen=True, slots=True)
class ImageRow:
    gpu: Accelerator
    fits: bool  # the whole pipeline on the GPU
    memory_gb: float  # peak per GPU, GB (1e9 bytes), as timed (with CPU offload where that is needed)
    seconds_per_image: float | None  # None: the pipeline does not fit, even with CPU offload
    images_per_hour: float | None
    cpu_offload: bool = False  # timed with diffusers' model CPU offload (the pipeline alone does not fit)


def image_basis() -> str:
    """What an image model's seconds per image rest on (the estimator's efficiency prior)."""
    from gpuscout.estimate.diffusion import (
        DENOISER_GEMM_EFFICIENCY,
        ELEMENTWISE_BANDWIDTH_SHARE,
        FA2_MMA_SYNC_EFFICIENCY,
        FA2_ON_HOPPER_EFFICIENCY,
    )

    return (
        f"Physics: convolutions and linear layers at {DENOISER_GEMM_EFFICIENCY:.2f} of each GPU's "
        "16-bit tensor peak (a prior, not a measurement, set by one RTX 4090 SDXL figure); attention at "
        f"FlashAttention-2's published fraction ({FA2_MMA_SYNC_EFFICIENCY:.2f} on Ampere/Ada, "
        f"{FA2_ON_HOPPER_EFFICIENCY:.2f} on Hopper/Blackwell); the element-wise kernels between them "
        f"(norms, activations, residual adds; bytes counted from the diffusers modules) at "
        f"{ELEMENTWISE_BANDWIDTH_SHARE:.0%} of the memory bandwidth"
    )


def _per_hour(images_per_s: float | None) -> float | None:
    """Images per hour, ``None`` where the estimate gives no speed (the pipeline does not fit)."""
    return None if images_per_s is None else images_per_s * 3600.0


@lru_cache(maxsize=64)
def image_rows(spec: ModelSpec) -> tuple[tuple[ImageRow, ...], str]:
    """An image model's seconds per image and peak memory on :data:`IMAGE_GPUS` at its usual steps and
    1024 x 1024 (one image at a time, the published weights), and what that setting is; none for a model
    the estimator has no pipeline profile of."""
    from gpuscout.estimate.diffusion import estimate_images

    rows: list[ImageRow] = []
    setting = ""
    for acc in table_gpus():
        try:
            est = estimate_images(spec, acc)
        except InvalidInputError:  # an image model the estimator has no pipeline profile of
            return (), ""
        setting = f"{est.width} x {est.height}, {est.steps} steps, {est.precision}, {est.engine}, batch 1"
        if est.fits:
            rows.append(
                ImageRow(acc, True, est.memory_gb, est.seconds_per_image, _per_hour(est.images_per_s))
            )
            continue
        # a pipeline the card cannot hold has no time (the estimate gives none): the offloaded one's,
        # where that fits
        off = estimate_images(spec, acc, cpu_offload=True)
        if off.fits:
            rows.append(
                ImageRow(acc, False, off.memory_gb, off.seconds_per_image, _per_hour(off.images_per_s), True)
            )
        else:
            rows.append(ImageRow(acc, False, est.memory_gb, None, None))
    return tuple(rows), setting


#: Windows decoded together in the speech table's batched column (30 s of audio each).
SPEECH_BATCH = 16


@dataclass(frozen=True, slots=True)
class SpeechRow:
    gpu: Accelerator
    fits: bool
    memory_gb: float  # peak per GPU at the batched setting, GB (1e9 bytes)
    realtime_one: float | None  # seconds of audio per wall-clock second, one window at a time
    realtime_batched: float | None  # the same, SPEECH_BATCH windows together (None: no speed)
    supported: bool = True  # whether the engine runs on this GPU at all (the platform rules)


@lru_cache(maxsize=16)
def speech_rows(spec: ModelSpec) -> tuple[tuple[SpeechRow, ...], str]:
    """A Whisper model's speed (RTFx: audio seconds per wall-clock second) on :data:`IMAGE_GPUS` one
    window at a time and
    :data:`SPEECH_BATCH` together (fp16, transformers), and the caveat its figures carry; none for an audio
    model the speech estimator cannot read."""
    from gpuscout.estimate.transcription import estimate_transcription

    rows: list[SpeechRow] = []
    caveat = ""
    for acc in table_gpus():
        try:
            one = estimate_transcription(spec, acc)
            many = estimate_transcription(spec, acc, batch=SPEECH_BATCH)
        except InvalidInputError:  # an audio model the speech estimator cannot read (not Whisper)
            return (), ""
        caveat = "; ".join(many.warnings)
        memory_gb = many.memory.total_gb
        rows.append(
            SpeechRow(acc, many.fits, memory_gb, one.realtime_factor, many.realtime_factor, many.supported)
        )
    return tuple(rows), caveat
