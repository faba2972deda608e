"""More names as users type them: a provider spelled with a hyphen or underscore ("vast-ai")
is the provider, and speech and image engine names pasted with look-alike characters resolve."""

from __future__ import annotations

import pytest

from gpuscout.estimate.diffusion import estimate_images
from gpuscout.estimate.transcription import estimate_transcription
from gpuscout.knowledge.providers import canonical_provider


@pytest.mark.parametrize(
    ("typed", "provider"),
    [
        ("vast-ai", "vastai"),
        ("Vast_AI", "vastai"),
        ("Prime_Intellect", "primeintellect"),
        ("lambda-labs", "lambda"),
        ("Lambda Labs", "lambda"),
        ("run-pod", "runpod"),
    ],
)
def test_a_provider_spelled_with_hyphens_or_underscores_is_the_provider(typed: str, provider: str) -> None:
    assert canonical_provider(typed) == provider


def test_an_unknown_provider_is_still_unknown() -> None:
    assert canonical_provider("vast-aix") is None


def test_speech_and_image_engines_pasted_with_look_alike_characters_resolve() -> None:
    plain = estimate_transcription("whisper-large-v3", "L4", engine="faster-whisper")
    pasted = estimate_transcription("whisper-large-v3", "L4", engine="faster\u2011whisper")
    assert pasted.realtime_factor == plain.realtime_factor
    image = estimate_images("sdxl", "L4", engine="\uff44iffusers")  # fullwidth d
    assert image == estimate_images("sdxl", "L4")


@pytest.mark.parametrize("typed", ["Q4-K-M", "gguf q4-k-m", "GGUF Q4-K-M"])
def test_llama_cpp_types_typed_with_hyphens_are_those_types(typed: str) -> None:
    from gpuscout.estimate.precision import resolve_precision

    assert resolve_precision(typed) == resolve_precision("Q4_K_M")


def test_a_hyphenated_name_that_is_no_type_is_still_refused() -> None:
    from gpuscout.errors import InvalidInputError
    from gpuscout.estimate.precision import resolve_precision

    with pytest.raises(InvalidInputError, match="precision"):
        resolve_precision("q4-k-x")
