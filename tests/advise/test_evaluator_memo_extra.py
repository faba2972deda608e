"""One evaluation mechanism for every kind: ``BaseEvaluator`` memoises per (``ConfigKey``, ``memo_extra``),
hands the extra to ``_configure_for``, and applies its substitution note and unknown-GPU rejection on that
path too; training's stated inter-node bandwidth is such an extra (the value type the catalog's fabric
table uses as well)."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import default_backends
from gpuscout.advise.configs import BaseEvaluator, ConfigEval, ConfigKey
from gpuscout.advise.internode import StatedInternode
from gpuscout.advise.training_configs import TrainingEvaluator, _OfferExtra, stated_internode
from gpuscout.advise.workload import PretrainWorkload, ServeWorkload
from gpuscout.catalog.fabrics import KNOWN_FABRICS, internode_extra
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.knowledge.accelerator_types import Accelerator
from tests.advise.helpers import offer

SERVE = ServeWorkload(model="llama-3.1-8b", concurrency=1)


class _ByRegion(BaseEvaluator[ServeWorkload]):
    """A kind whose configuration depends on the offer's region too; records what it configured."""

    def __init__(self, note: str | None = None) -> None:
        super().__init__(SERVE, default_backends(), Assumptions())
        self.note = note
        self.configured: list[tuple[ConfigKey, Hashable]] = []

    def memo_extra(self, offer: Offer) -> str:
        return offer.region

    def substitution_for(self, acc: Accelerator) -> str | None:
        return self.note

    def _configure_for(self, key: ConfigKey, acc: Accelerator, extra: Hashable) -> ConfigEval:
        self.configured.append((key, extra))
        return ConfigEval(key=key, fits=True, rejected=None, accelerator=acc, training=str(extra))


def test_offers_differing_in_the_extra_are_configured_apart_and_each_once() -> None:
    ev = _ByRegion(note="engine swapped")
    east, west = offer(region="us-east-1"), offer(region="us-west-2")
    first, again, other = (
        ev.evaluate(east),
        ev.evaluate(dataclasses.replace(east, provider="q")),
        ev.evaluate(west),
    )
    assert first is again and first.training == "us-east-1" and other.training == "us-west-2"
    assert [extra for _, extra in ev.configured] == ["us-east-1", "us-west-2"]
    assert first.substitution == other.substitution == "engine swapped"  # the base class's handling, once
    unknown = ev.evaluate(offer(accelerator="NoSuchGPU-9000"))
    assert unknown.reject_kind == "unknown-gpu" and len(ev.configured) == 2


def test_training_configures_once_per_stated_network() -> None:
    calls: list[StatedInternode | None] = []

    class Recording(TrainingEvaluator):
        def _configure_with(
            self, key: ConfigKey, acc: Accelerator, ram_gb: float | None, extra: _OfferExtra
        ) -> ConfigEval:
            calls.append(extra.network)
            return ConfigEval(key=key, fits=True, rejected=None, accelerator=acc)

    w = PretrainWorkload(model="llama-3.1-8b", token_budget=1e9, nodes=2)
    ev = Recording(w, default_backends(), Assumptions())
    base = offer(gpus=8, interconnect=Interconnect.NVLINK, internode="efa", instance="8x-h100-efa")
    fabric = KNOWN_FABRICS[("aws", "p5.48xlarge")]
    stated = dataclasses.replace(base, extra=internode_extra(fabric))
    for o in (base, stated, dataclasses.replace(stated, region="eu-west-1"), base):
        ev.evaluate(o)
    assert calls == [None, fabric]  # one configuration per stated figure (none, 3,200 Gbit/s)
    assert stated_internode(stated) == fabric  # the catalog's entry and the offer's figure: one type
