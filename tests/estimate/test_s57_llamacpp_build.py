"""A llama.cpp build tag ("b4000") was read as nothing and timed as today's builds without a word (stop 57):
no build-to-date table is kept here, so the estimate says so and names the year form that times the older
builds."""

from __future__ import annotations

from gpuscout import estimate
from gpuscout.estimate.engines import resolve_engine


def test_a_build_tag_is_said_to_be_timed_as_today() -> None:
    prof = resolve_engine("llama.cpp b4000")
    assert "build b4000 is not mapped to a date" in prof.version_note
    assert "'llama.cpp 2024'" in prof.version_note
    assert prof.step_overhead_us == resolve_engine("llama.cpp").step_overhead_us  # today's constants
    e = estimate("llama-3.1-8b", "RTX4090", precision="q4_k_m", engine="llama.cpp b4000")
    assert any("build b4000" in w for w in e.warnings)


def test_no_note_where_nothing_is_unread() -> None:
    assert resolve_engine("llama.cpp").version_note == ""
    assert resolve_engine("llama.cpp 2024").version_note == ""  # the year selects the 2023-2024 era
    assert resolve_engine("llama.cpp 2024").step_overhead_us != resolve_engine("llama.cpp").step_overhead_us
    assert resolve_engine("ollama").version_note == ""
    # a "b" word that is not a build tag after the engine's name is not one ("b200" is a GPU, 3 digits+)
    assert "build" not in resolve_engine("vllm b4000").version_note
