"""Model architectures an engine will not run in float16, whatever the GPU: the one place for this fact.

The support rules (:mod:`gpuscout.knowledge.engine_support`) hold for every model: vLLM runs a bf16 checkpoint
as float16 on a GPU without bfloat16 (compute capability below 8.0: T4, V100, the RTX 20 series). For some
model types it does not. Read in vLLM's released source (the sdists on PyPI):

* ``_FLOAT16_NOT_SUPPORTED_MODELS`` (``vllm/config.py`` in 0.9.1-0.10.0, ``vllm/config/__init__.py``
  in 0.10.1-0.10.2, ``vllm/config/model.py`` from 0.11; 0.9.0 has no such table) maps ``gemma2``,
  ``gemma3`` and ``glm4`` to "Numerical instability. Please use bfloat16 or float32 instead.";
  ``gemma3_text`` (Gemma 3 1B and text-only Gemma 3 configs) joins them in 0.10.2 (read in 0.10.1 and
  0.10.2), and 0.33.0 keeps all four.
* ``_check_valid_dtype`` raises for such a model in float16: ``--dtype float16`` is refused on every GPU.
* ``_resolve_auto_dtype`` drops float16 from the platform's dtypes for them. On CUDA below compute
  capability 8.0 those are float16 and float32 (``platforms/cuda.py`` ``supported_dtypes``), so ``--dtype
  auto`` (the default) loads the bf16 checkpoint in **float32**: weights of 4 bytes, a float32 KV cache, math
  at the FP32 rate. It runs: the Triton and FlexAttention backends take float32 (``supported_dtypes`` in
  ``v1/attention/backends/triton_attn.py`` and ``flex_attention.py``, 0.33.0), FlashAttention and
  FlashInfer do not.
* ``VllmConfig`` then checks the quantization method's ``get_supported_act_dtypes()`` against that dtype
  (``vllm/config/vllm.py``, 0.33.0): AWQ and GPTQ (``auto_awq``, ``auto_gptq``: float16, bfloat16), FP8
  (``fp8``, ``fbgemm_fp8``, ModelOpt: bfloat16, float16) take no float32, so on such a GPU a quantized
  checkpoint of these models is refused. (compressed-tensors lists float32; which of its kernels then takes
  float32 activations was not read, so its checkpoints are judged with the others: refused.)

SGLang does not refuse float16 for them (``configs/model_config.py`` 0.5.23 only prefers bfloat16 over
float16 when it downcasts a float32 Gemma config), nor do the other engines as read: no rule here.

Gemma 3's text-only configs (``gemma3_text``) are family ``gemma3`` here (one architecture, as the import
reads them): between vLLM 0.9.1 and 0.10.1 the 1B's config was not yet in the table, which a family cannot
tell, so those releases are judged as 0.10.2 and later for it (float32 where they ran float16).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuscout.knowledge.engine_support import release_number

_READ = (
    "https://pypi.org/project/vllm/0.9.1/ (vllm/config.py _FLOAT16_NOT_SUPPORTED_MODELS, "
    "_resolve_auto_dtype) ; "
    "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/config/model.py ; "
    "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/platforms/cuda.py ; "
    "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/config/vllm.py"
)


@dataclass(frozen=True, slots=True)
class Float16Refusal:
    """``engine`` from release ``since`` refuses float16 for models of ``families``, in its own words
    (``says``); on a GPU without bfloat16 its default dtype is then float32."""

    engine: str
    families: tuple[str, ...]
    since: str
    says: str
    source: str

    def reason(self, label: str, family: str) -> str:
        """The refusal of an explicit float16 ("vLLM refuses float16 for gemma3 models: ...")."""
        return f'{label} refuses float16 for {family} models (from {self.engine} {self.since}): "{self.says}"'


RULES: tuple[Float16Refusal, ...] = (
    Float16Refusal(
        "vllm",
        ("gemma2", "gemma3", "glm4"),
        "0.9.1",
        "Numerical instability. Please use bfloat16 or float32 instead.",
        _READ,
    ),
)


def float16_refusal(engine: str, release: str, family: str) -> Float16Refusal | None:
    """The rule by which ``engine`` at ``release`` ("" or a name that is no number: today's) refuses
    float16 for a model of ``family`` (``ModelSpec.family``); None where it runs it in float16."""
    for rule in RULES:
        if rule.engine != engine or family not in rule.families:
            continue
        asked = release_number(release) if release else None
        first = release_number(rule.since)
        if asked is not None and first is not None and asked < first:
            return None
        return rule
    return None
