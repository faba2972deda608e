"""``gpuscout vram``, ``gpuscout estimate`` and ``gpuscout diagnose``: memory, speed and bottleneck."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.table import Table
from typer.core import TyperCommand

from gpuscout.cli.coercion import TOKENS_HELP, number_in, parse_tokens
from gpuscout.cli.json_out import finite
from gpuscout.cli.output import (
    console,
    plain,
    print_json,
    print_refusal,
    printable,
    to_jsonable,
    user_errors,
)
from gpuscout.cli.wrap import print_wrapped
from gpuscout.errors import ConfigurationRejected, InvalidInputError, UnknownNameError
from gpuscout.estimate.arguments import (  # the limits the estimator checks: each option says its range
    MAX_BATCH,
    MAX_CONCURRENCY,
    MAX_CONTEXT,
    MAX_GPUS,
    MAX_RATE,
    MEASURED_TPS_ACCEPTED,
    ContextPastWindow,
    imported_config,
    positive_words,
    whole_number_text,
)
from gpuscout.estimate.types import FIXED_COSTS_WHAT, Estimate, MemoryBreakdown, binding_words
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.wording import key_words, plural

TASKS = ("infer", "lora", "qlora", "full", "pretrain")
#: The tasks in words, where a line names one.
TASK_WORDS = {
    "infer": "inference",
    "lora": "LoRA",
    "qlora": "QLoRA",
    "full": "full fine-tuning",
    "pretrain": "pre-training",
}
MAX_GPUS_LISTED = (1, 2, 4, 8)
PARALLEL_HELP = (
    "tensor | layer | replicas (default: the engine's own: layer for llama.cpp and hf, else tensor)"
)
KV_DTYPE_HELP = (
    "KV cache dtype the engine offers: auto (the model's), fp8 (vLLM, SGLang, TGI, TensorRT-LLM), int8 "
    "(TensorRT-LLM), q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl (llama.cpp)"
)


def _model(name: str, config: Path | None) -> ModelSpec:
    return _model_detail(name, config)[0]


def _model_detail(name: str, config: Path | None) -> tuple[ModelSpec, str]:
    """The model and the precision its name implies ("Qwen3-14B-AWQ": int4; "" when none): a command
    that resolves the name itself (imported models included) must not lose what the name says."""
    if config is not None:
        from gpuscout.loaders import model_from_hf_config

        if not config.is_file():
            raise InvalidInputError(
                "--config", f"no such file: {config}", "path to a Hugging Face config.json"
            )
        return model_from_hf_config(config), ""
    from gpuscout.user_models import registry

    found = registry().resolve_detail(name)  # curated or imported (`gpuscout models import`)
    return found.model, found.precision


# ---- errors named by the options typed --------------------------------------------------------------
_TYPED = "gpuscout.typed"  # ``ctx.meta`` key: the words the command was run with


class _KeepsWhatWasTyped(TyperCommand):
    """A command that keeps the words it was run with in ``ctx.meta``, so that an error can name an
    option as the user typed it (``--prompt``, where ``--context-in`` is the same option)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_TYPED] = tuple(args)
        result: list[str] = super().parse_args(ctx, args)
        return result


def _option_names(ctx: typer.Context, fields: Mapping[str, str]) -> dict[str, str]:
    """Each Python field an error may name -> the option that sets it: the name typed where an option has
    several (``--prompt`` for ``context_in`` when that is what was typed), else its first long name.
    ``fields`` maps the fields of the functions behind the command to its parameters where they differ
    (``seq_len`` -> ``context``)."""
    typed = ctx.meta.get(_TYPED, ())
    words = {w.split("=", 1)[0] for w in typed if isinstance(w, str) and w.startswith("-")}
    flags: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    for param in ctx.command.params:
        opts = [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
        if param.name is None or param.param_type_name != "option" or not opts:
            continue
        longs = [o for o in opts if o.startswith("--")] or opts
        names[param.name] = longs
        flags[param.name] = next((o for o in longs if o in words), longs[0])
    for one, other in _PAIRED:  # --prompt typed: its pair is --output, not --context-out
        for a, b in ((one, other), (other, one)):
            if a in names and b in names and flags[a] in words and flags[b] not in words:
                i = names[a].index(flags[a])
                flags[b] = names[b][i] if i < len(names[b]) else flags[b]
    for field, name in fields.items():
        if name in flags:
            flags[field] = flags[name]
    return flags


#: Options named as a pair (``--context-in/--prompt`` and ``--context-out/--output``): an error naming
#: both writes the one not typed by the name matching the one typed.
_PAIRED = (("context_in", "context_out"),)


def _in_option_words(text: str, flags: Mapping[str, str], names: tuple[str, ...]) -> str:
    """``text`` with the fields it names written as the options ("context_in + context_out" reads
    "--prompt + --output"): those with an underscore, never plain words, and the plain-word ones the
    error lists in its ``names`` ("give one of batch, concurrency..." reads "--batch, --concurrency")."""
    fields = sorted((f for f in flags if "_" in f or f in names), key=len, reverse=True)
    if not fields:
        return text
    pattern = re.compile(r"(?<![-\w.])(" + "|".join(map(re.escape, fields)) + r")\b")
    return pattern.sub(lambda m: flags[m.group(1)], text)


def _stated_precision(precision: str | None) -> str | None:
    """``--precision`` as typed (None: not given, the checkpoint's own format); one given empty or blank
    is refused as the API refuses ``precision=`` (its "is empty" error, with what is accepted), never
    read as the default."""
    if precision is not None and not precision.strip():
        raise InvalidInputError(
            "--precision", "is empty; leave it out for the checkpoint's own format", "bf16, fp8, int4, ..."
        )
    return precision


def _stated_engine(engine: str | None) -> str | None:
    """``--engine`` as typed (None: not given, the default engine for the precision); one given empty or
    blank is refused as the engine field's "is empty" error with every engine accepted, never read as
    the default."""
    if engine is not None and not engine.strip():
        from gpuscout.estimate.engines import resolve_engine

        resolve_engine(engine)  # UnknownEngineError: "is empty", the engines accepted
    return engine


@contextmanager
def _named_by_options(ctx: typer.Context, fields: Mapping[str, str] | None = None) -> Iterator[None]:
    """An input error raised inside names the command's option, not the Python field behind it:
    ``--prompt: -5 is out of range``, not ``context_in: ...`` (as ``gpuscout recommend`` does). An error
    on no option of the command (the model argument) is left as it is. A context past the model's window
    names the command's ``--config``, or where it has none (``diagnose``) a model imported by name."""
    try:
        yield
    except InvalidInputError as exc:
        flags = _option_names(ctx, fields or {})
        if isinstance(exc, ContextPastWindow):
            exc = exc.given_as(flags.get("config") or imported_config("model"))
            if exc.field not in flags:
                raise exc from None
        flag = flags.get(exc.field)
        if flag is None:
            raise
        if isinstance(exc, UnknownNameError):
            raise exc.named_as(flag) from None  # an unknown engine keeps its list of engines accepted
        accepted = _in_option_words(exc.accepted, flags, exc.names) if exc.accepted else exc.accepted
        raise InvalidInputError(flag, _in_option_words(exc.message, flags, exc.names), accepted) from None


#: ``gpuscout vram``: the fields of ``memory_needed`` / ``estimate_training`` its options set
VRAM_FIELDS = {
    "seq_len": "context",
    "context_in": "context",
    "context_out": "context",
    "micro_batch": "batch",
    "method": "task",
}


def _batch(text: str, high: int) -> int | Literal["max"]:
    """``--batch`` as typed: 'max', or a whole number in any notation (``1e3``), which the command's
    estimator checks against ``high``, the limit its help states (``estimate`` and ``vram``:
    MAX_CONCURRENCY sequences in flight, as ``--concurrency``); other text is refused with that range."""
    t = text.strip().lower()
    if t == "max":
        return "max"
    number = whole_number_text(t)
    if number is None:
        raise InvalidInputError(
            "--batch", f"expected a whole number or 'max', got {text.strip()[:40]!r}", f"1..{high} or max"
        )
    return number


def _sized_as(task: str, res: Any) -> str:
    """': fp8-block, vllm, KV bf16': the weight format, engine and KV-cache dtype an inference sizing took
    (``MemoryNeed``: the checkpoint's own format and the engine's own KV dtype where none was asked), as
    ``estimate``'s title names its precision and engine; "" for training (its ``assumptions`` say how
    the base and adapters are held)."""
    if task != "infer":
        return ""
    return f": {res.precision}, {res.engine}, KV {res.kv_dtype}"


def _breakdown_table(title: str, mem: MemoryBreakdown) -> Table:
    """The memory per GPU, part by part, in GiB as GPU memory is sold (the estimator's GB through
    :func:`~gpuscout.estimate.memory.gib`)."""
    from gpuscout.estimate.memory import gib

    table = Table(title=title)
    table.add_column("component")
    table.add_column("GiB per GPU", justify="right")
    rows = [
        ("weights", mem.weights_gb),
        ("KV cache", mem.kv_cache_gb),
        ("activations / workspace", mem.activations_gb),
        ("optimizer state", mem.optimizer_gb),
        ("gradients", mem.gradients_gb),
        ("adapters", mem.adapters_gb),
        ("runtime overhead", mem.overhead_gb),
    ]
    for name, value in rows:
        if value or name in ("weights", "runtime overhead"):
            table.add_row(name, f"{gib(value):,.2f}")
    table.add_row("[bold]total[/]", f"[bold]{gib(mem.total_gb):,.2f}[/]")
    if mem.capacity_gb:
        table.add_row("usable on this GPU", f"{gib(mem.usable_gb or mem.capacity_gb):,.2f}")
    return table


def _gpu_counts(task: str, res: Any, parallel: str | None = None) -> tuple[int, ...]:
    """The GPU counts the fits table tries: any count up to 8 where inference runs as a whole-layer split
    (llama.cpp, transformers: nothing asks for a power of two, and 3-, 5- and 6-GPU rigs are rented), else
    the counts a tensor-parallel engine or a sharded training job is set up on (:data:`MAX_GPUS_LISTED`)."""
    from gpuscout.estimate.api import parallel_mode

    if task == "infer" and parallel_mode(parallel, res.engine) == "layer":
        return tuple(range(1, MAX_GPUS_LISTED[-1] + 1))
    return MAX_GPUS_LISTED


@dataclass(frozen=True)
class FitsOn:
    """The fits table of ``vram`` (:func:`_fits_on`): ``rows``, each accelerator with the smallest GPU
    count on which the workload fits, its row of the JSON and the memory it was sized with; ``left_out``,
    (why, the accelerators) for those the support rules the direct answer reads leave out, whatever
    their memory."""

    rows: list[tuple[dict[str, Any], MemoryBreakdown]]
    left_out: list[tuple[str, list[str]]]


def _fits_on(
    model: ModelSpec | str, task: str, kwargs: dict[str, Any], *, counts: tuple[int, ...] = MAX_GPUS_LISTED
) -> FitsOn:
    """Every accelerator in the table with the smallest of ``counts`` on which the workload fits: its row
    of the JSON (GB, 1e9 bytes, to 0.01) and the memory it was sized with (for the GiB shown). The direct
    answer's support rules apply to each: an accelerator on which the engine cannot run the precision at
    any count (``supported`` false, as ``vram --gpu`` says it), one the training estimator rejects, or
    one whose training framework the rules do not vouch for (:func:`~gpuscout.estimate.training.
    framework_support`, whose warning ``vram --gpu`` prints) is left out, and said so by its cause."""
    from gpuscout.estimate.training import framework_support
    from gpuscout.knowledge.accelerators import all_accelerators

    out: list[tuple[dict[str, Any], MemoryBreakdown]] = []
    left_out: dict[str, list[str]] = {}
    precision = kwargs["precision"]
    for acc in all_accelerators():
        if task != "infer":
            framework = framework_support(task, precision or "bf16", acc)
            if not framework.vouched:
                left_out.setdefault(framework.cause, []).append(acc.name)
                continue
        refusal, ran = "", False  # why it cannot run at a count; whether it ran at one
        for n in counts:
            try:
                res, _ = _run_task(model, acc, task, gpus=n, **kwargs)
            except ConfigurationRejected:  # the training estimator's refusal: FP8 without FP8 tensor cores
                refusal = refusal or f"{TASK_WORDS[task]} in {precision or 'bf16'} cannot run on them"
                break
            except InvalidInputError:
                break
            if not getattr(res, "supported", True):  # the engine's refusal, as `vram --gpu` says it
                refusal = refusal or _refusal_cause(res, kwargs.get("engine"), acc)
                continue
            ran = True
            if res.fits and _tight(task, res, acc) is None:
                row = {
                    "gpu": acc.name,
                    "gpus": n,
                    # the card as sold ("80 GB" is 80 GiB); the need and the usable share are 1e9-byte GB
                    "card_memory_gib": acc.memory_gb,
                    "per_gpu_gb": round(res.memory.total_gb, 2),
                    "usable_gb": round(res.memory.usable_gb or res.memory.capacity_gb, 2),
                }
                out.append((row, res.memory))
                break
        if refusal and not ran:
            left_out.setdefault(refusal, []).append(acc.name)
    rows = sorted(out, key=lambda fit: (fit[0]["gpus"], fit[0]["card_memory_gib"], fit[0]["gpu"]))
    return FitsOn(rows, [(why, sorted(names, key=str.lower)) for why, names in left_out.items()])


def _refusal_cause(res: Any, named: str | None, acc: Any) -> str:
    """Why the engine refused a GPU, as the fits table's left-out line says it: the release named is older
    than the model ("SGLang 0.4.6 predates this model's architecture": no GPU would do), or than the GPU
    ("vllm 0.6.3 is too old a release for them": a later one runs them), else the engine cannot run the
    precision there. The engine as named, without its launch flags."""
    from gpuscout.estimate.engines import resolve_engine
    from gpuscout.estimate.launch_flags import split_flags
    from gpuscout.estimate.precision import resolve_precision
    from gpuscout.estimate.support import refused_for_age
    from gpuscout.knowledge.architecture_support import PREDATES

    # an Estimate's reason, or a MemoryNeed's (its support assumption: the same words, with the sources)
    reason = getattr(res, "unsupported_reason", "") or res.assumptions.get("support", "")
    if PREDATES in reason:
        return reason.split(":", 1)[0]
    engine = split_flags((named or "").strip())[0].strip() or res.engine
    if named and refused_for_age(resolve_engine(named), resolve_precision(res.precision), acc):
        return f"{engine} is too old a release for them (a later one runs them)"
    return f"{engine} cannot run {res.precision} on them"


#: The most accelerators a line under the fits table names (``--json`` lists every one).
LEFT_OUT_NAMED = 10


def left_out_line(cause: str, names: list[str]) -> str:
    """The line under the fits table for the accelerators left out for one cause: "10 accelerators left
    out: QLoRA's NF4 kernels ... (Gaudi2, ...); --gpu NAME says why", the first
    :data:`LEFT_OUT_NAMED` named."""
    shown = ", ".join(names[:LEFT_OUT_NAMED])
    more = len(names) - LEFT_OUT_NAMED
    if more > 0:
        shown += f" and {more} more: --json lists them"
    return (
        f"{len(names)} {plural(len(names), 'accelerator')} left out: {cause} ({shown}); --gpu NAME says why"
    )


def _tight(task: str, res: Any, acc: Any) -> float | None:
    """A training layout's free share of each GPU where it is below the advisor's margin
    (``Assumptions.min_training_headroom``: `recommend` leaves such a layout out as an out-of-memory
    risk); None where it keeps the margin, or for inference (whose engine budget is its own)."""
    if task == "infer":
        return None
    from gpuscout.advise.assumptions import Assumptions
    from gpuscout.advise.configs import memory_headroom

    free = memory_headroom(res.memory, acc)
    return free if free < Assumptions().min_training_headroom else None


def _run_task(
    model: ModelSpec | str,
    gpu: Any,
    task: str,
    *,
    gpus: int,
    precision: str | None,
    context: int,
    batch: int | Literal["max"],
    kv_dtype: str | None,
    engine: str,
    parallel: str | None = None,
) -> tuple[Any, str]:
    """The memory of ``task`` on ``gpus`` x ``gpu``, and for training its layout ("" for inference).

    Several GPUs share a training job's memory only when it is sharded, so they are sized as FSDP (data
    parallel would hold a whole replica on each GPU). Host offload is not tried: it moves the optimizer
    to host RAM the GPU count says nothing about (the advisor tries it on whole nodes, and says how much
    RAM it takes)."""
    if task == "infer":
        from gpuscout.estimate.api import memory_needed

        def need(sequences: int) -> Any:
            # the whole batch counted (an estimate would cap it at what the KV cache holds)
            return memory_needed(
                model,
                gpu,
                gpus=gpus,
                precision=precision,  # None: the checkpoint's own format (native FP8 / MXFP4, else bf16)
                engine=engine,
                batch=sequences,
                context=context,
                kv_dtype=kv_dtype,
                parallel=parallel,  # None: the engine's own split (estimate.api.parallel_mode)
            )

        if batch != "max":
            return need(batch), ""
        one = need(1)
        return (need(one.max_batch) if one.max_batch > 1 else one), ""
    if parallel is not None:
        raise InvalidInputError("--parallel", "applies to inference (--task infer)", "omit it for training")
    from gpuscout.estimate.training import describe_layout, estimate_training

    mb = batch if isinstance(batch, int) else 1
    sharding = "none" if gpus == 1 else "fsdp"
    res = estimate_training(
        model,
        gpu,
        gpus=gpus,
        method=task,
        seq_len=context,
        micro_batch=mb,
        precision=precision or "bf16",
        sharding=sharding,
    )
    return res, describe_layout(sharding, False, "full", gpus, context, mb)


def register(app: typer.Typer) -> None:
    """Add ``vram``, ``estimate`` and ``diagnose`` to the root app."""

    @app.command(cls=_KeepsWhatWasTyped)
    def vram(
        ctx: typer.Context,
        model: Annotated[str, typer.Argument(help="Model name, alias or HF id (e.g. llama-3.1-70b)")],
        task: Annotated[str, typer.Option(help="infer | lora | qlora | full | pretrain")] = "infer",
        precision: Annotated[str | None, typer.Option(help="bf16, fp8, int4/awq, q4_k_m, nf4...")] = None,
        context: Annotated[
            int,
            typer.Option(
                min=1,
                max=MAX_CONTEXT,
                help=f"Tokens per sequence (prompt + output; seq len; {TOKENS_HELP})",
                parser=parse_tokens,
            ),
        ] = 4096,
        batch: Annotated[
            str,
            typer.Option(
                help=f"Concurrent sequences, 1..{MAX_CONCURRENCY}: users served at once (or micro-batch for "
                "training)"
            ),
        ] = "1",
        gpus: Annotated[int, typer.Option(help="GPUs the model is split over", min=1, max=MAX_GPUS)] = 1,
        gpu: Annotated[str, typer.Option(help="GPU for the per-GPU breakdown")] = "H100-SXM",
        kv_dtype: Annotated[str | None, typer.Option("--kv-dtype", help=KV_DTYPE_HELP)] = None,
        parallel: Annotated[
            str | None,
            typer.Option(help=PARALLEL_HELP + "; inference only"),
        ] = None,
        engine: Annotated[
            str | None,
            typer.Option(
                help="Inference engine (default: llama.cpp for GGUF, else vllm); a version or year ('vllm "
                "0.6', 'llama.cpp 2024') sizes that era; launch flags ('vllm --gpu-memory-utilization 0.95') "
                "size it as started"
            ),
        ] = None,
        config: Annotated[Path | None, typer.Option(help="Local Hugging Face config.json")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output")] = False,
    ) -> None:
        """Memory breakdown per GPU, and the GPUs/counts on which it fits."""
        from gpuscout.advise.assumptions import Assumptions
        from gpuscout.estimate.engines import run_engine
        from gpuscout.estimate.memory import gib
        from gpuscout.knowledge.accelerators import resolve_gpu

        with user_errors(), _named_by_options(ctx, VRAM_FIELDS):
            if task not in TASKS:
                raise InvalidInputError("--task", f"unknown task {task!r}", ", ".join(TASKS))
            spec, implied = _model_detail(model, config)
            kwargs: dict[str, Any] = {
                "precision": _stated_precision(precision) or implied or None,
                "context": context,
                "batch": _batch(batch, MAX_CONCURRENCY),  # memory_needed's (and training's micro-batch)
                "kv_dtype": kv_dtype,
                "engine": run_engine(_stated_engine(engine), precision),
                "parallel": parallel,  # None: the engine's own split; blank: an error naming it
            }
            res, layout = _run_task(spec, gpu, task, gpus=gpus, **kwargs)  # layout: training only
            fits_on = _fits_on(spec, task, kwargs, counts=_gpu_counts(task, res, kwargs["parallel"]))
        if as_json:
            print_json(
                {
                    "model": res.model,
                    "task": task,
                    "gpu": res.gpu,
                    "gpus": gpus,
                    "fits": res.fits,
                    # a training layout below the advisor's free-memory margin (recommend leaves it out)
                    **(
                        {"headroom_below_margin": _tight(task, res, resolve_gpu(res.gpu)) is not None}
                        if task != "infer" and res.fits
                        else {}
                    ),
                    "supported": getattr(res, "supported", True),
                    **({"layout": layout} if layout else {}),
                    "memory": to_jsonable(res.memory),
                    "assumptions": res.assumptions,
                    "warnings": res.warnings,
                    "fits_on": [row for row, _ in fits_on.rows],
                    # hardware the support rules leave out of fits_on, whatever its memory
                    "fits_on_left_out": [{"reason": why, "gpus": names} for why, names in fits_on.left_out],
                }
            )
            return
        # the model as typed, and the entry it was sized as ("deepseek-r1 (as deepseek-v3)"), as `estimate`
        label = res.model if config is not None else _model_label(model, spec)
        # the GPUs it was sized on: those asked, or their devices (an MI250X module is two GPUs to software)
        gpus = getattr(res, "gpus", gpus)
        title = plain(
            f"{label} — {task}, {context} tokens, batch {batch}, on {gpus} x {res.gpu}{_sized_as(task, res)}"
        )
        breakdown = _breakdown_table(title, res.memory)
        from gpuscout.cli.table_fit import title_lines

        # the title wraps at the narrow table's width: at its phrases ("batch 1" whole), not between words
        breakdown.title = title_lines(title, console.measure(breakdown).maximum)
        console.print(breakdown)
        if layout:
            console.print(f"layout: {plain(layout)}")
        warnings = list(res.warnings)
        if not getattr(res, "supported", True):
            # as `estimate` shows it: the reason once, and what would run instead
            reason = warnings.pop(0) if warnings else plain(res.binding_constraint)
            console.print(f"{gpus} x {plain(res.gpu)}: [red]not supported:[/] {plain(reason)}")
            if "alternatives" in res.assumptions:
                console.print(f"would run: {plain(res.assumptions['alternatives'])}")
        else:
            verdict = (
                "[green]fits[/]" if res.fits else f"[red]does not fit[/] ({plain(res.binding_constraint)})"
            )
            tight = _tight(task, res, resolve_gpu(res.gpu)) if res.fits else None
            if tight is not None:
                verdict = (
                    f"[yellow]fits with only {max(tight, 0.0):.1%} of each GPU free[/]: `recommend` leaves "
                    f"out a training layout with less than {Assumptions().min_training_headroom:.0%} (an "
                    "out-of-memory risk from "
                    "allocator fragmentation and spikes; --min-headroom changes it there)"
                )
            console.print(f"{gpus} x {plain(res.gpu)}: {verdict}")
        for w in warnings:
            console.print(f"[yellow]warning:[/] {plain(w)}")
        kept = "" if task == "infer" else f", at least {Assumptions().min_training_headroom:.0%} free"
        table = Table(title=f"Fits on (smallest GPU count, up to 8{kept})")
        table.add_column("GPU")
        table.add_column("count", justify="right")
        table.add_column("needed GiB/GPU", justify="right")
        table.add_column("usable GiB/GPU", justify="right")
        table.add_column("card", justify="right")
        for row, mem in fits_on.rows:
            table.add_row(
                plain(row["gpu"]),
                str(row["gpus"]),
                f"{gib(mem.total_gb):,.1f}",  # the estimator's GB (the JSON's), shown in GiB
                f"{gib(mem.usable_gb or mem.capacity_gb):,.1f}",
                f"{row['card_memory_gib']:g} GiB",  # the card's memory as sold: "80 GB" is 80 GiB
            )
        console.print(table if fits_on.rows else "[red]fits on no GPU in the table with up to 8 GPUs[/]")
        for why, names in fits_on.left_out:
            console.print(plain(left_out_line(why, names)), highlight=False)

    @app.command("estimate", cls=_KeepsWhatWasTyped)
    def estimate_cmd(
        ctx: typer.Context,
        model: Annotated[str, typer.Argument(help="Model name, alias or HF id")],
        gpu: Annotated[str, typer.Option(help="GPU name (e.g. 'RTX 4090', H100)")],
        gpus: Annotated[int, typer.Option(help="Number of GPUs", min=1, max=MAX_GPUS)] = 1,
        precision: Annotated[
            str | None,
            typer.Option(
                help="bf16, fp8, int4/awq, mxfp4, q4_k_m, nf4... (default: the checkpoint's own format)"
            ),
        ] = None,
        engine: Annotated[
            str | None,
            typer.Option(
                help="vllm, sglang, tensorrt-llm, tgi, hf, llama.cpp, gpt-fast (default: llama.cpp for GGUF, "
                "else vllm); a version or year ('vllm 0.6', 'llama.cpp 2024') times that era; launch flags "
                "('vllm --max-num-seqs 512 --gpu-memory-utilization 0.95') run it as started"
            ),
        ] = None,
        batch: Annotated[
            str | None,
            typer.Option(
                help=f"Concurrent sequences, 1..{MAX_CONCURRENCY} (requests in flight, as --concurrency), or "
                "'max' (as many as fit)"
            ),
        ] = None,
        concurrency: Annotated[
            int | None,
            typer.Option(
                "--concurrency",
                "--users",
                "-c",
                help="Requests in flight (closed loop; users)",
                min=1,
                max=MAX_CONCURRENCY,
            ),
        ] = None,
        request_rate: Annotated[
            float | None,
            typer.Option(
                "--request-rate",
                "--rps",
                help="Arrivals per second (open loop; --rps as in recommend); 'inf' = all at once",
                parser=number_in(positive_words(MAX_RATE)),  # inf too: the estimator checks the range
            ),
        ] = None,
        num_requests: Annotated[
            int | None,
            typer.Option(
                "--num-requests",
                help="Requests in the run, with --concurrency, --request-rate ('inf': a burst, all at "
                "once) or --batch",
                min=1,
                max=MAX_CONCURRENCY,
            ),
        ] = None,
        context_in: Annotated[
            int,
            typer.Option(
                "--context-in",
                "--prompt",
                help=f"Prompt tokens (--prompt as in recommend; {TOKENS_HELP})",
                parser=parse_tokens,
            ),
        ] = 512,
        context_out: Annotated[
            int,
            typer.Option(
                "--context-out",
                "--output",
                help=f"Generated tokens (--output as in recommend; {TOKENS_HELP})",
                parser=parse_tokens,
            ),
        ] = 512,
        kv_dtype: Annotated[str | None, typer.Option("--kv-dtype", help=KV_DTYPE_HELP)] = None,
        parallel: Annotated[str | None, typer.Option(help=PARALLEL_HELP)] = None,
        config: Annotated[Path | None, typer.Option(help="Local Hugging Face config.json")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output")] = False,
    ) -> None:
        """Will it fit, can the engine run it, and how fast at that load: TTFT, TPOT, tokens/s, requests/s."""
        from gpuscout.estimate.api import estimate
        from gpuscout.estimate.engines import run_engine

        with user_errors(), _named_by_options(ctx):
            spec, implied = _model_detail(model, config)
            precision = _stated_precision(precision) or implied or None
            eng = run_engine(_stated_engine(engine), precision)
            est = estimate(
                spec,
                gpu,
                gpus=gpus,
                precision=precision,
                engine=eng,
                batch=_batch(batch, MAX_CONCURRENCY) if batch is not None else None,
                concurrency=concurrency,
                request_rate=request_rate,
                num_requests=num_requests,
                context_in=context_in,
                context_out=context_out,
                kv_dtype=kv_dtype,
                parallel=parallel,  # None: the engine's own split; blank: an error naming it (parallel_mode)
            )
        if as_json:
            print_json(finite(to_jsonable(est)))
            return
        # the spec the estimate sized (an imported model, or --config's) labels it: the curated table
        # alone does not know those
        _print_estimate(est, None if config is not None else model, spec)

    @app.command(cls=_KeepsWhatWasTyped)
    def diagnose(
        ctx: typer.Context,
        model: Annotated[str, typer.Argument(help="Model name, alias or HF id")],
        gpu: Annotated[str, typer.Option(help="GPU name")],
        measured_tps: Annotated[
            float,
            typer.Option(
                "--measured-tps",
                help="Measured decode tokens/s per sequence",
                parser=number_in(MEASURED_TPS_ACCEPTED),  # the range: diagnose's own check
            ),
        ],
        precision: Annotated[
            str | None,
            typer.Option(help="Weight format (default: the checkpoint's own format, as estimate takes it)"),
        ] = None,
        batch: Annotated[
            int,
            typer.Option(
                help="Concurrent sequences during the measurement (all in one engine's step)",
                min=1,
                max=MAX_BATCH,
            ),
        ] = 1,
        engine: Annotated[
            str | None, typer.Option(help="Engine used (default: llama.cpp for GGUF, else vllm)")
        ] = None,
        gpus: Annotated[int, typer.Option(help="Number of GPUs", min=1, max=MAX_GPUS)] = 1,
        context: Annotated[
            int,
            typer.Option(
                help=f"Tokens in context during the measurement ({TOKENS_HELP})", parser=parse_tokens
            ),
        ] = 1024,
        as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output")] = False,
    ) -> None:
        """Is a measured generation speed memory- or compute-bound, and what would make it faster?"""
        from gpuscout.estimate.diagnose import ABOVE_ROOFLINE
        from gpuscout.estimate.diagnose import diagnose as run_diagnose

        with user_errors(), _named_by_options(ctx):
            spec, implied = _model_detail(model, None)
            # the engine passes through as typed: resolving it here would pick one before the
            # checkpoint's own format is known (diagnose resolves both, as estimate does)
            d = run_diagnose(
                spec,
                gpu,
                measured_tps=measured_tps,
                precision=_stated_precision(precision) or implied or None,
                batch=batch,
                engine=engine,
                gpus=gpus,
                context=context,
                typed=model,  # the label: "deepseek-r1 (as deepseek-v3)", as vram and estimate say it
            )
        if as_json:
            print_json(d)
            return
        from gpuscout.cli.table_fit import title_lines

        title = plain(
            f"{d.label} on {d.gpus} x {d.gpu}: {d.precision}, {d.engine}, "
            f"{measured_tps:g} tokens/s per sequence at batch {batch}"
        )
        table = Table(title=title_lines(title, console.width))
        table.add_column("quantity")
        table.add_column("value", justify="right")
        above = d.bound == ABOVE_ROOFLINE  # more than the datasheet: what it would take, never reached
        # "overhead" in words, as the verdict and estimate's decode step name it
        bound = (
            "[red]above the roofline: not possible[/]"
            if above
            else plain(FIXED_COSTS_WHAT if d.bound == "overhead" else d.bound)
        )
        if not d.fits:  # part of the model sat in host memory: the verdict says what that means
            bound = f"[red]does not fit[/]: {bound}" if above else "[red]does not fit[/]: host offload"
        table.add_row("bound", bound)
        table.add_row("bytes read per token step", f"{d.bytes_per_step / 1e9:,.2f} GB")
        if d.fits or above:  # with part of the model in host memory, the GPU did not read it all
            table.add_row(
                "memory bandwidth it would take" if above else "achieved memory bandwidth",
                f"{d.achieved_bandwidth_gbps:,.0f} GB/s "
                f"({d.bandwidth_fraction:.0%} of {d.peak_bandwidth_gbps:,.0f})",
            )
            table.add_row(
                "compute it would take" if above else "achieved compute",
                f"{d.achieved_tflops:,.1f} TFLOPS ({d.compute_fraction:.1%} of {d.peak_tflops:,.0f})",
            )
        table.add_row(
            "roofline ceiling (ideal)" if d.fits else "roofline, were it all on the GPU",
            f"{d.roofline_tps:,.1f} tokens/s",
        )
        if d.fits and d.expected_tps is not None:
            table.add_row("gpuscout estimate", f"{d.expected_tps:,.1f} tokens/s")
        elif d.fits:  # the engine does not run this here: estimate gives no speed either
            table.add_row("gpuscout estimate", "none: not runnable as given")
        else:  # no estimate for a setup that does not load, as estimate says it
            table.add_row("host-held share over PCIe", f"at most {d.pcie_ceiling_tps:,.2f} tokens/s")
            table.add_row("gpuscout estimate", "none: does not fit")
        console.print(table)
        console.print(plain(d.verdict))
        for s in d.suggestions:  # a bullet's lines under its text, not at the left edge
            print_wrapped(console, printable(s), prefix=" • ")


def _ms(value: float) -> str:
    """A latency of the estimate's table (:func:`~gpuscout.wording.ms_text`: seconds and minutes once it
    is long); an infinite one is a queue that grows."""
    from gpuscout.wording import ms_text

    return ms_text(value) if math.isfinite(value) else "unbounded (queue grows)"


def _model_label(typed: str, spec: ModelSpec) -> str:
    """The model as the user named it (``label_as_typed``); ``spec``: the entry the name resolved to,
    through the user's registry (imported models too)."""
    from gpuscout.knowledge.models import label_as_typed

    return label_as_typed(spec, typed)


def _kv_share(est: Estimate) -> str:
    """Whose KV cache the "memory per GPU" figure is on a split: a layer split's GPUs hold unequal shares
    (the figure is the fullest GPU's), a tensor split's hold equal ones; "" on one GPU or replicas."""
    if est.gpus <= 1 or est.parallel == "replicas":
        return ""
    return " on the fullest GPU" if est.parallel == "layer" else " per GPU"


def _kv_per_token(est: Estimate, spec: ModelSpec | None) -> str:
    """The KV cache per token as the estimate holds it: "72.0 KiB/token", or where sliding-window layers
    keep fewer tokens than the sequence holds (Gemma 2/3, gpt-oss), the bytes each of its tokens takes
    on average with the window's cap ("36.1 KiB/token at 32,868 tokens: 18 of 36 layers keep the last
    128"), so that the figure times the tokens held is the cache shown beside it."""
    full = est.memory.kv_bytes_per_token  # every layer keeping every token
    whole = " for the whole model" if est.gpus > 1 and est.parallel != "replicas" else ""
    tokens = est.context_in + est.context_out
    if spec is None or tokens <= 0:
        return f"{full / 1024:,.1f} KiB/token{whole}"
    from gpuscout.estimate.kv_cache import cached_tokens, kv_bytes_per_token_at, kv_shape
    from gpuscout.estimate.precision import resolve_kv_dtype

    shape = kv_shape(spec)
    windows = est.memory.kv_layer_windows
    _, slide_tok = cached_tokens(spec, tokens, layer_windows=windows)
    if not shape.sliding_layers or slide_tok >= tokens or not shape.layers:
        return f"{full / 1024:,.1f} KiB/token{whole}"
    held = kv_bytes_per_token_at(spec, resolve_kv_dtype(est.kv_dtype), tokens, layer_windows=windows)
    at = f"at {tokens:,} tokens: {shape.sliding_layers} of {shape.layers} layers keep the last"
    return f"{held / 1024:,.1f} KiB/token{whole + ',' if whole else ''} {at} {shape.window:,}"


def _print_estimate(est: Estimate, typed_model: str | None = None, spec: ModelSpec | None = None) -> None:
    """The estimate as a person reads it; memory in GiB, as GPU memory is sold (an "80 GB" card holds
    80 GiB), from the estimator's GB through :func:`~gpuscout.estimate.memory.gib`."""
    from rich.cells import cell_len

    from gpuscout.estimate.memory import gib

    model = est.model if typed_model is None or spec is None else _model_label(typed_model, spec)
    title = plain(
        f"{model} on {est.gpus} x {est.gpu}: {est.precision}, {est.engine}, "
        f"{est.context_in} in / {est.context_out} out"
    )
    if not est.supported:  # no table of one row: the title, the reason, what would run, the sources
        print_refusal(title, est.unsupported_reason, est.assumptions, est.warnings, escaped=True)
        return
    from gpuscout.cli.table_fit import title_lines

    if not est.fits:
        # no speed for a setup that cannot load: what it needs, and what would hold it
        console.print(f"[bold]{title_lines(title, console.width)}[/]")
        m = est.memory
        rest = m.activations_gb + m.overhead_gb
        console.print(
            f"[red]does not fit:[/] needs {gib(m.total_gb):,.1f} GiB per GPU (weights "
            f"{gib(m.weights_gb):,.1f}, KV cache {gib(m.kv_cache_gb):,.2f}, activations + overhead "
            f"{gib(rest):,.1f}), {gib(m.usable_gb):,.1f} GiB usable ({plain(est.binding_constraint)})"
        )
        console.print(f"would fit: {plain(est.assumptions.get('would_fit', ''))}")
        for w in est.warnings:
            if not w.startswith("does not fit"):
                console.print(f"[yellow]warning:[/] {plain(w)}")
        return
    table = Table(title=title)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    support = "yes" if est.support == "native" else f"yes, {est.support}"
    table.add_row("supported", f"[green]{support}[/]")
    table.add_row("fits", "[green]yes[/]")
    m = est.memory
    table.add_row("memory per GPU", f"{gib(m.total_gb):,.2f} of {gib(m.usable_gb):,.2f} GiB usable")
    table.add_row("  weights", f"{gib(m.weights_gb):,.2f} GiB")
    table.add_row("  KV cache", f"{gib(m.kv_cache_gb):,.2f} GiB{_kv_share(est)} ({_kv_per_token(est, spec)})")
    table.add_row("  activations + overhead", f"{gib(m.activations_gb + m.overhead_gb):,.2f} GiB")
    holds = f"{est.max_batch:,}"  # at whole length; the engine may run fewer, or more: "load"
    if est.max_running > est.max_batch:
        holds += f" at full length; {est.max_running:,} staggered (the cache grows as they generate)"
    table.add_row("sequences memory holds", holds)
    load = f"{est.concurrency:,.0f} in flight" if est.request_rate is None else f"{est.request_rate:g} req/s"
    running = f"{est.batch:,} running"
    if est.replicas > 1:
        # whole requests dealt out: "9 in flight" on 8 replicas runs 2 on the busiest, 1 on the others
        even = est.request_rate is not None or abs(est.batch * est.replicas - est.concurrency) < 0.5
        running += f" x {est.replicas} replicas" if even else f" on the busiest of {est.replicas} replicas"
    table.add_row("load", f"{load}, {running}")
    no_prompt = " (no prompt)" if est.context_in == 0 else ""  # a decode-only run: nothing to prefill
    table.add_row("time to first token", _ms(est.ttft_ms) + no_prompt)
    if est.context_out == 0:  # a prompt-only run: no output to time (the warnings say so)
        for row in ("time per output token", "per sequence", "output, all sequences"):
            table.add_row(row, "— (no output)")
    else:
        table.add_row("time per output token", _ms(est.tpot_ms))
        table.add_row("per sequence", f"{est.decode_tokens_per_s:,.1f} tokens/s")
        table.add_row("output, all sequences", f"{est.output_tokens_per_s_total:,.0f} tokens/s")
    table.add_row("requests", f"{est.requests_per_s:,.3g} /s")
    table.add_row(
        "prefill (one prompt)", f"—{no_prompt}" if no_prompt else f"{est.prefill_tokens_per_s:,.0f} tokens/s"
    )
    table.add_row("binding limit", binding_words(est.binding_limit, est.parallel))  # --json: the value
    if est.step_ms:
        table.add_row("decode step (parts overlap)", est.step_summary())
    # Rich wraps a title between any words ("512 in / 512" / "out"): broken at its phrases instead, at the
    # table's width, or the terminal's with the table as wide where a phrase is wider than the table
    room = min(console.measure(table).maximum, console.width)
    lines = title_lines(title, room)
    widest = max(cell_len(line) for line in lines.split("\n"))
    if widest > room:
        lines = title_lines(title, console.width)
        table.min_width = min(max(cell_len(line) for line in lines.split("\n")), console.width)
    table.title = lines
    console.print(table)
    from gpuscout.cli.wrap import print_url_notes, url_notes

    assumptions = Table(title="Assumptions", show_header=False)
    assumptions.add_column("key")
    assumptions.add_column("value", overflow="fold")
    urls: list[str] = []  # the rules' sources, each whole below the table: a cell would fold them
    for k, v in est.assumptions.items():
        assumptions.add_row(plain(key_words(k)), plain(url_notes(v, urls)))  # --json: the keys
    console.print(assumptions)
    print_url_notes(console, urls)
    for w in est.warnings:
        console.print(f"[yellow]warning:[/] {plain(w)}")
