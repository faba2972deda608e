"""Names pasted from web pages and PDFs, with look-alike characters, resolve as typed in ASCII.

Regression: ``gpuscout estimate "Llama‑3.1‑8B"`` (U+2011 non-breaking hyphen) answered "unknown name
...; closest known: llama-3.1-8b", and so did en/em dashes, U+2212 minus, U+2010 hyphen, fullwidth
letters and digits (``H１００``: "closest known: none close"), no-break and narrow no-break spaces
(U+00A0, U+202F) and zero-width characters (U+200B, U+FEFF). Every lookup (models, imported models,
GPUs, engines, precisions, providers) now folds them (``gpuscout.errors.fold_name``); a name still
unknown is shown as typed, escaped where a character cannot be seen.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuscout.errors import InvalidInputError, UnknownNameError, closest, fold_name
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_precision
from gpuscout.knowledge.accelerators import find_gpu, gpu_family, resolve_gpu
from gpuscout.knowledge.model_registry import ModelRegistry
from gpuscout.knowledge.models import is_entry_name, resolve_model, resolve_model_detail
from gpuscout.knowledge.providers import canonical_provider

#: One spelling per class of look-alike character the brief names
DASHES = {
    "U+2011 non-breaking hyphen": "\u2011",
    "U+2010 hyphen": "\u2010",
    "U+2013 en dash": "\u2013",
    "U+2014 em dash": "\u2014",
    "U+2212 minus sign": "\u2212",
    "U+FF0D fullwidth hyphen-minus": "\uff0d",
}
SPACES = {"U+00A0 no-break space": "\u00a0", "U+202F narrow no-break space": "\u202f"}
INVISIBLE = {"U+200B zero-width space": "\u200b", "U+FEFF byte-order mark": "\ufeff"}
FULLWIDTH = str.maketrans(
    {c: chr(ord(c) + 0xFEE0) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}
)


def test_fold_name_maps_each_class_to_ascii() -> None:
    for dash in DASHES.values():
        assert fold_name(f"Llama{dash}3.1{dash}8B") == "Llama-3.1-8B"
    for space in SPACES.values():
        assert fold_name(f"RTX{space}4090") == "RTX 4090"
    for mark in INVISIBLE.values():
        assert fold_name(f"{mark}llama-3.1{mark}-8b{mark}") == "llama-3.1-8b"
    assert fold_name("H100".translate(FULLWIDTH)) == "H100"
    assert fold_name("plain ascii-Name_1") == "plain ascii-Name_1"  # ASCII as it is (case and spaces kept)


@pytest.mark.parametrize("dash", DASHES.values(), ids=DASHES.keys())
def test_a_model_name_with_a_look_alike_dash_resolves(dash: str) -> None:
    typed = f"Llama{dash}3.1{dash}8B"
    assert resolve_model(typed).name == "llama-3.1-8b"
    assert is_entry_name(
        resolve_model("llama-3.1-8b"), typed
    )  # the CLI labels it llama-3.1-8b, no "(as ...)"


@pytest.mark.parametrize("mark", [*SPACES.values(), *INVISIBLE.values()], ids=[*SPACES, *INVISIBLE])
def test_a_model_name_with_odd_spaces_or_invisible_characters_resolves(mark: str) -> None:
    assert resolve_model(f"Llama{mark}3.1{mark}8B").name == "llama-3.1-8b"
    assert resolve_model(f"{mark}llama-3.1-8b{mark}").name == "llama-3.1-8b"


def test_a_fullwidth_model_name_and_a_quantised_checkpoint_resolve() -> None:
    assert resolve_model("Llama-3.1-8B".translate(FULLWIDTH)).name == "llama-3.1-8b"
    found = resolve_model_detail("Qwen3\u201114B\u2011AWQ")  # the checkpoint suffix is read after folding
    assert (found.model.name, found.precision) == (resolve_model("Qwen3-14B").name, "awq")


def test_an_imported_model_name_folds_too() -> None:
    spec = resolve_model("llama-3.1-8b")
    mine = replace(spec, name="my-tuned-llama", hf_id="me/My-Tuned-Llama", aliases=())
    registry = ModelRegistry.of([mine])
    assert registry.resolve("my\u2011tuned\u00a0llama").name == "my-tuned-llama"
    assert registry.resolve("\ufeffme/My\u2013Tuned\u2013Llama").name == "my-tuned-llama"


@pytest.mark.parametrize(
    ("typed", "part"),
    [
        ("H100".translate(FULLWIDTH) + " SXM", "H100-SXM"),
        ("H\uff11\uff10\uff10\u2011PCIe", "H100-PCIe"),
        ("RTX\u00a04090", "RTX4090"),
        ("RTX\u202f4090", "RTX4090"),
        ("RTX\u20114090", "RTX4090"),
        ("\ufeffA100\u200b 80GB SXM", "A100-SXM4-80GB"),
    ],
)
def test_a_gpu_name_with_look_alikes_resolves(typed: str, part: str) -> None:
    assert resolve_gpu(typed).name == part
    found = find_gpu(typed)
    assert found is not None and found.accelerator.name == part


def test_a_fullwidth_family_name_covers_its_variants() -> None:
    assert gpu_family("H100".translate(FULLWIDTH)) == gpu_family("H100")


def test_engine_precision_and_provider_names_fold() -> None:
    assert resolve_engine("TensorRT\u2011LLM").name == "tensorrt-llm"
    assert resolve_engine("\ufeffvLLM\u00a00.6.3") == resolve_engine("vLLM 0.6.3")
    assert resolve_engine("SGLang".translate(FULLWIDTH)).name == "sglang"
    assert resolve_precision("FP8".translate(FULLWIDTH)).name == "fp8"
    assert resolve_precision("int4\u2011g32").name == "int4-g32"
    assert resolve_precision("GGUF\u00a0Q4_K_M\u200b").name == resolve_precision("GGUF Q4_K_M").name
    assert canonical_provider("Lambda\u00a0Labs") == "lambda"
    assert canonical_provider("run\u200bpod") == "runpod"
    assert canonical_provider("Vast.ai".translate(FULLWIDTH)) == "vastai"


def test_a_name_still_unknown_errors_with_the_closest_names_shown_as_typed() -> None:
    with pytest.raises(UnknownNameError) as raised:
        resolve_model("Llama\u20113.1\u20118Bx")
    assert raised.value.name == "Llama\u20113.1\u20118Bx"  # as typed, not folded
    assert raised.value.suggestions[0] == "llama-3.1-8b"
    with pytest.raises(UnknownNameError) as raised:
        resolve_model("llama-3.1-8bx\u200b")
    assert "'llama-3.1-8bx\\u200b'" in str(raised.value)  # the invisible character shows
    assert "llama-3.1-8b" in raised.value.suggestions

    with pytest.raises(UnknownNameError) as raised:
        resolve_gpu("H1000".translate(FULLWIDTH))
    assert raised.value.name == "H1000".translate(FULLWIDTH)
    assert "H100-SXM" in raised.value.suggestions  # was "none close"
    with pytest.raises(UnknownNameError) as raised:
        resolve_gpu("RTX\u00a04090x\u200b")
    assert "'RTX\\xa04090x\\u200b'" in str(raised.value)
    assert "RTX4090" in raised.value.suggestions

    with pytest.raises(UnknownNameError) as raised:
        resolve_engine("vlm\u2011x")
    assert raised.value.name == "vlm\u2011x"
    with pytest.raises(InvalidInputError, match="unknown precision"):
        resolve_precision("int3\u200b")
    assert canonical_provider("no\u2011such\u00a0cloud") is None


def test_closest_folds_both_sides() -> None:
    assert closest("H\uff11\uff10\uff10", ["H100", "B200"], n=1) == ["H100"]  # was none
    assert closest("h100-sxm", ["H\u2011100\u2011SXM"], n=1) == [
        "H\u2011100\u2011SXM"
    ]  # returns the name as known
