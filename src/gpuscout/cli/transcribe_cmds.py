"""``gpuscout transcribe``: speech-to-text (Whisper) memory and speed (RTFx) on a GPU."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from gpuscout.cli.estimate_cmds import _KeepsWhatWasTyped, _named_by_options
from gpuscout.cli.output import JsonOption, print_json, print_refusal, print_with_notes, user_errors
from gpuscout.estimate.types import FIXED_COSTS


def transcribe_cmd(
    ctx: typer.Context,
    model: Annotated[str, typer.Argument(help="A Whisper model, e.g. whisper-large-v3.")],
    gpu: Annotated[str, typer.Option("--gpu", help="GPU name, e.g. H100, L4, RTX 4090.")],
    audio_hours: Annotated[
        float, typer.Option("--audio-hours", help="Hours of audio to transcribe.", min=0.0001, max=27_000)
    ] = 1.0,
    batch: Annotated[
        int, typer.Option("--batch", help="30 s windows decoded together.", min=1, max=1024)
    ] = 1,
    precision: Annotated[str, typer.Option("--precision", help="fp16, bf16, fp32 or int8.")] = "fp16",
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="transformers (ASR pipeline, 30 s chunks with its default 5 s strides) or faster-whisper.",
        ),
    ] = "transformers",
    beam: Annotated[
        int | None,
        typer.Option(
            "--beam",
            help="Beams per window (1: greedy). Default: the engine's, transformers 1, faster-whisper 5.",
            min=1,
            max=32,
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """How fast a GPU transcribes audio (RTFx: audio seconds per wall-clock second) and its memory.

    The speed is an uncalibrated prior (no measured speech rows yet); every figure states its assumptions.
    """
    from gpuscout.estimate.transcription import estimate_transcription

    # an error names the option typed (``--engine: unknown speech engine``), as ``gpuscout estimate``'s do
    with user_errors(), _named_by_options(ctx):
        est = estimate_transcription(
            model,
            gpu,
            audio_s=audio_hours * 3600.0,
            batch=batch,
            precision=precision,
            engine=engine,
            beam=beam,
        )
    if json_out:
        print_json(est)
        return
    from gpuscout.advise.reasons import duration
    from gpuscout.estimate.memory import gib  # the estimator's GB as GiB, the unit GPU memory is sold in

    decoding = "greedy" if est.beam == 1 else f"beam {est.beam}"
    title = f"{est.model} on {est.gpu}: {est.engine}, {est.precision}, batch {est.batch}, {decoding}"
    table = Table(title=title, min_width=min(len(title), 80))  # no "batch" / "1" wrap at 80
    table.add_column("quantity")
    table.add_column("value", justify="right")
    if not est.supported:  # no speed for an engine that cannot run here, as `gpuscout estimate` says it
        print_refusal(title, est.unsupported_reason, est.assumptions, est.warnings)
        return
    table.add_row("fits", "yes" if est.fits else "[red]no[/]")
    mem = est.memory
    table.add_row("memory", f"{gib(mem.total_gb):,.2f} GiB of {gib(mem.capacity_gb):,.1f} GiB")
    seconds, rtfx, rtf = est.seconds, est.realtime_factor, est.rtf
    assert seconds is not None and rtfx is not None and rtf is not None  # supported: timed
    # RTFx and RTF side by side: "15.1x" alone reads as a real-time factor of 15 (15x slower)
    table.add_row("speed", f"{rtfx:,.1f}x faster than real time (RTFx)")
    table.add_row("real-time factor (RTF)", f"{rtf:.3g} wall-clock s per audio s")
    table.add_row(f"time for {audio_hours:g} h of audio", duration(seconds))
    split = (est.host_s, est.encoder_s, est.decoder_s)
    table.add_row("host / encoder / decoder", " / ".join(f"{x / seconds:.0%}" for x in split))
    # "overhead" (host work per step) named as estimate and diagnose name a step's fixed costs
    bound = f"bound by {FIXED_COSTS}" if est.bound == "overhead" else f"{est.bound}-bound"
    table.add_row("decoder step", f"{est.decoder_step_s * 1e3:,.1f} ms ({bound})")
    print_with_notes(table, est.assumptions, est.warnings)


def register(app: typer.Typer) -> None:
    """Add ``transcribe`` to the root app."""
    app.command("transcribe", cls=_KeepsWhatWasTyped)(transcribe_cmd)
