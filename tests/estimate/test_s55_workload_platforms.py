"""The platform truth inference gets (sourced support rules) applies to image generation and training too.

A renter review found `gpuscout images sdxl --gpu K80` answering "fits yes, 203 s", MI25 / TPU / Gaudi /
Inferentia2 getting plain diffusers timings, and ``estimate_training`` timing QLoRA on a K80 (a warning
only), LoRA on an Inferentia2 (AWS trains on Trainium), a TPU full fine-tune with no word on PyTorch/XLA,
QLoRA on an MI300X with no word on bitsandbytes' ROCm build. One rule set (``knowledge/workload_support``,
``data/workload_support.csv``) now decides both: a platform that cannot run the workload is refused with
the reason and what would run; one that runs it with a caveat gets a warning in the rule's words.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.advise.api import advise
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload
from gpuscout.cli import app
from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.diffusion import estimate_images
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.knowledge.engine_support import check_support
from tests.advise.helpers import NOW, offer

SMALL_LLM = "llama-3.2-1b"


# --- images --------------------------------------------------------------------------------------------


def test_images_on_a_k80_are_refused_with_the_reason_and_what_would_run() -> None:
    est = estimate_images("sdxl", "K80")
    assert not est.supported and not est.fits and est.binding_constraint == "unsupported"
    assert est.seconds_per_image is None and est.images_per_s is None and est.bound is None
    assert "Kepler" in est.unsupported_reason and "PyTorch" in est.unsupported_reason
    assert est.warnings[0] == est.unsupported_reason  # the reason first, as estimate() says a refusal
    assert "compute capability 7.5" in est.assumptions["alternatives"]
    assert "https://github.com/pytorch/pytorch/pull/182849" in est.assumptions["support"]
    assert est.memory.total_gb > 0  # the memory is still counted
    assert estimate_images("sdxl", "T4").supported  # Turing: the default wheels


def test_the_images_command_says_not_supported_not_a_speed() -> None:
    result = CliRunner().invoke(app, ["images", "sdxl", "--gpu", "K80"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "not supported: diffusers is not supported on K80" in text
    assert "would run: an NVIDIA GPU of compute capability 7.5" in text
    assert "seconds per image" not in text and "fits" not in text


@pytest.mark.parametrize(
    ("gpu", "words", "tag"),
    [
        ("TPU-v5e", "PyTorch/XLA", ""),
        ("MI25", "not among the ROCm targets sourced here", " [unverified]"),
        ("Inferentia2", "optimum-neuron", " [unverified]"),
        ("Gaudi2", "optimum-habana", " [unverified]"),
    ],
)
def test_images_off_cuda_run_with_the_rules_caveat(gpu: str, words: str, tag: str) -> None:
    est = estimate_images("sdxl", gpu)
    assert est.supported and est.seconds_per_image is not None  # runs: a speed, and what it rests on
    (note,) = [w for w in est.warnings if w.startswith(f"diffusers on {gpu}: ")]
    assert words in note
    assert note.endswith(" [unverified]") == (tag == " [unverified]")  # an unverified rule says so
    assert not any(w.startswith("diffusers on ") for w in estimate_images("sdxl", "H100-SXM").warnings)


def test_the_advisor_leaves_an_image_offer_diffusers_cannot_run_out_with_the_reason() -> None:
    w = BatchWorkload(model="sdxl", images_total=1000)
    offers = [offer("p", "K80", 1, 0.1, memory=12.0), offer("p", "L4", 1, 0.7, memory=24.0)]
    answer = advise(w, offers, now=NOW, include_rejected=True)
    assert [r.offer.accelerator for r in answer.rows] == ["L4"]
    (k80,) = [r for r in answer.rejected if r.offer.accelerator == "K80"]
    assert k80.rejected is not None and k80.rejected.startswith("not supported: diffusers")
    assert "Kepler" in k80.rejected and "would run:" in k80.rejected


# --- training ------------------------------------------------------------------------------------------


def test_training_on_an_inferentia2_is_refused_with_a_pointer_to_trainium() -> None:
    with pytest.raises(ConfigurationRejected) as refused:
        estimate_training(SMALL_LLM, "Inferentia2", method="lora")
    err = refused.value
    assert err.field == "gpu" and "not supported on Inferentia2" in err.message
    assert err.message.endswith("[partial]")  # the rule's tag: AWS positions Inf2 for inference
    assert err.accepted is not None and err.accepted.startswith("Trainium")  # "(accepted: Trainium...)"
    estimate_training(SMALL_LLM, "Trainium1", method="lora")  # Trainium trains (with the Neuron caveat)


def test_qlora_on_a_k80_is_refused_not_timed() -> None:
    with pytest.raises(ConfigurationRejected, match="no current PyTorch binaries"):
        estimate_training(SMALL_LLM, "K80", method="qlora")


@pytest.mark.parametrize(
    ("gpu", "method", "words"),
    [
        ("TPU-v5p", "full", "PyTorch/XLA (torch_xla"),
        ("MI300X", "qlora", "bitsandbytes' ROCm backend"),
        ("MI25", "lora", "[unverified]"),
        ("Trainium2", "lora", "AWS Neuron SDK"),
    ],
)
def test_training_that_runs_with_a_caveat_warns_in_the_rules_words(gpu: str, method: str, words: str) -> None:
    est = estimate_training(SMALL_LLM, gpu, method=method)
    assert est.tokens_per_s > 0
    assert any(w.startswith(f"training on {gpu}: ") and words in w for w in est.warnings), est.warnings
    plain = estimate_training(SMALL_LLM, "H100-SXM", method=method).warnings
    assert not any(w.startswith("training on ") for w in plain)


def test_the_advisor_leaves_a_training_offer_pytorch_cannot_run_out_with_the_reason() -> None:
    w = FinetuneWorkload(model=SMALL_LLM, method="lora", dataset_tokens=5e7)
    offers = [offer("p", "Inferentia2", 1, 0.7, memory=32.0), offer("p", "L4", 1, 0.8, memory=24.0)]
    answer = advise(w, offers, now=NOW, include_rejected=True)
    assert [r.offer.accelerator for r in answer.rows] == ["L4"]
    (inf2,) = [r for r in answer.rejected if r.offer.accelerator == "Inferentia2"]
    assert inf2.rejected is not None and "PyTorch training is not supported on Inferentia2" in inf2.rejected
    assert "Trainium" in inf2.rejected and "nodes" not in inf2.rejected  # said once, not per node count


# --- the rules -----------------------------------------------------------------------------------------


def test_every_accelerator_gets_a_verdict_and_every_refusal_says_what_would_run() -> None:
    from gpuscout.knowledge.workload_support import WORKLOADS, check_workload, workload_rules

    rules = workload_rules()
    assert {r.engine for r in rules} == set(WORKLOADS)
    for acc in all_accelerators():
        for workload in WORKLOADS:
            v = check_workload(workload, acc, "nf4" if workload == "pytorch-training" else "")
            assert v.sources, (workload, acc.name)
            if not v.supported:
                assert v.instead() and v.refusal is not None and v.refusal.tag != "unverified"
                assert v.message().startswith(f"{v.label}")


def test_the_nvidia_platform_truth_is_the_inference_rules_pytorch_one() -> None:
    # transformers on PyTorch (the engine rules' hf-transformers platform rows) and the PyTorch
    # workloads (faster-whisper runs on CTranslate2, not PyTorch) agree on which NVIDIA GPUs run at all
    # and which only on the legacy wheels
    from gpuscout.knowledge.workload_support import check_workload

    for acc in all_accelerators():
        if acc.nvidia_cc is None:
            continue
        engine = check_support("hf-transformers", "fp16", acc).platform_rule
        assert engine is not None
        for workload in ("diffusers", "pytorch-training", "transformers-speech"):
            v = check_workload(workload, acc)
            assert v.supported == (engine.mode != "unsupported"), (workload, acc.name)
            assert (v.platform_rule.mode == "caveat") == bool(engine.max_cc and engine.mode != "unsupported")
