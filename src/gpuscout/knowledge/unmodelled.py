"""Published model architectures gpuscout does not model, and why: the one place for this fact.

A name of one of these models is still an unknown name (it has no row, and a near name would be the wrong
architecture), but the error says what the model is and what in it the memory and speed model cannot
represent, so that a renter is not left to pick the "closest known" model and size the wrong thing. An
imported ``config.json`` of such a model type is refused with the same reason. Qwen3.5 is modelled (Gated
DeltaNet, stop 69) but only its 35B-A3B has a row: its other sizes' names say so and point to the import.

Every entry is read in transformers 5.25.0 (the PyPI wheel): the ``models/<type>/configuration_*.py``
keys named, and the checkpoint its config class documents. What these keys describe:

* linear-attention or state-space layers (Gated DeltaNet, Kimi Delta Attention, lightning attention, Mamba,
  short convolutions) keep a fixed-size state per sequence instead of a growing KV cache, and their
  weights and prefill work are not those of attention; gpuscout's layers are attention layers (full,
  sliding, chunked, MLA or sparse MLA) with MLPs or experts;
* per-layer input embeddings, layers that reuse another layer's KV cache, hyper-connections and compressed
  attention change the weights a step reads and the cache a token keeps in ways no row field describes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuscout.errors import fold_name

_LINEAR_STATE = (
    "linear-attention layers that keep a fixed-size state per sequence, not a KV cache, beside its "
    "full-attention layers"
)
_MAMBA = (
    "Mamba-2 state-space layers (a fixed-size state per sequence, not a KV cache) beside attention layers"
)


@dataclass(frozen=True, slots=True)
class Unmodelled:
    """A model family (``label``) whose names match ``pattern`` (searched in :func:`_key`'s form of the
    name) or whose config has a ``model_types`` entry, and
    what it has that gpuscout cannot represent (``has``), with the config keys that say so (``read``)."""

    label: str
    pattern: str
    model_types: tuple[str, ...]
    has: str
    read: str
    # a family whose architecture gpuscout does model (a row of it, and its config.json imports), only not
    # the size the name asks for: that row's name
    modelled_as: str = ""

    def reason(self) -> str:
        """The words of the error: what the model is and why it has no row (where that is read: ``read``,
        listed in docs/knowledge-data.md)."""
        if self.modelled_as:
            return (
                f"gpuscout models {self.label}'s architecture ({self.has}: the row {self.modelled_as}), but "
                "this size has no row, its config.json not having been read; `gpuscout models import` "
                "with its config.json sizes it"
            )
        types = ", ".join(t for t in self.model_types if not t.endswith("_text"))  # the wrappers' names
        return (
            f"{self.label} (config.json model_type {types}) has {self.has}, which gpuscout's memory and "
            "speed model does not represent, so it has no row"
        )


FAMILIES: tuple[Unmodelled, ...] = (
    Unmodelled(
        "Qwen3.5",
        # the sizes with a row resolve before this is asked; the pattern leaves them out all the same
        r"^qwen-?3\.5(?!-(27b|35b-a3b|122b-a10b|397b-a17b)(-|$))(-|$)",
        (),
        "Gated DeltaNet linear-attention layers beside gated full-attention ones",
        "the config.json copies of Qwen3.5-27B, 35B-A3B, 122B-A10B and 397B-A17B in the aiconfigurator-core "
        "0.12.0 wheel make its rows; no other size's config was read",
        modelled_as="qwen3.5-35b-a3b",
    ),
    Unmodelled(
        "Kimi Linear",
        r"^kimi-?linear",
        ("kimi_linear",),
        "Kimi Delta Attention " + _LINEAR_STATE,
        "KimiLinearConfig layer_types, linear_num_heads, linear_head_dim, documented as "
        "moonshotai/Kimi-Linear-48B-A3B-Instruct",
    ),
    Unmodelled(
        "Nemotron-H (Nemotron Nano 2, Nemotron 3 Nano)",
        r"(^|nvidia-)nemotron-?(h|nano|3-?nano)(-|$)",
        ("nemotron_h",),
        _MAMBA,
        "NemotronHConfig layers_block_type, mamba_num_heads, ssm_state_size, documented as "
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
    ),
    Unmodelled(
        "Granite 4.0 H",
        r"^granite-?4\.\d+-?h(-|$)",
        ("granitemoehybrid",),
        _MAMBA,
        "GraniteMoeHybridConfig layer_types, mamba_d_state, mamba_n_heads",
    ),
    Unmodelled(
        "Falcon-H1",
        r"^falcon-?h1(-|$)",
        ("falcon_h1",),
        "Mamba-2 state-space heads beside attention heads in every layer (a fixed-size state per sequence)",
        "FalconH1Config mamba_d_ssm, mamba_d_state, mamba_n_heads, documented as "
        "tiiuae/Falcon-H1-1.5B-Deep-Instruct",
    ),
    Unmodelled(
        "Jamba",
        r"^(ai21-?)?jamba",
        ("jamba",),
        "Mamba state-space layers (a fixed-size state per sequence, not a KV cache) beside attention layers",
        "JambaConfig attn_layer_period, attn_layer_offset, mamba_d_state, documented as ai21labs/Jamba-v0.1",
    ),
    Unmodelled(
        "Bamba / Zamba",
        r"^(bamba|zamba)",
        ("bamba", "zamba", "zamba2"),
        _MAMBA,
        "BambaConfig attn_layer_indices and Zamba2Config layers_block_type, mamba_d_state",
    ),
    Unmodelled(
        "MiniMax-Text-01 / MiniMax-M1",
        r"^minimax-?(text-?01|m1)(-|$)",
        ("minimax",),
        "lightning-attention (linear) layers that keep a fixed-size state per sequence, not a KV cache, "
        "beside its full-attention layers",
        "MiniMaxConfig layer_types, linear_attn_alpha_factor, documented as MiniMaxAI/MiniMax-Text-01-hf",
    ),
    Unmodelled(
        "LFM2",
        r"^(liquidai-?)?lfm-?2(-|$)",
        ("lfm2", "lfm2_moe"),
        "short-convolution layers that keep a fixed-size state per sequence beside its attention layers",
        "Lfm2Config layer_types, full_attn_idxs, conv_L_cache, documented as LiquidAI/LFM2-1.2B",
    ),
    Unmodelled(
        "OLMo Hybrid",
        r"^olmo-?hybrid",
        ("olmo_hybrid",),
        _LINEAR_STATE,
        "OlmoHybridConfig layer_types, linear_conv_kernel_dim, documented as allenai/Olmo-Hybrid-7B",
    ),
    Unmodelled(
        "GLM-5 Flash (GLM-5.3-Flash)",
        r"^glm-?5\.\d+-?flash",
        ("glm5_next", "glm5_next_text"),
        _LINEAR_STATE + " and hyper-connections",
        "Glm5NextConfig linear_num_heads, linear_head_dim, linear_conv_kernel_dim, hc_mult, documented as "
        "zai-org/GLM-5.3-Flash",
    ),
    # stop 69: read in the config.json copies of the aiconfigurator-core 0.12.0 wheel (PyPI)
    Unmodelled(
        "Kimi K3",
        r"^kimi-?k3(-|$)",
        ("kimi_k3",),
        "Kimi Delta Attention " + _LINEAR_STATE + " (MLA)",
        "moonshotai--Kimi-K3 config.json in the aiconfigurator-core 0.12.0 wheel: text_config model_type "
        "kimi_linear, linear_attn_config kda_layers / full_attn_layers, kv_lora_rank",
    ),
    Unmodelled(
        "MiniMax-M3",
        r"^minimax-?m3(-|$)",
        ("minimax_m3",),
        "block-sparse attention (a top-k of 128-token blocks picked by an index per layer, from its fourth "
        "layer on) whose index weights and reads no row field describes",
        "MiniMaxAI--MiniMax-M3 config.json in the aiconfigurator-core 0.12.0 wheel: sparse_attention_config "
        "(sparse_block_size, sparse_topk_blocks, sparse_num_index_heads, sparse_attention_freq)",
    ),
    Unmodelled(
        "MiMo-V2-Flash",
        r"^(xiaomimimo-?)?mimo-?v2",
        ("mimo_v2_flash",),
        "sliding-window layers with their own KV head count beside full-attention layers, and value heads "
        "narrower than the query and key heads (a row has one KV head count and one head width)",
        "XiaomiMiMo--MiMo-V2-Flash config.json in the aiconfigurator-core 0.12.0 wheel: "
        "swa_num_key_value_heads 8 against num_key_value_heads 4, head_dim 192, v_head_dim 128, "
        "hybrid_layer_pattern",
    ),
    Unmodelled(
        "Gemma 3n",
        r"^gemma-?3n",
        ("gemma3n", "gemma3n_text"),
        "per-layer input embeddings and layers that reuse another layer's KV cache",
        "Gemma3nTextConfig hidden_size_per_layer_input, num_kv_shared_layers, documented as "
        "google/gemma-3n-E4B",
    ),
    Unmodelled(
        "Gemma 4",
        r"^gemma-?4(-|$)",
        ("gemma4", "gemma4_text"),
        "per-layer input embeddings, layers that reuse another layer's KV cache and an optional MoE block",
        "Gemma4TextConfig hidden_size_per_layer_input, num_kv_shared_layers, enable_moe_block, documented as "
        "google/gemma-4-e2b-it",
    ),
    Unmodelled(
        "DeepSeek-V4",
        r"^deepseek-?v4(-|$)",
        ("deepseek_v4",),
        "compressed attention (a compressed KV cache at stated rates), hyper-connections and a low-rank "
        "grouped output projection",
        "DeepseekV4Config compress_rates, hc_mult, o_groups / o_lora_rank, documented as "
        "deepseek-ai/DeepSeek-V4-Flash-Base",
    ),
    Unmodelled(
        "Mistral Large 4",
        r"^mistral-?large-?4(-|$)",
        ("mistral_large4", "mistral_large4_text"),
        "layers that reuse another layer's KV cache (kv_source_layers) and a sparse-attention indexer per "
        "layer type",
        "MistralLarge4TextConfig kv_source_layers, indexer_types, documented as "
        "mistralai/Mistral-Large-4-1T-A52B",
    ),
)


def _key(name: str) -> str:
    """A name as the patterns read it: lower case, the Hub organisation dropped, every run of spaces,
    dashes and underscores one dash ("Qwen/Qwen3.5 35B_A3B": "qwen3.5-35b-a3b")."""
    text = fold_name(name).strip().lower()
    if "/" in text:
        text = text.rsplit("/", 1)[1]
    return re.sub(r"[\s_\-]+", "-", text).strip("-")


def unmodelled_name(name: str) -> Unmodelled | None:
    """The family of an unmodelled architecture (or an unread size of a modelled one) an unknown model name
    belongs to ("Kimi-Linear-48B-A3B": Kimi Linear; "Qwen3.5-27B": Qwen3.5). Called for names the table
    does not resolve: a row's own names resolve first."""
    key = _key(name) if isinstance(name, str) else ""
    return next((f for f in FAMILIES if key and re.search(f.pattern, key)), None)


def unmodelled_type(model_type: str) -> Unmodelled | None:
    """The family of a ``config.json`` ``model_type`` gpuscout does not model ("qwen3_next")."""
    return next((f for f in FAMILIES if model_type in f.model_types), None)
