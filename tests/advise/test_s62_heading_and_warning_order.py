"""What an answer's title says its rows run where some cards have no bf16, the order of a row's warnings,
and what a pick rents (session 62 review)."""

from __future__ import annotations

from dataclasses import replace

from gpuscout.advise.answer import names_its_run, runs_heading
from gpuscout.advise.api import advise
from gpuscout.advise.reasons import late_chance
from gpuscout.advise.types import EstimateSummary, Recommendation
from gpuscout.advise.workload import FinetuneWorkload, ServeWorkload
from tests.advise.helpers import NOW, offer


def _running(rec: Recommendation, precision: str) -> Recommendation:
    est = rec.estimate
    assert isinstance(est, EstimateSummary)
    return replace(rec, estimate=replace(est, precision=precision))


def test_bf16_with_fp16_on_cards_without_it_is_one_setup_in_the_title() -> None:
    offers = [offer("lambda", "H100-SXM", 1, 2.5, instance="1xh100")]
    (rec,) = advise(ServeWorkload(model="llama-3.1-8b", concurrency=1), offers, now=NOW).rows
    assert rec.runs_as.startswith("vllm, ")
    bf16, fp16 = _running(rec, "bf16"), _running(rec, "fp16")
    heading = runs_heading([bf16, fp16])
    # was "vllm, bf16 / vllm, fp16": as if two setups were asked
    assert heading.text == "vllm, bf16; fp16 on cards without bf16; rows that run otherwise say so"
    assert not names_its_run(bf16, heading) and names_its_run(fp16, heading)
    # two engines are still two setups
    other = replace(fp16, estimate=replace(fp16.estimate, engine="sglang", precision="bf16"))  # type: ignore[arg-type]
    assert runs_heading([bf16, other]).text == f"{bf16.runs_as} / {other.runs_as}"


def test_a_rows_warnings_put_the_run_risks_before_price_assumptions() -> None:
    from gpuscout.advise.reasons import warning_severity

    assert warning_severity("billing increment unknown: assumed per-hour") == 2
    assert warning_severity("storage price unknown: assumed $0.1/GB-month") == 2
    assert warning_severity("inference speed on NVIDIA V100 is uncalibrated: ...") == 1
    assert warning_severity("V100-SXM2-16GB has no BF16 support: BF16 weights run as FP16") == 0
    # a V100 fine-tune on a provider whose billing increment is unknown: the row's first warning is the
    # BF16 one, not the billing assumption (the web's Note column shows the first)
    offers = [offer("primeintellect", "V100-SXM2-16GB", 4, 1.0, memory=16, instance="4xv100")]
    rows = advise(FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=100_000_000), offers, now=NOW).rows
    assert rows
    warnings = rows[0].warnings
    assert any(w.startswith("billing increment unknown") for w in warnings), warnings
    assert warning_severity(warnings[0]) == 0, warnings
    assert [warning_severity(w) for w in warnings] == sorted(warning_severity(w) for w in warnings)


def test_a_pick_rents_spot_with_its_chance_of_missing_the_deadline() -> None:
    from gpuscout.advise.pick_notes import capacity_terms

    offers = [offer("lambda", "H100-SXM", 1, 2.5, spot=1.0, instance="1xh100")]
    w = FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=10_000_000, spot_allowed=True)
    rec = next(r for r in advise(w, offers, now=NOW).rows if r.config.spot)
    assert capacity_terms(rec) == "spot"
    late = replace(rec, reasons=(*rec.reasons, f"1 h + 2 min = 1.1 h ({late_chance(0.12, '2.0 h')})"))
    assert capacity_terms(late) == "spot, ~12% chance of missing the 2.0 h deadline with spot reclaims"
    assert capacity_terms(replace(rec, config=replace(rec.config, spot=False))) == ""
