"""Text-to-image diffusion: does the pipeline fit, and how many seconds per image.

Image generation is compute-bound: every denoising step runs the denoiser over all latent tokens,
so time = FLOPs / (peak x efficiency), plus the element-wise kernels between the GEMMs at the memory
bandwidth.

FLOPs per image
    denoiser, per step and per pass: ``2 x (params applied to each token) x tokens`` per resolution
    stage, plus self-attention ``4 x width x tokens^2`` per attention block (SDPA / flash: no extra
    memory, but the FLOPs are real). Tokens scale with the image: the VAE downsamples 8x; SDXL's UNet
    works at 1/8, 1/16 and 1/32 of the image side, FLUX's DiT on 2x2 patches of the latent (1/16)
    with its 512 T5 text tokens joined to the image tokens in every block.
    x steps x passes: SDXL runs classifier-free guidance (2 passes per step), FLUX.1-dev is
    guidance-distilled (1 pass).
    + text encoders once per image (``2 x params x prompt tokens``)
    + VAE decode, counted from the SD/FLUX VAE decoder: 3x3 convolutions at 128 / 256 / 512 / 512
    channels on the full / 1/2 / 1/4 / 1/8 image side, ~6.9 MFLOP per output pixel, plus its
    single-head attention over the latent.

Per-token parameters were counted from the architectures (SDXL UNet 2.567B: 14M on the 1/8 grid,
137M on 1/16, 2.05B on 1/32 with the cross-attention K/V projections of the 77 text tokens left out;
FLUX.1-dev 11.9B: 6.45B per token, the adaLN modulation (3.2B) acts on one conditioning vector).

Efficiency (eager diffusers with PyTorch SDPA). A denoising step is split into its attention FLOPs
(``QK^T`` and ``PV``, the ``4 x width x tokens^2`` above) and the rest (convolutions and linear layers,
through cuDNN / cuBLAS), and each is timed at its own fraction of the dense 16-bit tensor peak:

- attention, by how the GPU's tensor cores are driven. PyTorch's SDPA runs FlashAttention-2 (its
  "flash" backend, FA2 since PyTorch 2.2, compute capability 8.0+), not FlashAttention-3. FA2 issues
  Ampere's warp-level ``mma.sync``: it reaches 50-73 % of the A100's peak in its forward pass (Dao,
  "FlashAttention-2", 2023, arXiv:2307.08691), and about 35 % of the H100's (Shah et al.,
  "FlashAttention-3", 2024, arXiv:2407.08608, section 1), whose peak needs the asynchronous ``wgmma``
  instructions and TMA that FA2 does not use. So: **0.50** on Ampere and Ada (compute capability
  8.x; the low end of FA2's range, since a denoiser's attention is non-causal over 1-5k tokens with
  head dimension 64 (SDXL) or 128 (FLUX), the short-sequence end of FA2's benchmarks) and on
  Blackwell GeForce / RTX PRO (12.x), whose tensor cores, like Ada's, are reached through
  ``mma.sync`` (they have no ``wgmma`` or ``tcgen05``); **0.35** on Hopper and datacenter Blackwell
  (9.x, 10.x; B200's ``tcgen05`` peak is as out of FA2's reach as H100's ``wgmma`` one). Other parts
  (Volta, Turing: no FA2 backend; AMD and the rest: no FA2 figure) get the lower 0.35.
- the convolutions and linear layers: **0.48** of the same peak on every GPU (0.30 of the FP8 peak for
  an FP8 denoiser, whose linear layers run in FP8). cuBLAS and cuDNN do use Hopper's tensor cores
  well, so no architecture class here. A prior, not a fit: the value that keeps the RTX 4090's SDXL
  estimate where the former whole-step 0.40 put it, now that the element-wise kernels are timed apart
  (below); below cuBLAS's large-GEMM 0.7-0.9 for the launch gaps between eager kernels.
- the element-wise kernels between them, at the memory bandwidth (``ELEMENTWISE_BANDWIDTH_SHARE`` =
  0.8 of the datasheet figure): an eager pipeline runs its group and layer norms, activations, residual
  adds, layout copies and skip concatenations as separate kernels that each read and write whole
  activations. The bytes are counted per token from the diffusers 0.30 modules (``resnet_elements``,
  ``basic_block_elements``, ``transformer2d_elements``, ``flux_double_elements``,
  ``flux_single_elements``): SDXL moves 11.7 GB per pass over a 1024^2 image (62 % of it on the 1/32
  grid's 60 transformer blocks), FLUX.1-dev 173 GB (its RMSNorm and RoPE run in fp32, element by
  element). This time scales with the bandwidth, not the tensor peak, so it weighs most on parts with
  much compute per byte (L40S: 419 FLOP/B; H100: 295; A100: 153).
- attention of an FP8 denoiser runs in bf16 (FP8 recipes quantise the linear layers only), and of an
  fp32 one at the fp32 rate with the 0.40 prior (FA2 has no fp32 kernel). Text encoders and the VAE
  decoder (its single-head attention has head dimension 512, past FA2's 256) are timed at 0.40.

The peak is the dense 16-bit tensor rate with FP32 accumulate: PyTorch's fp16/bf16 GEMMs (cuBLAS
compute type 32F) and FA2's ``mma`` accumulate in FP32. On GeForce cards that is half the FP16-accumulate
rate: an RTX 4090 runs 165.2 TFLOPS, not 330.3 (Ada whitepaper, appendix).

Across GPUs: one efficiency for all put an H100 at 3.17x an A100 (the peak ratio); FA2's lower fraction
on Hopper brings SDXL to 3.05x, and the element-wise time to 2.71x (FLUX.1-dev 2.57x); an L40S falls
from 1.16x an A100 to 0.93x (SDXL). FLUX.1-dev bf16 at 1024^2 and 28 steps on an H100 comes to 6.5 s (was
5.4 s), within the ~6-7 s said of a plain eager pipeline. Published eager diffusers timings put an H100
nearer 2x an A100.
Not modelled: per-kernel launch cost on the host (~2,000 kernels per SDXL UNet pass), which an H100
finishes faster than the host can issue them; cuDNN's NCHW <-> NHWC transposes around convolutions.

Calibration: the only seconds-per-image rows in the calibration CSV (one vendor blog, RTX 4090) need
121-219 % of the card's datasheet peak at the stated steps and resolution, so fitting them would give an
efficiency above 1 (see tests/estimate/test_diffusion.py, which prints the figures); none is fitted.
So every image speed is a prior (``ImageEstimate.speed_calibrated`` is false on every GPU:
``knowledge.calibration_coverage``'s "images" kind measures none), and the estimate says so in its
warnings, in the words the advisor's image rows use (:func:`uncalibrated_speed_warning`).

A pipeline that does not fit the GPU (with the CPU offload asked for, or without it) gets no speed:
``seconds_per_image``, ``images_per_s`` and ``bound`` are ``None``, and the warnings and the
``would_fit`` assumption say what would fit instead (an FP8 denoiser, CPU offload, a smaller batch).

Platform: diffusers runs on PyTorch, so the same sourced rules decide where it runs at all
(:mod:`gpuscout.knowledge.workload_support`, the ``diffusers`` rows). Where they refuse (a Kepler K80: no
current PyTorch binary), the estimate says so as ``estimate()`` does for an engine: ``supported`` False,
``unsupported_reason`` the rule's words (its tag where not sourced), ``binding_constraint``
"unsupported", no speed, the reason first in the warnings, the rule's sources in
``assumptions["support"]`` and what would run in ``assumptions["alternatives"]``; the memory is still
counted. Where they run it with a caveat (the legacy cu126 wheels, PyTorch/XLA on a TPU, optimum-habana
on Gaudi, optimum-neuron on AWS Neuron, an AMD target no rule sources), a warning says so in the rule's
words.

Memory: weights of the denoiser (at ``precision``), text encoders and VAE (bf16), plus the larger of
the denoiser's and the VAE decoder's activation peaks, plus the CUDA context and cuDNN/cuBLAS
workspaces. ``cpu_offload=True`` models diffusers' ``enable_model_cpu_offload``: only the component
running sits on the GPU, and each component is copied over PCIe once per image; the peak is then the
largest of one component's weights plus the activations of its own pass (FLUX.1-dev bf16: the
transformer's 23.8 GB with its ~0.9 GB, not the VAE decoder's 1.8 GB beside it), plus the same
context and workspaces.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from gpuscout.errors import (
    ConfigurationRejected,
    InvalidInputError,
    KnownNames,
    UnknownNameError,
    WrongModelKind,
    closest,
    fold_name,
    quoted_name,
    quoted_value,
)
from gpuscout.estimate.arguments import (
    MAX_IMAGE_BATCH,
    MAX_IMAGE_PX,
    MAX_STEPS,
    MIN_IMAGE_PX,
    int_in,
    other_face,
    resolve_gpu_arg,
    resolve_model_arg,
)
from gpuscout.estimate.memory import capacity_bytes, gib
from gpuscout.estimate.parallel import host_link_gbps
from gpuscout.estimate.precision import compute_rate, has_bf16, resolve_precision
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import as_software_sees
from gpuscout.knowledge.calibration_coverage import speed_calibrated
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.workload_support import check_workload
from gpuscout.wording import plural

GB = 1e9
DIFFUSERS_EFFICIENCY = 0.40  # text encoders, VAE decoder, an fp32 denoiser's GEMMs (prior)
# the 16-bit denoiser's convolutions and linear layers, now that its element-wise kernels are timed apart:
# the value that keeps the RTX 4090's SDXL estimate (1024^2, 30 steps) where the single 0.40 put it
DENOISER_GEMM_EFFICIENCY = 0.48
ELEMENTWISE_BANDWIDTH_SHARE = 0.8  # of the datasheet bandwidth, streaming element-wise kernels
FP8_EFFICIENCY = 0.30  # an FP8 denoiser's linear layers, of the FP8 peak
FA2_MMA_SYNC_EFFICIENCY = 0.50  # FA2 forward on Ampere/Ada: 50-73 % of peak (arXiv:2307.08691)
FA2_ON_HOPPER_EFFICIENCY = 0.35  # FA2 forward on H100: ~35 % of peak (arXiv:2407.08608)
CUDA_CONTEXT_GB = 0.5
WORKSPACE_GB = 0.3  # cuBLAS / cuDNN workspaces
FRAGMENTATION = 0.10  # on activations
VAE_FLOPS_PER_PIXEL = 18 * (7 * 128**2 + 7 * 256**2 / 4 + 7 * 512**2 / 16 + 9 * 512**2 / 64)
VAE_PEAK_TENSORS = 6  # live 128-channel full-resolution tensors during the last decoder stage
ENGINES = ("diffusers",)
SIDE_BYTES = 2.0  # bytes per weight of the text encoders and the VAE (bf16 at every precision)
PRECISIONS = ("bf16", "fp16", "fp32", "fp8")


def uncalibrated_speed_warning(engine: str = "diffusers") -> str:
    """What an image speed fitted on no measurement says: the one wording of ``gpuscout images`` (its
    warnings) and of the advisor's image rows (``gpuscout recommend batch``)."""
    return f"image speed is not calibrated: {engine} at a fixed share of each GPU's peak (a prior)"


@dataclass(frozen=True, slots=True)
class AttentionClass:
    """How well PyTorch's SDPA (FlashAttention-2) uses one GPU's tensor cores (see the module docstring)."""

    name: str  # "Ampere/Ada", "Hopper/Blackwell", "pre-Ampere", "other"
    efficiency: float  # of the dense 16-bit tensor peak
    source: str
    kernel: str = "FlashAttention-2"  # the SDPA backend PyTorch picks there


AMPERE_ADA = AttentionClass(
    "Ampere/Ada",
    FA2_MMA_SYNC_EFFICIENCY,
    "its forward pass reaches 50-73 % of the A100's peak, low end taken (Dao 2023, arXiv:2307.08691)",
)
HOPPER_BLACKWELL = AttentionClass(
    "Hopper/Blackwell",
    FA2_ON_HOPPER_EFFICIENCY,
    "it reaches ~35 % of the H100's peak, which needs wgmma/TMA (Shah et al. 2024, arXiv:2407.08608)",
)
OTHER_ATTENTION = AttentionClass(
    "other",
    FA2_ON_HOPPER_EFFICIENCY,
    "no figure for this architecture: the lower (Hopper) one taken",
)
# Volta and Turing: SDPA's flash backend needs sm80 (check_flash_attention_hardware_support in PyTorch's
# sdp_utils.cpp), so it runs the memory-efficient (xFormers / CUTLASS) kernel, admitted from sm50
PRE_AMPERE = AttentionClass(
    "pre-Ampere",
    FA2_ON_HOPPER_EFFICIENCY,
    "FlashAttention-2 needs sm80+; no figure for this kernel here: FlashAttention-2's lower (Hopper) one "
    "taken",
    kernel="SDPA memory-efficient",
)


def attention_class(acc: Accelerator) -> AttentionClass:
    """The SDPA efficiency class of ``acc``, by NVIDIA compute capability: 8.x (Ampere, Ada) and 12.x
    (Blackwell GeForce / RTX PRO: ``mma.sync`` tensor cores like Ada's) reach FA2's A100 fraction;
    9.x and 10.x (Hopper, datacenter Blackwell: a peak only ``wgmma`` / ``tcgen05`` reach) its H100 one."""
    cc = acc.nvidia_cc
    if cc is None:
        return OTHER_ATTENTION
    if cc < (8, 0):
        return PRE_AMPERE
    if cc[0] in (8, 12):
        return AMPERE_ADA
    if cc[0] in (9, 10, 11):
        return HOPPER_BLACKWELL
    return OTHER_ATTENTION


@dataclass(frozen=True, slots=True)
class Stage:
    """Denoiser parameters applied to every token of one resolution."""

    params: float  # parameters each token goes through at this resolution
    downsample: int  # image pixels per token side (8 = VAE latent)
    attention_blocks: int
    attention_width: int
    widest: int  # widest per-token activation at this resolution (elements)
    # activation elements each token's element-wise kernels read and write per pass (see
    # ``resnet_elements`` and the other counts below): timed at the memory bandwidth
    elementwise: float = 0.0


# ---- element-wise traffic of a denoiser pass, counted from the diffusers 0.30 modules -------------------
# Per token, in activation elements read + written by the kernels between the GEMMs / convolutions (an
# element is 2 bytes in a 16-bit pipeline). GroupNorm reads its input twice (statistics, then the
# normalisation) and writes once: 3; LayerNorm 2; SiLU / GELU 2; a same-shape add 3; a broadcast add or
# multiply 2; a copy (``contiguous`` after a permute) 2; a concatenation reads and writes its inputs.


def resnet_elements(c_in: int, c_out: int) -> int:
    """``ResnetBlock2D``: GroupNorm + SiLU on its input (5), the time-embedding add, GroupNorm + SiLU on
    the output, the residual add and the division by ``output_scale_factor`` (2 + 3 + 2 + 3 + 2 = 12)."""
    return 5 * c_in + 12 * c_out


def basic_block_elements(c: int) -> int:
    """``BasicTransformerBlock`` (SDXL): 3 LayerNorms (6), per attention the output transpose copy and
    the ``rescale_output_factor`` division (2 x 4), 3 residual adds (9), GEGLU's GELU on the 4c gate (8)
    and the product with the 4c value (12): 43 c."""
    return 3 * 2 * c + 2 * 4 * c + 3 * 3 * c + 8 * c + 12 * c


def transformer2d_elements(c: int, depth: int) -> int:
    """``Transformer2DModel`` with ``depth`` blocks: GroupNorm (3), the permute copies in and out (4),
    the residual add (3), and the blocks."""
    return 10 * c + depth * basic_block_elements(c)


RMSNORM_UNITS = 17  # diffusers RMSNorm in fp32: to(fp32) 3, pow 4, mean 2, *rsqrt 3, to(bf16) 3, *weight 2
ROPE_UNITS = 20  # FLUX apply_rope in fp32: float() 3, two products 4 + 4, their sum 6, type_as 3


def flux_double_elements(c: int) -> int:
    """FLUX ``FluxTransformerBlock`` per token (image and text streams alike): AdaLayerNormZero (LayerNorm,
    scale, shift: 6), RMSNorm of q and k (2 x 17), the text + image concatenation of q, k, v (6), RoPE on
    q and k (2 x 20), the attention output copy (2), gate (2), residual (3), LayerNorm + modulation (6),
    GELU on the 4c hidden (8), gate (2), residual (3): 112 c."""
    return (6 + 2 * RMSNORM_UNITS + 6 + 2 * ROPE_UNITS + 2 + 2 + 3 + 6 + 8 + 2 + 3) * c


def flux_single_elements(c: int) -> int:
    """FLUX ``FluxSingleTransformerBlock`` per token: AdaLayerNormZeroSingle (6), GELU on the 4c MLP
    branch (8), RMSNorm of q and k (34), RoPE (40), the attention output copy (2), the concatenation of
    attention and MLP outputs (5c read and written: 10), gate (2), residual (3): 105 c."""
    return (6 + 8 + 2 * RMSNORM_UNITS + 2 * ROPE_UNITS + 2 + 10 + 2 + 3) * c


# SDXL's UNet by resolution (diffusers UNet2DConditionModel, SDXL config): the resnets with the channels
# they read (the up blocks' concatenated skips), the Transformer2DModels, the concatenations, the nearest
# upsampling into the stage (a quarter of the channels read per token, all written), GroupNorm + SiLU
# before conv_out.
SDXL_ELEMENTWISE_1_8 = (
    2 * resnet_elements(320, 320)  # down block 0
    + 2 * (960 + 640 + 640)  # up block 2: concatenations
    + resnet_elements(960, 320)
    + 2 * resnet_elements(640, 320)
    + (640 // 4 + 640)  # upsampled from 1/16
    + 5 * 320  # conv_norm_out + SiLU
)
SDXL_ELEMENTWISE_1_16 = (
    resnet_elements(320, 640)  # down block 1
    + resnet_elements(640, 640)
    + 2 * transformer2d_elements(640, 2)
    + 2 * (1920 + 1280 + 960)  # up block 1: concatenations
    + resnet_elements(1920, 640)
    + resnet_elements(1280, 640)
    + resnet_elements(960, 640)
    + 3 * transformer2d_elements(640, 2)
    + (1280 // 4 + 1280)  # upsampled from 1/32
)
SDXL_ELEMENTWISE_1_32 = (
    resnet_elements(640, 1280)  # down block 2
    + resnet_elements(1280, 1280)
    + 2 * transformer2d_elements(1280, 10)
    + 2 * resnet_elements(1280, 1280)  # mid block
    + transformer2d_elements(1280, 10)
    + 2 * (2560 + 2560 + 1920)  # up block 0: concatenations
    + 2 * resnet_elements(2560, 1280)
    + resnet_elements(1920, 1280)
    + 3 * transformer2d_elements(1280, 10)
)
FLUX_ELEMENTWISE = 19 * flux_double_elements(3072) + 38 * flux_single_elements(3072)


@dataclass(frozen=True, slots=True)
class TextEncoder:
    name: str
    params: float
    tokens: int


@dataclass(frozen=True, slots=True)
class DiffusionProfile:
    """What the physics needs to know about a text-to-image pipeline."""

    model: str  # ModelSpec.name
    denoiser: str
    denoiser_params: float
    stages: tuple[Stage, ...]
    joint_text_tokens: int  # text tokens that run through the denoiser with the image (MMDiT)
    text_encoders: tuple[TextEncoder, ...]
    vae_params: float
    default_steps: int
    passes_per_step: int  # 2 with classifier-free guidance
    latent_multiple: int  # width and height must be multiples of this
    source: str
    size_rule: str = ""  # why ``latent_multiple``, in words (the error for another size says it)


PROFILES: dict[str, DiffusionProfile] = {
    "sdxl": DiffusionProfile(
        model="sdxl",
        denoiser="UNet",
        denoiser_params=2.567e9,
        stages=(
            Stage(14.4e6, 8, 0, 320, 960, SDXL_ELEMENTWISE_1_8),
            Stage(137e6, 16, 10, 640, 5120, SDXL_ELEMENTWISE_1_16),
            Stage(2051e6, 32, 60, 1280, 10240, SDXL_ELEMENTWISE_1_32),
        ),
        joint_text_tokens=0,
        text_encoders=(
            TextEncoder("CLIP ViT-L/14", 0.123e9, 77),
            TextEncoder("OpenCLIP ViT-bigG/14", 0.695e9, 77),
        ),
        vae_params=0.0838e9,
        default_steps=30,
        passes_per_step=2,
        latent_multiple=8,
        source="Stability-AI/generative-models sd_xl_base.yaml (channels 320/640/1280, transformer depth "
        "1/2/10); per-stage counts derived here",
        size_rule="one latent per 8x8 pixels; diffusers' SDXL pipeline refuses other sizes",
    ),
    "flux.1-dev": DiffusionProfile(
        model="flux.1-dev",
        denoiser="MMDiT",
        denoiser_params=11.9e9,
        stages=(Stage(6.45e9, 16, 57, 3072, 21504, FLUX_ELEMENTWISE),),
        joint_text_tokens=512,
        text_encoders=(
            TextEncoder("T5-XXL encoder", 4.762e9, 512),
            TextEncoder("CLIP ViT-L/14", 0.123e9, 77),
        ),
        vae_params=0.0838e9,
        default_steps=28,
        passes_per_step=1,
        latent_multiple=16,
        source="black-forest-labs/flux util.py flux-dev (hidden 3072, 19 double + 38 single blocks, "
        "MLP x4); per-token counts derived here",
        size_rule="one latent per 8x8 pixels, packed 2x2 per token; diffusers' Flux pipeline rounds other "
        "sizes down",
    ),
}


@dataclass(frozen=True, slots=True)
class ImageEstimate:
    """What :func:`estimate_images` returns for one model on ``gpus`` x one accelerator."""

    model: str
    gpu: str
    precision: str
    engine: str
    steps: int
    width: int
    height: int
    batch: int
    fits: bool
    binding_constraint: str  # "fits", "weights", "activations" or "unsupported" (the platform rules)
    memory_gb: float  # peak per GPU (= memory.total_gb)
    memory: MemoryBreakdown  # weights (denoiser + text encoders + VAE), activations, overhead
    # None: the pipeline does not fit (with the offload asked for, or without): no speed is given
    seconds_per_image: float | None
    images_per_s: float | None
    bound: str | None  # "compute" or "memory"; None without a speed
    flops_per_image: float
    attention_flops_per_image: float  # the denoiser's QK^T and PV, all steps and passes
    attention_efficiency: float  # of ``attention_peak_tflops``
    attention_peak_tflops: float
    other_efficiency: float  # everything else, of ``peak_tflops``
    peak_tflops: float  # the denoiser's weight-format rate (bf16, fp16, fp8 or fp32)
    speed_calibrated: bool = False  # the speed rests on a measurement (calibration_coverage: none does)
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # False where the platform rules say diffusers cannot run on the GPU at all (no speed is given, and
    # ``unsupported_reason`` says why; ``assumptions["alternatives"]`` what would run)
    supported: bool = True
    unsupported_reason: str = ""


class UnknownImageModelError(UnknownNameError):
    """A model the image-model registry (:data:`PROFILES`, the pipelines this estimator can time) does
    not hold. ``suggestions`` are the image models closest by spelling, said as other models (SD3 is an
    MMDiT like FLUX, not the UNet its spelling puts it next to), never as the model named; ``accepted``
    lists every image model known."""

    def __init__(self, field: str, name: str, suggestions: Iterable[str], *, profiled: bool = True) -> None:
        self.name = name
        self.suggestions = list(suggestions)
        self.ambiguous = False
        said = quoted_name(name)
        near = ", ".join(self.suggestions)
        other = "a different model" if len(self.suggestions) == 1 else "different models"
        close = (
            f"closest names by spelling: {near} ({other}, not {said})"
            if self.suggestions
            else "no image model is close by spelling"
        )
        what = (
            f"unknown name {said}: not in the image-model registry"
            if profiled
            else f"{said} is a diffusion model, but not in the image-model registry (no pipeline profile "
            "to time it by)"
        )
        InvalidInputError.__init__(
            self, field, f"{what}; {close}", f"known image models: {', '.join(PROFILES)}"
        )


def _image_labels() -> dict[str, str]:
    """Every name, alias and Hugging Face id of the image models :data:`PROFILES` holds -> its name."""
    from gpuscout.knowledge.models import all_models

    owner = {name: name for name in PROFILES}
    for model in all_models():
        if model.name in PROFILES:
            for label in (model.hf_id, *model.aliases):
                if label:
                    owner[label] = model.name
    return owner


def _closest_image_models(name: str) -> list[str]:
    """The image models whose names or aliases are closest to ``name`` by spelling, best first."""
    owner = _image_labels()
    found: list[str] = []
    for label in closest(name, owner, n=10):
        if owner[label] not in found:
            found.append(owner[label])
    return found


def resolve_image_model(model: str | ModelSpec) -> ModelSpec:
    """The model ``model`` names, where the registry knows it; else :class:`UnknownImageModelError` with
    the image models closest by spelling and every image model known (not the registry's closest names
    of any kind, said as if they were the model: "sd3" -> "closest known: sdxl")."""
    if isinstance(model, str) and not model.strip():  # "is empty", with the image models it can time
        raise UnknownNameError("model", model, KnownNames(PROFILES))
    try:
        return resolve_model_arg(model)
    except UnknownNameError as exc:
        if exc.ambiguous or exc.field != "model" or not isinstance(model, str):
            raise
        raise UnknownImageModelError("model", model, _closest_image_models(model)) from None


def profile_for(spec: ModelSpec) -> DiffusionProfile:
    """The pipeline profile of a diffusion model, or an error listing the supported ones."""
    if spec.name in PROFILES:
        return PROFILES[spec.name]
    if spec.kind != "diffusion":
        wanted = "an image model"
        raise WrongModelKind(
            spec.name, spec.kind, wanted, other_face(spec.name, spec.kind, wanted), ", ".join(PROFILES)
        )
    raise UnknownImageModelError("model", spec.name, _closest_image_models(spec.name), profiled=False)


def _nearest(value: int, multiple: int) -> str:
    """The two multiples of ``multiple`` around ``value``: '1000 or 1008'."""
    low = value // multiple * multiple
    return f"{low} or {low + multiple}"


def check_image_size(model: str, profile: DiffusionProfile, width: int, height: int) -> None:
    """An error naming ``width`` (else ``height``) when a side is not a multiple of the pipeline's
    ``latent_multiple``, with the nearest sizes that are (and the other side's, when it is not either).

    SDXL's diffusers pipeline raises on such a size (``check_inputs``: "have to be divisible by 8");
    FLUX's resizes the latent down to a multiple of 16 (a smaller image than asked). Neither generates
    the size given, so neither is timed at it."""
    m = profile.latent_multiple
    bad = [(name, value) for name, value in (("width", width), ("height", height)) if value % m]
    if not bad:
        return
    (field, value), others = bad[0], bad[1:]
    also = "".join(f"; {name} {v} is not either (nearest: {_nearest(v, m)})" for name, v in others)
    why = f" ({profile.size_rule})" if profile.size_rule else ""
    raise InvalidInputError(
        field,
        f"{value} is not a multiple of {m}, which {model} needs{why}; nearest: {_nearest(value, m)}{also}",
        accepted=f"multiples of {m} (width and height)",
        names=("width", "height"),
    )


def _stage_tokens(profile: DiffusionProfile, stage: Stage, width: int, height: int) -> int:
    tokens = math.ceil(width / stage.downsample) * math.ceil(height / stage.downsample)
    return tokens + profile.joint_text_tokens


def denoiser_attention_flops(profile: DiffusionProfile, width: int, height: int) -> float:
    """FLOPs of the self-attention (``QK^T`` and ``PV``: ``4 x width x tokens^2`` per block) in one
    denoiser pass over one image."""
    return sum(
        s.attention_blocks * 4.0 * s.attention_width * _stage_tokens(profile, s, width, height) ** 2
        for s in profile.stages
    )


def denoiser_flops(profile: DiffusionProfile, width: int, height: int) -> float:
    """FLOPs of one denoiser pass over one image (attention included)."""
    linear = sum(2.0 * s.params * _stage_tokens(profile, s, width, height) for s in profile.stages)
    return linear + denoiser_attention_flops(profile, width, height)


def denoiser_elementwise_bytes(
    profile: DiffusionProfile, width: int, height: int, element_bytes: float
) -> float:
    """Bytes the element-wise kernels of one denoiser pass over one image read and write (norms,
    activations, residual adds, layout copies, concatenations; see ``Stage.elementwise``)."""
    return element_bytes * sum(
        s.elementwise * _stage_tokens(profile, s, width, height) for s in profile.stages
    )


def vae_decode_flops(width: int, height: int) -> float:
    """FLOPs of the SD/FLUX VAE decoder for one image (convolutions + latent self-attention)."""
    latent = math.ceil(width / 8) * math.ceil(height / 8)
    return VAE_FLOPS_PER_PIXEL * width * height + 4.0 * 512 * latent**2


def text_encoder_flops(profile: DiffusionProfile) -> float:
    return sum(2.0 * enc.params * enc.tokens for enc in profile.text_encoders)


@dataclass(frozen=True, slots=True)
class Resident:
    """One pipeline component on the GPU during its own pass (model CPU offload), in bytes."""

    name: str
    weights: float
    activations: float  # the pass's activation peak, fragmentation included


def _components(
    profile: DiffusionProfile, denoiser_bytes: float, den_act: float, vae_bytes: float, vae_act: float
) -> tuple[Resident, ...]:
    """What each component holds on the GPU while it runs under ``enable_model_cpu_offload``, which moves
    each text encoder, the denoiser and the VAE on and off the GPU in turn: its weights and the
    activations of its own pass only (the VAE decoder's peak comes while the denoiser is back in host
    memory). A text encoder's activations (a few MB for at most 512 tokens) are left out."""
    frag = 1 + FRAGMENTATION
    encoders = tuple(Resident(enc.name, enc.params * SIDE_BYTES, 0.0) for enc in profile.text_encoders)
    return (
        *encoders,
        Resident(f"{profile.denoiser} denoiser", denoiser_bytes, den_act * frag),
        Resident("VAE decoder", vae_bytes, vae_act * frag),
    )


WEIGHT_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp32": 4.0, "fp8": 1.0}  # the denoiser's, per parameter
OVERHEAD_BYTES = (CUDA_CONTEXT_GB + WORKSPACE_GB) * GB


@dataclass(frozen=True, slots=True)
class Footprint:
    """The pipeline's peak on the GPU, in bytes (see Memory in the module docstring)."""

    weights: float  # on the GPU at the peak: all of them, or under CPU offload the peak component's
    activations: float  # fragmentation included
    whole_weights: float  # denoiser + text encoders + VAE: what CPU offload copies in per batch
    peak: Resident | None = None  # under CPU offload: the component at the peak

    @property
    def total(self) -> float:
        return self.weights + self.activations + OVERHEAD_BYTES


def footprint(
    profile: DiffusionProfile, prec: str, width: int, height: int, batch: int, *, cpu_offload: bool
) -> Footprint:
    """Peak GPU memory of ``profile`` with its denoiser in ``prec`` generating ``batch`` images of
    ``width`` x ``height`` (whole on the GPU, or with diffusers' model CPU offload)."""
    denoiser_bytes = profile.denoiser_params * WEIGHT_BYTES[prec]
    text_bytes = sum(enc.params for enc in profile.text_encoders) * SIDE_BYTES
    vae_bytes = profile.vae_params * SIDE_BYTES
    whole = denoiser_bytes + text_bytes + vae_bytes
    pixels = width * height
    vae_act = batch * VAE_PEAK_TENSORS * 128 * pixels * 2.0
    # a few (4) of the widest per-token tensors alive at once, for every image and CFG pass
    den_act = (
        batch
        * profile.passes_per_step
        * 4
        * 2.0
        * max(
            (math.ceil(width / s.downsample) * math.ceil(height / s.downsample) + profile.joint_text_tokens)
            * s.widest
            for s in profile.stages
        )
    )
    if cpu_offload:
        components = _components(profile, denoiser_bytes, den_act, vae_bytes, vae_act)
        peak = max(components, key=lambda c: c.weights + c.activations)
        return Footprint(peak.weights, peak.activations, whole, peak)
    return Footprint(whole, max(vae_act, den_act) * (1 + FRAGMENTATION), whole)


def _fits_instead(
    profile: DiffusionProfile,
    prec: str,
    width: int,
    height: int,
    batch: int,
    cpu_offload: bool,
    capacity: float,
) -> list[str]:
    """What would fit ``capacity`` where the pipeline asked for does not, nearest the request first: a
    smaller batch; a 16-bit denoiser for an fp32 one; an FP8 denoiser; CPU offload; an FP8 denoiser with
    CPU offload only where neither fits alone. Each at the largest batch up to ``batch`` that fits, with
    its peak and how to ask for it (the Python argument and the ``gpuscout images`` option)."""

    def peak(p: str, offload: bool, b: int) -> float:
        return footprint(profile, p, width, height, b, cpu_offload=offload).total

    def largest_batch(p: str, offload: bool, most: int) -> int:
        """The largest batch up to ``most`` that fits (peak memory grows with the batch), 0: none."""
        low, high = 0, most
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if peak(p, offload, mid) <= capacity else (low, mid - 1)
        return low

    configs = [("", prec, cpu_offload)]  # as asked: only a smaller batch can help
    if prec == "fp32":
        configs.append(("a 16-bit denoiser", "bf16", cpu_offload))
    if prec != "fp8":
        configs.append(("an FP8 denoiser", "fp8", cpu_offload))
    if not cpu_offload:
        configs.append(("CPU offload", prec, True))
    fitting = [
        (label, p, offload, largest_batch(p, offload, batch - 1 if not label else batch))
        for label, p, offload in configs
    ]
    if prec != "fp8" and not cpu_offload:
        # both together, where they hold a larger batch than either alone (a bigger GPU's choice, not
        # this one's, where either alone holds the whole batch)
        both = largest_batch("fp8", True, batch)
        if both > max(b for *_, b in fitting):
            fitting.append(("an FP8 denoiser with CPU offload", "fp8", True, both))
    options: list[str] = []
    for label, p, offload, b in fitting:
        if not b:
            continue
        python = [f"precision={p!r}"] if p != prec else []
        flags = [f"--precision {p}"] if p != prec else []
        if offload and not cpu_offload:
            python.append("cpu_offload=True")
            flags.append("--cpu-offload")
        if b != batch:
            python.append(f"batch={b}")
            flags.append(f"--batch {b}")
        what = f"{label} at batch {b}" if label and b != batch else label or f"batch {b}"
        options.append(
            f"{what} ({', '.join(python)}, `gpuscout images {' '.join(flags)}`): "
            f"{gib(peak(p, offload, b) / GB):.1f} GiB"
        )
    return options


def estimate_images(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    steps: int | None = None,
    width: int = 1024,
    height: int = 1024,
    batch: int = 1,
    precision: str = "bf16",
    engine: str = "diffusers",
    cpu_offload: bool = False,
) -> ImageEstimate:
    """Seconds per image, images/s and peak memory of ``model`` generating on one ``gpu``; no speed
    (``None``) where the pipeline does not fit, with what would fit in its warnings."""
    spec = resolve_image_model(model)
    # "A100" read as one of its variants; an MI250X runs it on one of its GCDs
    acc, _, variant = as_software_sees(gpu, resolve_gpu_arg(gpu))
    profile = profile_for(spec)
    steps = profile.default_steps if steps is None else int_in("steps", steps, 1, MAX_STEPS)
    width = int_in("width", width, MIN_IMAGE_PX, MAX_IMAGE_PX)
    height = int_in("height", height, MIN_IMAGE_PX, MAX_IMAGE_PX)
    batch = int_in("batch", batch, 1, MAX_IMAGE_BATCH, error=ConfigurationRejected)
    if not isinstance(engine, str) or fold_name(engine).strip().lower() not in ENGINES:
        raise InvalidInputError(
            "engine", f"unknown image engine {quoted_value(engine)}", accepted=", ".join(ENGINES)
        )
    prec = precision.strip().lower() if isinstance(precision, str) else precision
    if prec not in PRECISIONS:
        raise InvalidInputError(
            "precision",
            f"unsupported precision {precision!r} for image models",
            accepted=", ".join(PRECISIONS),
        )
    if not isinstance(cpu_offload, bool):
        raise InvalidInputError("cpu_offload", f"must be true or false, got {quoted_value(cpu_offload)}")
    assumptions: dict[str, str] = {"profile": profile.source}
    warnings: list[str] = [variant] if variant else []
    check_image_size(spec.name, profile, width, height)
    # where diffusers (PyTorch) runs at all: a refusal gives no speed, a caveat a warning
    platform = check_workload("diffusers", acc)
    refusal = platform.message()
    if refusal:
        assumptions["support"] = f"{refusal} (sources: {', '.join(platform.sources)})"
        assumptions["alternatives"] = platform.instead()
    warnings += [f"diffusers on {acc.name}: {rule.said}" for rule in platform.caveats]

    # --- speed -------------------------------------------------------------------------------------
    rate = compute_rate(resolve_precision(prec), acc, tf32=False)  # PyTorch: TF32 matmuls off
    # the 16-bit type it runs in: fp16 where the GPU has no bf16 (Volta, Turing: the rate's warning says so)
    sixteen = "bf16" if has_bf16(acc) else "fp16"
    run_prec = sixteen if prec == "bf16" else prec
    if rate.warning:
        warnings.append(rate.warning)
    fp8_native = prec == "fp8" and rate.native
    if fp8_native:
        eff = FP8_EFFICIENCY
    else:
        eff = DIFFUSERS_EFFICIENCY if prec == "fp32" else DENOISER_GEMM_EFFICIENCY
    rate16 = compute_rate(resolve_precision(sixteen), acc)
    bf16_rate = rate16.tflops * 1e12 * DIFFUSERS_EFFICIENCY
    # attention: SDPA in 16 bits (an FP8 denoiser's too) at FA2's fraction; fp32 has no FA2 kernel
    attn_cls = attention_class(acc)
    attn_rate, attn_eff = (rate, DIFFUSERS_EFFICIENCY) if prec == "fp32" else (rate16, attn_cls.efficiency)
    step_flops = denoiser_flops(profile, width, height) * profile.passes_per_step
    attn_step_flops = denoiser_attention_flops(profile, width, height) * profile.passes_per_step
    # element-wise kernels between the GEMMs: 16-bit activations (an FP8 denoiser's too), 32-bit in fp32
    elem_step_bytes = (
        denoiser_elementwise_bytes(profile, width, height, 4.0 if prec == "fp32" else 2.0)
        * profile.passes_per_step
    )
    elem_step_s = elem_step_bytes / (acc.bandwidth_gbps * GB * ELEMENTWISE_BANDWIDTH_SHARE)
    step_s = (
        (step_flops - attn_step_flops) / (rate.tflops * 1e12 * eff)
        + attn_step_flops / (attn_rate.tflops * 1e12 * attn_eff)
        + elem_step_s
    )
    denoise_s = steps * step_s
    text_s = text_encoder_flops(profile) / bf16_rate
    vae_s = vae_decode_flops(width, height) / bf16_rate

    denoiser_bytes = profile.denoiser_params * WEIGHT_BYTES[prec]
    # a step reads the denoiser's weights once for the whole batch (and for both CFG passes)
    weight_read_s = steps * denoiser_bytes / (acc.bandwidth_gbps * GB * 0.8)
    batch_denoise_s = max(batch * denoise_s, weight_read_s)
    bound = "memory" if weight_read_s > batch * denoise_s else "compute"
    batch_s = batch_denoise_s + batch * (text_s + vae_s)

    # --- memory ------------------------------------------------------------------------------------
    need = footprint(profile, prec, width, height, batch, cpu_offload=cpu_offload)
    weights, acts = need.weights, need.activations
    side_bytes = need.whole_weights - denoiser_bytes  # text encoders and VAE
    if need.peak is not None:  # CPU offload: every component copied in per batch
        link = host_link_gbps(acc)
        batch_s += need.whole_weights / (link * GB)
        assumptions["cpu_offload"] = (
            f"one component on the GPU at a time; the peak is while the {need.peak.name} runs "
            f"({gib(weights / GB):.1f} GiB weights + {gib(acts / GB):.1f} GiB activations); "
            f"{need.whole_weights / GB:.1f} GB copied per batch at {link:g} GB/s"  # traffic: GB, as GB/s
        )
    total = need.total
    capacity = capacity_bytes(acc)
    fits = total <= capacity and not refusal  # a platform diffusers cannot run on holds nothing
    binding = "fits" if fits else "unsupported" if refusal else ""
    if not fits and not refusal:
        # no speed for a pipeline the GPU cannot hold (as ``gpuscout estimate`` gives none): what it
        # needs, and what would hold it instead
        binding = "weights" if weights + OVERHEAD_BYTES > capacity else "activations"
        options = _fits_instead(profile, prec, width, height, batch, cpu_offload, capacity)
        offloaded = " with CPU offload" if cpu_offload else ""
        instead = (
            f"would fit: {'; '.join(options)}"
            if options
            else "nothing this estimate models fits this GPU (an FP8 denoiser, CPU offload and batch 1 "
            "included): a GPU with more memory would"
        )
        warnings.append(
            f"does not fit{offloaded}: needs {gib(total / GB):.1f} GiB, the GPU has "
            f"{gib(capacity / GB):.1f} GiB ({binding}); no speed is given; {instead}"
        )
        assumptions["would_fit"] = "; ".join(options) if options else "nothing on this GPU"

    passes = profile.passes_per_step
    guidance = " (classifier-free guidance)" if passes == 2 else " (guidance-distilled)"
    text_tf = text_encoder_flops(profile) / 1e12
    attn_word = (
        "fp32: no FlashAttention-2 kernel, the same prior"
        if prec == "fp32"
        else f"{attn_cls.kernel} on {attn_cls.name}: {attn_cls.source}"
    )
    vae_tf = vae_decode_flops(width, height) / 1e12
    assumptions["steps"] = (
        f"{steps} {plural(steps, 'step')} x {passes} {plural(passes, 'pass', 'passes')}{guidance}"
    )
    if fits:  # how the speed is timed: nothing to say where none is given
        assumptions.update(
            {
                "efficiency": f"diffusers: convolutions and linear layers at {eff:.2f} of the "
                f"{rate.rate_name} peak {rate.tflops:g} TFLOPS (prior); attention at {attn_eff:.2f} of the "
                f"{attn_rate.rate_name} peak {attn_rate.tflops:g} TFLOPS ({attn_word})",
                "elementwise": "norms, activations, residual adds and layout copies of the "
                f"{profile.denoiser} (counted from the diffusers modules): {elem_step_bytes / GB:.1f} GB "
                f"per step at {ELEMENTWISE_BANDWIDTH_SHARE:.0%} of {acc.bandwidth_gbps:g} GB/s, "
                f"{elem_step_s * 1e3:,.0f} ms per step",
                "flops": f"denoiser {step_flops / 1e12:.1f} TFLOP per step ({attn_step_flops / 1e12:.1f} "
                f"of it attention), text encoders {text_tf:.2f}, VAE decode {vae_tf:.1f} TFLOP per image",
            }
        )
    assumptions["weights"] = (
        f"denoiser {run_prec} ({gib(denoiser_bytes / GB):.1f} GiB), text encoders and VAE "
        f"{sixteen} ({gib(side_bytes / GB):.1f} GiB)"
    )
    calibrated = speed_calibrated(acc, "images")
    if fits and not calibrated:  # a speed is given: say what it rests on
        warnings.append(uncalibrated_speed_warning())
    seconds_per_image = batch_s / batch if fits else None
    flops_per_image = steps * step_flops + text_encoder_flops(profile) + vae_decode_flops(width, height)
    if refusal:  # the reason first, as ``estimate()`` gives an engine's refusal
        warnings.insert(0, refusal)
    return ImageEstimate(
        model=spec.name,
        gpu=acc.name,
        precision=run_prec,
        engine="diffusers",
        steps=steps,
        width=width,
        height=height,
        batch=batch,
        fits=fits,
        binding_constraint=binding,
        memory_gb=total / GB,
        memory=MemoryBreakdown(
            weights_gb=weights / GB,
            kv_cache_gb=0.0,
            activations_gb=acts / GB,
            overhead_gb=OVERHEAD_BYTES / GB,
            usable_gb=capacity / GB,
            capacity_gb=capacity / GB,
        ),
        seconds_per_image=seconds_per_image,
        images_per_s=None if seconds_per_image is None else 1.0 / seconds_per_image,
        bound=bound if fits else None,
        flops_per_image=flops_per_image,
        attention_flops_per_image=steps * attn_step_flops,
        attention_efficiency=attn_eff,
        attention_peak_tflops=attn_rate.tflops,
        other_efficiency=eff,
        peak_tflops=rate.tflops,
        speed_calibrated=calibrated,
        assumptions=assumptions,
        warnings=warnings,
        supported=not refusal,
        unsupported_reason=refusal,
    )
