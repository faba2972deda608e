"""``gpuscout gpus`` and ``gpuscout models``: browse the accelerator table and the model registry."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from gpuscout.catalog.offer_fields import write_csv
from gpuscout.cli.output import (
    CsvOption,
    console,
    err_console,
    number,
    plain,
    print_json,
    printable,
    to_jsonable,
    user_errors,
)
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu_detail
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.models import all_models
from gpuscout.knowledge.params import ParamCount, count_params
from gpuscout.loaders import model_from_hf_config, model_from_hub
from gpuscout.wording import plural

GPU_KINDS = ("datacenter", "workstation", "consumer", "tpu", "asic")
GPU_SORTS = {
    "memory": lambda a: a.memory_gb,
    "bandwidth": lambda a: a.bandwidth_gbps,
    "bf16": lambda a: a.bf16_tflops or 0.0,
}
MODEL_KINDS = ("llm", "diffusion", "audio")


def _num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}"


# ---------------------------------------------------------------- gpus


def select_gpus(
    *, vendor: str | None, min_memory: float | None, kind: str | None, fp8: bool, sort: str
) -> list[Accelerator]:
    """Filter and sort the accelerator table (validating every option)."""
    accs = list(all_accelerators())
    if vendor is not None:
        vendors = sorted({a.vendor for a in accs})
        match = [v for v in vendors if v.lower() == vendor.strip().lower()]
        if not match:
            raise InvalidInputError("--vendor", f"unknown vendor {vendor!r}", ", ".join(vendors))
        accs = [a for a in accs if a.vendor == match[0]]
    if min_memory is not None:
        if min_memory < 0:
            raise InvalidInputError("--min-memory", f"must be >= 0 GiB, got {min_memory:g}")
        accs = [a for a in accs if a.memory_gb >= min_memory]
    if kind is not None:
        if kind.lower() not in GPU_KINDS:
            raise InvalidInputError("--kind", f"unknown kind {kind!r}", ", ".join(GPU_KINDS))
        accs = [a for a in accs if a.kind == kind.lower()]
    if fp8:
        accs = [a for a in accs if a.fp8_supported]
    if sort not in GPU_SORTS:
        raise InvalidInputError("--sort", f"unknown sort key {sort!r}", ", ".join(GPU_SORTS))
    return sorted(accs, key=GPU_SORTS[sort], reverse=True)


def _gpu_table(accs: list[Accelerator], width: int | None) -> tuple[Table, list[str]]:
    """The accelerators' table fitted to ``width`` (numbers never wrap; confidence gives way first; a
    name is never broken)."""
    from gpuscout.cli.table_fit import Column, fitted_table

    columns = [
        Column("Name", whole=True),
        Column("Memory\nGiB", right=True),  # the vendor's "80 GB" is 80 GiB
        Column("Bandwidth\nGB/s", right=True),
        Column("BF16\nTFLOPS", right=True),
        Column("FP8\nTFLOPS", right=True, drop=3),
        Column("FP4\nTFLOPS", right=True, drop=2),
        Column("Confidence", drop=1),
    ]
    from gpuscout.estimate.rate_cells import RATE_FOOTNOTE, rate_cells

    rows: list[list[str | Text]] = []
    for a in accs:
        rates = rate_cells(a)  # the web's /gpus shows the same cells
        rows.append(
            [
                Text(plain(a.name)),
                _num(a.memory_gb),
                _num(a.bandwidth_gbps),
                rates.bf16,
                rates.fp8,
                rates.fp4,
                a.confidence.replace("-verified", ""),
            ]
        )
    title = f"{len(accs)} {plural(len(accs), 'accelerator')} — dense tensor rates"
    table, left_out = fitted_table(title, columns, rows, width)
    table.caption = f"{RATE_FOOTNOTE}. Details and sources: gpuscout gpus NAME"
    return table, left_out


#: Columns of ``gpuscout gpus --csv``.
GPU_COLUMNS = (
    "name",
    "vendor",
    "kind",
    "memory_gb",
    "usable_memory_gib",
    "memory_type",
    "bandwidth_gbps",
    "bf16_tflops",
    "fp8_tflops",
    "fp4_tflops",
    "int8_tops",
    "fp8_supported",
    "fp4_supported",
    "interconnect",
    "interconnect_gbps",
    "architecture",
    "form_factor",
    "release_year",
    "confidence",
    "source",
)


def _gpu_record(a: Accelerator) -> dict[str, Any]:
    return {c: getattr(a, c, None) for c in GPU_COLUMNS}


def _fp16_rate(acc: Accelerator) -> str:
    """The recorded FP16 rate; where none is recorded (TPUs publish BF16 only), say so and what fp16 work is
    timed at, rather than print the BF16 figure under the FP16 label."""
    if acc.fp16_tflops is not None or acc.bf16_tflops is None:
        return f"{_num(acc.fp16_tflops, 1)} TFLOPS"
    return f"— TFLOPS (none published; fp16 work is timed at the BF16 rate, {_num(acc.bf16_tflops, 1)})"


def _gpu_detail(name: str, as_json: bool) -> None:
    res = resolve_gpu_detail(name, field="NAME")
    acc = res.accelerator
    if as_json:
        print_json({**to_jsonable(acc), "resolution": {"exact": res.exact, "note": res.note}})
        return
    table = Table(title=plain(f"{acc.name} — {acc.full_name}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    rows: list[tuple[str, str]] = [
        ("Vendor / kind", f"{acc.vendor} / {acc.kind}"),
        ("Memory", f"{_num(acc.memory_gb)} GiB {acc.memory_type}"),  # the vendor's "80 GB" is 80 GiB
        *(
            [("Usable memory", f"{acc.usable_memory_gib:.2f} GiB ({acc.usable_memory_source})")]
            if acc.usable_memory_gib is not None
            else []
        ),
        ("Bandwidth", f"{_num(acc.bandwidth_gbps)} GB/s"),
        ("FP32", f"{_num(acc.fp32_tflops, 1)} TFLOPS"),
        ("TF32 (dense)", f"{_num(acc.tf32_tflops, 1)} TFLOPS"),
        ("BF16 (dense)", f"{_num(acc.bf16_tflops, 1)} TFLOPS"),
        ("FP16 (dense)", _fp16_rate(acc)),
        ("FP8 (dense)", f"{_num(acc.fp8_tflops, 1)} TFLOPS (native: {'yes' if acc.fp8_supported else 'no'})"),
        ("INT8 (dense)", f"{_num(acc.int8_tops, 1)} TOPS"),
        ("FP4 (dense)", f"{_num(acc.fp4_tflops, 1)} TFLOPS (native: {'yes' if acc.fp4_supported else 'no'})"),
        ("Interconnect", f"{acc.interconnect or '—'} ({_num(acc.interconnect_gbps)} GB/s)"),
        ("TDP", f"{_num(acc.tdp_w)} W"),
        ("Form factor", acc.form_factor),
        ("Release year", str(acc.release_year or "—")),
        ("Aliases", ", ".join(acc.aliases) or "—"),
        ("Source", acc.source),
        ("Confidence", acc.confidence),
        ("Notes", acc.notes or "—"),
    ]
    if not res.exact:
        rows.insert(0, ("Resolved", res.note))
    for key, value in rows:
        table.add_row(key, plain(value))
    console.print(table)


def gpus(
    name: Annotated[
        str | None, typer.Argument(help="Show one accelerator in full (any common name).")
    ] = None,
    vendor: Annotated[str | None, typer.Option(help="NVIDIA, AMD, Intel, Google or AWS.")] = None,
    min_memory: Annotated[
        float | None, typer.Option("--min-memory", parser=number(0, 1e6), help="Minimum memory, GiB.")
    ] = None,
    kind: Annotated[str | None, typer.Option(help="datacenter, workstation, consumer, tpu or asic.")] = None,
    fp8: Annotated[bool, typer.Option("--fp8", help="Only accelerators with native FP8.")] = False,
    sort: Annotated[str, typer.Option(help="Sort by memory, bandwidth or bf16 (descending).")] = "memory",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    as_csv: CsvOption = False,
) -> None:
    """List accelerators with their specs, or show one in full with its sources."""
    with user_errors():
        if as_json and as_csv:
            raise InvalidInputError("--json/--csv", "give one of them, not both")
        if name is not None:
            _gpu_detail(name, as_json)
            return
        accs = select_gpus(vendor=vendor, min_memory=min_memory, kind=kind, fp8=fp8, sort=sort)
        if as_json:
            print_json(accs)
        elif as_csv:
            write_csv(sys.stdout, GPU_COLUMNS, (_gpu_record(a) for a in accs))
        elif not accs:
            console.print("No accelerator matches these filters.")
        else:
            from gpuscout.cli.consoles import wide_console
            from gpuscout.cli.table_fit import left_out_note, terminal_width

            # a pipe or a file gets the whole table (wide_console), as `models` and `offers` do: at the
            # 80 columns of a narrow console the names folded ("RTXPRO6000-Ser" / "ver")
            out = wide_console()
            table, left_out = _gpu_table(accs, terminal_width(out))
            out.print(table)
            note = left_out_note([h.replace("\n", " ") for h in left_out])
            if note:
                console.print(Text(note))


# ---------------------------------------------------------------- models


def _context_label(tokens: int) -> str:
    return f"{tokens // 1024}k" if tokens >= 1024 and tokens % 1024 == 0 else f"{tokens:,}"


def _attention_label(spec: ModelSpec, *, short: bool = False) -> str:
    if spec.kind != "llm":
        return "—"
    if spec.is_mla:
        label = "MLA"
    elif spec.num_key_value_heads == 1:
        label = "MQA"
    elif spec.num_key_value_heads < spec.num_attention_heads:
        label = "GQA"
    else:
        label = "MHA"
    if spec.index_topk:
        label += " + sparse" if short else f" + sparse top-{spec.index_topk}"
    local = "chunked" if spec.chunked_attention else "SWA"
    if spec.sliding_layers and short:
        label += f" + {local}"
    elif spec.sliding_layers:
        label += f" + {local} {spec.sliding_window} ({spec.sliding_layers}/{spec.num_hidden_layers})"
    if spec.linear_layers:  # Gated DeltaNet: a fixed-size state per sequence, no KV cache
        label += (
            " + linear"
            if short
            else f" on {spec.attention_layers} of {spec.num_hidden_layers} layers, Gated DeltaNet linear "
            f"attention on {spec.linear_layers} (a fixed-size state per sequence, no KV cache)"
        )
    return label


def _dense_layers_words(spec: ModelSpec) -> str:
    """'3 leading dense layers', or where MoE is on every n-th layer only, 'MoE on every 2nd layer (24 of
    48), the others dense'."""
    lead = f"{spec.first_dense_layers} leading dense {plural(spec.first_dense_layers, 'layer')}"
    if spec.moe_layer_step <= 1:
        return lead
    every = {2: "2nd", 3: "3rd"}.get(spec.moe_layer_step, f"{spec.moe_layer_step}th")
    moe = f"MoE on every {every} layer ({spec.moe_layer_count} of {spec.num_hidden_layers}), the others dense"
    return f"{lead}, then {moe}" if spec.first_dense_layers else moe


def select_models(
    *, family: str | None, kind: str | None, extra: tuple[ModelSpec, ...] = ()
) -> list[ModelSpec]:
    """Filter the registry and ``extra`` (imported) models (family: case-insensitive prefix, e.g.
    "llama3", "qwen")."""
    models = [*all_models(), *extra]
    if kind is not None:
        if kind.lower() not in MODEL_KINDS:
            raise InvalidInputError("--kind", f"unknown kind {kind!r}", ", ".join(MODEL_KINDS))
        models = [m for m in models if m.kind == kind.lower()]
    if family is not None:
        wanted = family.strip().lower()
        families = sorted({m.family for m in models})
        if not any(f.lower().startswith(wanted) for f in families):
            raise InvalidInputError("--family", f"unknown family {family!r}", ", ".join(families))
        models = [m for m in models if m.family.lower().startswith(wanted)]
    return models


def _model_row(spec: ModelSpec, count: ParamCount) -> dict[str, Any]:
    return {**to_jsonable(spec), "params": to_jsonable(count)}


def _models_table(models: list[ModelSpec], width: int | None) -> tuple[Table, list[str]]:
    """The registry's table fitted to ``width``: a name is never broken (``mistral-nemo-12b`` on one
    line, however long an imported name is); the attention shape wraps between its label's words (its
    numbers, "32/32 × 128", stay together), and the
    layer count, then the active parameters, give way when even that does not fit."""
    from gpuscout.cli.table_fit import Column, fitted_table
    from gpuscout.cli.wrap import NBSP

    columns = [
        Column("Name", whole=True),
        Column("Params B", right=True),
        Column("Active\nB", right=True, drop=2),
        Column("Layers", right=True, drop=1),
        Column("Context", right=True),
        Column("Attention heads/KV × head dim", wrap=True, drop=3),
    ]
    rows: list[list[str | Text]] = []
    for m in models:
        c = count_params(m)
        is_llm = m.kind == "llm"
        # one unit, never broken: the heads and the head dimension are read together
        shape = f"{m.num_attention_heads}/{m.num_key_value_heads}{NBSP}×{NBSP}{m.head_dim}"
        rows.append(
            [
                Text(plain(m.name)),
                f"{c.total_b:,.2f}" + ("" if c.computed else "*"),
                f"{c.active_b:,.2f}" if m.is_moe else "—",
                str(m.num_hidden_layers) if is_llm else "—",
                _context_label(m.max_position_embeddings) if is_llm else "—",
                f"{_attention_label(m, short=True)} {shape}" if is_llm else f"— ({m.kind})",
            ]
        )
    title = f"{len(models)} {plural(len(models), 'model')} — parameters computed from the architecture"
    table, left_out = fitted_table(title, columns, rows, width)
    table.caption = "* declared size (diffusion/audio, not computed). Details: gpuscout models NAME"
    return table, left_out


def _list_models(*, family: str | None, kind: str | None, as_json: bool, as_csv: bool) -> None:
    """``gpuscout models list`` (and ``models`` with no NAME): the registry, imported models included."""
    from gpuscout.cli.consoles import wide_console
    from gpuscout.cli.table_fit import left_out_note, terminal_width
    from gpuscout.user_models import load_imported

    if as_json and as_csv:
        raise InvalidInputError("--json/--csv", "give one of them, not both")
    loaded = load_imported()
    selected = select_models(family=family, kind=kind, extra=loaded.specs)
    if as_json:
        print_json([_model_row(m, count_params(m)) for m in selected])
    elif as_csv:
        write_csv(sys.stdout, MODEL_COLUMNS, (_model_record(m) for m in selected))
    elif not selected:
        console.print("No model matches these filters.")
    else:
        # a pipe or a file gets every column at full width (wide_console): nothing there needs to wrap
        out = wide_console()
        table, left_out = _models_table(selected, terminal_width(out))
        out.print(table)
        note = left_out_note([h.replace("\n", " ") for h in left_out])
        if note:
            console.print(Text(note))
    for problem in loaded.problems:
        err_console.print(
            Text(printable(f"warning: an imported model could not be read: {problem}"), style="yellow")
        )


def _model_detail(spec: ModelSpec, note: str, as_json: bool) -> None:
    count = count_params(spec)
    if as_json:
        print_json({**_model_row(spec, count), "resolution": {"note": note}})
        return
    table = Table(title=plain(f"{spec.name} — {spec.hf_id or 'imported'}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    official = ""
    if spec.official_total_params_b:
        official = f" (published: {spec.official_total_params_b:g} B"
        if spec.official_active_params_b:
            official += f" / {spec.official_active_params_b:g} B active"
        official += f"; {spec.params_source})" if spec.params_source else ")"
    rows: list[tuple[str, str]] = []
    if note:
        rows.append(("Resolved", note))
    rows += [
        ("Family / kind", f"{spec.family} / {spec.kind}"),
        ("Parameters", f"{count.total_b:,.3f} B" + ("" if count.computed else " (declared)") + official),
    ]
    if spec.kind == "llm":
        if spec.is_moe:
            rows.append(
                (
                    "Active per token",
                    f"{count.active_b:,.3f} B "
                    f"({count.active_excl_embedding / 1e9:,.3f} B without the embedding table)",
                )
            )
        rows += [
            (
                "Embedding / lm_head",
                f"{count.embedding / 1e9:,.3f} B / "
                + ("tied" if spec.tie_word_embeddings else f"{count.lm_head / 1e9:,.3f} B"),
            ),
            ("Attention params", f"{count.attention / 1e9:,.3f} B"),
            (
                "MLP params",
                f"dense {count.dense_mlp / 1e9:,.3f} B, experts {count.routed_experts / 1e9:,.3f} B, "
                f"shared {count.shared_experts / 1e9:,.3f} B",
            ),
            ("Layers / hidden", f"{spec.num_hidden_layers} / {spec.hidden_size}"),
            (
                "Heads / KV heads / head dim",
                f"{spec.num_attention_heads} / {spec.num_key_value_heads} / {spec.head_dim}",
            ),
            ("Attention", _attention_label(spec)),
            ("Vocabulary", f"{spec.vocab_size:,}"),
            (
                "Context",
                f"{spec.max_position_embeddings:,} tokens"
                + (
                    f" with YaRN rope scaling configured (config.json: {spec.native_context:,})"
                    if spec.native_context
                    else ""
                ),
            ),
        ]
        if spec.is_moe:
            rows.append(
                (
                    "Experts",
                    f"{spec.num_experts} routed (top {spec.experts_per_token}), "
                    f"{spec.shared_experts} shared, width {spec.moe_intermediate_size}, "
                    f"{_dense_layers_words(spec)}",
                )
            )
        if spec.is_mla:
            rows.append(
                (
                    "MLA",
                    f"kv_lora_rank {spec.kv_lora_rank}, q_lora_rank {spec.q_lora_rank}, "
                    f"rope {spec.qk_rope_head_dim}, nope {spec.qk_nope_head_dim}, v {spec.v_head_dim}",
                )
            )
        if count.mtp:
            rows.append(("MTP module (not counted)", f"{count.mtp / 1e9:,.2f} B"))
    elif spec.auxiliary_params_b:
        rows.append(("Loaded with it", f"{spec.auxiliary_params_b:g} B (text encoders, VAE)"))
    rows += [
        ("Weights dtype", spec.torch_dtype),
        *(
            [("Published as", f"{spec.native_precision} (sized and timed in it unless --precision says so)")]
            if spec.native_precision and spec.native_precision != "bf16"
            else []
        ),
        ("Aliases", ", ".join(spec.aliases) or "—"),
        ("Source", spec.source or "—"),
        ("Notes", spec.notes or "—"),
    ]
    for key, value in rows:
        table.add_row(key, plain(value))
    console.print(table)


class _ModelsGroup(TyperGroup):
    """``gpuscout models`` with no subcommand lists or shows models (``models show`` is the default):
    ``gpuscout models``, ``gpuscout models --family qwen3``, ``gpuscout models llama-3.1-8b``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["show", *args]
        result: list[str] = super().parse_args(ctx, args)
        return result


models_app = typer.Typer(
    cls=_ModelsGroup,
    help="The model registry (curated architectures and the ones you import): list, show, import, remove. "
    "`gpuscout models` alone lists them; `gpuscout models NAME` shows one.",
)


@models_app.command("list")
def list_cmd(
    family: Annotated[str | None, typer.Option(help="Family prefix, e.g. llama3, qwen, gemma.")] = None,
    kind: Annotated[str | None, typer.Option(help="llm, diffusion or audio.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    as_csv: CsvOption = False,
) -> None:
    """List the model registry (imported models included) with parameter counts."""
    with user_errors():
        _list_models(family=family, kind=kind, as_json=as_json, as_csv=as_csv)


@models_app.command("show")
def models(
    name: Annotated[str | None, typer.Argument(help="Show one model in full (name, alias or HF id).")] = None,
    family: Annotated[str | None, typer.Option(help="Family prefix, e.g. llama3, qwen, gemma.")] = None,
    kind: Annotated[str | None, typer.Option(help="llm, diffusion or audio.")] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Read a local HF config.json (not kept: see `import`).")
    ] = None,
    hub: Annotated[
        str | None, typer.Option("--hub", help="Read config.json of a Hub repo id (not kept: see `import`).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    as_csv: CsvOption = False,
) -> None:
    """Show one model in full; without NAME, list the registry as `models list` does."""
    with user_errors():
        from gpuscout.user_models import registry

        chosen = sum(x is not None for x in (name, config, hub))
        if chosen > 1:
            raise InvalidInputError("NAME/--config/--hub", "give only one of them")
        if as_json and as_csv:
            raise InvalidInputError("--json/--csv", "give one of them, not both")
        read_only = "read only: `gpuscout models import` keeps it"
        if config is not None:
            _model_detail(model_from_hf_config(config), read_only, as_json)
            return
        if hub is not None:
            _model_detail(model_from_hub(hub), read_only, as_json)
            return
        if name is not None:
            res = registry().resolve_detail(name, field="NAME")
            _model_detail(res.model, res.note, as_json)
            return
        _list_models(family=family, kind=kind, as_json=as_json, as_csv=as_csv)


@models_app.command("import")
def import_cmd(
    source: Annotated[
        str, typer.Argument(help="A Hugging Face config.json file, or a Hub repo id (org/model).")
    ],
    name: Annotated[
        str | None,
        typer.Option("--name", help="Name to use it by.", show_default="the repo or folder name, lower case"),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an imported model of that name.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Import a model from its config.json (a file, or the Hub when online; never weights) into your data dir.

    From then on its name works in every command, the web app, the JSON API and gpuscout.recommend().

    Natively quantized checkpoints (FP8, MXFP4, NVFP4) keep their format."""
    with user_errors():
        from gpuscout.user_models import import_model

        done = import_model(source, name=name, force=force)
        if as_json:
            print_json(
                {
                    "name": done.spec.name,
                    "path": str(done.path),
                    "replaced": done.replaced,
                    **_model_row(done.spec, count_params(done.spec)),
                }
            )
            return
        verb = "Replaced" if done.replaced else "Imported"
        size = count_params(done.spec).total_b
        text = (
            f"{verb} {done.spec.name} ({size:,.2f} B parameters), kept in {done.path}. Use it by "
            f"name, e.g. `gpuscout recommend serve {done.spec.name}`."
        )
        console.print(Text(printable(text)))
        from gpuscout.knowledge.hf_config import quantization_note_in

        quant = quantization_note_in(done.spec.notes)
        if quant:  # a quantized checkpoint sized as 16-bit: said at once, not only in `models show`
            console.print(f"[yellow]warning:[/] {plain(quant)}", highlight=False)


@models_app.command("remove")
def remove_cmd(name: Annotated[str, typer.Argument(help="An imported model's name.")]) -> None:
    """Forget a model you imported (curated models cannot be removed)."""
    with user_errors():
        from gpuscout.user_models import remove_model

        path = remove_model(name)
        console.print(Text(printable(f"Removed {name} ({path}).")))


#: Columns of ``gpuscout models --csv``.
MODEL_COLUMNS = (
    "name",
    "family",
    "kind",
    "params_b",
    "active_params_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "context_tokens",
    "attention",
    "moe_experts",
    "experts_per_token",
    "torch_dtype",
    "hf_id",
    "imported",
    "source",
)


def _model_record(m: ModelSpec) -> dict[str, Any]:
    c = count_params(m)
    llm = m.kind == "llm"
    return {
        "name": m.name,
        "family": m.family,
        "kind": m.kind,
        "params_b": round(c.total_b, 4),
        "active_params_b": round(c.active_b, 4) if m.is_moe else None,
        "layers": m.num_hidden_layers if llm else None,
        "hidden_size": m.hidden_size if llm else None,
        "attention_heads": m.num_attention_heads if llm else None,
        "kv_heads": m.num_key_value_heads if llm else None,
        "head_dim": m.head_dim if llm else None,
        "context_tokens": m.max_position_embeddings if llm else None,
        "attention": _attention_label(m) if llm else None,
        "moe_experts": m.num_experts if m.is_moe else None,
        "experts_per_token": m.experts_per_token if m.is_moe else None,
        "torch_dtype": m.torch_dtype,
        "hf_id": m.hf_id,
        "imported": m.imported,
        "source": m.source,
    }


def register(app: typer.Typer) -> None:
    """Add ``gpus`` and ``models`` to the root app."""
    app.command("gpus")(gpus)
    app.add_typer(models_app, name="models")
