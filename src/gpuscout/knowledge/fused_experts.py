"""How Hugging Face transformers holds an MoE model's routed experts, and what PEFT's LoRA ``"all-linear"``
then adapts: the one place for this fact, keyed by ``model_type`` (the curated rows' ``family``).

Read in the released packages' source (wheels from PyPI), not recalled:

* transformers 4.57.6 (the last 4.x): ``MixtralSparseMoeBlock.experts`` is an ``nn.ModuleList`` of
  ``MixtralBlockSparseTop2MLP`` (``w1``/``w2``/``w3`` ``nn.Linear``) and its router ``gate`` an ``nn.Linear``
  (``models/mixtral/modeling_mixtral.py``); so are ``Qwen3MoeSparseMoeBlock`` (``Qwen3MoeMLP``
  experts, ``gate`` ``nn.Linear``) and ``Qwen2MoeSparseMoeBlock`` (plus ``shared_expert_gate``
  ``nn.Linear``); ``DeepseekV3MoE.experts`` an ``nn.ModuleList`` of ``DeepseekV3MLP`` with a
  ``DeepseekV3TopkRouter`` holding a bare ``weight`` parameter; ``GptOssExperts`` (``gate_up_proj``,
  ``down_proj``) and ``Llama4TextExperts`` fused 3-D ``nn.Parameter`` s already.
* transformers 5.0.0 and 5.25.0: every one of those is fused: ``MixtralExperts``, ``Qwen2MoeExperts``,
  ``Qwen3MoeExperts``, ``DeepseekV3Experts``, ``DeepseekV32Experts`` hold ``gate_up_proj``
  (experts x 2*ffn x hidden) and ``down_proj`` (experts x hidden x ffn) ``nn.Parameter`` s (decorated
  ``@use_experts_implementation``, ``integrations/moe.py``), and their routers (``MixtralTopKRouter``,
  ``Qwen2MoeTopKRouter``, ``Qwen3MoeTopKRouter``, ``DeepseekV3TopkRouter``) a bare ``weight`` used through
  ``F.linear``; Qwen2-MoE's ``shared_expert`` / ``shared_expert_gate`` and DeepSeek's ``shared_experts`` and
  leading dense MLPs stay ``nn.Linear``. gpt-oss unchanged.
* PEFT 0.21.2 (``tuners/tuners_utils.py`` ``_maybe_include_all_linear_layers``): "all-linear" is every
  ``nn.Linear`` / ``Conv1D`` but the output embedding; a fused parameter is reached only through
  ``target_parameters`` (``lora.ParamWrapper``: ``lora_A`` in x rank*experts, ``lora_B`` rank*experts x
  out, i.e. ``rank x (in + out)`` per expert). Under transformers 5 ``inject_adapter`` first calls
  ``convert_peft_config_for_transformers`` (``utils/transformers_weight_conversion.py``): for a
  ``model_type`` that transformers' ``conversion_mapping._MODEL_TO_CONVERSION_PATTERN`` maps to
  ``"qwen2_moe"`` (qwen3_moe, deepseek_v3, deepseek_v32, ...) or that PEFT adds as ``"mixtral"``,
  ``_convert_peft_config_moe`` resolves "all-linear" to leaf names plus the v4 expert and router names and
  moves those (``gate``, ``gate_proj``/``w1``, ``up_proj``/``w3``, ``down_proj``/``w2``) to
  ``target_parameters`` ``gate.weight``, ``gate_up_proj`` (rank and alpha doubled: ``rank_pattern``) and
  ``down_proj``. ``qwen2_moe`` itself and ``gpt_oss`` are no key of that map: not converted.

So, with today's releases (transformers 5.x, PEFT 0.21), an "all-linear" LoRA:

* :data:`SKIPPED` (gpt-oss, Qwen2-MoE, Llama 4: ``llama4`` is no key of that map either, read in transformers
  5.25.0; Mistral Small 4: ``Mistral4Experts`` fused, ``mistral4`` no key of it): adapts no routed expert and
  not the router (Llama 4's router is an ``nn.Linear`` subclass, ``Llama4Router``: all-linear adapts it, which
  the layout's bare-weight router leaves out);
* :data:`CONVERTED` (Mixtral, Qwen3-MoE, DeepSeek-V3, DeepSeek-V3.2, GLM-4.5: ``glm4_moe``, whose
  ``Glm4MoeExperts`` transformers 5.25.0 fuses and maps to ``qwen2_moe``; MiniMax-M2: ``minimax_m2``,
  whose ``MiniMaxM2Experts`` it fuses and maps to ``mixtral``, the pattern PEFT 0.21.2 converts): adapts
  every routed expert (``gate_up_proj`` at twice the rank, ``down_proj`` at the rank) and the router
  weight; and, because the names ``gate_proj`` / ``up_proj`` / ``down_proj`` left ``target_modules``, no
  ``nn.Linear`` so named: not DeepSeek's leading dense MLPs nor its shared expert (read in the code, not run);
* an ``nn.Linear`` per expert (:data:`LINEAR`, the default: a model type not below, Kimi-K2's remote
  DeepSeek-V3 code (recalled)): every expert and shared expert, not a router held as a bare weight.

Under transformers 4.x (not modelled: the estimate assumes today's releases) Mixtral's, Qwen-MoE's
experts and ``nn.Linear`` routers were all adapted. MoE model types of transformers 5 not listed (OLMoE,
...) were not read: they stay :data:`LINEAR`.
"""

from __future__ import annotations

#: Experts are one ``nn.Linear`` each: "all-linear" adapts them (and no bare-weight router).
LINEAR = ""
#: Fused 3-D parameters PEFT's "all-linear" leaves alone (no conversion for this model type).
SKIPPED = "skipped"
#: Fused 3-D parameters PEFT converts "all-linear" to reach (``target_parameters``; see the module docstring).
CONVERTED = "converted"
RULES = (LINEAR, SKIPPED, CONVERTED)

#: transformers ``model_type`` -> rule, as read in transformers 5.25.0 and PEFT 0.21.2.
_BY_MODEL_TYPE: dict[str, str] = {
    "gpt_oss": SKIPPED,
    "qwen2_moe": SKIPPED,
    "llama4": SKIPPED,
    "mistral4": SKIPPED,
    "mixtral": CONVERTED,
    "qwen3_moe": CONVERTED,
    "deepseek_v3": CONVERTED,
    "deepseek_v32": CONVERTED,
    "glm4_moe": CONVERTED,
    "glm_moe_dsa": CONVERTED,
    "minimax_m2": CONVERTED,
}


def fused_experts(model_type: str) -> str:
    """The rule for a model of ``model_type`` (a curated row's ``family``): :data:`LINEAR`, :data:`SKIPPED`
    or :data:`CONVERTED`."""
    return _BY_MODEL_TYPE.get(model_type, LINEAR)
