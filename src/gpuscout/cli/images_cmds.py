"""``gpuscout images``: text-to-image (diffusion) memory and seconds per image on a GPU."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from gpuscout.cli.coercion import COUNT_HELP, parse_count
from gpuscout.cli.estimate_cmds import _KeepsWhatWasTyped, _named_by_options
from gpuscout.cli.output import (
    JsonOption,
    console,
    plain,
    print_json,
    print_refusal,
    print_with_notes,
    user_errors,
)
from gpuscout.estimate.arguments import (  # the ranges estimate_images and a batch workload take
    MAX_IMAGE_BATCH,
    MAX_IMAGE_PX,
    MAX_IMAGES,
    MAX_STEPS,
    MIN_IMAGE_PX,
)
from gpuscout.wording import plural


def images_cmd(
    ctx: typer.Context,
    model: Annotated[str, typer.Argument(help="A diffusion model, e.g. flux.1-dev, sdxl.")],
    gpu: Annotated[str, typer.Option("--gpu", help="GPU name, e.g. H100, L40S, RTX 4090.")],
    images: Annotated[
        int,
        typer.Option(
            "--images",
            help=f"Images to generate (for the total time; {COUNT_HELP}).",
            min=1,
            max=MAX_IMAGES,
            parser=parse_count,
        ),
    ] = 1,
    steps: Annotated[
        int | None,
        typer.Option(
            "--steps", help="Denoising steps.", show_default="the model's usual count", min=1, max=MAX_STEPS
        ),
    ] = None,
    width: Annotated[
        int, typer.Option("--width", help="Image width, px.", min=MIN_IMAGE_PX, max=MAX_IMAGE_PX)
    ] = 1024,
    height: Annotated[
        int, typer.Option("--height", help="Image height, px.", min=MIN_IMAGE_PX, max=MAX_IMAGE_PX)
    ] = 1024,
    batch: Annotated[
        int, typer.Option("--batch", help="Images generated together.", min=1, max=MAX_IMAGE_BATCH)
    ] = 1,
    precision: Annotated[
        str, typer.Option("--precision", help="Denoiser weights: bf16, fp16, fp32 or fp8.")
    ] = "bf16",
    cpu_offload: Annotated[
        bool,
        typer.Option(
            "--cpu-offload",
            help="diffusers' enable_model_cpu_offload: one component on the GPU at a time.",
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """How fast a GPU generates images with a diffusion model (seconds per image) and the memory it needs.

    One diffusers pipeline per GPU (more GPUs are replicas); speed: physics at stated efficiencies.
    """
    from gpuscout.estimate.diffusion import estimate_images
    from gpuscout.estimate.memory import gib  # the estimator's GB as GiB, the unit GPU memory is sold in

    with user_errors(), _named_by_options(ctx):  # "--width: 10 is out of range", not "width: ..."
        est = estimate_images(
            model,
            gpu,
            steps=steps,
            width=width,
            height=height,
            batch=batch,
            precision=precision,
            cpu_offload=cpu_offload,
        )
    if json_out:
        print_json(est)
        return
    mem = est.memory
    title = (
        f"{est.model} on {est.gpu}: {est.engine}, {est.precision}, "
        f"{est.width}x{est.height}, {est.steps} {plural(est.steps, 'step')}, batch {est.batch}"
    )
    if not est.supported:  # diffusers cannot run on this platform: as `gpuscout estimate` says a refusal
        print_refusal(title, est.unsupported_reason, est.assumptions, est.warnings)
        return
    table = Table(title=title, min_width=len(title))  # as wide as its title: no "batch" / "1" wrap at 80
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_row("fits", "yes" if est.fits else f"[red]no[/] ({est.binding_constraint})")
    table.add_row("memory", f"{gib(mem.total_gb):,.2f} GiB of {gib(mem.usable_gb):,.1f} GiB")
    table.add_row(
        "weights / activations / overhead",
        f"{gib(mem.weights_gb):,.1f} / {gib(mem.activations_gb):,.1f} / {gib(mem.overhead_gb):,.1f} GiB",
    )
    if est.seconds_per_image is None or est.images_per_s is None:
        # no speed for a pipeline the GPU cannot hold (as `gpuscout estimate` gives none): why, and what
        # would fit instead, under the memory it needs
        table.add_row("seconds per image", "[red]none[/]: does not fit")
        console.print(table)
        offload = " with CPU offload" if "cpu_offload" in est.assumptions else ""
        console.print(
            f"[red]does not fit{offload}:[/] needs {gib(mem.total_gb):,.1f} GiB, the GPU has "
            f"{gib(mem.usable_gb):,.1f} GiB ({plain(est.binding_constraint)}); no speed is given",
            highlight=False,
        )
        instead = est.assumptions.get("would_fit", "")
        console.print(f"would fit: {plain(instead or 'nothing on this GPU')}", highlight=False)
        for key, value in est.assumptions.items():
            if key != "would_fit":  # said above
                console.print(f"{plain(key)}: {plain(value)}", highlight=False)
        for warning in est.warnings:
            if not warning.startswith("does not fit"):  # said above
                console.print(f"[yellow]warning:[/] {plain(warning)}", highlight=False)
        return
    table.add_row("seconds per image", f"{est.seconds_per_image:,.2f} s ({est.bound}-bound)")
    table.add_row("images per hour", f"{est.images_per_s * 3600:,.0f}")
    if images > 1:
        from gpuscout.advise.reasons import duration

        table.add_row(f"time for {images:,} images", duration(images * est.seconds_per_image))
    print_with_notes(table, est.assumptions, est.warnings)


def register(app: typer.Typer) -> None:
    """Add ``images`` to the root app."""
    app.command("images", cls=_KeepsWhatWasTyped)(images_cmd)
