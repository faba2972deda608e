"""When a provider asked for (``recommend --provider``) has no offer at all, the advisor says so in the
catalog's words (``gpuscout offers --provider``: "no current offer is from ..."), and for a defunct one
since when, instead of "no offer of coreweave can run it (... are from other providers)", which reads as
if its offers were there and could not run the workload."""

from __future__ import annotations

import re

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.knowledge.providers import provider_terms
from tests.advise.helpers import offer

OFFERS = [
    offer("lambda", "A10", 1, 0.75, memory=24.0, region="us-west-1"),
    offer("runpod", "RTX4090", 1, 0.69, memory=24.0, region="eu-ro-1"),
    offer("runpod", "H100-SXM", 8, 21.5, region="us-east-1"),
    offer("seeweb", "L40S", 1, 1.4, memory=48.0, region="it-fr-1"),
]


def _binding(model: str, *providers: str) -> str:
    answer = advise(ServeWorkload(model=model, providers=providers), OFFERS)
    assert not answer.rows and answer.binding is not None
    return answer.binding


def test_a_provider_without_offers_is_named_as_the_catalog_names_it() -> None:
    binding = _binding("llama-3.1-8b", "coreweave")
    assert binding.startswith("no current offer is from CoreWeave (closest with offers: seeweb)")
    assert "can run it" not in binding and "other providers" not in binding
    assert re.search(r"; elsewhere the cheapest is 1x RTX4090 at RunPod at \$[\d,.]+ a month$", binding)


def test_a_defunct_provider_says_since_when() -> None:
    since = provider_terms("cudo").status_since
    assert since  # providers.yaml: cudo is defunct, with a date
    binding = _binding("llama-3.1-8b", "cudo")
    assert binding.startswith(
        f"no current offer is from Cudo Compute, which no longer sells capacity (defunct since {since}; "
    )
    assert "elsewhere the cheapest is" in binding


def test_with_a_provider_that_has_offers_its_own_diagnosis_follows() -> None:
    """CoreWeave has none; Lambda has offers, none of which holds a 70B model: both are said, and the
    "no offer of ..." part names only the provider that has offers."""
    binding = _binding("llama-3.1-70b", "coreweave", "lambda")
    assert binding.startswith("no current offer is from CoreWeave")
    assert "no offer of lambda can run it" in binding and "coreweave can run" not in binding
    assert "1 does not fit" in binding


def test_a_provider_with_offers_keeps_the_usual_diagnosis() -> None:
    binding = _binding("llama-3.1-70b", "lambda")
    assert "no current offer" not in binding and binding.startswith("no offer of lambda can run it")
