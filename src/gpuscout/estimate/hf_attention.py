"""Which models Hugging Face transformers runs with eager attention by default, and what that costs.

transformers' default attention is SDPA (``PreTrainedModel.get_correct_attn_implementation``: "sdpa" when
none is asked, eager where the model class cannot dispatch to it). Two model classes of the table say they
cannot (``_supports_sdpa = False``, read in transformers 5.25.0's ``modeling_gemma2.py`` and
``modeling_gpt_oss.py``): Gemma 2, whose attention logits are soft-capped ("sdpa does not support
softcapping"), and gpt-oss, whose softmax includes a learned sink per head. Their default is
``eager_attention_forward``: the whole score matrix of every head (queries x keys, the sliding layers'
too, masked after) is written to memory and read back, layer after layer.

Bytes of memory traffic per score, counted in those functions with bf16 activations (2 bytes):

* Gemma 2: the QK^T product written (2), the scaling, the three soft-cap steps (divide, tanh, multiply)
  and the mask addition each read and write it (5 x 4), the fp32 softmax reads it and writes fp32 (2 + 4),
  the cast back to bf16 reads that and writes bf16 (4 + 2), and the product with V reads it (2): 36.
* gpt-oss: QK^T written (2), scaling and mask (2 x 4), the sink column concatenated (4), the row maximum
  read (2) and subtracted (4), the softmax in bf16 (4), the product with V (2): 26.

At the peak a score is held as bf16 and fp32 at once (the softmax's input and output): 6 bytes. Gemma 2 9B
(16 heads) prefilling 8,192 tokens holds 16 x 8,192 x 8,192 x 6 B = 6.4 GB for one layer's scores, where
SDPA holds none of it. A fused kernel avoids it: ``attn_implementation="flash_attention_2"`` (FlashAttention
2.6 soft-caps) for Gemma 2, a sink-aware kernel (``kernels-community/vllm-flash-attn3``, OpenAI's cookbook,
recalled) for gpt-oss. Only transformers 5.x is judged (the releases read); a named 4.x release, and the
FlashAttention-2 variant, keep their profile's attention.
"""

from __future__ import annotations

from dataclasses import replace

from gpuscout.estimate.engines import EngineProfile
from gpuscout.knowledge.model_types import ModelSpec

#: model family -> (memory traffic per score, what keeps SDPA off, the fused kernel that avoids it)
_EAGER_BY_DEFAULT: dict[str, tuple[float, str, str]] = {
    "gemma2": (
        36.0,
        "Gemma 2's soft-capped attention logits (modeling_gemma2.py: _supports_sdpa = False, 'sdpa does not "
        "support softcapping')",
        "attn_implementation='flash_attention_2'",
    ),
    "gpt_oss": (
        26.0,
        "gpt-oss's attention sinks (modeling_gpt_oss.py: _supports_sdpa = False)",
        "a sink-aware kernel, attn_implementation='kernels-community/vllm-flash-attn3'",
    ),
}
#: bytes per score held at once at the peak: the softmax's bf16 input and fp32 output (or bf16 copies)
EAGER_SCORE_HELD_BYTES = 6.0
#: eras of the HF profile whose attention is not today's default (a FlashAttention-2 path, AutoAWQ's fused
#: modules, the 4.x releases, which were not read)
_OTHER_ATTENTION_ERAS = frozenset({"4.x", "flash-attention-2", "fused"})


def with_default_attention(eng: EngineProfile, spec: ModelSpec) -> EngineProfile:
    """``eng`` as it runs ``spec``'s attention: HF transformers 5.x with eager attention for the model
    classes that cannot use SDPA (:data:`_EAGER_BY_DEFAULT`), every other engine and model unchanged."""
    found = _EAGER_BY_DEFAULT.get(spec.family)
    if eng.name != "hf-transformers" or found is None or eng.attn_score_bytes:
        return eng
    if _OTHER_ATTENTION_ERAS.intersection(eng.era.split("+")):
        return eng
    traffic, why, fused = found
    note = (
        f"{eng.label} runs {spec.name}'s attention eagerly by default, not with SDPA: {why} (read in "
        "transformers 5.25.0). Each prompt's score matrix, every head and layer, goes through memory "
        f"({traffic:g} bytes of traffic per score) and one layer's is held at once "
        f"({EAGER_SCORE_HELD_BYTES:g} bytes per score); {fused} avoids it"
    )
    return replace(
        eng, attn_score_bytes=traffic, attn_score_held_bytes=EAGER_SCORE_HELD_BYTES, eager_attention_note=note
    )


def training_attention_note(spec: ModelSpec, attention: str) -> str:
    """What a training estimate timed with a fused attention kernel (``attention="flash"``) says of a
    model that Hugging Face transformers (TRL, PEFT, Accelerate) runs eagerly by default; "" otherwise."""
    found = _EAGER_BY_DEFAULT.get(spec.family)
    if found is None or attention != "flash":
        return ""
    _, why, fused = found
    return (
        f"sized and timed with a fused attention kernel: under Hugging Face transformers (TRL, PEFT) "
        f"{spec.name} runs eager attention unless told otherwise ({why}), which keeps every head's score "
        f"matrix for the backward pass; set {fused}, or size that default with attention='eager'"
    )
