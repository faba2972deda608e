"""A post release is its own release (stop 62): ``--engine "sglang 0.4.9.post5"`` was read as 0.4.9 (the
version text cut ".post5", and the support rules' release parser took no ".postN"), so the rule that starts
at SGLang 0.4.9.post3 (a sliding layer keeps its window only) did not apply to it: Gemma-2-27B's KV cache
was sized at every layer's whole context. Releases now compare as PEP 440 orders them:
0.4.9 < 0.4.9.post3 < 0.4.9.post5 < 0.4.10; a pre-release is still judged as its release (stop 58)."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.engine_support import check_support, release_number

PER_LAYER_TOKEN = 2 * 16 * 128 * 2  # Gemma-2-27B: K and V, 16 KV heads x 128, bf16
FULL = 46 * 8192 * PER_LAYER_TOKEN  # 2.875 GiB: every layer the whole 8,192 tokens
WINDOWED = 23 * 8192 * PER_LAYER_TOKEN + 23 * 4096 * PER_LAYER_TOKEN  # 2.156 GiB: 23 layers keep 4,096


def test_post_releases_sit_between_their_release_and_the_next() -> None:
    order = ["0.4.8", "0.4.9", "0.4.9.post2", "0.4.9.post3", "0.4.9.post5", "0.4.9.1", "0.4.10", "0.5"]
    keys = [k for r in order if (k := release_number(r)) is not None]
    assert len(keys) == len(order)
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("v0.4.9.post3", "0.4.9.post3"),
        ("0.4.9-post3", "0.4.9.post3"),
        ("0.4.9post3", "0.4.9.post3"),
        ("0.20", "0.20.0"),
        ("0.4.9.post3", "0.4.9.0.post3"),
        ("0.4.9.post", "0.4.9.post0"),  # PEP 440: an implicit post number is 0
    ],
)
def test_one_release_written_two_ways_is_one_release(a: str, b: str) -> None:
    assert release_number(a) is not None
    assert release_number(a) == release_number(b)


@pytest.mark.parametrize("text", ["", "nightly", "0.x", "0.4.9.postx", "0.4.9.post3.post4", "0.9.0rc1"])
def test_what_is_no_release_number_is_none(text: str) -> None:
    assert release_number(text) is None


@pytest.mark.parametrize(
    ("name", "release", "era"),
    [
        ("sglang 0.4.9.post5", "0.4.9.post5", "0.4.4-0.4.x"),
        ("SGLang v0.4.9.post5", "0.4.9.post5", "0.4.4-0.4.x"),
        ("sglang 0.4.9-post5", "0.4.9.post5", "0.4.4-0.4.x"),
        ("sglang 0.4.3.post2", "0.4.3.post2", "0.4.0-0.4.3"),  # the era is the base release's
        ("vllm 0.8.5.post1", "0.8.5.post1", ""),
        ("vllm 0.6.3.post1", "0.6.3.post1", "v0"),
        ("sglang 0.4.9rc1", "0.4.9", "0.4.4-0.4.x"),  # a pre-release: judged as its release (stop 58)
        ("vllm v0.6.3.dev116", "0.6.3", "v0"),
    ],
)
def test_the_engine_text_keeps_its_post_release(name: str, release: str, era: str) -> None:
    p = resolve_engine(name)
    assert (p.version, p.era) == (release, era)


def _kv(engine: str) -> float:
    e = estimate("gemma-2-27b", "H100-SXM", engine=engine, context_in=4096, context_out=4096)
    return e.memory.kv_cache_gb * 1e9


@pytest.mark.parametrize(
    ("engine", "expected"),
    [
        ("sglang 0.4.9.post2", FULL),  # one token pool for every layer
        ("sglang 0.4.9.post3", WINDOWED),  # the hybrid SWA pool's first release
        ("sglang 0.4.9.post5", WINDOWED),
        ("sglang v0.4.9.post5", WINDOWED),
    ],
)
def test_sglang_keeps_a_sliding_layers_window_from_0_4_9_post3(engine: str, expected: float) -> None:
    assert _kv(engine) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("release", "supported"),
    [("0.4.5", False), ("0.4.5.post1", False), ("0.4.6", True), ("0.4.6.post1", True)],
)
def test_a_post_release_is_judged_against_a_bound_by_its_place(release: str, supported: bool) -> None:
    """SGLang on Blackwell is refused before 0.4.6 (``<0.4.6``): 0.4.5.post1 is before it, 0.4.6.post1 not."""
    assert check_support("sglang", "bf16", resolve_gpu("B200"), release=release).supported is supported
    assert estimate("llama-3.1-8b", "B200", engine=f"sglang {release}").supported is supported
