"""Helpers for adapter tests: recorded payloads, an instant sleep, running a source."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import httpx

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.base import Source
from tests.conftest import PROVIDER_SAMPLES


def sample(name: str) -> dict[str, Any]:
    """A fresh (deep-copied) recorded payload from tests/fixtures/reference/provider_samples."""
    data: dict[str, Any] = json.loads((PROVIDER_SAMPLES / f"{name}.json").read_text())
    return copy.deepcopy(data)


class SleepRecorder:
    """Injectable ``sleep`` that records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def fetch(source: Source) -> list[Offer]:
    """Run ``source.fetch`` with a real ``httpx.AsyncClient`` (respx intercepts the transport)."""

    async def go() -> list[Offer]:
        async with httpx.AsyncClient() as client:
            return await source.fetch(client)

    return asyncio.run(go())


def by_type(offers: list[Offer]) -> dict[str, Offer]:
    return {o.instance_type: o for o in offers}
