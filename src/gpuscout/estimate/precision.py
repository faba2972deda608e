"""Weight formats and KV-cache dtypes: bytes per weight, which tensors stay wide, which tensor rate runs them.

A *weight format* says how many bits each weight costs in memory (scales and zero points included),
how the token embedding and the output head (lm_head) are stored, and which *compute class* the
matrix multiplies fall in. The compute class picks the peak rate of the accelerator that applies
(bf16 tensor cores, fp8 tensor cores, int8...) and is the key of engine efficiency profiles.

Effective bits per weight, with where each figure comes from:

- fp32 32, bf16/fp16 16.
- fp8 (e4m3, per-tensor or per-channel scale): 8.0; lm_head and embeddings stay bf16 in ModelOpt /
  vLLM / llm-compressor checkpoints.
- int8: 8 + a bf16 per-output-channel scale (negligible at hidden >= 2048) = 8.0.
- int4 AWQ / GPTQ, group 128: 4 + (16-bit scale + 16-bit zero) / 128 = 4.25 (the packed 4-bit zero
  used by some kernels gives 4.16; we keep the larger, conservative figure). lm_head and embeddings
  stay fp16 in AutoAWQ / AutoGPTQ checkpoints.
- int4 group 32 (gpt-fast int4 weight-only G=32): 4 + 32/32 = 5.0.
- nf4 (bitsandbytes QLoRA, double quant): 4 + 8/64 + 32/(64*256) = 4.127; embeddings/lm_head bf16.
- fp8-ffn (Meta's Llama 3.1 FP8 checkpoints, ``fbgemm_fp8``): the MLP weights in row-wise FP8 (8.0), the
  attention projections and the first and last decoder layers in bf16 (``attn_bits``, ``wide_layers``;
  Llama 3 paper, section 6.2: "We do not quantize parameters in the self-attention layers"; "we do not
  perform quantization in the first and last Transformer layers"). Llama 3.1 405B: 487 GB, not 410.
  Those bf16 weights are plain bf16 GEMMs: they run at the 16-bit tensor rate, the FP8 MLPs at the FP8
  one (``throughput.wide_body_params``: about a fifth of a Llama 3.1 body's weights).
- nvfp4: 4 + fp8 scale per 16 = 4.5; mxfp4: 4 + e8m0 scale per 32 = 4.25.
- mxfp4 (dense: every linear layer MXFP4) is stored at 4.25 bits everywhere, but which tensor rate its GEMMs
  run at is the engine's (the support rules, ``engine_support.csv``'s ``mxfp4:dense`` rows, judged apart from
  gpt-oss's experts-only MXFP4: ``estimate.support``). vLLM's, SGLang's and TensorRT-LLM's MXFP4 kernels on
  Blackwell are MoE ones that multiply by bf16 activations (W4A16) by default, and the sources name no W4A4
  MXFP4 linear kernel of theirs (vLLM loads dense MXFP4 layers through compressed-tensors' W4A4 MXFP4
  scheme, gated at CC 8.0, whose Blackwell kernel they do not give): their verdict is weight-only, the
  GEMMs at the 16-bit rate with the weight-only efficiencies. The FP4 rate (``CLASS_FP4``) stays where a
  rule says the format runs natively: llama.cpp's Blackwell MXFP4 MMA (activations quantised to MXFP4,
  PR #17906), and vLLM / SGLang on AMD gfx950 (native MX formats).
- mxfp4-moe (the gpt-oss checkpoint): the MoE experts in MXFP4 (4.25), attention, router, shared layers,
  embeddings and lm_head in bf16 (``quantization_config.modules_to_not_convert``). ``dense_bits`` carries
  the width of the non-expert body weights of such experts-only formats.
  Which tensor rate its GEMMs run at (``expert_activations``): the bf16 ones at the 16-bit rate on every
  GPU; the experts' MXFP4 weights are multiplied by bf16 activations (W4A16) by default in vLLM and
  SGLang (FlashInfer TRT-LLM-gen / CUTLASS MoE on SM100, Triton ``matmul_ogs`` on SM90, Marlin before,
  AITER / Triton on ROCm; W4A8 with MXFP8 activations only when opted in), so they too run at the 16-bit
  rate; on Hopper and the SM100 family in warpgroup-MMA kernels (wgmma / tcgen05), not at the share of
  the rate Marlin's mma.sync keeps there (``throughput.Setup.wgmma_experts``). No engine runs gpt-oss as
  W4A4 (FP4 activations) by default; TensorRT-LLM's Blackwell W4A8 (MXFP4 x MXFP8, tcgen05
  kind::f8f6f4) reaches at most the FP8 rate, never the FP4 one. The estimate
  takes W4A16 for every engine but llama.cpp, whose native Blackwell MXFP4 path quantises activations to
  MXFP4 for the FP4 MMA (PR #17906).
- int4-moe (Kimi-K2-Thinking's checkpoint, quantization-aware trained): the routed experts int4,
  compressed-tensors "pack-quantized", symmetric, one bf16 scale per group of 32 (4 + 16/32 = 4.5 bits);
  attention, the shared expert, the leading dense layer, embeddings and lm_head bf16 (``dense_bits``).
  Judged by the engines' int4 rules (a weight-only W4A16 format); its experts run in Marlin-style
  mma.sync MoE kernels (vLLM's and SGLang's compressed-tensors WNA16 MoE), not the warpgroup-MMA ones
  gpt-oss's MXFP4 experts get on Hopper (recalled, not read: ``throughput.Setup.wgmma_experts``).
- GGUF (llama.cpp). Block formats (bytes per block, ggml-common.h): Q4_0 4.5, Q4_1 5.0, Q5_0 5.5,
  Q5_1 6.0, Q8_0 8.5, Q2_K 2.625, Q3_K 3.4375, Q4_K 4.5, Q5_K 5.5, Q6_K 6.5625, IQ1_S 1.5625, IQ1_M
  1.75, IQ2_XXS 2.0625, IQ2_XS 2.3125, IQ2_S 2.5625, IQ3_XXS 3.0625, IQ3_S 3.4375, IQ4_NL 4.5, IQ4_XS
  4.25. A file type ("mix": Q4_K_M, IQ2_XS...) widens some tensors (attn_v, some ffn_down layers,
  attn_output), so its *body* bits per weight come from llama-quantize's per-tensor rules applied to
  Llama 3 70B (``benchmarks/gguf_mix.py``, which reproduces the ten published Llama 3 70B file sizes
  of the calibration CSV within 0.05 % and llama-quantize's Llama 3 8B sizes within 0.3 %): Q4_K_M
  4.80, Q5_K_M 5.65, Q4_K_S 4.54, Q3_K_L 4.19, Q3_K_M 3.85, Q3_K_S 3.46, Q2_K 2.94, Q2_K_S 2.72,
  IQ4_NL 4.51, IQ4_XS 4.26, IQ3_M 3.58, IQ3_S 3.46, IQ3_XS 3.27, IQ3_XXS 3.07, IQ2_M 2.68, IQ2_S
  2.46, IQ2_XS 2.35, IQ2_XXS 2.11, IQ1_M 1.83, IQ1_S 1.67 (the i-quants made with an importance
  matrix, as published ones are). The token embedding keeps the mix's base type (Q2_K for IQ1_*,
  IQ2_XXS and IQ2_XS; IQ3_S for IQ2_S, IQ2_M and IQ3_XXS); output.weight is Q5_K for the 1- and
  2-bit i-quants and IQ3_XXS, Q8_0 for Q8_0, Q6_K for every other mix, F16 for F16.
  A GGUF file of a checkpoint whose routed experts ship in MXFP4 (gpt-oss, ``gguf_experts``) keeps them in
  ggml's MXFP4 type at every quant level; the level applies to the other weights
  (:func:`gguf_from_checkpoint`, ``expert_bits``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from gpuscout.errors import InvalidInputError, closest, fold_name, quoted_value
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import EXPERTS_ONLY_BASE

# Compute classes: which tensor-core rate the weight GEMMs run at, and the key of engine profiles.
CLASS_FP32 = "fp32"
CLASS_16BIT = "16bit"
CLASS_FP8 = "fp8"
CLASS_INT8 = "int8"  # int8 activations x int8 weights (W8A8, SmoothQuant)
CLASS_FP4 = "fp4"
CLASS_WEIGHT_ONLY = "weight-only"  # narrow weights, dequantised to bf16 for the matmul
CLASS_GGUF = "gguf-quant"  # llama.cpp block quants (MMQ / dequant kernels)
CLASS_GGUF_F16 = "gguf-f16"  # llama.cpp with F16/BF16 weights (cuBLAS)
# Kernel families an engine profile may key its efficiencies on within a compute class (and which fall
# back to that class where the profile has no figure of their own)
KERNEL_FP8_BLOCK = "fp8-block"  # block-scaled FP8: Triton / DeepGEMM / CUTLASS blockwise GEMMs

Q6_K_BITS = 6.5625
Q5_K_BITS = 5.5
Q3_K_BITS = 3.4375  # IQ3_S blocks are the same 110 bytes per 256 weights
Q2_K_BITS = 2.625


@dataclass(frozen=True, slots=True)
class WeightFormat:
    """How the weights of a model are stored and multiplied."""

    name: str  # canonical, e.g. "bf16", "fp8", "awq-int4", "gguf-q4_k_m"
    label: str  # what we show users, e.g. "GGUF Q4_K_M"
    bits_per_weight: float  # linear layers of the body, scales/zeros included
    embedding_bits: float  # token embedding table
    lm_head_bits: float  # output projection (when untied)
    compute_class: str  # see CLASS_* above
    gguf: bool = False
    native: str | None = None  # accelerator capability needed to run the class natively: "fp8", "fp4"
    note: str = ""
    dense_bits: float | None = None  # experts-only formats: bits of the non-expert body weights
    attn_bits: float | None = None  # formats that leave the attention projections unconverted: their bits
    wide_layers: int = 0  # whole decoder layers (first and last) left at 16 bits
    kernel: str = ""  # kernel family whose engine efficiencies apply, when not the compute class's
    # the checkpoint format when the spelling names one ("awq", "gptq" for int4): the same bits and speed,
    # but engines do not load every format everywhere (TGI runs GPTQ on ROCm, not AWQ)
    checkpoint: str = ""
    # experts-only formats: the activations serving engines multiply the routed experts' narrow weights with
    # by default ("bf16": W4A16, the experts' GEMMs at the 16-bit rate even where the GPU has tensor cores for
    # the weights' own type; "" = the compute class's own activations)
    expert_activations: str = ""
    # a checkpoint format whose routed experts a GGUF conversion keeps in their own type at every quant
    # level: that ggml type's name ("MXFP4": gpt-oss), "" where a GGUF file re-quantizes them (see
    # :func:`gguf_from_checkpoint`)
    gguf_experts: str = ""
    # a GGUF file made from such a checkpoint: the bits of its routed experts (the checkpoint's), while
    # ``bits_per_weight`` stays the quant level's and applies to the rest of the body; None elsewhere
    expert_bits: float | None = None

    @property
    def efficiency_class(self) -> str:
        """The key of engine-profile efficiencies: the kernel family, else the compute class."""
        return self.kernel or self.compute_class

    @property
    def codebook(self) -> bool:
        """A llama.cpp i-quant (IQ1_S ... IQ4_NL): blocks decoded through codebook / lattice lookups."""
        return self.name.startswith("gguf-iq")

    def body_bits(self, expert: bool) -> float:
        """Bits per weight of a body weight (``expert``: a routed MoE expert's)."""
        if expert and self.expert_bits is not None:
            return self.expert_bits
        if self.dense_bits is not None and not expert:
            return self.dense_bits
        return self.bits_per_weight


@dataclass(frozen=True, slots=True)
class KvDtype:
    """Element type of the KV cache."""

    name: str  # "bf16", "fp16", "fp8", "int8", "q8_0", "q4_0", "fp32"... (``kv_dtype_names``)
    bytes_per_element: float


def _fmt(
    name: str,
    label: str,
    bits: float,
    embed: float,
    head: float,
    cls: str,
    *,
    gguf: bool = False,
    native: str | None = None,
    note: str = "",
    dense_bits: float | None = None,
    attn_bits: float | None = None,
    wide_layers: int = 0,
    kernel: str = "",
    expert_activations: str = "",
    gguf_experts: str = "",
) -> WeightFormat:
    return WeightFormat(
        name,
        label,
        bits,
        embed,
        head,
        cls,
        gguf,
        native,
        note,
        dense_bits,
        attn_bits,
        wide_layers,
        kernel,
        expert_activations=expert_activations,
        gguf_experts=gguf_experts,
    )


_FORMATS: dict[str, WeightFormat] = {
    f.name: f
    for f in (
        _fmt("fp32", "FP32", 32, 32, 32, CLASS_FP32),
        _fmt("bf16", "BF16", 16, 16, 16, CLASS_16BIT),
        _fmt("fp16", "FP16", 16, 16, 16, CLASS_16BIT),
        _fmt(
            "fp8",
            "FP8 (e4m3)",
            8.0,
            16,
            16,
            CLASS_FP8,
            native="fp8",
            note="per-tensor/channel scales; embeddings and lm_head kept in bf16",
        ),
        _fmt(
            "fp8-block",
            "FP8 block-scaled (128x128)",
            8.0,
            16,
            16,
            CLASS_FP8,
            native="fp8",
            note="one fp32 scale per 128x128 weight block, activations quantised per token and 128-channel "
            "group before every GEMM (DeepSeek-V3/R1, Qwen3 FP8 checkpoints: quantization_config "
            "weight_block_size); blockwise GEMM kernels, not the per-tensor FP8 GEMM",
            kernel=KERNEL_FP8_BLOCK,
        ),
        _fmt(
            "fp8-ffn",
            "FP8 MLP only (Meta FBGEMM row-wise; attention bf16)",
            8.0,
            16,
            16,
            CLASS_FP8,
            native="fp8",
            note="Meta's Llama 3.1 FP8 checkpoints (quant_method fbgemm_fp8): row-wise FP8 MLP weights; the "
            "attention projections and the first and last decoder layers stay bf16 (Llama 3 paper, 6.2)",
            attn_bits=16.0,
            wide_layers=2,
        ),
        _fmt(
            "int8",
            "INT8 weight-only",
            8.0,
            16,
            16,
            CLASS_WEIGHT_ONLY,
            note="per-channel scales; dequantised to bf16 for the matmul",
        ),
        _fmt(
            "w8a8",
            "INT8 W8A8 (SmoothQuant)",
            8.0,
            16,
            16,
            CLASS_INT8,
            note="int8 tensor cores for weights x activations",
        ),
        _fmt(
            "int4",
            "INT4 AWQ/GPTQ g128",
            4.25,
            16,
            16,
            CLASS_WEIGHT_ONLY,
            note="group 128 with 16-bit scale and zero; embeddings and lm_head kept fp16",
        ),
        _fmt(
            "int4-g32",
            "INT4 weight-only g32",
            5.0,
            16,
            16,
            CLASS_WEIGHT_ONLY,
            note="group 32 with bf16 scale and zero (gpt-fast)",
        ),
        _fmt(
            "nf4",
            "NF4 (bitsandbytes, double quant)",
            4.127,
            16,
            16,
            CLASS_WEIGHT_ONLY,
            note="QLoRA storage; blocks of 64 with double-quantised scales",
        ),
        _fmt("nvfp4", "NVFP4", 4.5, 16, 16, CLASS_FP4, native="fp4", note="fp8 scale per 16 weights"),
        _fmt(
            "mxfp4",
            "MXFP4",
            4.25,
            16,
            16,
            CLASS_FP4,
            native="fp4",
            note="e8m0 scale per 32 weights, every linear layer; W4A4 at the FP4 rate only where an engine "
            "runs it natively (llama.cpp's Blackwell MMA, AMD gfx950): vLLM, SGLang and TensorRT-LLM run "
            "MXFP4 as W4A16 on Blackwell (weight-only verdict, 16-bit math)",
        ),
        _fmt(
            "mxfp4-moe",
            "MXFP4 MoE experts (rest bf16)",
            4.25,
            16,
            16,
            CLASS_FP4,
            native="fp4",
            note="gpt-oss checkpoint: routed experts MXFP4 (e8m0 scale per 32), attention, router and "
            "embeddings bf16; serving engines multiply the experts' MXFP4 weights by bf16 activations "
            "(W4A16) by default, so no part of the model runs at the FP4 tensor rate",
            dense_bits=16.0,
            expert_activations="bf16",
            gguf_experts="MXFP4",
        ),
        _fmt(
            "int4-moe",
            "INT4 MoE experts (rest bf16)",
            4.5,
            16,
            16,
            CLASS_WEIGHT_ONLY,
            note="Kimi-K2-Thinking checkpoint: routed experts int4 (compressed-tensors pack-quantized, "
            "symmetric, a bf16 scale per 32 weights: 4.5 bits), attention, shared expert, dense layer, "
            "embeddings and lm_head bf16; the experts' int4 weights multiply bf16 activations (W4A16, Marlin "
            "MoE kernels)",
            dense_bits=16.0,
            expert_activations="bf16",
        ),
        _fmt("gguf-f16", "GGUF F16", 16, 16, 16, CLASS_GGUF_F16, gguf=True),
        _fmt("gguf-q8_0", "GGUF Q8_0", 8.5, 8.5, 8.5, CLASS_GGUF, gguf=True),
        _fmt("gguf-q6_k", "GGUF Q6_K", Q6_K_BITS, Q6_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q5_1", "GGUF Q5_1", 6.0, 6.0, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q5_k_m", "GGUF Q5_K_M", 5.65, 5.5, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q5_k_s", "GGUF Q5_K_S", 5.5, 5.5, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q5_0", "GGUF Q5_0", 5.5, 5.5, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q4_1", "GGUF Q4_1", 5.0, 5.0, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q4_k_m", "GGUF Q4_K_M", 4.80, 4.5, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q4_k_s", "GGUF Q4_K_S", 4.54, 4.5, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq4_nl", "GGUF IQ4_NL", 4.51, 4.5, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q4_0", "GGUF Q4_0", 4.5, 4.5, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq4_xs", "GGUF IQ4_XS", 4.26, 4.25, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q3_k_l", "GGUF Q3_K_L", 4.19, Q3_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q3_k_m", "GGUF Q3_K_M", 3.85, Q3_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq3_m", "GGUF IQ3_M", 3.58, Q3_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q3_k_s", "GGUF Q3_K_S", 3.46, Q3_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq3_s", "GGUF IQ3_S", 3.46, Q3_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq3_xs", "GGUF IQ3_XS", 3.27, Q3_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq3_xxs", "GGUF IQ3_XXS", 3.07, Q3_K_BITS, Q5_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q2_k", "GGUF Q2_K", 2.94, Q2_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-q2_k_s", "GGUF Q2_K_S", 2.72, Q2_K_BITS, Q6_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq2_m", "GGUF IQ2_M", 2.68, Q3_K_BITS, Q5_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq2_s", "GGUF IQ2_S", 2.46, Q3_K_BITS, Q5_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq2_xs", "GGUF IQ2_XS", 2.35, Q2_K_BITS, Q5_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq2_xxs", "GGUF IQ2_XXS", 2.11, Q2_K_BITS, Q5_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq1_m", "GGUF IQ1_M", 1.83, Q2_K_BITS, Q5_K_BITS, CLASS_GGUF, gguf=True),
        _fmt("gguf-iq1_s", "GGUF IQ1_S", 1.67, Q2_K_BITS, Q5_K_BITS, CLASS_GGUF, gguf=True),
    )
}

# Spellings of FP8 that state per-tensor / per-channel scales; a bare "fp8" means the model's own FP8
# checkpoint, whose scaling depends on the model (:func:`states_fp8_scaling`)
_PER_TENSOR_FP8 = ("fp8-tensor", "fp8-per-tensor", "fp8-channel", "fp8-per-channel", "fp8-dynamic")

# Spellings that name the checkpoint format as well as the precision (engine support can differ by
# format): all int4, so they are aliases of int4 too (below).
_CHECKPOINT_OF: dict[str, str] = {
    "awq": "awq",
    "int4-awq": "awq",
    "awq-int4": "awq",
    "gptq": "gptq",
    "int4-gptq": "gptq",
    "gptq-int4": "gptq",
}

_ALIASES: dict[str, str] = {
    "float32": "fp32",
    "f32": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "f16": "gguf-f16",
    "float8": "fp8",
    "float8-e4m3fn": "fp8",  # PyTorch's torch.float8_e4m3fn (the "torch." is dropped: _normalise)
    "fp8-e4m3fn": "fp8",
    "fp8-e4m3": "fp8",
    "e4m3": "fp8",
    "fp8e4m3": "fp8",
    **dict.fromkeys(_PER_TENSOR_FP8, "fp8"),
    "block-fp8": "fp8-block",
    "fp8_block": "fp8-block",
    "fp8-blockwise": "fp8-block",
    "fp8-block-128": "fp8-block",
    "fp8-block128": "fp8-block",
    "fbgemm-fp8": "fp8-ffn",
    "fbgemm_fp8": "fp8-ffn",
    "fp8-rowwise-ffn": "fp8-ffn",
    "int8-weight-only": "int8",
    "gptq-int8": "int8",  # 8-bit GPTQ checkpoints (Qwen's "-GPTQ-Int8"): weight-only, as int8
    "int8-gptq": "int8",
    "int8-wo": "int8",
    "int8wo": "int8",
    "llm.int8": "int8",
    "bnb-int8": "int8",
    "int8-w8a8": "w8a8",
    "smoothquant": "w8a8",
    **dict.fromkeys(_CHECKPOINT_OF, "int4"),
    "int4-g128": "int4",
    "int4-weight-only": "int4",
    "w4a16": "int4",
    "int4-weight-only-g-32": "int4-g32",
    "int4-wo-g32": "int4-g32",
    "qlora": "nf4",
    "bnb-nf4": "nf4",
    "bnb-4bit": "nf4",
    "fp4": "nvfp4",
    "mxfp4-experts": "mxfp4-moe",
    "int4-experts": "int4-moe",
    "gguf-mxfp4": "mxfp4",
    # llama-quantize's own aliases (tools/quantize/quantize.cpp)
    "q3_k": "gguf-q3_k_m",
    "q4_k": "gguf-q4_k_m",
    "q5_k": "gguf-q5_k_m",
}

# Convenience: every GGUF type may be written bare ("q4_k_m") or prefixed ("GGUF Q4_K_M").
for _name in list(_FORMATS):
    if _name.startswith("gguf-"):
        _bare = _name.removeprefix("gguf-")
        if _bare != "f16":
            _ALIASES.setdefault(_bare, _name)


def _normalise(text: str) -> str:
    s = fold_name(text).strip().lower()
    s = s.removeprefix("torch.")  # PyTorch's dtype names: torch.bfloat16, torch.float16, torch.float32
    s = re.sub(r"[\s/]+", "-", s)
    s = s.replace("gguf_", "gguf-")
    s = s.replace("(", "").replace(")", "").replace("=", "-")
    s = re.sub(r"-+", "-", s).strip("-")
    return s


def states_fp8_scaling(name: str) -> bool:
    """Whether a spelling of FP8 says how it is scaled ("fp8-per-tensor", "fp8-block"), where a bare
    "fp8" leaves it to the model's checkpoint."""
    return _normalise(name) in _PER_TENSOR_FP8 or resolve_precision(name).name != "fp8"


def accepted_precisions() -> list[str]:
    """Names accepted for ``precision`` (canonical ones; aliases resolve to these)."""
    return sorted(_FORMATS)


def published_checkpoint(native: str, asked: str) -> str:
    """``native`` (a model's ``native_precision``) where ``asked`` names its published experts-only
    checkpoint (gpt-oss and "mxfp4", Kimi-K2-Thinking and "int4": no dense MXFP4 checkpoint of gpt-oss is
    published, and a spelling that names a checkpoint format, "awq" / "gptq", is another file); "" where it
    names another format.
    An unknown spelling raises InvalidInputError naming the precision."""
    base = EXPERTS_ONLY_BASE.get(native)
    if base is None:
        return ""
    fmt = resolve_precision(asked)
    return native if fmt.name == base and not fmt.checkpoint else ""


def resolve_precision(name: str | WeightFormat) -> WeightFormat:
    """Return the :class:`WeightFormat` for a user spelling ("bf16", "Q4_K_M", "GGUF Q4_K_M", "awq"...).

    Raises InvalidInputError(field="precision") listing what is accepted (also for a value that is
    not a name: ``None``, a number, a list).
    """
    if isinstance(name, WeightFormat):
        return name
    if not isinstance(name, str):
        raise InvalidInputError(
            "precision",
            f"expected a precision name, got {type(name).__name__}",
            accepted=", ".join(accepted_precisions()),
        )
    return _resolve_precision(name)


@lru_cache(maxsize=1024)  # bounded: the names come from users, spelled any number of ways ("BF16 ")
def _resolve_precision(name: str) -> WeightFormat:
    key = _normalise(name)
    fmt = _resolve_format(name, key)
    return replace(fmt, checkpoint=_CHECKPOINT_OF[key]) if key in _CHECKPOINT_OF else fmt


@cache
def _hyphenated() -> dict[str, str]:
    return {k.replace("_", "-"): k for k in (*_FORMATS, *_ALIASES)}


def _resolve_format(name: str, key: str) -> WeightFormat:
    for candidate in (key, key.replace("gguf-", "", 1) if key.startswith("gguf-") else key):
        if candidate in _FORMATS:
            return _FORMATS[candidate]
        if candidate in _ALIASES:
            return _FORMATS[_ALIASES[candidate]]
    # llama.cpp's type names typed with hyphens for underscores ("Q4-K-M", "gguf q8-0")
    loose = _hyphenated().get(key.replace("_", "-"))
    if loose is not None and loose != key:
        return _resolve_format(name, loose)
    if key.startswith("gguf-"):
        bare = key.removeprefix("gguf-")
        if f"gguf-{bare}" in _FORMATS:
            return _FORMATS[f"gguf-{bare}"]
        if bare in ("f16", "bf16", "fp16"):
            return _FORMATS["gguf-f16"]
    # loose forms seen in benchmark tables: "int8 weight-only", "int4 weight-only G=32"
    if key.startswith("int4") and "g32" in key.replace("-", ""):
        return _FORMATS["int4-g32"]
    if key.startswith("int8") and "weight" in key:
        return _FORMATS["int8"]
    if key.startswith("int4") and "weight" in key:
        return _FORMATS["int4"]
    raise InvalidInputError(
        "precision",
        _unknown_precision(name, key),
        accepted=", ".join(accepted_precisions()) + " (and aliases: awq, gptq, q4_k_m, f16, qlora...)",
    )


#: Spellings of a bit width alone, which several formats share: answered with them all, never read as one
#: (bitsandbytes' load_in_4bit is nf4 or fp4, a "4-bit" checkpoint AWQ, GPTQ or a GGUF quant...).
_BIT_WIDTHS = {
    "4bit": "int4 (AWQ, GPTQ), nf4 (bitsandbytes), q4_k_m / q4_0 (GGUF), mxfp4, nvfp4",
    "8bit": "int8 (weight-only, bitsandbytes LLM.int8), fp8, w8a8 (SmoothQuant), q8_0 (GGUF)",
}
#: Formats of engines gpuscout has no profile for, said as such rather than as a typo.
_NOT_MODELLED = {"exl2": "ExLlamaV2's EXL2", "exl3": "ExLlamaV3's EXL3"}


def _unknown_precision(name: str, key: str) -> str:
    """What an error says of ``name`` (``key``: its normalised form): the formats a bare bit width may be, a
    format of an engine not modelled, else the closest known spellings (one per format)."""
    bits = _BIT_WIDTHS.get(re.sub(r"[-_]", "", key).removesuffix("s"))
    if bits is not None:
        return f"ambiguous precision {name!r}; matches: {bits}"
    kind = next((v for k, v in _NOT_MODELLED.items() if key.startswith(k)), None)
    if kind is not None:
        return (
            f"{name!r} is {kind} format, not modelled: no engine gpuscout times runs it; the nearest "
            "formats it models are GGUF quants (q4_k_m, q5_k_m, q6_k...) and AWQ / GPTQ int4"
        )
    hits, formats = [], set()
    for hit in closest(name, [*_FORMATS, *_ALIASES], n=8):
        fmt = _ALIASES.get(hit, hit)
        if fmt not in formats:
            formats.add(fmt)
            hits.append(hit)
    return f"unknown precision {quoted_value(name)}" + (
        f"; closest known: {', '.join(hits[:5])}" if hits else ""
    )


SPARSE_MLA_FP8 = "fp8_ds_mla"
_KV: dict[str, KvDtype] = {
    "fp32": KvDtype("fp32", 4.0),
    "bf16": KvDtype("bf16", 2.0),
    "fp16": KvDtype("fp16", 2.0),
    "fp8": KvDtype("fp8", 1.0),
    "int8": KvDtype("int8", 1.0),  # TensorRT-LLM's INT8 cache: one int8 per element, per-tensor scales
    # llama.cpp's cache types (--cache-type-k / --cache-type-v), blocks of 32 elements
    "q8_0": KvDtype("q8_0", 34 / 32),  # 32 int8 + one fp16 scale per block
    "q5_1": KvDtype("q5_1", 24 / 32),  # 32 x 5 bits + fp16 scale and minimum
    "q5_0": KvDtype("q5_0", 22 / 32),  # 32 x 5 bits + one fp16 scale
    "q4_1": KvDtype("q4_1", 20 / 32),  # 32 nibbles + fp16 scale and minimum
    "q4_0": KvDtype("q4_0", 18 / 32),  # 32 nibbles + one fp16 scale per block
    "iq4_nl": KvDtype("iq4_nl", 18 / 32),  # 32 non-linear nibbles + one fp16 scale
    # vLLM's cache for DeepSeek-V3.2's sparse MLA: per token and layer the 512 latent values in FP8, four
    # FP32 scales (one per 128) and the 64 rope values in bf16: 656 B for the 576-element latent
    SPARSE_MLA_FP8: KvDtype(SPARSE_MLA_FP8, 656 / 576),
}
_KV_ALIASES = {
    "f16": "fp16",
    "float16": "fp16",
    "bfloat16": "bf16",
    "f32": "fp32",
    "float32": "fp32",
    "fp8-e4m3": "fp8",
    "fp8_e4m3": "fp8",
    "fp8-e5m2": "fp8",
    "fp8_e5m2": "fp8",
    "fp8_e4m3fn": "fp8",
    "fp8-e4m3fn": "fp8",
    "fp8-ds-mla": SPARSE_MLA_FP8,
    "q8": "q8_0",
    "q4": "q4_0",
    "auto": "bf16",
}


def gguf_from_checkpoint(fmt: WeightFormat, checkpoint: WeightFormat) -> WeightFormat:
    """``fmt`` (a GGUF quant level) as the GGUF file made from a checkpoint stored in ``checkpoint`` (the
    model table's ``native_precision``) holds it: where the checkpoint's routed experts are in a type ggml
    stores as it is (``checkpoint.gguf_experts``: gpt-oss's MXFP4), the file keeps them in it at every
    quant level and the level applies to the other weights only (attention, router, embeddings, output).
    llama.cpp has an MXFP4 type (PR #15091); gpt-oss's expert rows, 2880 wide, are no multiple of the 256
    that K-quant blocks need. Published gpt-oss GGUF sizes bear this out (recalled, not sourced here:
    unsloth's gpt-oss-20b Q8_0 about 12.1 GB, F16 about 13.8 GB; 120b Q8_0 about 63 GB). ``fmt``
    itself for any other pair: a 16-bit or FP8 checkpoint is re-quantized whole."""
    if not fmt.gguf or not checkpoint.gguf_experts or fmt.expert_bits is not None:
        return fmt
    kept = checkpoint.gguf_experts
    return replace(
        fmt,
        label=f"{fmt.label} (MoE experts {kept})",
        expert_bits=checkpoint.bits_per_weight,
        note=(
            f"GGUF files of this checkpoint keep its routed experts in {kept} at every quant level; "
            f"{fmt.label} applies to the other weights"
        ),
    )


def kv_dtype_names() -> tuple[str, ...]:
    """The KV cache dtypes by name, sorted (what a ``kv_dtype`` error lists as accepted)."""
    return tuple(sorted(_KV))


def resolve_kv_dtype(name: str | KvDtype) -> KvDtype:
    """Return the :class:`KvDtype` for "bf16", "fp16", "fp8", "int8", "q8_0", "q4_0"... (or aliases).
    Which of them an engine offers is ``kv_cache.engine_kv_dtypes``'s business."""
    if isinstance(name, KvDtype):
        return name
    if not isinstance(name, str):
        raise InvalidInputError(
            "kv_dtype",
            f"expected a KV cache dtype name, got {type(name).__name__}",
            accepted=", ".join(kv_dtype_names()),
        )
    return _resolve_kv_dtype(name)


@lru_cache(maxsize=1024)  # bounded, as _resolve_precision
def _resolve_kv_dtype(name: str) -> KvDtype:
    key = name.strip().lower().replace(" ", "")
    key = _KV_ALIASES.get(key, key)
    if key in _KV:
        return _KV[key]
    raise InvalidInputError(
        "kv_dtype", f"unknown KV cache dtype {quoted_value(name)}", accepted=", ".join(kv_dtype_names())
    )


def default_kv_dtype(fmt: WeightFormat) -> KvDtype:
    """KV dtype engines use by default: fp16 for GGUF (llama.cpp), bf16 otherwise (fp32 for fp32)."""
    if fmt.compute_class == CLASS_FP32:
        return _KV["fp32"]
    if fmt.gguf:
        return _KV["fp16"]
    return _KV["bf16"]


@dataclass(frozen=True, slots=True)
class ComputeRate:
    """Peak dense rate (TFLOPS) that the GEMMs of a format run at on one accelerator."""

    tflops: float
    rate_name: str  # which datasheet rate: "bf16", "fp8", "int8", "fp4", "fp32"
    native: bool  # False when the format needs a capability the GPU lacks (runs dequantised)
    derived: bool  # True when the rate was missing and derived from fp32 (see `bf16_tflops`)
    warning: str = ""
    # False when the part runs the class natively but the table has no rate for it and none can be
    # derived by a stated rule (B300 INT8): ``tflops`` is then the 16-bit rate as a placeholder and an
    # inference estimate must refuse rather than time the class at another class's rate.
    known: bool = True


# the FP32 rate taken for a part whose table row has none (only hand-made accelerators lack it)
FP32_PLACEHOLDER_TFLOPS = 10.0


def bf16_tflops(acc: Accelerator) -> tuple[float, bool]:
    """Dense bf16/fp16 tensor rate; derived from fp32 when the table lacks it.

    Derivation (when ``bf16_tflops`` is missing): GeForce Ampere/Ada run fp16 tensor ops with fp32
    accumulate at 2x their fp32 shader rate (RTX 3090 35.6 -> 71, RTX 4090 82.6 -> 165); workstation
    and datacenter Ampere/Ada parts at 4x (RTX A6000 38.7 -> 154.8, L40S 91.6 -> 362). Volta and
    Turing (compute capability 7.x) have twice those ratios, their FP32 lanes not yet doubled (GA102
    doubled them, the tensor cores not): 8x on datacenter and workstation parts (V100 15.7 -> 125,
    T4 8.1 -> 65), 4x on GeForce, which halves the fp32-accumulate tensor rate (RTX 2080 Ti 13.45 ->
    53.8; Turing whitepaper, RTX 2080 Ti: 107.6 TFLOPS with fp16 accumulate, 53.8 with fp32).
    Returns (tflops, derived?).
    """
    if acc.bf16_tflops:
        return acc.bf16_tflops, False
    if acc.fp16_tflops:
        return acc.fp16_tflops, False
    fp32 = acc.fp32_tflops or FP32_PLACEHOLDER_TFLOPS
    cc = acc.nvidia_cc
    if cc is not None:
        no_tensor_cores = cc < (7, 0)
    else:
        no_tensor_cores = acc.release_year is not None and acc.release_year < 2018
    if no_tensor_cores:
        return fp32, True  # Pascal and older: no tensor cores, fp16 GEMMs run at (at best) the fp32 rate
    factor = 8.0 if cc is not None and cc < (8, 0) else 4.0
    if acc.kind == "consumer":
        factor /= 2.0
    return fp32 * factor, True


def dp4a_only(acc: Accelerator) -> bool:
    """An NVIDIA part whose fastest integer math is ``dp4a`` (compute capability 6.1-6.x: P40, P4,
    GTX 10x0, Quadro P-series): no tensor cores, fp16 at 1/64 rate, but a 4-way int8 dot product per
    lane and clock, 4x the FP32 rate (Tesla P40 datasheet: 12 TFLOPS FP32, 47 TOPS INT8)."""
    cc = acc.nvidia_cc
    return cc is not None and (6, 1) <= cc < (7, 0)


def compute_rate(fmt: WeightFormat, acc: Accelerator, *, tf32: bool = True) -> ComputeRate:
    """Which peak rate the weight matmuls of ``fmt`` get on ``acc`` (and whether that is native).

    FP32 matmuls run on TF32 tensor cores where the part has them and the framework allows it
    (``tf32``). PyTorch does not by default (``torch.backends.cuda.matmul.allow_tf32`` is False since
    1.12, see PyTorch's "TensorFloat-32 (TF32) on Ampere (and later) devices" note): its fp32 runs
    (diffusers, transformers, training) pass ``tf32=False`` and get the FP32 rate."""
    bf16, derived = bf16_tflops(acc)
    cls = fmt.compute_class
    if cls == CLASS_FP32:
        if tf32 and acc.tf32_tflops:
            return ComputeRate(acc.tf32_tflops, "tf32", True, derived)
        rate = acc.fp32_tflops or acc.tf32_tflops or bf16 / 2
        return ComputeRate(rate, "fp32" if acc.fp32_tflops or not acc.tf32_tflops else "tf32", True, derived)
    if cls == CLASS_FP8:
        if acc.fp8_supported and acc.fp8_tflops:
            return ComputeRate(acc.fp8_tflops, "fp8", True, False)
        if acc.fp8_supported:
            # every FP8 part in the table runs dense FP8 at exactly twice its dense 16-bit rate
            return ComputeRate(
                2.0 * bf16,
                "fp8",
                True,
                True,
                f"{acc.name}: no FP8 rate in the table; taken as 2 x the 16-bit rate "
                f"({2.0 * bf16:.0f} TFLOPS), "
                "the ratio of every FP8 part listed",
            )
        sixteen = "bf16" if has_bf16(acc) else "fp16"  # Volta and Turing dequantise to fp16
        return ComputeRate(
            bf16,
            sixteen,
            False,
            derived,
            f"{acc.name} has no native FP8 tensor cores: FP8 weights run weight-only "
            f"(dequantised to {sixteen}), saving memory but not compute",
        )
    if cls == CLASS_FP4:
        if acc.fp4_supported and acc.fp4_tflops:
            return ComputeRate(acc.fp4_tflops, "fp4", True, False)
        if acc.fp4_supported:
            return ComputeRate(
                bf16,
                "fp4",
                True,
                derived,
                f"{acc.name} has FP4 tensor cores but no FP4 rate in the table (FP4/FP8 differs by part: "
                "2x on B200, 3x on B300): FP4 speed is not estimated",
                known=False,
            )
        return ComputeRate(
            bf16,
            "bf16",
            False,
            derived,
            f"{acc.name} has no native FP4 tensor cores: {fmt.label} runs weight-only "
            "(dequantised), saving memory but not compute",
        )
    if cls == CLASS_INT8:
        if acc.int8_tops:
            return ComputeRate(acc.int8_tops, "int8", True, False)
        return ComputeRate(
            bf16,
            "int8",
            False,
            derived,
            f"{acc.name}: no INT8 tensor rate in the table (INT8/16-bit differs by part: Blackwell Ultra cut "
            "dense INT8), so W8A8 speed is not estimated rather than timed at another class's rate",
            known=False,
        )
    if cls == CLASS_GGUF and dp4a_only(acc):
        # llama.cpp multiplies block-quantised weights by int8-quantised activations (MMQ); on a part
        # without tensor cores it does so with dp4a, the int8 rate, not the (fp32) 16-bit one
        rate = acc.int8_tops or 4.0 * (acc.fp32_tflops or FP32_PLACEHOLDER_TFLOPS)
        source = "" if acc.int8_tops else ", 4x its FP32 rate"
        return ComputeRate(
            rate,
            "int8",
            True,
            not acc.int8_tops,
            f"{acc.name} has no tensor cores: llama.cpp multiplies {fmt.label} weights by int8 activations "
            f"with dp4a, at {rate:.0f} TOPS{source}",
        )
    # 16-bit, weight-only and GGUF formats multiply at the 16-bit tensor rate
    if fmt.name == "bf16" and not has_bf16(acc):
        return ComputeRate(
            bf16,
            "fp16",
            True,
            derived,
            f"{acc.name} has no BF16 support: BF16 weights run as FP16 (same memory and speed; "
            "a model trained in bf16 can overflow in fp16)",
        )
    # named by the type the part computes in: its table's 16-bit rate is the FP16 one on V100, T4, MI50
    return ComputeRate(bf16, "bf16" if has_bf16(acc) else "fp16", True, derived)


def has_bf16(acc: Accelerator) -> bool:
    """Whether ``acc`` computes in bfloat16. NVIDIA parts before Ampere and AMD parts before CDNA
    (both 2020: V100, T4, MI25, MI50) do not."""
    if acc.bf16_tflops:
        return True
    old_gpu = acc.vendor in ("NVIDIA", "AMD") and acc.release_year is not None and acc.release_year < 2020
    return not old_gpu


def weight_bytes(
    fmt: WeightFormat, body_params: float, embedding_params: float, lm_head_params: float
) -> float:
    """Bytes of weights stored in ``fmt``.

    ``body_params``: every parameter except the token embedding and an *untied* lm_head (norms and
    biases are a rounding error and are counted at the body rate). ``lm_head_params`` is 0 when tied.
    """
    return (
        body_params * fmt.bits_per_weight
        + embedding_params * fmt.embedding_bits
        + lm_head_params * fmt.lm_head_bits
    ) / 8.0
