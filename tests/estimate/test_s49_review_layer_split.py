"""Review of stop 49's layer-split change: diagnose's host share, its remedies, the split rule.

* A layer split's step reads the whole model, the GPUs in turn; where only its fullest GPU overflows, what
  sat in host memory is that GPU's shortfall (and any other's), not as much on every GPU: the PCIe bound
  takes the GPUs' shortfalls together over the weights and cache they hold together.
* Every "Fits:" remedy holds the batch measured (a would-fit setup sized for one sequence may not), and
  the formats are named one way.
* The split rule is the engine profile's (``layer_split_rule``), not its name; a split wider than the
  layers (a GPU without a layer) is refused.
* One rule for each layer's cached tokens (``kv_cache.layer_cached_tokens``); one host-link constant.
"""

from __future__ import annotations

import dataclasses
import math
import re
import subprocess
import sys

import pytest

from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.api import estimate, setup_as_run
from gpuscout.estimate.diagnose import HOST_OFFLOAD, _offload_verdict, diagnose
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.kv_cache import kv_bytes_per_sequence, kv_shape, layer_cached_tokens, windowed_layers
from gpuscout.estimate.memory import gib, layer_split_kv_shares, plan_memory, split_layers
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model

CONTEXT = 1024  # diagnose's default: it sizes that prompt and the token after it
R1_ON_4 = dict(model="deepseek-r1", gpu="RTXPRO6000-Server", gpus=4, precision="q4_k_m")
FITS = re.compile(r"^Fits: (?P<fmt>\S+) on (?:(?P<gpus>\d+) x (?P<gpu>\S+) \(|cards with the memory)")


def test_a_layer_split_holds_in_host_memory_what_its_gpus_lack_together() -> None:
    # DeepSeek-R1 Q4_K_M on 4 x 96 GiB, llama.cpp's layer split: 16 / 15 / 16 / 14 layers + the output;
    # the two 16-layer GPUs overflow, the others do not
    est = estimate(**R1_ON_4, batch=1, context_in=CONTEXT, context_out=1)
    assert est.parallel == "layer" and not est.fits
    spec, acc = resolve_model("deepseek-r1"), resolve_gpu("RTXPRO6000-Server")
    plan = plan_memory(
        spec, acc, resolve_precision(est.precision), resolve_kv_dtype(est.kv_dtype),
        resolve_engine(est.engine), batch=1, context=CONTEXT + 1, gpus=4, parallel="layer",
    )  # fmt: skip
    assert plan.total / 1e9 == pytest.approx(est.memory.total_gb)  # the estimate's plan
    gpus = (plan, *plan.other_gpus)
    short = [max(0.0, p.total - p.usable) for p in gpus]
    assert 0 < sum(short) < 4 * short[0] and min(short) == 0.0  # not every GPU overflows as the fullest
    held = sum(p.weights + p.kv_cache for p in gpus)

    d = diagnose(**R1_ON_4, measured_tps=5)
    assert d.bound == HOST_OFFLOAD
    # the step reads the whole model; what of it sat in host memory: the GPUs' shortfall over what they hold
    host_b = d.bytes_per_step * sum(short) / held
    # RTX PRO 6000 Server: PCIe Gen5 x16, 64 GB/s a direction, copies at 25/32 of it: 50 GB/s
    link_s = host_b / (50.0 * 1e9) + (d.bytes_per_step - host_b) / (acc.bandwidth_gbps * 1e9)
    assert d.pcie_ceiling_tps == pytest.approx(1.0 / link_s, rel=1e-9)
    assert f"Copying the {host_b / 1e9:,.1f} GB of each step held there" in d.verdict
    assert f"about {gib(sum(short) / 1e9):.1f} GiB in all" in d.verdict
    assert f"needs {gib(est.memory.total_gb):.1f} GiB on its fullest GPU" in d.verdict
    # carried in the estimate's memory, as the weights all the GPUs hold
    assert est.memory.gpus_short_gb == pytest.approx(sum(short) / 1e9)
    assert est.memory.gpus_kv_cache_gb == pytest.approx(sum(p.kv_cache for p in gpus) / 1e9)


def test_a_tensor_parallel_shortfall_is_still_per_gpu() -> None:
    d = diagnose("llama-3.1-70b", "RTX 4090", gpus=2, measured_tps=0.5)
    m = d.memory
    assert m is not None and not d.fits and m.gpus_weights_gb == 0.0
    short = m.total_gb - m.usable_gb
    assert f"about {gib(short):.1f} GiB per GPU sat in host memory" in d.verdict
    host_b = d.bytes_per_step * short / (m.weights_gb + m.kv_cache_gb)
    # RTX 4090: PCIe Gen4 x16, copies at 25 GB/s
    link_s = host_b / (25.0 * 1e9) + (d.bytes_per_step - host_b) / (d.peak_bandwidth_gbps * 1e9)
    assert d.pcie_ceiling_tps == pytest.approx(1.0 / link_s, rel=1e-9)


def test_a_step_that_reads_nothing_states_no_pcie_bound() -> None:
    # no ZeroDivisionError (the FAQ catches only GpuscoutError): no bound where nothing is read
    est = estimate("llama-3.1-70b", "RTX 4090", batch=1, context_in=CONTEXT, context_out=1)
    st = setup_as_run(resolve_model("llama-3.1-70b"), resolve_gpu("RTX 4090"), 1, est.precision, est.kv_dtype,
                      resolve_engine(est.engine), est.parallel, CONTEXT + 1)  # fmt: skip
    said, pcie = _offload_verdict(est, st, 0.0, 1.0, 10.0)
    assert pcie == 0.0 and said.startswith("Does not fit:") and "Copying" not in said


def test_every_fits_remedy_holds_the_batch_measured() -> None:
    # 8 x RTX 4090 holds Llama-3.1-70B bf16 for one sequence (estimate's would-fit), not for 128 of them
    batch = 128
    eight = estimate("llama-3.1-70b", "RTX 4090", gpus=8, batch=1, context_in=CONTEXT, context_out=1)
    assert eight.fits and 1 <= eight.max_batch < batch
    d = diagnose("llama-3.1-70b", "RTX 4090", measured_tps=0.1, batch=batch)
    assert d.bound == HOST_OFFLOAD and "8 x RTX4090" in d.would_fit
    assert not [s for s in d.suggestions if "8 x RTX4090" in s]
    for s in d.suggestions:
        found = FITS.match(s)
        assert found, s
        if found["gpus"]:
            e = estimate("llama-3.1-70b", found["gpu"], gpus=int(found["gpus"]), precision=found["fmt"],
                         batch=1, context_in=CONTEXT, context_out=1)  # fmt: skip
            assert e.fits and e.max_batch >= batch, s
    if not d.suggestions:  # estimate's would-fit is said, for what it holds
        assert f"Would fit one sequence (not {batch}): {d.would_fit}" in d.verdict


def test_the_remedies_name_a_format_one_way() -> None:
    # "q4_k_m" asked: the would-fit names it gguf-q4_k_m, and so does the bigger card's line
    d = diagnose(**R1_ON_4, measured_tps=5)
    named = {m["fmt"] for s in d.suggestions if (m := FITS.match(s))}
    assert len(d.suggestions) >= 2 and named == {"gguf-q4_k_m"}
    assert any("with the memory to hold it" in s for s in d.suggestions)


def test_host_link_is_one_constant_and_diagnose_does_not_load_diffusion() -> None:
    code = (
        "import sys, gpuscout.estimate.diagnose as d, gpuscout.estimate.parallel as p;"
        "assert 'gpuscout.estimate.diffusion' not in sys.modules, 'diffusion imported';"
        "import gpuscout.estimate.diffusion as f, gpuscout.estimate.training_speed as t;"
        "assert d.host_link_gbps is p.host_link_gbps is f.host_link_gbps is t.host_link_gbps"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_split_rule_is_the_profiles() -> None:
    llama_cpp, vllm = resolve_engine("llama.cpp"), resolve_engine("vllm")
    assert (llama_cpp.layer_split_rule, vllm.layer_split_rule) == ("llama.cpp", "pipeline")
    assert resolve_engine("ollama").layer_split_rule == "llama.cpp"
    # the rule, whatever the name: 61 layers on 4 GPUs
    as_llama_cpp = dataclasses.replace(vllm, layer_split_rule="llama.cpp")
    as_pipeline = dataclasses.replace(llama_cpp, layer_split_rule="pipeline")
    assert split_layers(61, 4, as_llama_cpp) == (16, 15, 16, 14)
    assert split_layers(61, 4, as_pipeline) == (15, 15, 16, 15)


@pytest.mark.parametrize("engine", ["vllm", "llama.cpp"])
def test_a_split_over_more_gpus_than_layers_is_refused(engine: str) -> None:
    eng = resolve_engine(engine)
    with pytest.raises(ConfigurationRejected) as err:
        split_layers(3, 8, eng)
    assert err.value.field == "gpus"
    spec = resolve_model("llama-3.2-1b")
    layers = spec.num_hidden_layers
    precision = "q4_k_m" if engine == "llama.cpp" else None
    with pytest.raises(ConfigurationRejected) as err:
        estimate(spec, "H100-SXM", gpus=layers + 1, engine=engine, parallel="layer", precision=precision)
    said = str(err.value)
    assert err.value.field == "gpus" and f"has {layers}" in said and f"at most {layers}" in said
    if engine == "llama.cpp":  # diagnose runs llama.cpp's layer split: refused the same way
        with pytest.raises(ConfigurationRejected):
            diagnose(spec, "H100-SXM", gpus=layers + 1, precision="q4_k_m", measured_tps=50)
    # as many GPUs as layers: sized, one layer each (llama.cpp: the last holds the output, its layer
    # before it on the GPU ahead)
    e = estimate(spec, "H100-SXM", gpus=layers, engine=engine, parallel="layer", precision=precision)
    assert e.fits


@pytest.mark.parametrize("engine", ["llama.cpp", "vllm"])
def test_no_gpu_of_a_split_holds_nothing(engine: str) -> None:
    # what the refusal rests on: within the layers, every GPU holds a layer (llama.cpp's last may hold
    # only the output layer)
    eng = resolve_engine(engine)
    for layers in range(1, 81):
        for gpus in range(2, layers + 1):
            counts = split_layers(layers, gpus, eng)
            assert sum(counts) == layers
            held = counts[:-1] if engine == "llama.cpp" else counts
            assert min(held) >= 1, (layers, gpus, counts)


def test_each_layers_cached_tokens_is_one_rule() -> None:
    # gemma-3-27b: every sixth layer full, the rest a 1,024-token window; llama.cpp's 256-token blocks
    spec = resolve_model("gemma-3-27b")
    window = spec.sliding_window or 0
    assert window and spec.layer_types
    held = layer_cached_tokens(spec, 65_000, 256)
    assert len(held) == spec.num_hidden_layers
    for tokens, kind in zip(held, spec.layer_types, strict=True):
        blocks = math.ceil((window if "sliding" in kind else 65_000) / 256)
        assert tokens == blocks * 256
    assert sum(windowed_layers(spec)) == kv_shape(spec).sliding_layers
    s = kv_shape(spec)
    fp16 = resolve_kv_dtype("fp16")
    assert kv_bytes_per_sequence(spec, fp16, 65_000, block_tokens=256) == pytest.approx(
        sum(held) * s.elements_per_layer * fp16.bytes_per_element, rel=1e-12
    )
    # a layer split's shares follow the same tokens
    eng = resolve_engine("llama.cpp")
    first = split_layers(spec.num_hidden_layers, 2, eng)[0]
    shares = layer_split_kv_shares(spec, 65_000, 2, eng, 256)
    assert shares[0] == pytest.approx(sum(held[:first]) / sum(held), rel=1e-12)
    # layers past the end of layer_types are full; a window without layer types windows every layer
    short = dataclasses.replace(spec, layer_types=spec.layer_types[:12])
    assert layer_cached_tokens(short, 65_000)[12:] == (65_000,) * (spec.num_hidden_layers - 12)
    every = dataclasses.replace(spec, layer_types=())
    assert set(layer_cached_tokens(every, 65_000)) == {window}
