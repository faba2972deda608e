"""An unknown name's error renamed as the option the user typed keeps its class, message and what a
subclass adds (the engine error's list of every engine accepted; a provider error's own words)."""

from __future__ import annotations

from gpuscout.catalog.provider_ids import NoOffersFrom
from gpuscout.errors import UnknownNameError
from gpuscout.estimate.engines import UnknownEngineError, engines_accepted


def test_an_engine_error_keeps_its_list() -> None:
    err = UnknownEngineError("engine", "foo", ["hf"]).named_as("--engine")
    assert isinstance(err, UnknownEngineError) and err.field == "--engine"
    assert str(err).startswith("--engine: unknown name 'foo'; closest known: hf")
    assert str(err).endswith(f"(accepted: {engines_accepted()})")


def test_any_subclass_is_renamed_whatever_its_constructor() -> None:
    err = NoOffersFrom("provider", "lamdba", ["lambda"]).named_as("--provider")
    assert isinstance(err, NoOffersFrom) and str(err).startswith("--provider: ")
    plain = UnknownNameError("gpu", "H1000", ["H100-SXM"]).named_as("--gpu")
    assert str(plain) == "--gpu: unknown name 'H1000'; closest known: H100-SXM"
