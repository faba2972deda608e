"""Text-to-image diffusion: does the pipeline fit, and how many seconds per image.

Image generation is compute-bound: every denoising step runs the denoiser over all latent tokens,
so time = FLOPs / (peak x efficiency).

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

Efficiency ("diffusers" class, one value for every GPU and model): 0.40 of the dense 16-bit tensor
peak (0.30 of the FP8 peak for an FP8 denoiser). A prior, not a fit: the only seconds-per-image rows
in the calibration CSV (one vendor blog, RTX 4090) need 120-170 % of the card's datasheet peak at
the stated steps and resolution, so fitting them would give an efficiency above 1 (see
tests/estimate/test_diffusion.py, which prints the figures). 0.40 is in line with a plain
eager diffusers pipeline with SDPA on datacenter GPUs (FLUX.1-dev bf16 on an H100 at 1024^2 and
28 steps takes ~6-7 s, i.e. ~0.33).

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
from dataclasses import dataclass, field

from gpuscout.errors import ConfigurationRejected, InvalidInputError, UnknownNameError, WrongModelKind
from gpuscout.estimate.arguments import int_in, other_face, resolve_gpu_arg, resolve_model_arg
from gpuscout.estimate.memory import capacity_bytes
from gpuscout.estimate.precision import compute_rate, resolve_precision
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.wording import plural

GB = 1e9
DIFFUSERS_EFFICIENCY = 0.40
FP8_EFFICIENCY = 0.30
CUDA_CONTEXT_GB = 0.5
WORKSPACE_GB = 0.3  # cuBLAS / cuDNN workspaces
FRAGMENTATION = 0.10  # on activations
HOST_LINK_GBPS = 25.0  # PCIe Gen4 x16 achieved
VAE_FLOPS_PER_PIXEL = 18 * (7 * 128**2 + 7 * 256**2 / 4 + 7 * 512**2 / 16 + 9 * 512**2 / 64)
VAE_PEAK_TENSORS = 6  # live 128-channel full-resolution tensors during the last decoder stage
ENGINES = ("diffusers",)
SIDE_BYTES = 2.0  # bytes per weight of the text encoders and the VAE (bf16 at every precision)
PRECISIONS = ("bf16", "fp16", "fp32", "fp8")


@dataclass(frozen=True, slots=True)
class Stage:
    """Denoiser parameters applied to every token of one resolution."""

    params: float  # parameters each token goes through at this resolution
    downsample: int  # image pixels per token side (8 = VAE latent)
    attention_blocks: int
    attention_width: int
    widest: int  # widest per-token activation at this resolution (elements)


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


PROFILES: dict[str, DiffusionProfile] = {
    "sdxl": DiffusionProfile(
        model="sdxl",
        denoiser="UNet",
        denoiser_params=2.567e9,
        stages=(
            Stage(14.4e6, 8, 0, 320, 960),
            Stage(137e6, 16, 10, 640, 5120),
            Stage(2051e6, 32, 60, 1280, 10240),
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
    ),
    "flux.1-dev": DiffusionProfile(
        model="flux.1-dev",
        denoiser="MMDiT",
        denoiser_params=11.9e9,
        stages=(Stage(6.45e9, 16, 57, 3072, 21504),),
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
    binding_constraint: str  # "fits", "weights" or "activations"
    memory_gb: float  # peak per GPU (= memory.total_gb)
    memory: MemoryBreakdown  # weights (denoiser + text encoders + VAE), activations, overhead
    seconds_per_image: float
    images_per_s: float
    bound: str  # "compute" or "memory"
    flops_per_image: float
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def profile_for(spec: ModelSpec) -> DiffusionProfile:
    """The pipeline profile of a diffusion model, or an error listing the supported ones."""
    if spec.name in PROFILES:
        return PROFILES[spec.name]
    if spec.kind != "diffusion":
        wanted = "an image model"
        raise WrongModelKind(
            spec.name, spec.kind, wanted, other_face(spec.name, spec.kind, wanted), ", ".join(PROFILES)
        )
    raise UnknownNameError("model", spec.name, list(PROFILES))


def denoiser_flops(profile: DiffusionProfile, width: int, height: int) -> float:
    """FLOPs of one denoiser pass over one image."""
    total = 0.0
    for stage in profile.stages:
        tokens = math.ceil(width / stage.downsample) * math.ceil(height / stage.downsample)
        tokens += profile.joint_text_tokens
        total += 2.0 * stage.params * tokens
        total += stage.attention_blocks * 4.0 * stage.attention_width * tokens**2
    return total


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
    """Seconds per image, images/s and peak memory of ``model`` generating on one ``gpu``."""
    spec = resolve_model_arg(model)
    acc = resolve_gpu_arg(gpu)
    profile = profile_for(spec)
    steps = profile.default_steps if steps is None else int_in("steps", steps, 1, 10_000)
    width = int_in("width", width, 64, 16_384)
    height = int_in("height", height, 64, 16_384)
    batch = int_in("batch", batch, 1, 4096, error=ConfigurationRejected)
    if not isinstance(engine, str) or engine.strip().lower() not in ENGINES:
        raise InvalidInputError("engine", f"unknown image engine {engine!r}", accepted=", ".join(ENGINES))
    prec = precision.strip().lower() if isinstance(precision, str) else precision
    if prec not in PRECISIONS:
        raise InvalidInputError(
            "precision",
            f"unsupported precision {precision!r} for image models",
            accepted=", ".join(PRECISIONS),
        )
    if not isinstance(cpu_offload, bool):
        raise InvalidInputError("cpu_offload", f"must be true or false, got {cpu_offload!r}")
    assumptions: dict[str, str] = {"profile": profile.source}
    warnings: list[str] = []
    if width % profile.latent_multiple or height % profile.latent_multiple:
        warnings.append(
            f"{spec.name} expects width and height in multiples of {profile.latent_multiple}; "
            "the pipeline will round them"
        )

    # --- speed -------------------------------------------------------------------------------------
    rate = compute_rate(resolve_precision(prec), acc, tf32=False)  # PyTorch: TF32 matmuls off
    if rate.warning:
        warnings.append(rate.warning)
    fp8_native = prec == "fp8" and rate.native
    eff = FP8_EFFICIENCY if fp8_native else DIFFUSERS_EFFICIENCY
    achieved = rate.tflops * 1e12 * eff
    bf16_rate = compute_rate(resolve_precision("bf16"), acc).tflops * 1e12 * DIFFUSERS_EFFICIENCY
    step_flops = denoiser_flops(profile, width, height) * profile.passes_per_step
    denoise_s = steps * step_flops / achieved
    text_s = text_encoder_flops(profile) / bf16_rate
    vae_s = vae_decode_flops(width, height) / bf16_rate

    w_bytes = {"bf16": 2.0, "fp16": 2.0, "fp32": 4.0, "fp8": 1.0}[prec]
    denoiser_bytes = profile.denoiser_params * w_bytes
    # a step reads the denoiser's weights once for the whole batch (and for both CFG passes)
    weight_read_s = steps * denoiser_bytes / (acc.bandwidth_gbps * GB * 0.8)
    batch_denoise_s = max(batch * denoise_s, weight_read_s)
    bound = "memory" if weight_read_s > batch * denoise_s else "compute"
    batch_s = batch_denoise_s + batch * (text_s + vae_s)

    # --- memory ------------------------------------------------------------------------------------
    text_bytes = sum(enc.params for enc in profile.text_encoders) * SIDE_BYTES
    vae_bytes = profile.vae_params * SIDE_BYTES
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
        weights, acts = peak.weights, peak.activations
        moved = denoiser_bytes + text_bytes + vae_bytes
        batch_s += moved / (HOST_LINK_GBPS * GB)
        assumptions["cpu_offload"] = (
            f"one component on the GPU at a time; the peak is while the {peak.name} runs "
            f"({weights / GB:.1f} GB weights + {acts / GB:.1f} GB activations); {moved / GB:.1f} GB "
            f"copied per batch at {HOST_LINK_GBPS:g} GB/s"
        )
    else:
        weights = denoiser_bytes + text_bytes + vae_bytes
        acts = max(vae_act, den_act) * (1 + FRAGMENTATION)
    overhead = (CUDA_CONTEXT_GB + WORKSPACE_GB) * GB
    total = weights + acts + overhead
    capacity = capacity_bytes(acc)
    fits = total <= capacity
    if fits:
        binding = "fits"
    else:
        binding = "weights" if weights + overhead > capacity else "activations"
        hint = (
            ""
            if cpu_offload
            else "; CPU offload (cpu_offload=True, `gpuscout images --cpu-offload`) keeps only the running "
            "component on the GPU"
        )
        warnings.append(f"needs {total / GB:.1f} GB, the GPU has {capacity / GB:.1f} GB{hint}")

    seconds_per_image = batch_s / batch
    passes = profile.passes_per_step
    guidance = " (classifier-free guidance)" if passes == 2 else " (guidance-distilled)"
    text_tf = text_encoder_flops(profile) / 1e12
    vae_tf = vae_decode_flops(width, height) / 1e12
    assumptions.update(
        {
            "steps": f"{steps} {plural(steps, 'step')} x {passes} "
            f"{plural(passes, 'pass', 'passes')}{guidance}",
            "efficiency": f"diffusers: {eff:.2f} of the {rate.rate_name} peak {rate.tflops:g} TFLOPS (prior)",
            "flops": f"denoiser {step_flops / 1e12:.1f} TFLOP per step, text encoders "
            f"{text_tf:.2f}, VAE decode {vae_tf:.1f} TFLOP per image",
            "weights": f"denoiser {prec} ({denoiser_bytes / GB:.1f} GB), text encoders and VAE bf16 "
            f"({(text_bytes + vae_bytes) / GB:.1f} GB)",
        }
    )
    flops_per_image = steps * step_flops + text_encoder_flops(profile) + vae_decode_flops(width, height)
    return ImageEstimate(
        model=spec.name,
        gpu=acc.name,
        precision=prec,
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
            overhead_gb=overhead / GB,
            usable_gb=capacity / GB,
            capacity_gb=capacity / GB,
        ),
        seconds_per_image=seconds_per_image,
        images_per_s=1.0 / seconds_per_image,
        bound=bound,
        flops_per_image=flops_per_image,
        assumptions=assumptions,
        warnings=warnings,
    )
