"""How ``gpuscout recommend`` prints a ranking: the table, the breakdown of one row (``--explain``), and CSV.

Provider strings and user input are printed as text, never as Rich markup.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.table import Table
from rich.text import Text

from gpuscout.cli.output import plain, printable, wide_console


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


def table(workload: Any, recs: list[Any], objective: str) -> None:
    out = wide_console()
    title = f"{workload.kind} {plain(workload.model)}: ranked by {objective}"
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
        offer = plain(f"{o.provider} {o.instance_type} ({o.region}) ${rec.price_usd_per_hour:,.2f}/h")
        warn = f" [yellow]⚠{len(rec.warnings)}[/]" if rec.warnings else ""
        table.add_row(
            str(rec.rank) if rec.rank is not None else "-",
            offer,
            plain(rec.config.describe(o.accelerator)),
            "yes" if rec.fits else "no",
            _speed(rec),
            _unit(rec),
            _total(rec, workload),
            plain(rec.top_reason) + warn,
        )
    out.print(table)
    if not recs:
        out.print("[yellow]No offer fits this workload with these constraints; try --rejected.[/]")
    else:
        out.print(
            "Details of a row: add --explain N. Prices: bundled snapshot unless refreshed "
            "(`gpuscout refresh`)."
        )


def explain(workload: Any, rec: Any) -> None:
    out = wide_console()
    o = rec.offer
    out.print(
        Text.assemble(
            (printable(f"#{rec.rank} {o.provider} {o.instance_type}"), "bold"),
            printable(f" ({o.region}) — {o.gpu_count}x {o.accelerator}, ${rec.price_usd_per_hour:,.4g}/h ")
            + ("spot" if rec.config.spot else "on-demand"),
        )
    )
    out.print(f"source: {plain(o.source)}")
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
        out.print(f"  • {plain(r)}", highlight=False)
    if rec.warnings:
        out.print("[bold yellow]warnings[/]")
        for w in rec.warnings:
            out.print(f"  ⚠ {plain(w)}", highlight=False)
    out.print("[bold]assumptions[/]")
    for k, v in rec.assumptions.items():
        out.print(f"  {plain(k)}: {plain(v)}", highlight=False)


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


def write_csv(recs: list[Any]) -> None:
    """The rank, every shown Offer field (derived from the dataclass), then the ranking's columns."""
    from gpuscout.catalog.offer_fields import RECORD_COLUMNS, offer_record, write_csv

    columns = ("rank", *RECORD_COLUMNS, *_REC_COLUMNS)
    records = ({"rank": r.rank, **offer_record(r.offer), **_rec_record(r)} for r in recs)
    write_csv(sys.stdout, columns, records)
