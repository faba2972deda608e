"""A checkpoint whose config.json states another context window than its registry row: Qwen2.5's -Instruct
repos say max_position_embeddings 32,768 where the base repos of 1.5B and 7B-72B say 131,072. The
-Instruct name resolves to its own entry with that window: past it, the 1.5B (no YaRN documented) is
refused as llama-3.1-8b is past its window; the 7B-72B (YaRN factor 4 documented, to 131,072) are
estimated with a warning that rope scaling must be configured."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from gpuscout.advise.faq import faq
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate
from gpuscout.knowledge.models import resolve_model, resolve_model_detail
from tests.advise.helpers import NOW
from tests.advise.test_faq import OFFERS

YARN_SIZES = ("7B", "14B", "32B", "72B")
# what a checkpoint's entry may change of its row's spec: nothing of the architecture
OWN = {"name", "hf_id", "max_position_embeddings", "native_context", "aliases", "source", "notes"}


@pytest.mark.parametrize("size", YARN_SIZES)
def test_the_instruct_repo_has_its_own_window_and_the_base_architecture(size: str) -> None:
    base = resolve_model(f"qwen2.5-{size.lower()}")
    for typed in (
        f"Qwen/Qwen2.5-{size}-Instruct",
        f"qwen2.5-{size.lower()}-instruct",
        f"Qwen2.5 {size} Instruct",
    ):
        spec = resolve_model(typed)
        assert spec.name == f"qwen2.5-{size.lower()}-instruct"
        assert spec.hf_id == f"Qwen/Qwen2.5-{size}-Instruct"
        assert spec.native_context == 32_768  # config.json max_position_embeddings
        assert spec.max_position_embeddings == 4 * 32_768  # the model card's YaRN factor 4
        assert "config.json" in spec.source and "yarn" in spec.source.lower()
        for f in dataclasses.fields(spec):
            if f.name not in OWN:
                assert getattr(spec, f.name) == getattr(base, f.name), f.name
    # the base repo keeps its own config's window, with nothing to configure
    assert (base.max_position_embeddings, base.native_context) == (131_072, 0)


def test_a_quantized_instruct_checkpoint_keeps_the_instruct_window() -> None:
    res = resolve_model_detail("Qwen/Qwen2.5-72B-Instruct-AWQ")
    assert (res.model.name, res.precision) == ("qwen2.5-72b-instruct", "awq")
    assert res.model.native_context == 32_768


def test_every_checkpoint_entry_differs_from_its_row_and_says_where_its_window_comes_from() -> None:
    from gpuscout.knowledge.models import CHECKPOINT_WINDOWS

    for cw in CHECKPOINT_WINDOWS:
        row = resolve_model(cw.model)
        spec = resolve_model(cw.checkpoint)
        assert cw.window != row.max_position_embeddings, f"{cw.checkpoint}: no entry needed"
        assert spec.max_position_embeddings == cw.scaled_window
        assert "config.json" in cw.source and cw.source in spec.source


def test_past_the_native_window_the_instruct_model_is_estimated_with_a_rope_scaling_warning() -> None:
    e = estimate("Qwen/Qwen2.5-7B-Instruct", "A100-SXM4-80GB", batch=1, context_in=100_000, context_out=1000)
    said = [w for w in e.warnings if "native window of 32,768" in w]
    assert len(said) == 1, e.warnings
    warning = said[0]
    assert "101,000 tokens" in warning and "131,072" in warning
    assert '"factor": 4' in warning and '"original_max_position_embeddings": 32768' in warning
    assert "--hf-overrides" in warning and "short texts" in warning
    # within the native window there is nothing to configure; the base repo's window is 131,072
    short = estimate(
        "Qwen/Qwen2.5-7B-Instruct", "A100-SXM4-80GB", batch=1, context_in=20_000, context_out=1000
    )
    assert not any("native window" in w for w in short.warnings)
    base = estimate("qwen2.5-7b", "A100-SXM4-80GB", batch=1, context_in=100_000, context_out=1000)
    assert not any("native window" in w for w in base.warnings)


LLAMA_CPP_YARN = "--rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768"


@pytest.mark.parametrize(
    ("engine", "named", "not_named"),
    [
        ("llama.cpp", (LLAMA_CPP_YARN, "llama-server"), ("--hf-overrides", "vLLM", "SGLang", "refuses")),
        ("vllm", ('--hf-overrides \'{"rope_scaling": {', "vLLM refuses"), (LLAMA_CPP_YARN, "SGLang")),
        (
            "sglang",
            ('--json-model-override-args \'{"rope_scaling": {', "SGLang refuses"),
            ("--hf-overrides", "vLLM", "--rope-scale"),
        ),
        ("tgi", ("in the checkpoint's config.json",), ("--hf-overrides", "--rope-scale", "--json-model")),
        ("hf-transformers", ("in the checkpoint's config.json",), ("--hf-overrides", "--rope-scale")),
        ("tensorrt-llm", ("in the checkpoint's config.json",), ("--hf-overrides", "--rope-scale")),
    ],
)
def test_the_rope_scaling_advice_names_the_engine_estimated(
    engine: str, named: tuple[str, ...], not_named: tuple[str, ...]
) -> None:
    from gpuscout.estimate.arguments import past_native_window

    warning = past_native_window(resolve_model("qwen2.5-7b-instruct"), 61_000, engine)
    assert "native window of 32,768" in warning and "short texts" in warning
    for words in named:
        assert words in warning, (words, warning)
    for words in not_named:
        assert words not in warning, (words, warning)


def test_every_engine_told_how_to_set_yarn_is_a_profile() -> None:
    from gpuscout.estimate.arguments import REFUSE_PAST_WINDOW, YARN_SETTINGS
    from gpuscout.estimate.engines import engine_names

    assert set(YARN_SETTINGS) <= set(engine_names())
    assert set(REFUSE_PAST_WINDOW) <= set(YARN_SETTINGS)  # an engine that refuses is named refusing


def test_a_llama_cpp_estimate_past_the_native_window_gives_llama_cpp_flags() -> None:
    import gpuscout.estimate

    e = gpuscout.estimate.estimate(
        "qwen2.5-7b-instruct",
        "A100-SXM4-80GB",
        engine="llama.cpp",
        batch=1,
        context_in=60_000,
        context_out=1000,
    )
    said = [w for w in e.warnings if "native window of 32,768" in w]
    assert len(said) == 1, e.warnings
    assert LLAMA_CPP_YARN in said[0] and "short texts" in said[0]
    assert not any("--hf-overrides" in w or "vLLM" in w for w in e.warnings), e.warnings


def test_past_the_scaled_window_the_instruct_model_is_refused() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("Qwen/Qwen2.5-14B-Instruct", "H100", batch=1, context_in=140_000, context_out=1000)
    assert err.value.field == "context_in" and "131,072" in err.value.message


def test_the_1_5b_instruct_is_refused_past_its_32k_window_on_every_face() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate(
            "Qwen/Qwen2.5-1.5B-Instruct", "A100-SXM4-80GB", batch=1, context_in=100_000, context_out=1000
        )
    assert err.value.field == "context_in" and "32,768" in err.value.message
    res = CliRunner().invoke(
        app,
        ["estimate", "Qwen/Qwen2.5-1.5B-Instruct", "--gpu", "A100-SXM4-80GB", "--context-in", "100k"],
    )
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "--context-in" in res.stderr and "<= 32768" in res.stderr
    with pytest.raises(InvalidInputError) as faq_err:
        faq("Qwen/Qwen2.5-1.5B-Instruct", OFFERS, context=100_000, now=NOW)
    assert faq_err.value.field == "context" and "32,768" in faq_err.value.message


def test_the_engine_default_length_is_the_checkpoints_own_window() -> None:
    # vLLM derives max_model_len from config.json: 32,768 for the -Instruct repo, so at 2.5k tokens it starts
    # on a 24 GB card (it does not need the 131,072 its model card reaches with YaRN)
    from gpuscout import estimate
    from gpuscout.estimate.api import derived_model_len
    from gpuscout.knowledge.models import resolve_model

    spec = resolve_model("Qwen/Qwen2.5-7B-Instruct")
    assert derived_model_len(spec, 2_500) == 32_768
    assert derived_model_len(spec, 50_500) == 131_072  # rope scaling configured: the scaled window
    est = estimate("Qwen/Qwen2.5-7B-Instruct", "RTX 4090", engine="vllm", context_in=2000, context_out=500)
    assert not any("refuses to start at its default max_model_len" in w for w in est.warnings)
    base = estimate("qwen2.5-7b", "RTX 4090", engine="vllm", context_in=2000, context_out=500)
    assert any("refuses to start at its default max_model_len 131,072" in w for w in base.warnings)


def test_a_near_miss_of_an_instruct_id_suggests_it() -> None:
    import pytest

    from gpuscout.errors import UnknownNameError
    from gpuscout.knowledge.models import resolve_model

    with pytest.raises(UnknownNameError) as err:
        resolve_model("Qwen/Qwen2.5-7B-Instruct-foo")
    assert "qwen2.5-7b-instruct" in str(err.value)
