"""Support verdicts whose reason, source or label contradicted the verdict (review of the support rules).

Each case can be checked by hand against ``src/gpuscout/knowledge/data/engine_support.csv`` and the
reference matrix (``tests/fixtures/reference/engine_support.md``): §3 TGI "no AWQ on ROCm", §3 llama.cpp
"120a/121a real for Blackwell FP4" / NVFP4 "CUDA PR #21896", §2 bitsandbytes "LLM.int8() 7.5+", the
vLLM/TGI plugin and backend rows for TPU and Neuron.
"""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.support import can_run
from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu
from gpuscout.knowledge.engine_support import ENGINES, check_support, platform_of

TGI_AMD_DOC = "docs/source/installation_amd.md"
BNB_DOC = "bitsandbytes/blob/95f9af309d4d5793847169c39288dcd3fcbdf564/docs/source/installation.mdx"


# 1. AWQ is int4, but TGI runs GPTQ on ROCm, not AWQ


def test_tgi_refuses_awq_on_rocm_and_runs_gptq_there() -> None:
    """TGI on an MI300X: an AWQ checkpoint is refused with the sourced ROCm reason; GPTQ (and int4 asked
    without a format) runs weight-only through Exllama."""
    awq = can_run("tgi", "awq", "MI300X")
    assert not awq.supported
    assert awq.verdict.tag == "sourced"
    assert "AWQ" in awq.verdict.reason and "ROCm" in awq.verdict.reason
    assert any(s.endswith(TGI_AMD_DOC) for s in awq.verdict.sources)
    assert awq.verdict.message().startswith("tgi: int4 (AWQ) on MI300X is not supported")
    # what would run instead: the same engine with the format it does load there
    assert "tgi with GPTQ int4 (weight-only)" in [a.message() for a in awq.alternatives]
    for spelling in ("gptq", "int4-gptq", "int4"):
        check = can_run("tgi", spelling, "MI300X")
        assert check.mode == "weight-only", spelling
        assert "GPTQ" in check.verdict.reason


def test_estimate_refuses_an_awq_checkpoint_for_tgi_on_rocm() -> None:
    """The estimator gives no speed for it, whether AWQ is asked as the precision or named by the
    checkpoint."""
    asked = estimate("llama-3.1-8b", "MI300X", engine="tgi", precision="awq")
    assert asked.supported is False and "not supported on ROCm" in asked.unsupported_reason
    by_name = estimate("Qwen3-14B-AWQ", "MI300X", engine="tgi")
    assert by_name.supported is False and "AWQ" in by_name.unsupported_reason
    assert estimate("llama-3.1-8b", "MI300X", engine="tgi", precision="gptq").supported is True


def test_the_format_narrows_only_where_a_rule_says_so() -> None:
    """vLLM runs AWQ and GPTQ alike: the format asked changes nothing there (same rule, same verdict)."""
    for gpu in ("MI300X", "A100", "T4"):
        acc = resolve_gpu(gpu)
        plain = check_support("vllm", "int4", acc)
        for fmt in ("awq", "gptq"):
            v = check_support("vllm", "int4", acc, fmt)
            assert (v.mode, v.reason, v.precision_rule) == (plain.mode, plain.reason, plain.precision_rule)


def test_an_awq_reason_speaks_of_awq() -> None:
    """TGI below CC 8.0 (T4): AWQ asked gets an AWQ reason, not the GPTQ fallback's. Across every engine and
    GPU, a reason given for an AWQ checkpoint never speaks of GPTQ alone (nor one for GPTQ of AWQ alone)."""
    t4 = can_run("tgi", "awq", "T4").verdict
    assert "AWQ" in t4.reason and "GPTQ below CC 8.0" not in t4.reason
    assert "GPTQ below CC 8.0" in can_run("tgi", "gptq", "T4").verdict.reason
    for acc in all_accelerators():
        for engine in ENGINES:
            for fmt, other in (("awq", "GPTQ"), ("gptq", "AWQ")):
                reason = check_support(engine, "int4", acc, fmt).reason
                assert other not in reason or fmt.upper() in reason, (engine, acc.name, fmt, reason)


# 2. llama.cpp NVFP4 on a CC 10.x Blackwell


def test_llamacpp_nvfp4_on_b200_says_what_the_source_leaves_open() -> None:
    """B200 is Blackwell (CC 10.0); the sources give llama.cpp's FP4 tensor-core path for 120a/121a
    (CC 12.x) only: no support is claimed, and the reason says CC 10.x is not confirmed instead of "outside
    Blackwell"."""
    for gpu in ("B200", "B300"):
        v = can_run("llama.cpp", "nvfp4", gpu).verdict
        assert not v.supported and v.tag == "unverified"
        assert "not confirmed" in v.reason and "CC 10" in v.reason
        assert "outside Blackwell" not in v.reason
        assert "https://github.com/ggml-org/llama.cpp/pull/21896" in v.sources
    assert can_run("llama.cpp", "nvfp4", "RTX5090").mode == "native"  # CC 12.0: the 120a build
    for acc in all_accelerators():
        if "blackwell" in acc.architecture.lower():
            assert "outside Blackwell" not in check_support("llama.cpp", "nvfp4", acc).reason, acc.name


# 3. transformers int8 (LLM.int8()) on a V100


@pytest.mark.parametrize("gpu", ["V100-SXM2-32GB", "P100-PCIe-16GB"])
def test_llm_int8_below_turing_is_refused_by_its_sourced_rule(gpu: str) -> None:
    v = can_run("hf", "int8", gpu).verdict
    assert not v.supported
    assert v.tag == "sourced"
    assert "LLM.int8()" in v.reason and "7.5" in v.reason
    assert v.precision_rule is not None and v.precision_rule.source_url.endswith(BNB_DOC)
    assert can_run("hf", "int8", "T4").mode == "weight-only"  # CC 7.5: the same rule's floor


# 4. the source shown is the platform's own


@pytest.mark.parametrize(
    ("gpu", "engine", "own", "foreign"),
    [
        ("TPU-v5e", "vllm", "https://github.com/vllm-project/tpu-inference", "gpu.rocm.inc.md"),
        ("Trainium1", "tgi", "docs/source/backends/neuron.md", TGI_AMD_DOC),
    ],
)
def test_the_support_line_cites_the_platforms_source(gpu: str, engine: str, own: str, foreign: str) -> None:
    support = estimate("llama-3.1-8b", gpu, engine=engine).assumptions["support"]
    assert own in support
    assert foreign not in support


def test_a_16_bit_verdict_off_nvidia_cites_a_source_of_its_platform() -> None:
    """For every engine on every non-NVIDIA accelerator it runs on, the rule that decides bf16 shares a
    source with the platform's own rule (no ROCm page for a TPU, no AMD install guide for Trainium)."""
    for acc in all_accelerators():
        if platform_of(acc).family == "nvidia":
            continue
        for engine in ENGINES:
            v = check_support(engine, "bf16", acc)
            if not v.supported or v.precision_rule is None or v.platform_rule is None:
                continue
            shared = set(v.precision_rule.sources) & set(v.platform_rule.sources)
            assert shared, (acc.name, engine, v.precision_rule.source_url)


# 5. the memory budget's card label


@pytest.mark.parametrize(
    ("gpu", "label"),
    [
        ("L4", "22.5 GiB usable of the card's 24 GiB, with ECC"),  # 23,034 MiB reported
        ("A10G", "22.5 GiB usable of the card's 24 GiB, with ECC"),  # 23,028 MiB reported
        ("H200", "the card's 141 GiB"),  # no reported figure recorded: the nominal, in binary units
    ],
)
def test_card_memory_label_states_the_card(gpu: str, label: str) -> None:
    from gpuscout.estimate.memory import GIB, capacity_bytes, card_memory_label

    acc = resolve_gpu(gpu)
    assert card_memory_label(acc) == label
    # the GiB the label states first is where the budget starts (the driver keeps ~0.4 % of a nominal one)
    stated = float(label.removeprefix("the card's ").split(" GiB")[0])
    assert capacity_bytes(acc) / GIB == pytest.approx(stated, rel=0.005)


def test_memory_budget_line_uses_the_card_label() -> None:
    from gpuscout.estimate.memory import card_memory_label

    budget = estimate("llama-3.1-8b", "L4", engine="vllm").assumptions["memory_budget"]
    assert "24 GiB card" not in budget
    assert card_memory_label(resolve_gpu("L4")) in budget


@pytest.mark.parametrize("gpu", ["RTX-4090", "L4", "H200"])
def test_memory_budget_names_the_card_once_in_gib(gpu: str) -> None:
    # "1.00 of 23.9 GiB (24 GB card, 24 GiB)" read as two cards, in two units: the card once, in GiB
    budget = estimate("llama-3.1-8b", gpu, engine="llama.cpp").assumptions["memory_budget"]
    card = resolve_gpu(gpu)
    assert " GB" not in budget
    assert budget.count(f"{card.memory_gb:g} GiB") == 1


def test_a_resolved_awq_format_keeps_its_checkpoint_through_estimate() -> None:
    # resolve_precision("awq") is int4 with checkpoint "awq"; estimate() took only its name ("int4") and
    # said TGI runs it on an MI300X, where precision="awq" and can_run refuse it
    from gpuscout.estimate.precision import resolve_precision

    fmt = resolve_precision("awq")
    by_object = estimate("llama-3.1-8b", "MI300X", precision=fmt, engine="tgi")
    by_name = estimate("llama-3.1-8b", "MI300X", precision="awq", engine="tgi")
    assert not by_object.supported and by_object.unsupported_reason == by_name.unsupported_reason
