"""An MI250X module is two GPUs to software (two GCDs, 64 GB at 1.6 TB/s each), and is timed so (stop 59,
renter pass): it was timed as one 128 GB device streaming 3.28 TB/s, 1.9x the one-GCD speed, with room
for 775 sequences that no single device holds."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.training import estimate_training


def test_one_module_is_timed_as_its_two_gcds() -> None:
    module = estimate("llama-3.1-8b", "MI250X")
    two = estimate("llama-3.1-8b", "MI250X-GCD", gpus=2)
    assert (module.gpu, module.gpus) == ("MI250X-GCD", 2)
    assert module.decode_tokens_per_s == pytest.approx(two.decode_tokens_per_s)
    assert module.memory.usable_gb < 64  # per device, not the module's 128 GB
    assert "MI250X is 2 GPUs to software" in module.warnings[0]


def test_modules_count_their_devices_and_other_gpus_are_untouched() -> None:
    assert estimate("llama-3.1-70b", "MI250X", gpus=2).gpus == 4
    h100 = estimate("llama-3.1-8b", "H100-SXM")
    assert (h100.gpu, h100.gpus) == ("H100-SXM", 1)
    assert not any("to software" in w for w in h100.warnings)


def test_sizing_and_training_see_the_devices_too() -> None:
    need = memory_needed("llama-3.1-8b", "MI250X")
    assert need.gpus == 2 and need.gpu == "MI250X-GCD"
    run = estimate_training("llama-3.1-8b", "MI250X", method="lora")
    assert run.gpus == 2 and any("to software" in w for w in run.warnings)
