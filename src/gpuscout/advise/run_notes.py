"""What the human faces of an answer (the CLI's table, the web page) say of rows that run otherwise than
asked: the reason (``Recommendation.substitution``: the support rule that refused the engine asked on
that GPU, a dozen lines for vLLM on Volta) is one per GPU, so it is said once, as a numbered note, and
each of its rows says only what differs ("llama.cpp in place of vllm (note 1)").

The rows themselves keep their whole reason (``substitution``, ``reasons``): the JSON, the CSV, the
Python API and a row's breakdown (``--explain N``) say it on every row, for readers of one row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gpuscout.advise.types import Recommendation


@dataclasses.dataclass(frozen=True, slots=True)
class RunNote:
    """A reason rows share for running otherwise than asked, on the rows of ``gpus``: ``text``, their
    ``substitution`` with the GPUs named together where the rule is one for several ("on V100-SXM2-16GB
    / V100-SXM2-32GB is not supported"); ``covers``: the rows' own texts; ``number`` is how those rows
    point to it ("(note 1)")."""

    number: int
    gpus: tuple[str, ...]
    text: str
    covers: frozenset[str]

    @property
    def heading(self) -> str:
        """'note 1, V100-SXM2-16GB rows': what the note's line starts with."""
        return f"note {self.number}, {' / '.join(self.gpus)} rows"


def run_notes(rows: Sequence[Recommendation]) -> tuple[RunNote, ...]:
    """The distinct reasons ``rows`` give for running otherwise than asked, in the rows' order, each with
    the GPUs of its rows: the support rules decide per GPU, so GPUs whose texts differ only by their
    name (a V100's 16 and 32 GB boards) share one note."""
    gpus: dict[str, dict[str, None]] = {}
    covers: dict[str, dict[str, None]] = {}
    for rec in rows:
        if rec.substitution:
            gpu = rec.offer.accelerator
            key = rec.substitution.replace(gpu, "\0")
            gpus.setdefault(key, {})[gpu] = None
            covers.setdefault(key, {})[rec.substitution] = None
    return tuple(
        RunNote(n, tuple(g), key.replace("\0", " / ".join(g)), frozenset(covers[key]))
        for n, (key, g) in enumerate(gpus.items(), 1)
    )


def run_mark(rec: Recommendation, notes: Sequence[RunNote], asked: str) -> str:
    """What ``rec`` says of its run where a note of ``notes`` gives the reason: what differs from
    ``asked`` (``Advice.asked_run``, "vllm, fp8"), "llama.cpp in place of vllm (note 1)", or "fp16 in
    place of bf16 (note 2)" where the engine stays; its whole ``substitution`` where no note has it, ""
    where it runs as asked."""
    note = next((n for n in notes if rec.substitution in n.covers), None)
    if note is None:
        return rec.substitution or ""
    ran_engine, _, ran_precision = rec.runs_as.partition(", ")
    asked_engine, _, asked_precision = asked.partition(", ")
    if not asked or not ran_engine:
        what = "runs otherwise than asked"
    elif ran_engine != asked_engine:
        what = f"{ran_engine} in place of {asked_engine}"
    else:
        what = f"{ran_precision} in place of {asked_precision}"
    return f"{what} (note {note.number})"
