"""A stated ``--max-model-len`` (SGLang: ``--context-length``) is checked against the context asked and
the model's window, in the Python API, the CLI and the web JSON API.

Hand-checkable: 6,000 prompt + 2,192 output tokens = 8,192, which ``--max-model-len 4096`` cannot hold
(vLLM answers such a request with a 400); 8,192 itself is fine. Llama 3.1 8B's window is 131,072
tokens: vLLM refuses ``--max-model-len 200000`` at start-up unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.api import EstimateSession, estimate, memory_needed
from gpuscout.estimate.engines import resolve_engine

MODEL, GPU = "llama-3.1-8b", "H100"
ASKED = {"context_in": 6_000, "context_out": 2_192}  # 8,192 tokens
runner = CliRunner()


def _refused(engine: str, **kw: int) -> InvalidInputError:
    with pytest.raises(InvalidInputError) as err:
        estimate(MODEL, GPU, engine=engine, **{**ASKED, **kw})
    assert not isinstance(err.value, ConfigurationRejected)  # bad input, not a hardware verdict
    return err.value


def test_a_max_model_len_shorter_than_the_context_is_an_input_error_naming_both() -> None:
    err = _refused("vllm --max-model-len 4096")
    assert err.field == "engine"
    text = str(err)
    assert (
        "--max-model-len 4096 is shorter than the 8,192-token context asked (context_in + context_out" in text
    )
    assert "6,000 + 2,192" in text
    assert err.accepted is not None and "8192" in err.accepted and "4096" in err.accepted


@pytest.mark.parametrize("length", [8_192, 16_384])
def test_a_max_model_len_that_holds_the_context_is_fine(length: int) -> None:
    est = estimate(MODEL, GPU, engine=f"vllm --max-model-len {length}", **ASKED)
    assert est.supported and est.context_in + est.context_out == 8_192


def test_one_token_short_is_refused() -> None:
    err = _refused("vllm --max-model-len 8191")
    assert "8191" in str(err) and "8,192" in str(err)


def test_sglang_context_length_is_named_as_sglang_spells_it() -> None:
    err = _refused("sglang --context-length 4096")
    assert err.field == "engine" and "--context-length 4096 is shorter" in str(err)


def test_a_session_refuses_it_as_estimate_does() -> None:
    session = EstimateSession()
    for _ in range(2):  # the second call would find a kept setup, were the first one kept
        with pytest.raises(InvalidInputError) as err:
            session(MODEL, GPU, engine="vllm --max-model-len 4096", batch=4, **ASKED)
        assert err.value.field == "engine"


def test_memory_needed_names_its_context() -> None:
    with pytest.raises(InvalidInputError) as err:
        memory_needed(MODEL, GPU, engine="vllm --max-model-len 4096", context=8_192)
    assert err.value.field == "engine" and "8,192-token context asked (context)" in str(err.value)
    assert memory_needed(MODEL, GPU, engine="vllm --max-model-len 8192", context=8_192).context == 8_192


@pytest.mark.parametrize(
    ("engine", "override"),
    [
        ("vllm --max-model-len 200000", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"),
        ("sglang --context-length 200000", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"),
    ],
)
def test_a_max_model_len_past_the_window_warns_naming_the_override(engine: str, override: str) -> None:
    """vLLM / SGLang refuse it unless an override is set, which the engine text cannot say (Qwen's SGLang
    benchmark ran Qwen3 at context_length=140000): a warning naming the window and the override, and a
    profile built in code is judged the same way; shorter than the context is still refused."""
    est = estimate(MODEL, GPU, engine=engine, **ASKED)
    assert any("131,072" in w and override in w for w in est.warnings)
    ok = estimate(MODEL, GPU, engine=engine.replace("200000", "131072"), **ASKED)
    assert not any("longer than" in w for w in ok.warnings)  # the window itself is fine
    prof = dataclasses.replace(resolve_engine("sglang"), max_model_len=140_000)
    est = estimate("qwen3-8b", GPU, engine=prof, **ASKED)
    assert any("40,960" in w and "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN" in w for w in est.warnings)
    with pytest.raises(InvalidInputError) as err:
        estimate("qwen3-8b", GPU, engine=dataclasses.replace(prof, max_model_len=4_096), **ASKED)
    assert err.value.field == "engine" and "--context-length 4096 is shorter" in str(err.value)


def test_llama_cpp_takes_a_long_context_with_a_warning() -> None:
    est = estimate(MODEL, "H100", precision="q4_k_m", engine="llama.cpp --context-length 200000", **ASKED)
    assert any("131,072" in w and "longer than" in w for w in est.warnings)


def test_the_cli_says_it_in_one_line_with_exit_2() -> None:
    base = ["estimate", MODEL, "--gpu", GPU, "--context-in", "6000", "--context-out", "2192"]
    res = runner.invoke(app, [*base, "--engine", "vllm --max-model-len 4096"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "engine: --max-model-len 4096 is shorter than the 8,192-token context asked" in res.stderr
    res = runner.invoke(app, [*base, "--engine", "vllm --max-model-len 8192", "--json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(
        app, ["vram", MODEL, "--gpu", GPU, "--context", "8192", "--engine", "vllm --max-model-len 4096"]
    )
    assert res.exit_code == 2 and "--max-model-len 4096" in res.stderr and "Traceback" not in res.output


def test_the_web_api_answers_422_naming_the_field(tmp_path: Path) -> None:
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    url = f"sqlite:///{tmp_path / 'store.db'}"
    client = TestClient(create_app(url, services=WebServices(url, cache_seconds=0)))
    params = {"model": MODEL, "gpu": GPU, "engine": "vllm --max-model-len 4096", **ASKED}
    res = client.get("/api/v1/estimate", params=params)
    assert res.status_code == 422
    body = res.json()
    assert (
        body["field"] == "engine" and "--max-model-len 4096" in body["message"] and "8,192" in body["message"]
    )
    res = client.get("/api/v1/estimate", params={**params, "engine": "vllm --max-model-len 8192"})
    assert res.status_code == 200
