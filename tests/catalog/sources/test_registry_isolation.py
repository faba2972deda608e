"""One adapter that fails to import or build never hides the other sources."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from gpuscout.catalog.sources import registry
from gpuscout.catalog.sources.base import SourceError


def test_a_broken_adapter_is_reported_by_name_and_the_others_remain(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = "gpuscout.catalog.sources.no_such_adapter:NoSuchSource"
    monkeypatch.setattr(registry, "BUILTIN_FACTORIES", (*registry.BUILTIN_FACTORIES, broken))
    sources = registry.all_sources()
    assert "vastai" in sources and "runpod" in sources
    stand_in = sources["no_such_adapter"]
    assert isinstance(stand_in, registry.BrokenSource)

    async def run() -> None:
        async with httpx.AsyncClient() as client:
            await stand_in.fetch(client)

    with pytest.raises(SourceError, match="could not be loaded: ModuleNotFoundError"):
        asyncio.run(run())


def test_a_factory_that_raises_is_isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    def exploding_factory() -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(registry, "_extra", [exploding_factory])
    sources = registry.all_sources()
    assert "exploding_factory" in sources
    assert "boom" in sources["exploding_factory"].error  # type: ignore[attr-defined]
    assert "vastai" in sources
