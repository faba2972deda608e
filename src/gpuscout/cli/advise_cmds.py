"""Advisor commands: ``gpuscout recommend (serve|batch|finetune|pretrain) MODEL`` and ``gpuscout faq``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuscout.cli.output import (
    CsvOption,
    DbOption,
    JsonOption,
    number,
    plain,
    print_json,
    printable,
    user_errors,
    wide_console,
)
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
                 parser=number(0, 3600)),
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
    from gpuscout.cli import advise_output

    if json_out and csv_out:
        raise InvalidInputError("--json/--csv", "give one of them, not both")

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
            advise_output.explain(workload, ranked[explain - 1])
        return
    shown = ranked[:top] + [r for r in recs if r.rank is None]
    if json_out:
        print_json({"workload": workload.to_dict(), "objective": objective, "recommendations": shown})
    elif csv_out:
        advise_output.write_csv(shown)
    else:
        advise_output.table(workload, shown, objective)


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
        from rich.text import Text

        out = wide_console()
        out.print(Text.assemble((printable(answers.model), "bold"), ": ", printable(answers.summary)))
        for a in answers.answers:
            out.print(Text.assemble("\n", (printable(a.question), "bold cyan")))
            out.print(plain(a.answer), highlight=False)
            for line in a.details:
                out.print(f"  • {plain(line)}", highlight=False)
