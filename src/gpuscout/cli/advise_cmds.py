"""Advisor commands: ``gpuscout recommend (serve|batch|finetune|pretrain) MODEL`` and ``gpuscout faq``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from gpuscout.cli.output import CsvOption, DbOption, JsonOption, print_json, user_errors, wide_console
from gpuscout.errors import InvalidInputError

WorkloadOption = Annotated[
    Path | None, typer.Option("--workload", "-w", help="Workload YAML/JSON file; options given override it.")
]
TopOption = Annotated[int, typer.Option("--top", "-n", help="Rows to show.", min=1)]
ObjectiveOption = Annotated[
    str, typer.Option("--objective", "-o", help="Rank by: cost | time | latency | balanced.")
]
ExplainOption = Annotated[
    int | None, typer.Option("--explain", "-x", help="Show the full breakdown of row N.", min=1)
]
RejectedOption = Annotated[bool, typer.Option("--rejected", help="Also list offers filtered out, and why.")]
ProviderOption = Annotated[
    list[str] | None, typer.Option("--provider", help="Only these providers (repeatable).")
]
RegionOption = Annotated[
    list[str] | None, typer.Option("--region", help="Only regions containing this text (repeatable).")
]
BudgetOption = Annotated[float | None, typer.Option("--budget", help="Budget cap in USD (serve: per month).")]
SpotOption = Annotated[
    bool | None, typer.Option("--spot/--no-spot", help="Allow spot / interruptible capacity.")
]
EgressOption = Annotated[float | None, typer.Option("--egress-gb", help="GB moved out (serve: per month).")]
DatasetOption = Annotated[float | None, typer.Option("--dataset-gb", help="Dataset GB to download.")]
RetentionOption = Annotated[
    float | None, typer.Option("--retention-days", help="Days data stays stored after the job.")
]
ReclaimOption = Annotated[
    float | None,
    typer.Option("--spot-reclaims-per-hour", help="Override the assumed spot reclaim rate (all providers).",
                 min=0.0),
]
PrecisionOption = Annotated[str | None, typer.Option("--precision", help="bf16, fp8, int4, q4_k_m...")]
EngineOption = Annotated[
    str | None, typer.Option("--engine", help="vllm, sglang, tensorrt-llm, llama.cpp...")
]
# Options two subcommands share (serve + batch; finetune + pretrain).
PromptOption = Annotated[int | None, typer.Option("--prompt", help="Prompt tokens per request.")]
OutputOption = Annotated[int | None, typer.Option("--output", help="Output tokens per request.")]
SeqLenOption = Annotated[int | None, typer.Option("--seq-len")]
MicroBatchOption = Annotated[int | None, typer.Option("--micro-batch")]
CheckpointGbOption = Annotated[float | None, typer.Option("--checkpoint-gb")]
CheckpointMinOption = Annotated[
    float | None, typer.Option("--checkpoint-min", help="Minutes between checkpoints.")
]

recommend_app = typer.Typer(
    help="Rank GPU offers by what YOUR workload really costs, with reasons on every row.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add ``recommend`` (a command group) and ``faq`` to ``app``."""
    app.add_typer(recommend_app, name="recommend")
    app.command("faq")(faq_cmd)


# ---- building the workload ---------------------------------------------------------------------
def _workload(kind: str, model: str | None, path: Path | None, options: dict[str, Any]) -> Any:
    from gpuscout.advise.workload import Workload
    from gpuscout.loaders import workload_from_file

    data: dict[str, Any] = {}
    if path is not None:
        data = workload_from_file(path).to_dict()
        if data.get("kind") != kind:
            raise InvalidInputError(
                "--workload",
                f"the file holds a {data.get('kind')!r} workload, not {kind!r}",
                f"a {kind} workload file",
            )
    data.update({k: v for k, v in options.items() if v is not None})
    if model is not None:
        data["model"] = model
    if "model" not in data:
        raise InvalidInputError("MODEL", "missing", "a model name (see `gpuscout models`) or --workload FILE")
    data["kind"] = kind
    return Workload.from_dict(data)


def _run(
    workload: Any,
    *,
    top: int,
    objective: str,
    json_out: bool,
    csv_out: bool,
    explain: int | None,
    rejected: bool,
    db: str | None,
    reclaims: float | None = None,
) -> None:
    from gpuscout import recommend
    from gpuscout.advise.assumptions import Assumptions

    assumptions = None
    if reclaims is not None:
        kinds = Assumptions().interruptions_per_hour
        assumptions = Assumptions(interruptions_per_hour=dict.fromkeys(kinds, reclaims),
                                  unknown_kind_interruptions_per_hour=reclaims)
    recs = recommend(
        workload, objective=objective, top=max(top, explain or 0), include_rejected=rejected, db=db,
        assumptions=assumptions,
    )
    ranked = [r for r in recs if r.rank is not None]
    if explain is not None:
        if explain > len(ranked):
            raise InvalidInputError(
                "--explain",
                f"row {explain} does not exist ({len(ranked)} rows)",
                f"1..{len(ranked)}" if ranked else "no rows to explain",
            )
        if json_out:
            print_json(ranked[explain - 1])
        else:
            _explain(workload, ranked[explain - 1])
        return
    shown = ranked[:top] + [r for r in recs if r.rank is None]
    if json_out:
        print_json({"workload": workload.to_dict(), "objective": objective, "recommendations": shown})
    elif csv_out:
        _csv(shown)
    else:
        _table(workload, shown, objective)


# ---- rendering ---------------------------------------------------------------------------------
def _speed(rec: Any) -> str:
    s = rec.estimate
    if s is None:
        return "-"
    if s.throughput_unit == "tok/s" and s.per_user_tokens_per_s is not None and rec.config.gpus_used:
        return f"{s.per_user_tokens_per_s:.0f} tok/s/user, {s.throughput:,.0f} tok/s"
    return (
        f"{s.throughput:,.2f} {s.throughput_unit}"
        if s.throughput < 10
        else f"{s.throughput:,.0f} {s.throughput_unit}"
    )


def _unit(rec: Any) -> str:
    u = rec.unit_costs
    if u is None:
        return "-"
    if u.per_million_output_tokens is not None:
        return f"${u.per_million_output_tokens:.3g}/M tok"
    if u.per_image is not None:
        return f"${u.per_image * 1000:.3g}/1k img"
    if u.per_million_train_tokens is not None:
        return f"${u.per_million_train_tokens:.3g}/M train tok"
    return "-"


def _total(rec: Any, workload: Any) -> str:
    if rec.cost is None:
        return "-"
    suffix = "/month" if workload.kind == "serve" else ""
    return f"${rec.cost.total:,.2f}{suffix}" if rec.cost.total < 100 else f"${rec.cost.total:,.0f}{suffix}"


def _table(workload: Any, recs: list[Any], objective: str) -> None:
    out = wide_console()
    title = f"{workload.kind} {workload.model}: ranked by {objective}"
    table = Table(title=title, show_lines=False)
    for col, kw in (
        ("#", {"justify": "right"}),
        ("offer", {}),
        ("config", {}),
        ("fits", {}),
        ("speed", {"justify": "right"}),
        ("cost/unit", {"justify": "right"}),
        ("total", {"justify": "right"}),
        ("top reason", {"overflow": "fold"}),
    ):
        table.add_column(col, **kw)  # type: ignore[arg-type]
    for rec in recs:
        o = rec.offer
        offer = f"{o.provider} {o.instance_type} ({o.region}) ${rec.price_usd_per_hour:,.2f}/h"
        warn = f" [yellow]⚠{len(rec.warnings)}[/]" if rec.warnings else ""
        table.add_row(
            str(rec.rank) if rec.rank is not None else "-",
            offer,
            rec.config.describe(o.accelerator),
            "yes" if rec.fits else "no",
            _speed(rec),
            _unit(rec),
            _total(rec, workload),
            rec.top_reason + warn,
        )
    out.print(table)
    if not recs:
        out.print("[yellow]No offer fits this workload with these constraints; try --rejected.[/]")
    else:
        out.print(
            "Details of a row: add --explain N. Prices: bundled snapshot unless refreshed "
            "(`gpuscout refresh`)."
        )


def _explain(workload: Any, rec: Any) -> None:
    out = wide_console()
    o = rec.offer
    out.print(
        f"[bold]#{rec.rank} {o.provider} {o.instance_type}[/] ({o.region}) — "
        f"{o.gpu_count}x {o.accelerator}, ${rec.price_usd_per_hour:,.4g}/h "
        f"{'spot' if rec.config.spot else 'on-demand'}"
    )
    out.print(f"source: {o.source}")
    c = rec.config
    out.print(
        f"config: {c.instances} instance(s) x {c.gpus_per_instance} GPU, TP{c.tp}, "
        f"{c.replicas_per_instance} replica(s)/instance, {c.gpus_used} GPUs, {c.nodes} node(s)"
    )
    s = rec.estimate
    if s is not None:
        rows = Table(title="estimate", show_header=False)
        rows.add_column("what")
        rows.add_column("value", justify="right")
        rows.add_row("throughput", f"{s.throughput:,.2f} {s.throughput_unit}")
        if s.per_user_tokens_per_s is not None:
            rows.add_row("per user", f"{s.per_user_tokens_per_s:,.1f} tok/s")
        if s.ttft_ms is not None:
            rows.add_row("TTFT", f"{s.ttft_ms:,.0f} ms")
        if s.tpot_ms is not None:
            rows.add_row("time per output token", f"{s.tpot_ms:,.1f} ms")
        rows.add_row("memory per GPU", f"{s.memory_per_gpu_gb:,.1f} of {s.memory_capacity_gb:,.0f} GB")
        rows.add_row("weights / KV per GPU", f"{s.weights_gb:,.1f} / {s.kv_cache_gb:,.1f} GB")
        if s.batch_per_replica is not None:
            rows.add_row("users per replica (max)", f"{s.batch_per_replica} ({s.max_batch_per_replica})")
        if rec.time_s is not None:
            label = "active per day" if workload.kind == "serve" else "duration"
            from gpuscout.advise.reasons import duration

            rows.add_row(label, duration(rec.time_s))
        out.print(rows)
    if rec.cost is not None:
        cost = Table(title="cost (USD" + (", per month)" if workload.kind == "serve" else ", per run)"))
        cost.add_column("item")
        cost.add_column("USD", justify="right")
        for name in ("compute", "warmup", "storage", "egress", "interruption"):
            cost.add_row(name, f"{getattr(rec.cost, name):,.2f}")
        cost.add_row("[bold]total[/]", f"[bold]{rec.cost.total:,.2f}[/]")
        u = rec.unit_costs
        if u is not None:
            for label, val in (
                ("per M output tokens", u.per_million_output_tokens),
                ("per image", u.per_image),
                ("per M train tokens", u.per_million_train_tokens),
            ):
                if val is not None:
                    cost.add_row(label, f"{val:,.4g}")
        out.print(cost)
    out.print("[bold]reasons[/]")
    for r in rec.reasons:
        out.print(f"  • {r}", highlight=False)
    if rec.warnings:
        out.print("[bold yellow]warnings[/]")
        for w in rec.warnings:
            out.print(f"  ⚠ {w}", highlight=False)
    out.print("[bold]assumptions[/]")
    for k, v in rec.assumptions.items():
        out.print(f"  {k}: {v}", highlight=False)


#: The ranking's own columns of ``recommend --csv``, after the rank and the offer's fields.
_REC_COLUMNS = (
    "spot",
    "instances",
    "tp",
    "replicas_per_instance",
    "fits",
    "throughput",
    "throughput_unit",
    "usd_per_hour",
    "compute",
    "warmup",
    "storage",
    "egress",
    "interruption",
    "total",
    "usd_per_m_output_tokens",
    "usd_per_image",
    "time_s",
    "top_reason",
    "warnings",
    "rejected",
)


def _rec_record(r: Any) -> dict[str, Any]:
    c, s, cost, u = r.config, r.estimate, r.cost, r.unit_costs
    costs = ("compute", "warmup", "storage", "egress", "interruption")
    return {
        "spot": c.spot,
        "instances": c.instances,
        "tp": c.tp,
        "replicas_per_instance": c.replicas_per_instance,
        "fits": r.fits,
        "throughput": s.throughput if s else None,
        "throughput_unit": s.throughput_unit if s else None,
        "usd_per_hour": r.price_usd_per_hour,
        **{name: getattr(cost, name) if cost else None for name in costs},
        "total": cost.total if cost else None,
        "usd_per_m_output_tokens": u.per_million_output_tokens if u else None,
        "usd_per_image": u.per_image if u else None,
        "time_s": r.time_s,
        "top_reason": r.top_reason,
        "warnings": list(r.warnings),
        "rejected": r.rejected,
    }


def _csv(recs: list[Any]) -> None:
    """The rank, every shown Offer field (derived from the dataclass), then the ranking's columns."""
    from gpuscout.catalog.offer_fields import RECORD_COLUMNS, offer_record, write_csv

    columns = ("rank", *RECORD_COLUMNS, *_REC_COLUMNS)
    records = ({"rank": r.rank, **offer_record(r.offer), **_rec_record(r)} for r in recs)
    write_csv(sys.stdout, columns, records)


# ---- commands ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Shared:
    """The options every ``recommend`` subcommand takes after its own (each command lists them)."""

    workload_file: Path | None
    provider: list[str] | None
    region: list[str] | None
    budget: float | None
    spot: bool | None
    egress_gb: float | None
    dataset_gb: float | None
    retention_days: float | None
    top: int
    objective: str
    json_out: bool
    csv_out: bool
    explain: int | None
    rejected: bool
    spot_reclaims: float | None
    db: str | None


def _recommend(kind: str, model: str | None, fields: dict[str, Any], shared: Shared) -> None:
    """Build the workload from the file, the command's own fields and the shared options; rank; print."""
    with user_errors():
        options = {
            **fields,
            "providers": tuple(shared.provider) if shared.provider else None,
            "regions": tuple(shared.region) if shared.region else None,
            "budget_usd": shared.budget,
            "spot_allowed": shared.spot,
            "egress_gb": shared.egress_gb,
            "dataset_gb": shared.dataset_gb,
            "storage_retention_days": shared.retention_days,
        }
        workload = _workload(kind, model, shared.workload_file, options)
        _run(
            workload,
            top=shared.top,
            objective=shared.objective,
            json_out=shared.json_out,
            csv_out=shared.csv_out,
            explain=shared.explain,
            rejected=shared.rejected,
            db=shared.db,
            reclaims=shared.spot_reclaims,
        )


@recommend_app.command("serve")
def serve_cmd(
    model: Annotated[str | None, typer.Argument(help="Model name, e.g. llama-3.1-8b.")] = None,
    precision: PrecisionOption = None,
    engine: EngineOption = None,
    prompt: PromptOption = None,
    output: OutputOption = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", "-c", help="Simultaneous requests.")
    ] = None,
    rps: Annotated[float | None, typer.Option("--rps", help="Requests per second (instead of -c).")] = None,
    ttft_ms: Annotated[float | None, typer.Option("--ttft-ms", help="Max time to first token, ms.")] = None,
    tpot_ms: Annotated[
        float | None, typer.Option("--tpot-ms", help="Max ms per output token per user.")
    ] = None,
    hours_per_day: Annotated[float | None, typer.Option("--hours-per-day", help="Hours up per day.")] = None,
    bursts: Annotated[
        int | None, typer.Option("--bursts", help="Bursts per day (with --burst-minutes).")
    ] = None,
    burst_minutes: Annotated[float | None, typer.Option("--burst-minutes", help="Minutes per burst.")] = None,
    monthly_tokens: Annotated[
        float | None, typer.Option("--monthly-tokens", help="Output tokens served per month.")
    ] = None,
    workload_file: WorkloadOption = None,
    provider: ProviderOption = None,
    region: RegionOption = None,
    budget: BudgetOption = None,
    spot: SpotOption = None,
    egress_gb: EgressOption = None,
    retention_days: RetentionOption = None,
    top: TopOption = 10,
    objective: ObjectiveOption = "cost",
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    explain: ExplainOption = None,
    rejected: RejectedOption = False,
    spot_reclaims: ReclaimOption = None,
    db: DbOption = None,
) -> None:
    """An endpoint: concurrency or requests/s, latency targets, hours/day or bursts. Cost per month."""
    fields = {
        "precision": precision,
        "engine": engine,
        "prompt_tokens": prompt,
        "output_tokens": output,
        "concurrency": concurrency,
        "requests_per_s": rps,
        "ttft_ms_max": ttft_ms,
        "tpot_ms_max": tpot_ms,
        "hours_per_day": hours_per_day,
        "bursts_per_day": bursts,
        "burst_minutes": burst_minutes,
        "monthly_output_tokens": monthly_tokens,
    }
    shared = Shared(workload_file, provider, region, budget, spot, egress_gb, None, retention_days, top,
                    objective, json_out, csv_out, explain, rejected, spot_reclaims, db)
    _recommend("serve", model, fields, shared)


@recommend_app.command("batch")
def batch_cmd(
    model: Annotated[str | None, typer.Argument(help="Model name (LLM or diffusion).")] = None,
    precision: PrecisionOption = None,
    engine: EngineOption = None,
    output_total: Annotated[
        float | None, typer.Option("--output-total", help="Output tokens to generate in total.")
    ] = None,
    input_total: Annotated[
        float | None, typer.Option("--input-total", help="Input tokens in total (default: from shape).")
    ] = None,
    prompt: PromptOption = None,
    output: OutputOption = None,
    images: Annotated[int | None, typer.Option("--images", help="Images to generate (diffusion).")] = None,
    width: Annotated[int | None, typer.Option("--width")] = None,
    height: Annotated[int | None, typer.Option("--height")] = None,
    steps: Annotated[int | None, typer.Option("--steps", help="Diffusion steps.")] = None,
    deadline_hours: Annotated[float | None, typer.Option("--deadline-hours", help="Finish within.")] = None,
    interruptible: Annotated[
        bool | None, typer.Option("--interruptible/--not-interruptible", help="Work can resume.")
    ] = None,
    workload_file: WorkloadOption = None,
    provider: ProviderOption = None,
    region: RegionOption = None,
    budget: BudgetOption = None,
    spot: SpotOption = None,
    egress_gb: EgressOption = None,
    dataset_gb: DatasetOption = None,
    retention_days: RetentionOption = None,
    top: TopOption = 10,
    objective: ObjectiveOption = "cost",
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    explain: ExplainOption = None,
    rejected: RejectedOption = False,
    spot_reclaims: ReclaimOption = None,
    db: DbOption = None,
) -> None:
    """Offline generation of a token total (LLM) or an image total (diffusion). Cost per run."""
    fields = {
        "precision": precision,
        "engine": engine,
        "output_tokens_total": output_total,
        "input_tokens_total": input_total,
        "prompt_tokens": prompt,
        "output_tokens": output,
        "images_total": images,
        "width": width,
        "height": height,
        "steps": steps,
        "deadline_hours": deadline_hours,
        "interruptible": interruptible,
    }
    shared = Shared(workload_file, provider, region, budget, spot, egress_gb, dataset_gb, retention_days, top,
                    objective, json_out, csv_out, explain, rejected, spot_reclaims, db)
    _recommend("batch", model, fields, shared)


@recommend_app.command("finetune")
def finetune_cmd(
    model: Annotated[str | None, typer.Argument(help="Base model name.")] = None,
    method: Annotated[str | None, typer.Option("--method", help="lora | qlora | full.")] = None,
    dataset_tokens: Annotated[
        float | None, typer.Option("--dataset-tokens", help="Tokens per epoch.")
    ] = None,
    epochs: Annotated[float | None, typer.Option("--epochs")] = None,
    seq_len: SeqLenOption = None,
    micro_batch: MicroBatchOption = None,
    checkpoint_gb: CheckpointGbOption = None,
    checkpoint_min: CheckpointMinOption = None,
    workload_file: WorkloadOption = None,
    provider: ProviderOption = None,
    region: RegionOption = None,
    budget: BudgetOption = None,
    spot: SpotOption = None,
    egress_gb: EgressOption = None,
    dataset_gb: DatasetOption = None,
    retention_days: RetentionOption = None,
    top: TopOption = 10,
    objective: ObjectiveOption = "cost",
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    explain: ExplainOption = None,
    rejected: RejectedOption = False,
    spot_reclaims: ReclaimOption = None,
    db: DbOption = None,
) -> None:
    """LoRA / QLoRA / full fine-tuning over a dataset. Cost per run."""
    fields = {
        "method": method,
        "dataset_tokens": dataset_tokens,
        "epochs": epochs,
        "seq_len": seq_len,
        "micro_batch": micro_batch,
        "checkpoint_gb": checkpoint_gb,
        "checkpoint_interval_min": checkpoint_min,
    }
    shared = Shared(workload_file, provider, region, budget, spot, egress_gb, dataset_gb, retention_days, top,
                    objective, json_out, csv_out, explain, rejected, spot_reclaims, db)
    _recommend("finetune", model, fields, shared)


@recommend_app.command("pretrain")
def pretrain_cmd(
    model: Annotated[str | None, typer.Argument(help="Model (architecture) name.")] = None,
    tokens: Annotated[float | None, typer.Option("--tokens", help="Token budget.")] = None,
    params_b: Annotated[
        float | None,
        typer.Option("--params-b", help="Size in billions; MODEL is then only a label (dense stand-in)."),
    ] = None,
    seq_len: SeqLenOption = None,
    micro_batch: MicroBatchOption = None,
    gpus: Annotated[int | None, typer.Option("--gpus", help="Target number of GPUs.")] = None,
    nodes: Annotated[int | None, typer.Option("--nodes", help="Target number of nodes (instances).")] = None,
    checkpoint_gb: CheckpointGbOption = None,
    checkpoint_min: CheckpointMinOption = None,
    workload_file: WorkloadOption = None,
    provider: ProviderOption = None,
    region: RegionOption = None,
    budget: BudgetOption = None,
    spot: SpotOption = None,
    egress_gb: EgressOption = None,
    dataset_gb: DatasetOption = None,
    retention_days: RetentionOption = None,
    top: TopOption = 10,
    objective: ObjectiveOption = "cost",
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    explain: ExplainOption = None,
    rejected: RejectedOption = False,
    spot_reclaims: ReclaimOption = None,
    db: DbOption = None,
) -> None:
    """Pre-training over a token budget on a target number of GPUs or nodes. Cost per run."""
    fields = {
        "token_budget": tokens,
        "params_b": params_b,
        "seq_len": seq_len,
        "micro_batch": micro_batch,
        "gpus": gpus,
        "nodes": nodes,
        "checkpoint_gb": checkpoint_gb,
        "checkpoint_interval_min": checkpoint_min,
    }
    shared = Shared(workload_file, provider, region, budget, spot, egress_gb, dataset_gb, retention_days, top,
                    objective, json_out, csv_out, explain, rejected, spot_reclaims, db)
    _recommend("pretrain", model, fields, shared)


def faq_cmd(
    model: Annotated[str, typer.Argument(help="Model name, e.g. llama-3.1-70b.")],
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """The four questions renters ask, answered with THIS model's numbers and the current catalog."""
    with user_errors():
        from gpuscout.advise.faq import faq
        from gpuscout.catalog.api import current_offers

        answers = faq(model, current_offers(db=db))
        if json_out:
            print_json(answers)
            return
        out = wide_console()
        out.print(f"[bold]{answers.model}[/]: {answers.summary}", highlight=False)
        for a in answers.answers:
            out.print(f"\n[bold cyan]{a.question}[/]", highlight=False)
            out.print(a.answer, highlight=False)
            for line in a.details:
                out.print(f"  • {line}", highlight=False)
