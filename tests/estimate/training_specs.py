"""Model specs for the training and diffusion tests, from the knowledge registry."""

from __future__ import annotations

from gpuscout.knowledge.models import resolve_model

LLAMA31_8B = resolve_model("llama-3.1-8b")
LLAMA31_70B = resolve_model("llama-3.1-70b")
LLAMA2_70B = resolve_model("llama-2-70b")
LLAMA2_7B = resolve_model("llama-2-7b")
LLAMA31_405B = resolve_model("llama-3.1-405b")
MIXTRAL_8X7B = resolve_model("mixtral-8x7b")
SDXL = resolve_model("sdxl")
