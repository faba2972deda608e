"""Which engines run models with linear-attention layers (Gated DeltaNet: Qwen3-Next, Qwen3.5), as read.

Such a layer keeps a fixed-size state per sequence instead of a KV cache, so an engine needs its own
kernels (the gated delta rule, a causal convolution) and its own cache manager for that state before it
can load the model. gpuscout models the engines whose source it has read doing both; for the others it
has read nothing that says they do, and refuses rather than time a model the engine may not load:

* vLLM: ``Qwen3NextForCausalLM`` registered from 0.10.2 (absent in 0.10.1.1), ``Qwen3_5MoeForConditional
  Generation`` from 0.17.0 (absent in 0.16.0) (``vllm/model_executor/models/registry.py`` of the PyPI
  sdists); its hybrid cache keeps the states beside the paged KV cache (``MambaSpec``).
* SGLang: ``sglang/srt/models/qwen3_next.py`` from 0.5.2 (absent in 0.5.1.post3), ``qwen3_5.py`` from 0.5.9
  (absent in 0.5.8.post1) (PyPI wheels).
* HF transformers: ``models/qwen3_next`` from 4.57.0 (absent in 4.56.2), ``models/qwen3_5_moe`` from 5.2.0
  (absent in 5.1.0) (PyPI wheels).
* llama.cpp: ``LLM_ARCH_QWEN3NEXT`` and ``LLM_ARCH_QWEN35MOE`` in the llama.cpp that llama-cpp-python
  0.3.17 (PyPI, March 2026) vendors; which build added them was not read.

TGI (in maintenance mode since its 3.3 releases) and TensorRT-LLM: no source read says they load Qwen3-Next,
so an estimate for them is refused with that reason (a claim either way would be a guess). For Qwen3.5,
aiconfigurator-core 0.12.0's support matrix lists TensorRT-LLM 1.3.0rc20 as passing; how it keeps the states
was not read, and its refusal says that instead (:data:`SEEN_NOT_MODELLED`).
"""

from __future__ import annotations

from gpuscout.knowledge.model_types import ModelSpec

#: engines gpuscout models running linear-attention layers -> where that is read
LINEAR_ATTENTION_ENGINES: dict[str, str] = {
    "vllm": "vLLM 0.10.2 (Qwen3-Next) and 0.17.0 (Qwen3.5) sdists on PyPI: model_executor/models/registry.py",
    "sglang": "SGLang 0.5.2 (Qwen3-Next) and 0.5.9 (Qwen3.5) wheels on PyPI: "
    "srt/models/qwen3_next.py, qwen3_5.py",
    "hf-transformers": "transformers 4.57.0 (Qwen3-Next) and 5.2.0 (Qwen3.5) wheels on PyPI: "
    "models/qwen3_next, models/qwen3_5_moe",
    "llama.cpp": "llama.cpp as vendored by llama-cpp-python 0.3.17 (PyPI, March 2026): src/llama-arch.cpp "
    "LLM_ARCH_QWEN3NEXT, LLM_ARCH_QWEN35MOE",
}


#: (engine, model family) pairs a source shows running, whose handling of the states was not read: the
#: refusal says so rather than "no source"
SEEN_NOT_MODELLED: dict[tuple[str, str], str] = {
    ("tensorrt-llm", family): (
        "aiconfigurator-core 0.12.0's support matrix (systems/support_matrix/*.csv in its PyPI wheel) lists "
        "Qwen3.5 on TensorRT-LLM 1.3.0rc20 as passing, but how TensorRT-LLM keeps the linear-attention "
        "states (their dtype and allocation) was not read"
    )
    for family in ("qwen3_5", "qwen3_5_moe")
}

#: How HF transformers runs the gated delta rule (read in transformers 5.25.0's ``modeling_qwen3_next.py``:
#: ``use_kernel_func_from_hub_with_fallback("chunk_gated_delta_rule", "fla")``)
HF_GATED_DELTA_RULE_NOTE = (
    "HF transformers timed with flash-linear-attention's gated delta rule kernels, which transformers 5.x "
    "takes from the kernels hub (or the fla package); without them it falls back to a PyTorch loop over "
    "chunks and tokens, far slower and not modelled"
)

#: Accelerator vendors whose GPUs the engines above run the gated delta rule on: vLLM 0.33.0's
#: ``qwen_gdn_linear_attn.py`` picks CUDA kernels (flash-linear-attention's Triton ones, FlashInfer, CuTe
#: DSL) or ROCm ones (AITER, Triton); TPU, Gaudi and Neuron run vLLM through plugins not read here
LINEAR_ATTENTION_VENDORS = ("NVIDIA", "AMD")


def linear_attention_refusal(engine: str, label: str, spec: ModelSpec, vendor: str = "NVIDIA") -> str:
    """Why ``engine`` (shown as ``label``) is not modelled running ``spec``'s linear-attention layers on an
    accelerator of ``vendor``; "" where it is, or the model has none."""
    if not spec.linear_layers:
        return ""
    mixes = (
        f"{spec.name} mixes {spec.linear_layers} linear-attention (Gated DeltaNet) layers, which keep a "
        f"fixed-size state per sequence, with {spec.attention_layers} attention layers; "
    )
    if engine not in LINEAR_ATTENTION_ENGINES:
        seen = SEEN_NOT_MODELLED.get((engine, spec.family))
        if seen:
            return f"{mixes}{seen}, so gpuscout does not estimate one there"
        unread = f"gpuscout has read no source that says {label} loads such a model"
        return f"{mixes}{unread}, so it does not estimate one there"
    if vendor not in LINEAR_ATTENTION_VENDORS:
        return mixes + (
            f"the gated delta rule's kernels are read running on NVIDIA and AMD GPUs only, not on {vendor}'s "
            "accelerators (their engine plugins were not read), so gpuscout does not estimate one there"
        )
    return ""


def linear_attention_instead() -> str:
    """The engines that run such a model, as a refusal's ``instead``."""
    return (
        "vllm, sglang, hf-transformers or llama.cpp on an NVIDIA or AMD GPU, which run Gated DeltaNet layers "
        "(see the sources)"
    )


def linear_attention_training_refusal(spec: ModelSpec) -> tuple[str, str]:
    """(why, what is accepted instead) for a training estimate of a model with linear-attention layers:
    the training estimator's activation memory and FLOPs are those of softmax-attention layers, and the
    chunked gated delta rule's backward (what its kernels keep, what they recompute) was not read, so it
    does not size or time one."""
    return (
        f"training {spec.name} is not modelled: its {spec.linear_layers} linear-attention (Gated DeltaNet) "
        "layers' activation memory and backward pass (the chunked gated delta rule's kernels) were not "
        "read, and sizing them as attention layers would be a guess; its inference estimates are modelled",
        "a model without linear-attention layers",
    )
