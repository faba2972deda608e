"""A Llama-3.1-8B-shaped config.json for the CLI tests that import or size a model from a file."""

from __future__ import annotations

import json
from pathlib import Path

LLAMA_8B_SHAPE = {
    "model_type": "llama",
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
}


def write_llama_config(directory: Path) -> Path:
    """``directory/config.json`` holding :data:`LLAMA_8B_SHAPE`."""
    config = directory / "config.json"
    config.write_text(json.dumps(LLAMA_8B_SHAPE))
    return config
