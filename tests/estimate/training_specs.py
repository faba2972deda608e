"""Hand-built model specs (from the HF config.json copies in ../shared) for the training tests."""

from __future__ import annotations

from gpuscout.knowledge.model_types import ModelSpec


def _llama(name: str, layers: int, hidden: int, inter: int, heads: int, kv: int, vocab: int) -> ModelSpec:
    return ModelSpec(
        name=name, hf_id="", family="llama", kind="llm", num_hidden_layers=layers, hidden_size=hidden,
        intermediate_size=inter, num_attention_heads=heads, num_key_value_heads=kv,
        head_dim=hidden // heads, vocab_size=vocab, max_position_embeddings=131072,
        tie_word_embeddings=False,
    )


LLAMA31_8B = _llama("llama-3.1-8b", 32, 4096, 14336, 32, 8, 128256)
LLAMA31_70B = _llama("llama-3.1-70b", 80, 8192, 28672, 64, 8, 128256)
LLAMA2_70B = _llama("llama-2-70b", 80, 8192, 28672, 64, 8, 32000)
LLAMA2_7B = _llama("llama-2-7b", 32, 4096, 11008, 32, 32, 32000)
LLAMA31_405B = _llama("llama-3.1-405b", 126, 16384, 53248, 128, 8, 128256)
MIXTRAL_8X7B = ModelSpec(
    name="mixtral-8x7b", hf_id="", family="mixtral", kind="llm", num_hidden_layers=32, hidden_size=4096,
    intermediate_size=14336, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
    vocab_size=32000, max_position_embeddings=32768, tie_word_embeddings=False,
    num_experts=8, experts_per_token=2,
)
SDXL = ModelSpec(
    name="sdxl", hf_id="", family="sdxl", kind="diffusion", num_hidden_layers=0, hidden_size=0,
    intermediate_size=0, num_attention_heads=0, num_key_value_heads=0, head_dim=0, vocab_size=0,
    max_position_embeddings=0, tie_word_embeddings=False,
)
