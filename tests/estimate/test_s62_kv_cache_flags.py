"""The engine launch flags that set the KV cache's dtype size the cache (stop 62): ``vllm --kv-cache-dtype
fp8`` was named as an ignored flag and the cache sized in bf16, twice too big; so were SGLang's and TGI's
``--kv-cache-dtype`` and llama.cpp's ``-ctk`` / ``-ctv`` (``--cache-type-k`` / ``--cache-type-v``). Each
engine's own values are read; a flag that disagrees with ``kv_dtype``, and llama.cpp K and V caches of
different types, are input errors naming both; what the engine offers is judged as for ``kv_dtype``."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate, memory_needed
from gpuscout.estimate.launch_flags import read_flags

GGUF = {"precision": "q4_k_m"}


@pytest.mark.parametrize(
    ("engine", "extra", "kv"),
    [
        ("vllm --kv-cache-dtype fp8 --max-model-len 8192", {}, "fp8"),
        ("vllm --kv-cache-dtype fp8_e4m3", {}, "fp8"),
        ("vllm --kv_cache_dtype=fp8_e5m2", {}, "fp8"),
        ("sglang --kv-cache-dtype fp8_e5m2", {}, "fp8"),
        ("tgi --kv-cache-dtype fp8_e4m3fn", {}, "fp8"),
        ("llama.cpp -ctk q8_0 -ctv q8_0", GGUF, "q8_0"),
        ("llama.cpp --cache-type-k q4_0 --cache-type-v q4_0 -fa", GGUF, "q4_0"),
        ("llama.cpp -ctk f16 -ctv f16", GGUF, "fp16"),
    ],
)
def test_the_engines_kv_cache_flag_sets_the_cache_dtype(engine: str, extra: dict[str, str], kv: str) -> None:
    est = estimate("llama-3.1-8b", "RTX4090", engine=engine, **extra)  # type: ignore[arg-type]
    assert est.kv_dtype == kv  # was bf16 (fp16 for GGUF), the flag named as ignored
    ignored = [w.split("(read:")[0] for w in est.warnings if "ignored" in w]
    assert not any(f in w for w in ignored for f in ("cache", "-ct")), est.warnings


def test_an_fp8_flag_halves_the_cache_per_token_as_kv_dtype_does() -> None:
    flag = estimate("llama-3.1-8b", "RTX4090", engine="vllm --kv-cache-dtype fp8")
    field = estimate("llama-3.1-8b", "RTX4090", engine="vllm", kv_dtype="fp8")
    plain = estimate("llama-3.1-8b", "RTX4090", engine="vllm")
    assert flag.memory.kv_cache_gb == field.memory.kv_cache_gb == pytest.approx(plain.memory.kv_cache_gb / 2)
    need = memory_needed("llama-3.1-8b", "RTX4090", engine="llama.cpp -ctk q8_0 -ctv q8_0", **GGUF)  # type: ignore[arg-type]
    assert need.kv_dtype == "q8_0"  # vram reads the flags too


def test_auto_is_the_engines_default() -> None:
    est = estimate("llama-3.1-8b", "RTX4090", engine="vllm --kv-cache-dtype auto")
    assert est.kv_dtype == "bf16"
    assert estimate("llama-3.1-8b", "T4", engine="vllm --kv-cache-dtype auto").kv_dtype == "fp16"


def test_a_flag_that_disagrees_with_kv_dtype_is_an_error_naming_both() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "RTX4090", engine="vllm --kv-cache-dtype fp8", kv_dtype="bf16")
    said = str(err.value)
    assert err.value.field == "kv_dtype" and "--kv-cache-dtype fp8" in said and "bf16" in said
    with pytest.raises(InvalidInputError, match="-ctk q8_0 -ctv q8_0"):
        estimate("llama-3.1-8b", "RTX4090", engine="llama.cpp -ctk q8_0 -ctv q8_0", kv_dtype="q4_0", **GGUF)  # type: ignore[arg-type]
    # the same dtype said twice is no conflict (fp8_e5m2 is an fp8 cache)
    both = estimate("llama-3.1-8b", "RTX4090", engine="vllm --kv-cache-dtype fp8_e5m2", kv_dtype="fp8")
    assert both.kv_dtype == "fp8"


def test_llama_cpp_k_and_v_caches_of_different_types_are_refused_clearly() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "RTX4090", engine="llama.cpp -ctk q8_0 -ctv f16", **GGUF)  # type: ignore[arg-type]
    assert err.value.field == "engine" and "-ctk q8_0" in str(err.value) and "-ctv f16" in str(err.value)
    with pytest.raises(InvalidInputError, match=r"-ctv f16, llama\.cpp's default"):
        estimate("llama-3.1-8b", "RTX4090", engine="llama.cpp -ctk q8_0", **GGUF)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("engine", "accepted"),
    [
        ("vllm --kv-cache-dtype q8_0", "auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_ds_mla"),
        ("sglang --kv-cache-dtype fp8", "auto, fp8_e5m2, fp8_e4m3"),
        ("llama.cpp -ctk fp8 -ctv fp8", "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1"),
    ],
)
def test_a_value_the_engine_does_not_take_is_an_error_naming_those_it_takes(
    engine: str, accepted: str
) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "RTX4090", engine=engine)
    assert err.value.field == "engine" and err.value.accepted == accepted


def test_another_engines_flag_is_named_as_ignored_and_the_offer_rules_still_apply() -> None:
    est = estimate("llama-3.1-8b", "RTX4090", engine="vllm -ctk q8_0 -ctv q8_0")
    assert est.kv_dtype == "bf16" and any("-ctk q8_0" in w and "ignored" in w for w in est.warnings)
    hf = estimate("llama-3.1-8b", "RTX4090", engine="hf --kv-cache-dtype fp8")
    assert hf.kv_dtype == "bf16" and any("--kv-cache-dtype fp8" in w for w in hf.warnings)
    # vLLM's sparse-MLA cache format on a model without sparse MLA: refused as kv_dtype's is, on the engine
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "RTX4090", engine="vllm --kv-cache-dtype fp8_ds_mla")
    assert err.value.field == "engine" and "sparse MLA" in str(err.value)


def test_the_flags_are_read_as_stated_and_in_free_text() -> None:
    flags = read_flags("--kv-cache-dtype fp8_e5m2 --max-num-seqs 8", engine="vllm")
    assert flags.settings == {"kv_cache_dtype": "fp8", "max_num_seqs": 8} and flags.ignored == ()
    assert "kv_cache_dtype fp8 (--kv-cache-dtype fp8_e5m2)" in flags.stated
    # a measurement's notes: a value free text mangles is skipped, not an error
    assert read_flags("--kv-cache-dtype fp9", strict=False).settings == {}
    assert read_flags("-ctk q8_0 -ctv f16", strict=False).settings == {}
    with pytest.raises(InvalidInputError, match="--kv-cache-dtype needs a value"):
        read_flags("--kv-cache-dtype --enforce-eager", engine="vllm")
