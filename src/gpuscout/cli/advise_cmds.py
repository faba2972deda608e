"""Advisor commands: ``gpuscout recommend (serve|batch|finetune|pretrain) MODEL`` and ``gpuscout faq``."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuscout.cli.coercion import COUNT_HELP, TOKENS_HELP, parse_count, parse_tokens
from gpuscout.cli.json_out import finite
from gpuscout.cli.output import (
    CsvOption,
    DbOption,
    JsonOption,
    number,
    print_json,
    printable,
    to_jsonable,
    user_errors,
    wide_console,
)
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.wording import REGION_HELP, plural

WorkloadOption = Annotated[
    Path | None, typer.Option("--workload", "-w", help="Workload YAML/JSON file; options given override it.")
]
TopOption = Annotated[
    int,
    typer.Option(
        "--top",
        "-n",
        help="Rows to show; when the front has more, the picks come first. A row keeps its number "
        "(#) whatever --top is: a pick past the others shows with its own, and the gap is marked.",
        min=1,
    ),
]
ObjectiveOption = Annotated[
    str,
    typer.Option(
        "--objective",
        "-o",
        help="Reading order of the answer: cost (the front cheapest first), time or latency (fastest "
        "first), balanced (by cost/cheapest x time/fastest). The Pareto front always comes first, then "
        "dominated rows.",
    ),
]
ExplainOption = Annotated[
    int | None,
    typer.Option(
        "--explain",
        "-x",
        help="Show the full breakdown of row N (the # of any run with these inputs).",
        min=1,
    ),
]
RejectedOption = Annotated[
    bool, typer.Option("--show-rejected", "--rejected", help="Also list the offers left out, and why.")
]
StaleOption = Annotated[
    bool,
    typer.Option(
        "--include-stale", help="Also rank stale offers and those of defunct providers (left out by default)."
    ),
]
GpuOption = Annotated[
    list[str] | None,
    typer.Option(
        "--gpu",
        help="Only these GPUs (repeatable); a family name like H100 covers its variants.",
        show_default="all",
    ),
]
ProviderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--provider",
        help="Only these providers (repeatable; ids or aliases, e.g. vastai, lambda).",
        show_default="all",
    ),
]
RegionOption = Annotated[
    list[str] | None,
    typer.Option(
        "--region",
        help="Only offers in these regions (repeatable, or comma-separated): " + REGION_HELP + ".",
        show_default="all",
    ),
]
BudgetOption = Annotated[
    float | None, typer.Option("--budget", help="Budget cap in USD (serve: per month).", show_default="none")
]
SpotOption = Annotated[
    bool | None,
    typer.Option(
        "--spot/--no-spot",
        help="Allow spot, auction and interruptible capacity (costed with its reclaims).",
        show_default="serve, pretrain: no; batch, finetune: yes",
    ),
]
EgressOption = Annotated[
    float | None, typer.Option("--egress-gb", help="GB moved out (serve: per month).", show_default="0")
]
DatasetOption = Annotated[
    float | None,
    typer.Option(
        "--dataset-gb",
        help="Dataset GB: fetched by each node; a batch's input is split between its instances, a "
        "pre-training corpus stored once and streamed.",
        show_default="0",
    ),
]
RetentionOption = Annotated[
    float | None,
    typer.Option("--retention-days", help="Days data stays stored after the job.", show_default="0"),
]
ReclaimOption = Annotated[
    float | None,
    typer.Option(
        "--spot-reclaims-per-hour",
        help="Override the assumed spot reclaim rate (all providers).",
        parser=number(0, 3600),
        show_default="by provider kind: 0.02-0.1 (docs/advisor.md)",
    ),
]
MissOption = Annotated[
    float | None,
    typer.Option(
        "--max-deadline-miss",
        help="Chance a spot row under --deadline may have of missing it with its reclaims (0.1 = 10 %); "
        "a riskier spot row is left out.",
        parser=number(0, 1, open_range=True),  # assumption_overrides.MAX_DEADLINE_MISS_RANGE
        show_default="0.1",
    ),
]
#: What --precision defaults to for inference: the checkpoint as published (models.csv native_precision).
NATIVE_PRECISION = "the model's native format"
PrecisionOption = Annotated[
    str | None,
    typer.Option(
        "--precision",
        help="bf16, fp8, mxfp4, int4, q4_k_m... The default is the checkpoint as "
        "published (bf16 for most, FP8 for DeepSeek-V3/R1, MXFP4 experts for gpt-oss). Where the "
        "default engine cannot run it on a GPU, the nearest combination the support rules allow is "
        "used and said on the row; with --engine and --precision both given, that GPU's offers are "
        "left out instead (--show-rejected says why).",
        show_default=NATIVE_PRECISION,
    ),
]
AUTO_ENGINE = "llama.cpp for GGUF, else vllm"
EngineOption = Annotated[
    str | None,
    typer.Option(
        "--engine",
        help="vllm, sglang, tensorrt-llm, llama.cpp...; a version or year ('vllm 0.6', 'llama.cpp 2024') "
        "costs that era; launch flags run it as started ('vllm --max-num-seqs 512'). Given, every row "
        "runs it, never another engine: an offer whose GPU it cannot run on (support rules) is left "
        "out (--show-rejected says why); without --precision it runs the nearest precision it has "
        "there (said on the row). Left to the default, another engine or precision is used where the "
        "default cannot run (said on the row).",
        show_default=AUTO_ENGINE,
    ),
]
DeadlineOption = Annotated[
    str | None,
    typer.Option(
        "--deadline",
        "--deadline-hours",
        help="Finish within: hours (24) or a duration (90m, 24h, 2d). Slower rows are left out; "
        "batch adds instances, training adds nodes (over a stated fabric) to make it.",
        show_default="none",
    ),
]
HeadroomOption = Annotated[
    float | None,
    typer.Option(
        "--min-headroom",
        help="Share of each GPU's memory a training layout must leave free (0.05 = 5 %); less is "
        "rejected as an out-of-memory risk.",
        parser=number(0, 0.5),
        show_default="0.05",
    ),
]
CheckpointWriteOption = Annotated[
    float | None,
    typer.Option(
        "--checkpoint-write-gbps",
        help="GB/s per node checkpoints are written at, and read back at after a spot reclaim (raise it "
        "for node-local NVMe or asynchronous saves).",
        parser=number(0.01, 1000),  # assumption_overrides.CHECKPOINT_WRITE_RANGE
        show_default="1 (a network volume)",
    ),
]
UnlistedRamOption = Annotated[
    float | None,
    typer.Option(
        "--unlisted-host-ram",
        help="Host RAM of an offer that lists none, as a multiple of its GPU memory: what a training "
        "layout may offload there (more rejects fewer marketplace boxes; set it for a box you know).",
        parser=number(0.25, 100),  # assumption_overrides.UNLISTED_HOST_RAM_RANGE
        show_default="2.15 (the median host that lists RAM)",
    ),
]
# Options two subcommands share (serve + batch; finetune + pretrain).
PromptOption = Annotated[
    int | None,
    typer.Option(
        "--prompt",
        help=f"Prompt tokens per request ({TOKENS_HELP}).",
        parser=parse_tokens,
        show_default="1024",
    ),
]
OutputOption = Annotated[
    int | None,
    typer.Option(
        "--output",
        help=f"Output tokens per request ({TOKENS_HELP}).",
        parser=parse_tokens,
        show_default="256",
    ),
]
AUTO_MICRO_BATCH = "the fastest that fits"
MicroBatchOption = Annotated[
    int | None,
    typer.Option(
        "--micro-batch",
        help="Sequences per GPU per step. Unset, each row takes the smallest of 1, 2, 4... past which "
        "doubling is no faster or does not fit (short sequences are launch-bound at 1).",
        show_default=AUTO_MICRO_BATCH,
    ),
]
#: What --precision defaults to for training (FinetuneWorkload / PretrainWorkload.precision).
TRAINING_PRECISION = "bf16"
#: ``--precision`` of each training command: what it accepts there.
TRAINING_PRECISION_HELP = {
    "finetune": "bf16, fp16, fp32, fp8 (FP8 tensor cores; a LoRA base stored in FP8) or int8 (a LoRA base). "
    "QLoRA keeps its base in NF4: this is its compute dtype (fp8 and int8 compute as bf16).",
    "pretrain": "bf16, fp16, fp32 or fp8 (FP8 tensor cores: Ada, Hopper, Blackwell).",
}


def _training_precision_option(kind: str) -> Any:
    return typer.Option("--precision", help=TRAINING_PRECISION_HELP[kind], show_default=TRAINING_PRECISION)


#: What --adapter-dtype defaults to (FinetuneWorkload.adapter_dtype).
ADAPTER_DTYPE = "16bit"
AdapterDtypeOption = Annotated[
    str | None,
    typer.Option(
        "--adapter-dtype",
        help="LoRA / QLoRA adapters: 16bit (in the compute dtype: torch autocast, torchtune, NeMo) or fp32 "
        "(Hugging Face PEFT's default without torch autocast: get_peft_model keeps the adapters in fp32 "
        "unless given autocast_adapter_dtype=False, and each adapted layer then works on an fp32 copy of "
        "its input: slower, more GPU memory). Not for --method full.",
        show_default=ADAPTER_DTYPE,
    ),
]

CheckpointGbOption = Annotated[
    float | None,
    typer.Option(
        "--checkpoint-gb", help="Checkpoint size.", show_default="estimated from the model and method"
    ),
]

#: What --global-batch is when not given (PretrainWorkload.global_batch_tokens None: estimate.pretrain_batch).
AUTO_GLOBAL_BATCH = "the compute-optimal batch"

#: What --checkpoint-min is when not given (the workloads' None: ``cost.checkpoint_interval_s``).
AUTO_CHECKPOINT = "each row's: Young's interval for its save time and interruption rate"

#: The workload defaults the help texts state (tests/cli/test_advise_cli.py checks them against the
#: workload types).
HELP_DEFAULTS = {
    "serve": {
        "--precision": NATIVE_PRECISION,
        "--engine": AUTO_ENGINE,
        "--prompt": "1024",
        "--output": "256",
        "--hours-per-day": "24",
        "--latency-targets": "chat",
    },
    "batch": {
        "--precision": NATIVE_PRECISION,
        "--engine": AUTO_ENGINE,
        "--prompt": "1024",
        "--output": "256",
        "--width": "1024",
        "--height": "1024",
    },
    "finetune": {
        "--precision": TRAINING_PRECISION,
        "--method": "lora",
        "--epochs": "1",
        "--seq-len": "2048",
        "--micro-batch": AUTO_MICRO_BATCH,
        "--checkpoint-min": AUTO_CHECKPOINT,
        "--max-nodes": "8",
    },
    "pretrain": {
        "--precision": TRAINING_PRECISION,
        "--seq-len": "4096",
        "--micro-batch": AUTO_MICRO_BATCH,
        "--global-batch": AUTO_GLOBAL_BATCH,
        "--checkpoint-min": AUTO_CHECKPOINT,
        "--max-nodes": "64",
    },
}


def _max_nodes_option(kind: str) -> Any:
    return typer.Option(
        "--max-nodes",
        help="Most nodes (instances) tried per offer: of the node counts that meet the deadline, the "
        "fastest whose cost (billed as the offer is billed) is within 5 % of the cheapest's.",
        show_default=HELP_DEFAULTS[kind]["--max-nodes"],
    )


FAQ_HELP = (
    "The questions renters ask, answered for THIS model at your context, load and GPU from the current "
    "catalog: how much VRAM, an 80 GiB HBM card or a 24 GiB consumer card, spot or on-demand, and why "
    "generation is slow."
)

recommend_app = typer.Typer(
    help="Rank GPU offers by what YOUR workload really costs against how long it takes. The answer is the "
    "Pareto front of cost and time (time to finish; serve: request latency) with three picks named -- "
    "cheapest (least cost on the front), fastest (the cheapest within 5 % of the front's best time), "
    "balanced (least cost/cheapest x time/fastest, at most 3x the best time of the right-sized rows, or "
    "within the latency an endpoint's stated targets allow) -- "
    "then dominated rows, each with its reasons. Offers that cannot run the workload, spot or auction "
    "capacity for a live endpoint, stale offers and defunct providers are left out (--show-rejected says "
    "why).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add ``recommend`` (a command group) and ``faq`` to ``app``."""
    app.add_typer(recommend_app, name="recommend")
    app.command("faq", help=FAQ_HELP)(faq_cmd)


# ---- building the workload ---------------------------------------------------------------------
#: Workload fields whose option is not named ``--`` + the field with dashes (errors name the option).
FIELD_FLAGS = {
    "prompt_tokens": "--prompt",
    "output_tokens": "--output",
    "requests_per_s": "--rps",
    "ttft_ms_max": "--ttft-ms",
    "tpot_ms_max": "--tpot-ms",
    "bursts_per_day": "--bursts",
    "monthly_output_tokens": "--monthly-tokens",
    "checkpoint_interval_min": "--checkpoint-min",
    "deadline_hours": "--deadline",
    "images_total": "--images",
    "input_tokens_total": "--input-total",
    "output_tokens_total": "--output-total",
    "token_budget": "--tokens",
    "global_batch_tokens": "--global-batch",
    "providers": "--provider",
    "accelerators": "--gpu",
    "regions": "--region",
    "budget_usd": "--budget",
    "spot_allowed": "--spot",
    "storage_retention_days": "--retention-days",
}


#: Errors that name one item of a list field ("provider" of ``providers``).
ERROR_FIELDS = {"provider": "providers", "region": "regions"}


#: The workload fields an error's text may name that read as this command's options without being
#: listed in its ``names``: only names with an underscore, which are never plain words.
_UNDERSCORED = tuple(f for f in FIELD_FLAGS if "_" in f)


def _flag(field: str) -> str:
    return FIELD_FLAGS.get(field, "--" + field.replace("_", "-"))


def _in_our_words(text: str, names: Collection[str] = ()) -> str:
    """``text`` with the workload's field names as this command's options ("prompt_tokens +
    output_tokens <= 1000" reads "--prompt + --output <= 1000"): those with an underscore, and the
    plain-word ones the error lists in its ``names`` ("width, height, steps" reads "--width, ...")."""
    fields = sorted({*_UNDERSCORED, *names}, key=len, reverse=True)
    pattern = re.compile(r"(?<![-\w])(" + "|".join(map(re.escape, fields)) + r")\b")
    return pattern.sub(lambda m: _flag(m.group(1)), text)


def _as_option(exc: InvalidInputError, given: Collection[str]) -> InvalidInputError:
    """The error named by the command-line option the user typed (``--rps``), not the workload field
    (``requests_per_s``); a value from the workload file keeps the file's field name. The workload
    fields its text names read as the options too (``prompt_tokens`` as ``--prompt``)."""
    field = ERROR_FIELDS.get(exc.field, exc.field)
    if field not in given:
        return exc
    flag = _flag(field)
    if isinstance(exc, UnknownNameError):
        return exc.named_as(flag)  # an unknown engine keeps its list of every engine accepted
    accepted = _in_our_words(exc.accepted, exc.names) if exc.accepted else exc.accepted
    return InvalidInputError(flag, _in_our_words(exc.message, exc.names), accepted)


def _workload(kind: str, model: str | None, path: Path | None, options: dict[str, Any]) -> Any:
    from gpuscout.advise.workload import Workload, for_kind, read_mapping
    from gpuscout.loaders import read_text

    data: dict[str, Any] = {}
    if path is not None:
        # the file as written, checked for its kind first (none: this command's), then validated once
        # with the options that override it (a file may leave a required field to the command line)
        text = read_text(path, "workload", "a readable YAML or JSON workload file")
        mapping = read_mapping(text, json_text=path.suffix.lower() == ".json")
        data = for_kind(mapping, kind, "--workload", "the file")
    given = {k: v for k, v in options.items() if v is not None}
    if "hours_per_day" in given and "bursts_per_day" in data:
        data.pop("bursts_per_day", None)  # the command line's activity pattern replaces the file's
        data.pop("burst_minutes", None)
    if "bursts_per_day" in given and "hours_per_day" in data:
        data.pop("hours_per_day", None)
    data.update(given)
    if model is not None:
        data["model"] = model
    if "model" not in data:
        raise InvalidInputError("MODEL", "missing", "a model name (see `gpuscout models`) or --workload FILE")
    data["kind"] = kind
    return Workload.from_dict(data)


@dataclass(frozen=True, slots=True)
class Shared:
    """The options every ``recommend`` subcommand takes after its own (each command lists them)."""

    workload_file: Path | None
    gpu: list[str] | None
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
    include_stale: bool
    spot_reclaims: float | None
    db: str | None
    min_headroom: float | None = None
    checkpoint_write_gbps: float | None = None
    unlisted_host_ram: float | None = None
    max_deadline_miss: float | None = None

    @classmethod
    def of(cls, arguments: Mapping[str, Any]) -> Shared:
        """The shared options out of a command's arguments, named as the fields (a command without
        one, such as serve's dataset size, leaves it None)."""
        values: dict[str, Any] = {f.name: arguments.get(f.name) for f in dataclasses.fields(cls)}
        return cls(**values)


def _assumptions(shared: Shared) -> Any:
    from gpuscout.advise.assumption_overrides import assumption_overrides

    return assumption_overrides(
        spot_reclaims_per_hour=shared.spot_reclaims,
        min_headroom=shared.min_headroom,
        checkpoint_write_gbps=shared.checkpoint_write_gbps,
        unlisted_host_ram=shared.unlisted_host_ram,
        max_deadline_miss=shared.max_deadline_miss,
    )


def _regions(typed: list[str], db: str | None) -> tuple[str, ...]:
    """``--region`` values as ``gpuscout offers --region`` reads them: comma-separated lists, except a
    region whose own name holds a comma ("Texas, US"; ``catalog.query.region_terms``). The store is
    opened only when a value holds a comma."""
    if not any("," in value for value in typed):
        return tuple(typed)
    from gpuscout.catalog.paths import default_db_url
    from gpuscout.catalog.query import region_known, region_terms
    from gpuscout.catalog.reader import open_reader

    reader = open_reader(db or default_db_url())
    try:
        return region_terms(typed, region_known(reader.count_offers))
    finally:
        reader.close()


def _run(workload: Any, shared: Shared) -> None:
    from gpuscout.advise.api import advise
    from gpuscout.advise.backends import default_backends
    from gpuscout.advise.types import PICKS
    from gpuscout.catalog.api import current_offers
    from gpuscout.cli import advise_output
    from gpuscout.user_models import registry

    if shared.json_out and shared.csv_out:
        raise InvalidInputError("--json/--csv", "give one of them, not both")
    explain = shared.explain
    assumptions = _assumptions(shared)
    backends = default_backends(registry())  # model names resolve through the user's imported models too
    # the pure advisor, as gpuscout.advice reads it but in this command's words: its texts name the flags
    # ("--budget 937 would show it"), where gpuscout.advice names the Python API's fields
    answer = advise(
        workload,
        current_offers(db=shared.db),
        objective=shared.objective,
        # a row's number is its place in the whole ordering, whatever --top is; the picks come first
        # when rows are cut, so row N is among the rows of a --top of N plus the picks
        top=shared.top if explain is None else max(shared.top, explain + len(PICKS)),
        include_rejected=shared.rejected,
        include_stale=shared.include_stale,
        backends=backends,
        assumptions=assumptions,
    )
    ranked = list(answer.rows)
    if explain is not None:
        row = next((r for r in ranked if r.rank == explain), None)
        if row is None:  # past the last row: every row was asked for, so the rows are all there
            last = max((r.rank or 0 for r in ranked), default=0)
            raise InvalidInputError(
                "--explain",
                f"row {explain} does not exist ({last} {plural(last, 'row')})",
                f"1..{last}"
                if ranked
                else "no rows to explain" + (f": {answer.binding}" if answer.binding else ""),
            )
        if shared.json_out:
            print_json(finite(to_jsonable(row)))
        else:
            advise_output.explain(workload, row)
        return
    shown = ranked
    if shared.json_out:
        print_json(  # strict JSON: a rejected row's score (infinite) is null
            finite(
                to_jsonable(
                    {
                        "workload": workload.to_dict(),
                        "objective": answer.objective,
                        "targets": answer.targets,
                        "notes": answer.notes,
                        "time_axis": answer.time_axis,
                        "front_size": answer.front_size,
                        "picks": answer.picks,
                        "uncalibrated_picks": [
                            {**dataclasses.asdict(u), "text": u.text} for u in answer.uncalibrated_picks
                        ],
                        "picks_rule": answer.picks_rule,
                        "binding": answer.binding,
                        # ``binding`` in parts: what binds and the ways out, each with its fields
                        "binding_why": answer.binding_why,
                        "moves": [dataclasses.asdict(m) for m in answer.moves],
                        "engine_note": answer.engine_note,
                        "considered": answer.considered,
                        "recommendations": shown,
                        "rejected": answer.rejected,
                    }
                )
            )
        )
    elif shared.csv_out:
        advise_output.write_csv([*shown, *answer.rejected])
    else:
        advise_output.table(workload, answer)
        advise_output.rejected_table(list(answer.rejected))


def _recommend(kind: str, model: str | None, fields: dict[str, Any], shared: Shared) -> None:
    """Build the workload from the file, the command's own fields and the shared options; rank; print."""
    with user_errors():
        options = {
            **fields,
            "accelerators": tuple(shared.gpu) if shared.gpu else None,
            "providers": tuple(shared.provider) if shared.provider else None,
            "regions": _regions(shared.region, shared.db) if shared.region else None,
            "budget_usd": shared.budget,
            "spot_allowed": shared.spot,
            "egress_gb": shared.egress_gb,
            "dataset_gb": shared.dataset_gb,
            "storage_retention_days": shared.retention_days,
        }
        # without a workload file every field is an option; with one, the options typed are
        given = {k for k, v in options.items() if v is not None or shared.workload_file is None}
        try:
            workload = _workload(kind, model, shared.workload_file, options)
            _check_regions(workload.regions, shared.db, "--region" if shared.region else "regions")
            _run(workload, shared)
        except InvalidInputError as exc:  # named by the option typed, wherever it was found wrong
            raise _as_option(exc, given) from None


def _check_regions(regions: tuple[str, ...], db: str | None, field: str) -> None:
    """Regions of which no current offer is in any are an error naming the closest regions with offers,
    ``field`` (``--region``, or the workload file's ``regions``) as ``gpuscout offers --region`` says it
    (``catalog.query.check_regions``): a typo ("Mars") must not read as "no offer can run it". A list
    some of whose regions have offers is ranked on those, as ``offers`` lists them."""
    if not regions:
        return
    from gpuscout.catalog.api import count_offers, current_offers
    from gpuscout.catalog.query import OfferQuery, check_regions, offer_regions

    def counted(query: OfferQuery) -> int:
        return count_offers(query, db=db)

    if counted(OfferQuery(regions=regions)) == 0:
        check_regions(regions, counted, lambda: offer_regions(current_offers(db=db)), field=field)


# ---- commands ----------------------------------------------------------------------------------
@recommend_app.command("serve")
def serve_cmd(
    model: Annotated[str | None, typer.Argument(help="Model name, e.g. llama-3.1-8b.")] = None,
    precision: PrecisionOption = None,
    engine: EngineOption = None,
    prompt: PromptOption = None,
    output: OutputOption = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            "--users",
            "-c",
            help="Simultaneous requests (users).",
            show_default="1 (when no --rps)",
        ),
    ] = None,
    rps: Annotated[
        float | None,
        typer.Option(
            "--rps",
            "--request-rate",
            help="Requests per second (instead of -c; --request-rate as in estimate).",
        ),
    ] = None,
    ttft_ms: Annotated[
        float | None,
        typer.Option("--ttft-ms", help="Max time to first token, ms.", show_default="2000 (chat)"),
    ] = None,
    tpot_ms: Annotated[
        float | None,
        typer.Option(
            "--tpot-ms", help="Max ms per output token per user (50 = 20 tok/s).", show_default="50 (chat)"
        ),
    ] = None,
    latency_targets: Annotated[
        str | None,
        typer.Option(
            "--latency-targets",
            help="chat: TTFT <= 2 s and >= 20 tok/s per user unless --ttft-ms/--tpot-ms say "
            "otherwise; none: only the targets given.",
            show_default="chat",
        ),
    ] = None,
    hours_per_day: Annotated[
        float | None,
        typer.Option("--hours-per-day", help="Hours up per day (not with --bursts).", show_default="24"),
    ] = None,
    bursts: Annotated[
        int | None, typer.Option("--bursts", help="Bursts per day (with --burst-minutes).")
    ] = None,
    burst_minutes: Annotated[float | None, typer.Option("--burst-minutes", help="Minutes per burst.")] = None,
    monthly_tokens: Annotated[
        float | None,
        typer.Option(
            "--monthly-tokens",
            help=f"Output tokens served per month ({TOKENS_HELP}).",
            parser=parse_tokens,
            show_default="from the load",
        ),
    ] = None,
    workload_file: WorkloadOption = None,
    gpu: GpuOption = None,
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
    include_stale: StaleOption = False,
    spot_reclaims: ReclaimOption = None,
    db: DbOption = None,
) -> None:
    """An endpoint (concurrency or requests/s, latency targets, hours/day): cost per month vs latency.

    Latency targets default to a chat's; the load can also come in bursts."""
    fields = {
        "precision": precision,
        "engine": engine,
        "prompt_tokens": prompt,
        "output_tokens": output,
        "concurrency": concurrency,
        "requests_per_s": rps,
        "ttft_ms_max": ttft_ms,
        "tpot_ms_max": tpot_ms,
        "latency_targets": latency_targets,
        "hours_per_day": hours_per_day,
        "bursts_per_day": bursts,
        "burst_minutes": burst_minutes,
        "monthly_output_tokens": monthly_tokens,
    }
    shared = Shared.of(locals())
    _recommend("serve", model, fields, shared)


@recommend_app.command("batch")
def batch_cmd(
    model: Annotated[str | None, typer.Argument(help="Model name (LLM or diffusion).")] = None,
    precision: PrecisionOption = None,
    engine: EngineOption = None,
    output_total: Annotated[
        float | None,
        typer.Option(
            "--output-total", help=f"Output tokens to generate in total ({TOKENS_HELP}).", parser=parse_tokens
        ),
    ] = None,
    input_total: Annotated[
        float | None,
        typer.Option(
            "--input-total",
            help=f"Input tokens in total ({TOKENS_HELP}).",
            parser=parse_tokens,
            show_default="output total / --output x --prompt",
        ),
    ] = None,
    prompt: PromptOption = None,
    output: OutputOption = None,
    images: Annotated[
        int | None,
        typer.Option("--images", help=f"Images to generate (diffusion; {COUNT_HELP}).", parser=parse_count),
    ] = None,
    width: Annotated[
        int | None, typer.Option("--width", help="Image width, px.", show_default="1024")
    ] = None,
    height: Annotated[
        int | None, typer.Option("--height", help="Image height, px.", show_default="1024")
    ] = None,
    steps: Annotated[
        int | None, typer.Option("--steps", help="Diffusion steps.", show_default="the model's usual count")
    ] = None,
    deadline: DeadlineOption = None,
    interruptible: Annotated[
        bool | None,
        typer.Option(
            "--interruptible/--not-interruptible",
            help="Work can resume after a reclaim.",
            show_default="interruptible",
        ),
    ] = None,
    workload_file: WorkloadOption = None,
    gpu: GpuOption = None,
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
    include_stale: StaleOption = False,
    spot_reclaims: ReclaimOption = None,
    max_deadline_miss: MissOption = None,
    db: DbOption = None,
) -> None:
    """Offline generation of a token total (LLM) or an image total: cost per run vs time to finish."""
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
        "deadline_hours": deadline,
        "interruptible": interruptible,
    }
    shared = Shared.of(locals())
    _recommend("batch", model, fields, shared)


@recommend_app.command("finetune")
def finetune_cmd(
    model: Annotated[str | None, typer.Argument(help="Base model name.")] = None,
    method: Annotated[
        str | None, typer.Option("--method", help="lora | qlora | full.", show_default="lora")
    ] = None,
    dataset_tokens: Annotated[
        float | None,
        typer.Option(
            "--dataset-tokens", help=f"Tokens per epoch (required; {TOKENS_HELP}).", parser=parse_tokens
        ),
    ] = None,
    epochs: Annotated[
        float | None, typer.Option("--epochs", help="Passes over the data.", show_default="1")
    ] = None,
    seq_len: Annotated[
        int | None,
        typer.Option(
            "--seq-len",
            help="Tokens per training sequence (4k = 4,000).",
            parser=parse_tokens,
            show_default="2048",
        ),
    ] = None,
    micro_batch: MicroBatchOption = None,
    adapter_dtype: AdapterDtypeOption = None,
    precision: Annotated[str | None, _training_precision_option("finetune")] = None,
    checkpoint_gb: CheckpointGbOption = None,
    checkpoint_min: Annotated[
        float | None,
        typer.Option(
            "--checkpoint-min",
            help="Minutes between checkpoints.",
            show_default=AUTO_CHECKPOINT,
        ),
    ] = None,
    max_nodes: Annotated[int | None, _max_nodes_option("finetune")] = None,
    deadline: DeadlineOption = None,
    min_headroom: HeadroomOption = None,
    checkpoint_write_gbps: CheckpointWriteOption = None,
    unlisted_host_ram: UnlistedRamOption = None,
    workload_file: WorkloadOption = None,
    gpu: GpuOption = None,
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
    include_stale: StaleOption = False,
    spot_reclaims: ReclaimOption = None,
    max_deadline_miss: MissOption = None,
    db: DbOption = None,
) -> None:
    """LoRA / QLoRA / full fine-tuning over a dataset: cost per run vs time to finish."""
    fields = {
        "method": method,
        "dataset_tokens": dataset_tokens,
        "epochs": epochs,
        "seq_len": seq_len,
        "micro_batch": micro_batch,
        "adapter_dtype": adapter_dtype,
        "precision": precision,
        "checkpoint_gb": checkpoint_gb,
        "checkpoint_interval_min": checkpoint_min,
        "max_nodes": max_nodes,
        "deadline_hours": deadline,
    }
    shared = Shared.of(locals())
    _recommend("finetune", model, fields, shared)


@recommend_app.command("pretrain")
def pretrain_cmd(
    model: Annotated[str | None, typer.Argument(help="Model (architecture) name.")] = None,
    tokens: Annotated[
        float | None,
        typer.Option("--tokens", help=f"Token budget (required; {TOKENS_HELP}, 15T).", parser=parse_tokens),
    ] = None,
    params_b: Annotated[
        float | None,
        typer.Option("--params-b", help="Size in billions; MODEL is then only a label (dense stand-in)."),
    ] = None,
    seq_len: Annotated[
        int | None,
        typer.Option(
            "--seq-len",
            help="Tokens per training sequence (4k = 4,000).",
            parser=parse_tokens,
            show_default="4096",
        ),
    ] = None,
    micro_batch: MicroBatchOption = None,
    global_batch: Annotated[
        int | None,
        typer.Option(
            "--global-batch",
            help="Most tokens per optimizer step (micro-batch x GPUs x sequence) a layout may take "
            f"({TOKENS_HELP}): wider layouts take smaller micro-batches, node counts past it are not "
            "tried. Unset: the run's compute-optimal batch, DeepSeek LLM's B_opt = 0.2920 x C^0.3271.",
            parser=parse_tokens,
            show_default=AUTO_GLOBAL_BATCH,
        ),
    ] = None,
    gpus: Annotated[
        int | None,
        typer.Option(
            "--gpus",
            help="GPUs to train on, rounded up to whole instances (a row on more says so).",
            show_default="what fits",
        ),
    ] = None,
    nodes: Annotated[int | None, typer.Option("--nodes", help="Target number of nodes (instances).")] = None,
    precision: Annotated[str | None, _training_precision_option("pretrain")] = None,
    checkpoint_gb: CheckpointGbOption = None,
    checkpoint_min: Annotated[
        float | None,
        typer.Option(
            "--checkpoint-min",
            help="Minutes between checkpoints.",
            show_default=AUTO_CHECKPOINT,
        ),
    ] = None,
    max_nodes: Annotated[int | None, _max_nodes_option("pretrain")] = None,
    deadline: DeadlineOption = None,
    min_headroom: HeadroomOption = None,
    checkpoint_write_gbps: CheckpointWriteOption = None,
    unlisted_host_ram: UnlistedRamOption = None,
    workload_file: WorkloadOption = None,
    gpu: GpuOption = None,
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
    include_stale: StaleOption = False,
    spot_reclaims: ReclaimOption = None,
    max_deadline_miss: MissOption = None,
    db: DbOption = None,
) -> None:
    """Pre-training over a token budget on a number of GPUs or nodes: cost per run vs time to finish."""
    fields = {
        "token_budget": tokens,
        "params_b": params_b,
        "seq_len": seq_len,
        "micro_batch": micro_batch,
        "global_batch_tokens": global_batch,
        "gpus": gpus,
        "nodes": nodes,
        "precision": precision,
        "checkpoint_gb": checkpoint_gb,
        "checkpoint_interval_min": checkpoint_min,
        "max_nodes": max_nodes,
        "deadline_hours": deadline,
    }
    shared = Shared.of(locals())
    _recommend("pretrain", model, fields, shared)


#: The options of ``faq``, by the keyword of :func:`gpuscout.advise.faq.faq` its errors name.
FAQ_FLAGS = ("context", "users", "gpu", "precision")


def faq_cmd(
    model: Annotated[str, typer.Argument(help="Model name, e.g. llama-3.1-70b (imported models too).")],
    context: Annotated[
        int | None,
        typer.Option(
            "--context",
            help=f"Tokens per conversation (prompt + answer; {TOKENS_HELP}).",
            parser=parse_tokens,
            show_default="4096, or the model's context where shorter",
        ),
    ] = None,
    users: Annotated[int, typer.Option("--users", "-c", help="Simultaneous users.")] = 8,
    gpu: Annotated[
        str | None,
        typer.Option("--gpu", help="Your GPU, for 'why is generation slow'.", show_default="RTX 4090"),
    ] = None,
    precision: Annotated[
        str | None,
        typer.Option("--precision", help="Weight format to size and time.", show_default=NATIVE_PRECISION),
    ] = None,
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """The questions renters ask, answered for THIS model at your context, load and GPU (FAQ_HELP)."""
    with user_errors():
        from rich.text import Text

        from gpuscout.advise.backends import default_backends
        from gpuscout.advise.faq import faq
        from gpuscout.catalog.api import current_offers
        from gpuscout.cli.wrap import print_wrapped
        from gpuscout.user_models import registry

        try:
            answers = faq(
                model,
                current_offers(db=db),
                context=context,
                users=users,
                gpu=gpu,
                precision=precision,
                backends=default_backends(registry()),
            )
        except InvalidInputError as exc:  # named as the option typed (`--gpu`), as every command names it
            if exc.field not in FAQ_FLAGS:
                raise
            raise _as_option(exc, FAQ_FLAGS) from None
        if json_out:
            print_json(finite(to_jsonable(answers)))
            return
        out = wide_console()
        out.print(Text.assemble((printable(answers.model), "bold"), ": ", printable(answers.summary)))
        for w in answers.warnings:  # the estimates' word on the model at this context, once for all answers
            out.print(Text.assemble(("warning:", "yellow"), " ", printable(w)))
        for a in answers.answers:
            out.print(Text.assemble("\n", (printable(a.question), "bold cyan")))
            out.print(Text(printable(a.answer)))
            for line in a.details:  # a bullet's lines under its text, not at the left edge
                print_wrapped(out, printable(line), prefix="  • ")
