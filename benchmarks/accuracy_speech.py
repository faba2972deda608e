"""Accuracy of ``estimate_transcription`` against the speech rows of the calibration CSV.

    python benchmarks/accuracy_speech.py [--csv PATH] [--fit] [--json]

The rows (``metric`` ``transcription_seconds``) are faster-whisper's README "Benchmark" figures
(https://github.com/SYSTRAN/faster-whisper: whisper-large-v2, 13 minutes of audio, beam 5), RECALLED, not
read: the machine that added them had no internet. Two README revisions, two machines: an older one on a
Tesla V100S (CUDA 11.7.1) and the current one on an RTX 3070 Ti 8GB (CUDA 12.4). Each row is an
``estimate_transcription`` call (model, GPU, engine from the framework, precision, batch: the
``BatchedInferencePipeline`` rows are batch 8, beam 5, the estimate's default 3 tokens per audio second);
its seconds are compared with the figure.

Roles: the batch-1 faster-whisper rows are the ones ``CT2_KERNEL_FLOOR_S``
(:mod:`gpuscout.estimate.ctranslate2_step`) is fitted on; the batch-8 ones are held out (never fitted on);
the transformers row checks that engine's uncalibrated priors. ``--fit`` fits the floor on the batch-1
rows (least squares of the log error, a golden-section search) and prints it. The leave-one-source-out
table always runs: the floor fitted on one README revision's batch-1 rows and every row of the other
scored with it, in turn, the honest figure for a machine the fit never saw.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from gpuscout.estimate import ctranslate2_step as ct2
from gpuscout.estimate.transcription import estimate_transcription
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model

DEFAULT_CSV = Path(__file__).resolve().parent / "data" / "measurements.csv"
METRIC = "transcription_seconds"
BEAM = 5  # every row's task says "beam 5"
FLOOR_RANGE = (1e-6, 100e-6)  # seconds: the golden-section search's bracket


@dataclass(frozen=True, slots=True)
class SpeechRow:
    line: int
    model: str
    gpu: str
    engine: str
    precision: str
    batch: int
    audio_s: float
    measured_s: float
    source: str  # the README revision: "older (V100S)" or "current (RTX 3070 Ti)"
    role: str  # "fitted", "held out" or "check"


@dataclass(frozen=True, slots=True)
class Scored:
    row: SpeechRow
    predicted_s: float

    @property
    def error(self) -> float:
        return self.predicted_s / self.row.measured_s - 1.0


def read_rows(path: Path = DEFAULT_CSV) -> list[SpeechRow]:
    """The speech rows of the calibration CSV, each with its engine, settings and role."""
    rows: list[SpeechRow] = []
    with path.open(newline="", encoding="utf-8") as fh:
        for line, r in enumerate(csv.DictReader(fh), start=2):
            if r["metric"] != METRIC:
                continue
            engine = "faster-whisper" if "faster-whisper" in r["framework"] else "transformers"
            batch = int(r["batch"])
            # transformers: a check of that engine's priors; faster-whisper batch 1 fitted, batch 8 held out
            role = "check" if engine == "transformers" else "fitted" if batch == 1 else "held out"
            rows.append(
                SpeechRow(
                    line=line,
                    model=resolve_model(r["model"]).name,
                    gpu=resolve_gpu(r["gpu"]).name,
                    engine=engine,
                    precision="int8" if r["precision"].upper().startswith("INT8") else "fp16",
                    batch=batch,
                    audio_s=float(r["context_in"]),
                    measured_s=float(r["value"]),
                    source="older (V100S)" if "older revision" in r["notes"] else "current (RTX 3070 Ti)",
                    role=role,
                )
            )
    return rows


@contextmanager
def floor(seconds: float) -> Iterator[None]:
    """``CT2_KERNEL_FLOOR_S`` set to ``seconds`` for the estimates made inside."""
    kept = ct2.CT2_KERNEL_FLOOR_S
    ct2.CT2_KERNEL_FLOOR_S = seconds
    try:
        yield
    finally:
        ct2.CT2_KERNEL_FLOOR_S = kept


def predict(row: SpeechRow) -> float:
    est = estimate_transcription(
        row.model,
        row.gpu,
        audio_s=row.audio_s,
        batch=row.batch,
        precision=row.precision,
        engine=row.engine,
        beam=BEAM,
    )
    assert est.seconds is not None  # every row's engine runs on its GPU
    return est.seconds


def score(rows: Sequence[SpeechRow]) -> list[Scored]:
    return [Scored(r, predict(r)) for r in rows]


def fit_floor(rows: Sequence[SpeechRow]) -> float:
    """The per-kernel floor minimising the squared log error of ``rows`` (golden-section search in log
    space; the error is unimodal in the floor: every step grows with it)."""

    def loss(log_floor: float) -> float:
        with floor(math.exp(log_floor)):
            return sum(math.log(s.predicted_s / s.row.measured_s) ** 2 for s in score(rows))

    lo, hi = (math.log(x) for x in FLOOR_RANGE)
    g = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = loss(a), loss(b)
    for _ in range(60):
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = loss(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = loss(b)
    return math.exp((lo + hi) / 2.0)


def leave_one_source_out(rows: Sequence[SpeechRow]) -> list[tuple[str, float, list[Scored]]]:
    """Per README revision: the floor fitted on the other's batch-1 faster-whisper rows, and every
    faster-whisper row of this one scored with it."""
    out = []
    for source in sorted({r.source for r in rows}):
        train = [r for r in rows if r.source != source and r.role == "fitted"]
        held = [r for r in rows if r.source == source and r.engine == "faster-whisper"]
        fitted = fit_floor(train)
        with floor(fitted):
            out.append((source, fitted, score(held)))
    return out


def _summary(scored: Sequence[Scored]) -> str:
    if not scored:
        return "n 0"
    ape = [abs(s.error) for s in scored]
    return f"n {len(ape)}, MAPE {statistics.mean(ape):.1%}, max {max(ape):.1%}"


def _table(scored: Sequence[Scored], role: str = "") -> list[str]:
    """One line per row; ``role`` in place of the rows' own (the leave-one-out table: all held out)."""
    lines = []
    for s in scored:
        r = s.row
        lines.append(
            f"  line {r.line:>4} {r.engine:<14} {r.precision:<4} b{r.batch} {r.gpu:<16} {role or r.role:<8} "
            f"measured {r.measured_s:6.1f} s  predicted {s.predicted_s:6.1f} s  ({s.error:+.1%})"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    ap.add_argument("--fit", action="store_true", help="fit CT2_KERNEL_FLOOR_S on the batch-1 rows")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = read_rows(args.csv)
    scored = score(rows)
    report: dict[str, object] = {
        "floor_us": ct2.CT2_KERNEL_FLOOR_S * 1e6,
        "rows": [asdict(s.row) | {"predicted_s": s.predicted_s, "error": s.error} for s in scored],
    }
    lines = [f"CT2_KERNEL_FLOOR_S = {ct2.CT2_KERNEL_FLOOR_S * 1e6:g} us (the module's constant)"]
    lines += _table(scored)
    for role in ("fitted", "held out", "check"):
        lines.append(f"  {role}: {_summary([s for s in scored if s.row.role == role])}")
    if args.fit:
        fitted = fit_floor([r for r in rows if r.role == "fitted"])
        report["fit_us"] = fitted * 1e6
        lines.append(
            f"fit on the {sum(r.role == 'fitted' for r in rows)} batch-1 rows: {fitted * 1e6:.2f} us"
        )
    loso = leave_one_source_out(rows)
    report["loso"] = [
        {"held_out": src, "floor_us": f * 1e6, "rows": [{"line": s.row.line, "error": s.error} for s in sc]}
        for src, f, sc in loso
    ]
    lines.append("leave one source (README revision) out:")
    for src, fitted, held in loso:
        lines.append(f" {src} held out, floor fitted on the other: {fitted * 1e6:.2f} us; {_summary(held)}")
        lines += _table(held, "held out")
    print(json.dumps(report, indent=2) if args.json else "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
