"""The source registry: every adapter is listed once, names resolve, unknown names suggest."""

from __future__ import annotations

import httpx
import pytest

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources import registry
from gpuscout.catalog.sources.base import Source

DIRECT = [
    "vastai",
    "runpod",
    "lambda",
    "azure",
    "vultr",
    "digitalocean",
    "shadeform",
    "verda",
    "tensordock",
    "scaleway",
    "akash",
    "lium",
    "primeintellect",
    "jarvislabs",
]


class Dummy(Source):
    name = "dummy"
    provider = "dummy"

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        return []


def test_every_adapter_registered_once_with_credentials_declared() -> None:
    sources = registry.all_sources()
    for name in DIRECT:
        assert name in sources
    assert "gpuhunt:aws" in sources and "gpuhunt:gcp" in sources
    for name, src in sources.items():
        assert src.name == name
        assert src.provider, name
        assert all(isinstance(v, str) and v.isupper() for v in src.needs_credentials), name
    assert sources["lambda"].needs_credentials == ("LAMBDA_API_KEY",)
    assert sources["vastai"].needs_credentials == ()
    assert "cudo" not in sources and "cudo" in registry.RETIRED  # Cudo shut down on 2026-03-31
    # the store ranks feeds by the registered names: a provider's API over gpuhunt's catalog
    from gpuscout.catalog.store import source_preference

    assert source_preference(sources["gpuhunt:aws"].name) < source_preference(sources["azure"].name)


def test_fresh_instances_each_call() -> None:
    assert registry.all_sources()["vastai"] is not registry.all_sources()["vastai"]


def test_register_extra_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_extra", [])
    registry.register(Dummy)
    registry.register(Dummy)  # idempotent
    assert "dummy" in registry.all_sources()
    registry.register(lambda: [Dummy()])
    with pytest.raises(ValueError, match="duplicate source name 'dummy'"):
        registry.all_sources()


def test_bad_factory_becomes_a_broken_source_naming_the_type_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_extra", [lambda: 42])
    sources = registry.all_sources()
    (broken,) = [s for s in sources.values() if isinstance(s, registry.BrokenSource)]
    assert "TypeError" in broken.error and "not a Source" in broken.error
    assert "vastai" in sources


def test_the_readme_lists_exactly_the_registered_sources() -> None:
    import re

    from tests.conftest import REPO

    text = (REPO / "README.md").read_text(encoding="utf-8")
    bullet = text[text.index("- **Live sources**") : text.index("- **Refresh flow**")]
    named = set(re.findall(r"`([a-z][a-z0-9:]*)`", bullet))
    assert named - set(registry.RETIRED) == set(registry.all_sources())
    assert set(registry.RETIRED) <= named  # and says which are retired


def test_states() -> None:
    sources = registry.all_sources()
    assert registry.source_state("vastai", sources["vastai"]) == "active"
    assert registry.source_state("lambda", sources["lambda"]) == "needs credentials"
    assert registry.source_state("cudo", None) == "retired"
    assert registry.source_state("file:/gone.csv", None) == "not configured"
    assert registry.source_state("x", registry.BrokenSource("x", "ImportError")) == "not loadable"
