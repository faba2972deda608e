"""Launch flags written after an engine's name are read as the engine was started, the same way the
benchmark reads a measurement's command line; a flag gpuscout does not model is named, never dropped."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.launch_flags import read_flags, split_flags


def test_each_flag_and_its_aliases_in_other_engines() -> None:
    vllm = read_flags(
        "--gpu-memory-utilization 0.95 --max-num-seqs 512 --max-num-batched-tokens 4096 "
        "--max-model-len 32768 --enable-chunked-prefill=false"
    )
    assert vllm.settings == {
        "memory_utilization": 0.95,
        "max_num_seqs": 512,
        "max_num_batched_tokens": 4096,
        "max_model_len": 32768,
        "enable_chunked_prefill": False,
    }
    assert vllm.ignored == ()
    sglang = read_flags(
        "--mem-fraction-static 0.8 --max-running-requests 64 --chunked-prefill-size 2048 "
        "--context-length 8192"
    )
    assert sglang.settings == {
        "memory_utilization": 0.8,
        "max_num_seqs": 64,
        "max_num_batched_tokens": 2048,
        "max_model_len": 8192,
    }
    trt = read_flags("--max_batch_size 128 --max_num_tokens 8192")
    assert trt.settings == {"max_num_seqs": 128, "max_num_batched_tokens": 8192}
    assert read_flags("--enable-chunked-prefill").settings == {"enable_chunked_prefill": True}


def test_a_flag_not_modelled_is_listed_and_a_known_variant_is_not() -> None:
    flags = read_flags(
        "--max-num-seqs 8 --swap-space 16 --enforce-eager --trust-remote-code", known=(r"enforce[-_ ]eager",)
    )
    assert flags.settings == {"max_num_seqs": 8}
    assert flags.ignored == ("--swap-space 16", "--trust-remote-code")


def test_a_value_out_of_range_is_an_error_naming_the_flag_or_skipped_in_free_text() -> None:
    with pytest.raises(InvalidInputError) as err:
        read_flags("--gpu-memory-utilization 1.5")
    assert err.value.field == "engine" and "--gpu-memory-utilization" in str(err.value)
    assert "from 0.1 to 1" in str(err.value)
    with pytest.raises(InvalidInputError, match="an integer"):
        read_flags("--max-num-seqs 2.5")
    assert read_flags("notes say gpu_memory_utilization=1.5", strict=False).settings == {}
    with pytest.raises(InvalidInputError, match="--max-num-seqs needs a value"):
        read_flags("--max-num-seqs --enforce-eager")
    with pytest.raises(InvalidInputError, match="out of range"):
        read_flags("--max-num-seqs 0")


def test_the_name_ends_at_the_first_flag_outside_parentheses() -> None:
    assert split_flags("vllm 0.6.3 --num-scheduler-steps 10") == ("vllm 0.6.3", "--num-scheduler-steps 10")
    assert split_flags("vLLM 0.9.1 (--enforce-eager)") == ("vLLM 0.9.1 (--enforce-eager)", "")
    assert split_flags("HF TGI v3.0 (launcher --num-shard N) --max-batch-size 4")[1] == "--max-batch-size 4"


def test_a_flags_value_is_not_read_as_the_engines_version() -> None:
    # "0.5" after --gpu-memory-utilization is not vLLM 0.5 (the V0 engine)
    today = resolve_engine("vllm --gpu-memory-utilization 0.5")
    assert "V0" not in today.label and today.memory_utilization == 0.5
    old = resolve_engine("vllm 0.6.3 --gpu-memory-utilization 0.5")
    assert "V0" in old.label and old.memory_utilization == 0.5


def test_multi_step_scheduling_divides_the_host_costs_per_step() -> None:
    # vLLM 0.6 --num-scheduler-steps 10: one scheduler pass (its per-step and per-sequence host work)
    # per 10 decode steps
    v0 = resolve_engine("vllm 0.6.3")
    multi = resolve_engine("vllm 0.6.3 --num-scheduler-steps 10")
    assert multi.multi_step == 10
    assert multi.step_overhead_us == pytest.approx(v0.step_overhead_us / 10)
    assert multi.seq_overhead_us == pytest.approx(v0.seq_overhead_us / 10)


def _run(engine: str) -> tuple[dict[str, str], list[str]]:
    est = estimate(
        "llama-3.1-8b", "H100-SXM", engine=engine, context_in=1000, context_out=200, concurrency=600
    )
    return est.assumptions, list(est.warnings)


def test_the_estimate_runs_the_engine_as_started_and_says_so() -> None:
    # an 8B on an H100 holds ~369 sequences of 1.2k tokens, ~401 of the 1.1k a request holds on average
    # (1,000 + 200 / 2: vLLM's cache grows as it generates); vLLM allows 1024 there unless told otherwise
    assumptions, warnings = _run("vllm")
    assert "(cap 401, KV cache)" in assumptions["load"] and "launch_flags" not in assumptions
    # a stated cap stands, even one equal to vLLM's small-GPU default
    assumptions, _ = _run("vllm --max-num-seqs 256")
    assert "(cap 256, scheduler)" in assumptions["load"]
    assert assumptions["launch_flags"] == "as stated: max_num_seqs 256"
    # less memory for the cache: 0.8 of 85.5 GB leaves ~8.5 GB less, ~55 fewer sequences (~347 of 1.1k
    # tokens); the 2,048-token step budget binds first: 2048 x 200 / 1,200 = 341 in a steady flow
    assumptions, _ = _run("vllm --gpu-memory-utilization 0.8 --max-num-batched-tokens 2048")
    assert assumptions["memory_budget"].startswith("0.80 of")
    assert "2048 tokens/step" in assumptions["batching"]
    assert "(cap 341, prefill budget)" in assumptions["load"]
    # what it cannot model it names
    _, warnings = _run("vllm --disable-log-stats --enforce-eager")
    ignored = [w for w in warnings if "ignored" in w]
    assert len(ignored) == 1 and "--disable-log-stats" in ignored[0] and "enforce" not in ignored[0]


@pytest.mark.parametrize(
    ("engine", "input_named"),
    [
        ("vllm --tensor-parallel-size 2", "CLI --gpus N)"),
        ("vllm -tp 2", "CLI --gpus N)"),
        ("sglang --tp 4", "CLI --gpus N)"),
        ("vllm --pipeline-parallel-size=2", "--parallel layer"),
        ("sglang --dp-size 2", "--parallel replicas"),
    ],
)
def test_a_layout_flag_is_an_error_naming_the_input_that_sets_the_layout(
    engine: str, input_named: str
) -> None:
    # "vllm --tensor-parallel-size 2" was ignored with a warning and answered for one GPU ("-tp 2" silently)
    with pytest.raises(InvalidInputError, match="sets the parallel layout") as err:
        estimate("llama-3.1-8b", "H100", engine=engine)
    assert err.value.field == "engine" and input_named in str(err.value)


def test_a_negative_value_is_out_of_range_not_missing() -> None:
    with pytest.raises(InvalidInputError, match="--max-num-seqs -1 is out of range"):
        estimate("llama-3.1-8b", "H100", engine="vllm --max-num-seqs -1")
