"""Where a setup does not fit, ``estimate`` names what would hold it as records (``Estimate.fit_options``)
that its ``assumptions["would_fit"]`` text is made from, and ``diagnose`` prices those records instead of
reading the text back (which lost every would-fit remedy on a GPU whose name has a space in it)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from gpuscout.estimate import api
from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import diagnose
from gpuscout.estimate.lazy_text import deferred_text
from gpuscout.estimate.types import Estimate, FitOption
from gpuscout.knowledge.accelerators import resolve_gpu

# (model, gpu, gpus, precision, engine, parallel): setups that do not fit, with what would hold them
DOES_NOT_FIT = [
    ("llama-3.1-70b", "RTX4090", 1, "bf16", "vllm", None),  # more GPUs only
    ("llama-3.1-70b", "RTX4090", 3, None, "vllm", "layer"),  # more GPUs (a layer split), and int4
    ("llama-3.1-70b", "RTX4090", 2, None, "llama.cpp", None),  # GGUF: more GPUs, and a narrower GGUF type
    ("llama-3.1-70b", "RTX4090", 3, None, "sglang", "layer"),  # a narrower format only
]


def _estimate(
    model: str, gpu: str, gpus: int, precision: str | None, engine: str, parallel: str | None
) -> Estimate:
    return estimate(model, gpu, gpus=gpus, precision=precision, engine=engine, parallel=parallel)


def _agrees(est: Estimate) -> None:
    """``est``'s options are what its would-fit text says, one by one, in order."""
    assert not est.fits and est.fit_options, est.assumptions["would_fit"]
    assert est.assumptions["would_fit"] == "; ".join(o.text for o in est.fit_options)
    for o in est.fit_options:
        split = f"{o.parallel} parallel, " if o.parallel else ""
        assert o.text == f"{o.format} on {o.gpus} x {o.gpu} ({split}{o.per_gpu_gib:.1f} GiB per GPU)"
        assert o.gpu == est.gpu


def test_llama_70b_bf16_on_one_4090_would_fit_on_eight_as_a_record() -> None:
    est = estimate("llama-3.1-70b", "RTX4090", precision="bf16", engine="vllm")
    _agrees(est)
    first = est.fit_options[0]
    assert (first.format, first.gpus, first.gpu, first.parallel) == ("bf16", 8, "RTX4090", "tensor")
    assert est.assumptions["would_fit"].startswith("bf16 on 8 x RTX4090 (tensor parallel, ")


@pytest.mark.parametrize(("model", "gpu", "gpus", "precision", "engine", "parallel"), DOES_NOT_FIT)
def test_options_agree_with_the_text(
    model: str, gpu: str, gpus: int, precision: str | None, engine: str, parallel: str | None
) -> None:
    est = _estimate(model, gpu, gpus, precision, engine, parallel)
    _agrees(est)
    more = [o for o in est.fit_options if o.parallel]  # more GPUs than asked, split as asked
    narrower = [o for o in est.fit_options if not o.parallel]  # a narrower format on the GPUs asked
    assert len(more) <= 1 and len(narrower) <= 1 and list(est.fit_options) == [*more, *narrower]
    for o in more:
        assert o.gpus > gpus and o.format == est.precision
        assert o.parallel == ("layer" if est.parallel == "layer" else "tensor")
    for o in narrower:
        assert o.gpus == gpus and o.format != est.precision


def test_a_setup_that_fits_has_no_options() -> None:
    est = estimate("llama-3.1-8b", "H100-SXM", precision="bf16", engine="vllm")
    assert est.fits and list(est.fit_options) == [] and "would_fit" not in est.assumptions


def test_nothing_found_is_no_option_and_the_words_say_so() -> None:
    # 405B in bf16 does not fit on eight 24 GB cards, nor in int4 on one
    est = estimate("llama-3.1-405b", "RTX4090", precision="bf16", engine="vllm")
    assert not est.fits and list(est.fit_options) == []
    assert est.assumptions["would_fit"] == "nothing on up to 8 of these GPUs in a format this engine runs"


def test_deferred_options_are_worked_out_once_when_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = api._fits_instead

    def counted(p: object) -> tuple[FitOption, ...]:
        calls.append(p)
        return real(p)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "_fits_instead", counted)
    eager = estimate("llama-3.1-70b", "RTX4090", gpus=2, engine="llama.cpp")
    assert len(calls) == 1  # outside the advisor's deferral: made with the text
    with deferred_text():
        est = estimate("llama-3.1-70b", "RTX4090", gpus=2, engine="llama.cpp")
    assert len(calls) == 1  # the advisor's many estimates do not pay for it
    assert est.fit_options == eager.fit_options and len(calls) == 2
    assert est.assumptions["would_fit"] == eager.assumptions["would_fit"] and len(calls) == 2  # made once
    _agrees(est)


def test_options_survive_copies_pickles_and_asdict() -> None:
    with deferred_text():
        est = estimate("llama-3.1-70b", "RTX4090", gpus=2, engine="llama.cpp")
    again = pickle.loads(pickle.dumps(est))
    assert list(again.fit_options) == list(est.fit_options) and again.fit_options
    with deferred_text():
        est = estimate("llama-3.1-70b", "RTX4090", gpus=2, engine="llama.cpp")
    plain = dataclasses.asdict(est)["fit_options"]
    assert [o["text"] for o in plain] == est.assumptions["would_fit"].split("; ")
    assert plain[0]["gpus"] == est.fit_options[0].gpus


@pytest.mark.parametrize(("model", "gpu", "gpus", "precision", "engine", "parallel"), DOES_NOT_FIT[:3])
def test_diagnose_prices_each_option_as_the_would_fit_names_it(
    model: str, gpu: str, gpus: int, precision: str | None, engine: str, parallel: str | None
) -> None:
    # one sequence measured: every option holds it, each priced in order, then the bigger cards
    d = diagnose(model, gpu, measured_tps=1.0, precision=precision, engine=engine, gpus=gpus)
    est = estimate(
        model, gpu, gpus=gpus, precision=precision, engine=engine, parallel=parallel, context_in=1024,
        context_out=1,
    )  # fmt: skip
    assert not d.fits and d.would_fit == est.assumptions["would_fit"]
    options = [o.text for o in est.fit_options]
    assert [s.split(" — ~")[0] for s in d.suggestions[: len(options)]] == [f"Fits: {t}" for t in options]
    assert all(s.endswith(" tokens/s per sequence (estimated).") for s in d.suggestions[: len(options)])
    assert all(" on cards with the memory to hold it" in s for s in d.suggestions[len(options) :])


@pytest.mark.parametrize("name", ["RTX 4090", "RTX 4090 (lab)"])
def test_a_gpu_named_with_spaces_keeps_its_would_fit_remedies(name: str) -> None:
    # an Accelerator passed as one (the Python API) may be named anything: the text read back lost it
    card = dataclasses.replace(resolve_gpu("RTX4090"), name=name)
    for gpus, engine in ((1, "vllm"), (2, "llama.cpp")):
        est = estimate("llama-3.1-70b", card, gpus=gpus, engine=engine)
        _agrees(est)
        assert all(o.gpu == name for o in est.fit_options)
        plain = diagnose("llama-3.1-70b", "RTX4090", measured_tps=1.0, gpus=gpus, engine=engine)
        spaced = diagnose("llama-3.1-70b", card, measured_tps=1.0, gpus=gpus, engine=engine)
        assert any(s.startswith("Fits: ") and " x RTX4090 (" in s for s in plain.suggestions)
        assert spaced.suggestions == [s.replace(" x RTX4090 (", f" x {name} (") for s in plain.suggestions]


def test_a_deferred_fill_is_published_whole_and_retried_after_a_failure() -> None:
    """Two threads reading at once both see every option (the build is not published half made), and a
    build that raises leaves the list to be built again, not silently empty."""
    import threading
    import time

    from gpuscout.estimate.lazy_text import LazyList
    from gpuscout.estimate.types import FitOption

    option = FitOption(format="int4", gpus=2, gpu="L4", parallel="tensor", per_gpu_gib=9.0)

    def slow() -> list[FitOption]:
        time.sleep(0.05)
        return [option]

    opts = LazyList(build=slow)
    seen: list[int] = []
    threads = [threading.Thread(target=lambda: seen.append(len(opts))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [1, 1]

    calls = []

    def flaky() -> list[FitOption]:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first build fails")
        return [option]

    retried = LazyList(build=flaky)
    with pytest.raises(RuntimeError):
        len(retried)
    assert list(retried) == [option]
