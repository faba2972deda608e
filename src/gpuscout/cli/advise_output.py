"""How ``gpuscout recommend`` prints an answer: the trade-off table (the Pareto front first, with the
cheapest, balanced and fastest picks named, then dominated rows), one row's breakdown (``--explain``),
and CSV.

Provider strings and user input are printed as plain ``Text`` (control characters shown as escapes),
never parsed as Rich markup.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from gpuscout.advise.pick_notes import assumed_board_picks, capacity_terms, fastest_premium
from gpuscout.advise.run_notes import run_mark, run_notes
from gpuscout.advise.types import PICK_LABELS
from gpuscout.cli.output import printable, wide_console
from gpuscout.cli.table_fit import (
    Column,
    Fold,
    Short,
    fitted_table,
    left_out_note,
    terminal_width,
    title_lines,
)
from gpuscout.cli.wrap import print_wrapped
from gpuscout.wording import key_words, money3, money_text, plural


def _text(value: object, style: str = "") -> Text:
    """Data (provider strings, user input) as plain text: no markup, control characters shown."""
    return Text(printable(value), style=style)


def duration(seconds: float | None) -> str:
    from gpuscout.advise.reasons import duration as fmt

    return "-" if seconds is None else fmt(seconds)


def _money(x: float | None, suffix: str = "") -> str:
    from gpuscout.advise.reasons import usd

    return usd(x, suffix)


def _unit(rec: Any) -> str:
    u = rec.unit_costs
    if u is None:
        return "-"
    if u.per_million_output_tokens is not None:
        return f"{money3(u.per_million_output_tokens)}/M tok"
    if u.per_image is not None:
        return f"{money3(u.per_image * 1000)}/1k img"
    if u.per_million_train_tokens is not None:
        return f"{money3(u.per_million_train_tokens)}/M tok"
    return "-"


def _speed(rec: Any) -> str:
    s = rec.estimate
    if s is None:
        return "-"
    if s.throughput_unit == "img/s":  # one unit down the column: "1.0 s/img" beside "7.90 img/s" misread
        rate = s.throughput
        return f"{rate:,.0f} img/s" if rate >= 100 else f"{rate:.3g} img/s"
    return f"{s.throughput:,.0f} {s.throughput_unit}"


def regions_text(regions: tuple[str, ...]) -> str:
    """'us-east-1', 'us-east-1 +3'."""
    if not regions:
        return "-"
    return regions[0] if len(regions) == 1 else f"{regions[0]} +{len(regions) - 1}"


def mark(rec: Any) -> str:
    """The trade-off column: the picks a front row carries ('cheapest, balanced': the footnote's picks
    line says "cheapest on the front", the column keeps the short names so that the identifiers beside it
    keep their room), 'front', or what dominates the row."""
    if rec.picks:
        return ", ".join(rec.picks)
    if rec.pareto:
        return "front"
    return f"beaten by #{rec.dominated_by}" if rec.dominated_by else "dominated"


def hour_price(rec: Any) -> str:
    """The offer's price per instance-hour as the table's $/h column and ``--explain`` write it: '$0.20',
    '$1.71', '$112.00' (cents always: '$0.2' beside '$1.712' read as prices of another precision)."""
    return f"${rec.price_usd_per_hour:,.2f}"


def hourly(rec: Any) -> str:
    """The offer's price per instance-hour, times the instances a row rents ('2 x $3.20'): the price
    alone beside '2 x 8x RTX5090' read as the whole deployment's."""
    price = hour_price(rec)
    return f"{rec.config.instances} x {price}" if rec.config.instances > 1 else price


def _ms(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f} ms" if x < 10_000 else f"{x / 1000:,.1f} s"


def _shown_warnings(rec: Any, notes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in rec.warnings if w not in notes)


def config_cell(rec: Any) -> str:
    """The row's configuration ('2x H100-SXM TP2'), with what it runs where that is not what the title
    names ('1x V100-SXM2-16GB · llama.cpp gguf-f16', the advisor's ``Recommendation.names_run``, as the
    web page decides it): the column stays at every width, where the reason saying so gives way first."""
    text = rec.config.describe(rec.offer.accelerator)
    return f"{text} · {rec.run_label}" if rec.names_run else text


def table(workload: Any, advice: Any) -> None:
    """The answer as a terminal table, with the targets and shared caveats above it."""
    out = wide_console()
    serve = workload.kind == "serve"
    recs = advice.rows
    order = {
        "cost": "cheapest first",
        "time": "fastest first",
        "latency": "fastest first",
        "balanced": "by cost/cheapest x time/fastest",
    }[advice.objective]
    what = "cost / latency" if serve else "cost / time"
    runs = f" ({advice.runs})" if advice.runs else ""
    title = printable(
        f"{workload.kind} {workload.model}{runs}: {advice.front_size} on the {what} front, {order}"
    )
    # on lines that end between its phrases: wrapped by Rich, "cheapest first" broke as "cheapest" / "first"
    out.print(Text(title_lines(title, terminal_width(out))), style="bold", highlight=False)
    for line in advice.targets:  # a bullet's lines under its text, not at the left edge
        print_wrapped(out, printable(line), prefix="  • ")
    if advice.notes:
        print_wrapped(out, printable("every row: " + "; ".join(advice.notes)), prefix="  • ")
    notes = run_notes(recs)  # why rows run otherwise than asked: said once, not on each of its rows
    for run_note in notes:
        print_wrapped(out, printable(f"{run_note.heading}: {run_note.text}"), prefix="  • ")
    if not recs:
        out.print(Text("No offer can run this workload under these constraints.", style="yellow"))
        if advice.moves:  # what binds, then its ways out as bullets, each wrapped under its text
            out.print(_text(f"Why: {advice.binding_why}; what would give an answer:"), highlight=False)
            for move in advice.moves:
                lead = "as a last resort, " if move.group == "last resort" else ""
                print_wrapped(out, printable(lead + move.text), prefix="    - ")
        elif advice.binding:
            out.print(_text(f"Why: {advice.binding}"), highlight=False)
        if advice.engine_note:
            out.print(_text(f"Engine: {advice.engine_note}."), style="yellow", highlight=False)
        out.print(Text("See each offer's reason with --show-rejected."), highlight=False)
        return
    # Narrow terminals keep the rank, who, what, the latency or time, and the cost; the row's reason
    # (--explain N has it all) gives way first and the instance name last.
    columns = [
        Column("#", right=True),
        Column("trade-off", drop=5),
        Column("provider", max_width=14),
        Column("instance (regions)", drop=6, max_width=22),
        Column("config"),
        Column("$/h", right=True, drop=2),
    ]
    if serve:
        columns += [
            Column("TTFT", right=True),
            Column("tok/s/user", right=True),
            Column("latency", right=True, drop=3),
            Column("cost/unit", right=True, drop=4),
            Column("$/month", right=True),  # what "cheapest first" orders by: kept at any width
        ]
    else:
        columns += [
            Column("time", right=True),
            Column("speed", right=True, drop=3),
            Column("cost/unit", right=True, drop=4),
            Column("total", right=True),
        ]
    columns.append(Column("why", drop=1))
    rows: list[list[Any]] = []
    of_row: list[Any] = []  # the recommendation of each row (None: a row saying rows were cut)
    # the picks are named whatever --top shows: the rows cut run to the last of them
    gaps = not_shown(recs, upto=max(advice.picks.values(), default=0))
    gap_at = {end + 1: (start, end) for start, end in gaps}

    def gap_row(start: int, end: int) -> None:  # rows the --top left out: a row of its own says so
        rows.append(["⋮", *[""] * (len(columns) - 1)])
        of_row.append(None)
        more = end - start + 1
        rows[-1][2] = _text(f"{more} more {plural(more, 'row')}", style="dim")

    for rec in recs:
        if rec.rank in gap_at:
            gap_row(*gap_at[rec.rank])
        o, s = rec.offer, rec.estimate
        warn = _shown_warnings(rec, advice.notes)
        why = _text(why_text(rec, notes, advice.asked_run))
        if warn:
            why.append(f" ⚠{len(warn)}", style="yellow")
        cells: list[Any] = [
            str(rec.rank),
            _text(mark(rec), style="green" if rec.picks else ("" if rec.pareto else "dim")),
            provider_cell(rec),
            _text(f"{o.instance_type} ({regions_text(rec.regions)})"),
            _text(config_cell(rec)),
            hourly(rec),
        ]
        if serve:
            per_user = s.per_user_tokens_per_s if s is not None else None
            cells += [
                _ms(s.ttft_ms if s else None),
                "-" if per_user is None else f"{per_user:.0f}",
                duration(rec.time_to_result_s),
                _unit(rec),
                _money(rec.total_usd),
            ]
        else:
            cells += [duration(rec.time_to_result_s), _speed(rec), _unit(rec), _money(rec.total_usd)]
        rows.append([*cells, why])
        of_row.append(rec)
    shown = {rec.rank for rec in recs}
    if gaps and gaps[-1][0] > max(r or 0 for r in shown):  # picks past the last row shown
        gap_row(*gaps[-1])
    # rows that read alike once columns give way (the same provider, configuration and figures, sold in
    # other regions or as other instance types) are one row saying so, as an offer sold in several
    # regions at one price is ("3 regions")
    fold = Fold(
        at="config",
        note=lambda alike: fold_note([of_row[n] for n in alike]),
        ignore=("#",),
        keep=frozenset(n for n, rec in enumerate(of_row) if rec is None),
    )
    # where the trade-off column gives way, a rule parts the front from the rows off it, which
    # otherwise read, without colour, as a sorting slip ("$25,393" then "$5,739")
    off_front = next((n for n, rec in enumerate(of_row) if rec is not None and not rec.pareto), None)
    rule = None if off_front is None else ("trade-off", off_front)
    t, left_out = fitted_table(None, columns, rows, terminal_width(out), fold=fold, rule=rule)
    out.print(t)
    if any(row.end_section for row in t.rows):
        out.print(_text(OFF_FRONT_LEGEND), highlight=False)
    rule = advice.picks_rule[:1].upper() + advice.picks_rule[1:]
    terms = {rec.rank: capacity_terms(rec) for rec in recs if rec.rank in advice.picks.values()}
    boards = assumed_boards(recs, advice.picks)
    picks = picks_text(advice.picks, shown, advice.uncalibrated_picks, boards, terms)
    undercut = cheaper_than_cheapest(recs, advice.picks)
    if undercut:
        picks += f"; {undercut}"
    premium = fastest_premium(recs, advice.picks)
    if premium:
        picks += f"; {premium}"
    out.print(_text(f"Picks: {picks}. {rule}."), highlight=False)
    if advice.engine_note:
        out.print(_text(f"Engine: {advice.engine_note}."), style="yellow", highlight=False)
    if gaps:
        last = max(gaps[-1][1], *(r or 0 for r in shown))
        out.print(
            _text(
                f"Rows cut by --top: {', '.join(_span(start, end) for start, end in gaps)} (the picks come "
                f"first; a row keeps its number whatever --top is: --top {last} shows them all)."
            ),
            highlight=False,
        )
    out.print(
        Text("Details of a row: --explain N; why offers are left out: --show-rejected."), highlight=False
    )
    note = left_out_note(left_out)
    if note:
        out.print(Text(note), highlight=False)


#: What the rule drawn where the trade-off column gives way means.
OFF_FRONT_LEGEND = (
    "Under the rule: rows off the front, each with another row as cheap and as fast (the trade-off "
    "column, not shown at this width, names it; --explain N)."
)


def why_text(rec: Any, notes: Any, asked: str) -> str:
    """The row's "why" cell: its first reason; where that is why it runs otherwise than asked and a note
    above the table says it (:func:`~gpuscout.advise.run_notes.run_notes`), what differs ("llama.cpp in
    place of vllm (note 1)") and the reason after it (how it fits)."""
    if not rec.substitution:
        return str(rec.top_reason)
    rest = [r for r in rec.reasons if r != rec.substitution][:1]
    return "; ".join([run_mark(rec, notes, asked), *rest])


def provider_cell(rec: Any) -> Text | Short:
    """The provider's display name; where the column is cut and the name would be ("Amazon Web Se…"),
    the first of its shorter names that fits (:func:`~gpuscout.knowledge.providers.short_names`:
    "Google Cloud" for "Google Cloud (Compute Engine)"), else the provider's id ("aws", the name
    --provider takes)."""
    from gpuscout.knowledge.providers import short_names

    name, provider_id = rec.provider_name or rec.offer.provider, rec.offer.provider
    shorter = short_names(name, provider_id)
    if not shorter:
        return _text(name)
    return Short(_text(name), tuple(_text(n) for n in shorter))


def fold_note(recs: Any) -> str:
    """'#29, #30: 2 regions': rows the table folds into one (they read alike at its width), by number,
    and the regions they are sold in between them ('2 offers' where they share their regions)."""
    ranks = [rec.rank for rec in recs]
    regions = {region for rec in recs for region in (rec.regions or (rec.offer.region,))}
    what = f"{len(regions)} regions" if len(regions) > 1 else f"{len(recs)} offers"
    numbers = ", ".join(f"#{n}" for n in ranks)
    if len(ranks) > 3:  # five rows alike: '#4-#8' when their numbers run on, else the first two and '…'
        run = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
        numbers = _span(ranks[0], ranks[-1]) if run else f"#{ranks[0]}, #{ranks[1]}, …"
    return f"{numbers}: {what}"


def not_shown(recs: Any, upto: int = 0) -> list[tuple[int, int]]:
    """The numbers the shown rows skip, as (first, last) spans: the rows ``--top`` left out before a
    pick it kept (a row's number is its place in the whole answer, whatever ``--top`` is), and those
    after the last shown row up to ``upto`` (the last pick's number: a pick ``--top`` had no room for)."""
    spans: list[tuple[int, int]] = []
    previous = 0
    for rec in recs:
        if rec.rank is None:
            continue
        if rec.rank > previous + 1:
            spans.append((previous + 1, rec.rank - 1))
        previous = rec.rank
    if upto > previous:
        spans.append((previous + 1, upto))
    return spans


def picks_text(
    picks: dict[str, int],
    shown: set[int | None],
    uncalibrated: Sequence[Any] = (),
    boards: str = "",
    terms: dict[int, str] | None = None,
) -> str:
    """'cheapest on the front #1, balanced #6 (not shown), fastest on the front #11 (not shown)': every
    pick in its words (:data:`~gpuscout.advise.types.PICK_LABELS`) by its number, and
    those ``--top`` left no room for said so; a pick whose row's speed is uncalibrated says so and names
    its calibrated alternative ('fastest on the front #2 (speed uncalibrated for MI300X training;
    calibrated: #1)',
    ``Advice.uncalibrated_picks``), with how to see that row where the table does not show it
    ('calibrated: #122, not shown: --explain 122'); ``boards`` (:func:`assumed_boards`) follows, once.
    ``terms``: what a pick's row rents when not on-demand, by its number ('cheapest on the front #1
    (spot)', :func:`~gpuscout.advise.pick_notes.capacity_terms`): its price is the spot price."""
    terms = terms or {}
    if any(u.calibrated is None for u in uncalibrated):
        # no row of the answer has a calibrated speed: said once, not after every pick
        plain = picks_text(picks, shown, terms=terms)
        said = "speeds uncalibrated: no row here has a calibrated speed"
        # the engine's uncalibrated figures, which a row's hardware does not tell: each pick's once
        # ("(H200-SXM serving: MoE layers, fp8-block kernels)"); the hardware alone each row's warning names
        parts = list(dict.fromkeys(u.what for u in uncalibrated if getattr(u, "parts", ())))
        said += f" ({'; '.join(parts)})" if parts else ""
        return f"{plain} — {said}" + (f"; {boards}" if boards else "")
    # a calibrated alternative the table does not show: how to see it
    caveat = {
        u.pick: u.text + ("" if u.calibrated in shown else f", not shown: --explain {u.calibrated}")
        for u in uncalibrated
    }
    out = []
    for name, n in picks.items():
        notes = (
            ([] if n in shown else ["not shown"])
            + ([terms[n]] if terms.get(n) else [])
            + ([caveat[name]] if name in caveat else [])
        )
        out.append(f"{PICK_LABELS.get(name, name)} #{n}" + (f" ({'; '.join(notes)})" if notes else ""))
    return ", ".join(out) + (f" — {boards}" if boards else "")


def cheaper_than_cheapest(recs: Sequence[Any], picks: dict[str, int]) -> str:
    """Where a row shown costs less than the cheapest pick (the front lets a row much faster beat a
    slightly cheaper one), what it saves and what it costs in time, so that "cheapest" is not read as
    the least total in the table: "#6 costs $0.69 less than #1 but takes 15x as long (off the front)".
    The cheapest such row; "" when none."""
    n = picks.get("cheapest")
    pick = next((r for r in recs if r.rank == n), None)
    if pick is None or pick.total_usd is None or not pick.time_to_result_s:
        return ""
    cheaper = [
        r
        for r in recs
        if r.rank != n and r.total_usd is not None and r.total_usd < pick.total_usd and r.time_to_result_s
    ]
    if not cheaper:
        return ""
    low = min(cheaper, key=lambda r: r.total_usd)
    saved = pick.total_usd - low.total_usd
    slower = low.time_to_result_s / pick.time_to_result_s
    # the saving beside the pick's total, to its precision (``wording.money_text``): beside totals
    # shown to the cent, one under a cent is said as such (two totals both shown "$2.34"); beside a
    # total under a cent, to its last figure ("$0.0003 less" than "$0.0019", "under $0.0001 less")
    said = money_text(saved, beside=pick.total_usd)
    less = "under a cent less" if said == "<$0.01" else f"{said.replace('<', 'under ', 1)} less"
    return f"#{low.rank} costs {less} than #{n} but takes {slower:.1f}x as long (off the front)"


def assumed_boards(recs: Sequence[Any], picks: dict[str, int]) -> str:
    """The picks whose row is timed on a board its source does not state (the row's "board assumed
    SXM5 (...): ..." reason, ``advise.reasons``; the other board would time its GPUs' exchanges over
    another fabric), said once after the picks as "speeds uncalibrated" is: "#1's speed rests on an
    assumed board, SXM5 (the source says only 'H100'): --explain 1". Only rows in ``recs`` (shown)
    are read; "" when no pick's row assumes a board."""
    found = assumed_board_picks(recs, picks)
    if not found:
        return ""
    if len(found) == 1:
        n, board = found[0]
        return f"#{n}'s speed rests on an assumed board, {board}: --explain {n}"
    said = ", ".join(f"#{n} {board}" for n, board in found)
    return f"speeds rest on assumed boards: {said}: --explain N"


def _span(start: int, end: int) -> str:
    return f"#{start}" if start == end else f"#{start}-#{end}"


def rejected_table(recs: list[Any]) -> None:
    """The rows left out, and why: an offer priced on demand and on spot is two rows (each its own
    reason), so there may be more rows than offers (the answer's head counts offers, each once). Rows
    out only because the workload names other GPUs, providers or regions are counted under the table,
    not listed (``--gpu MI300X`` left out 748 rows, each "GPU not in the asked list"; ``--json`` lists
    them)."""
    if not recs:
        return
    from collections import Counter

    from gpuscout.advise.rank import NOT_ASKED

    out = wide_console()
    not_asked = Counter(r.rejected for r in recs if r.rejected in NOT_ASKED)
    recs = [r for r in recs if r.rejected not in NOT_ASKED]
    tail = "; ".join(f"{why}: {n:,}" for why, n in not_asked.most_common()) + "; --json lists them"
    others = "GPUs, providers or regions other than those asked"
    if not recs:
        n = sum(not_asked.values())
        out.print(f"{n:,} {plural(n, 'row')} left out, all of {others} ({tail})")
        return
    t = Table(title=f"{len(recs)} {plural(len(recs), 'row')} left out")
    t.add_column("provider")
    t.add_column("instance (regions)", overflow="fold")
    t.add_column("GPUs")
    t.add_column("why left out", overflow="fold")
    for rec in recs:
        o = rec.offer
        t.add_row(
            _text(rec.provider_name or o.provider),
            _text(f"{o.instance_type} ({regions_text(rec.regions)})"),
            _text(f"{o.gpu_count}x {o.accelerator}"),
            _text(rec.rejected or ""),
        )
    out.print(t)
    if not_asked:
        n = sum(not_asked.values())
        out.print(f"and {n:,} {plural(n, 'row')} of {others} ({tail})")


def _estimate_table(workload: Any, rec: Any) -> Table:
    """``explain``'s estimate: engine, speed, memory, load and time of a row."""
    s = rec.estimate
    rows = Table(title="estimate", show_header=False)
    rows.add_column("what")
    rows.add_column("value", justify="right")
    if s.engine:
        rows.add_row("engine / precision", _text(f"{s.engine} / {s.precision}"))
    rows.add_row("throughput", f"{s.throughput:,.2f} {s.throughput_unit}")
    if s.per_user_tokens_per_s is not None:
        rows.add_row("per user", f"{s.per_user_tokens_per_s:,.1f} tok/s")
    if s.ttft_ms is not None:
        rows.add_row("TTFT", f"{s.ttft_ms:,.0f} ms")
    if s.tpot_ms is not None:
        rows.add_row("time per output token", f"{s.tpot_ms:,.1f} ms")
    if s.decode_step:
        rows.add_row("decode step (parts overlap)", _text(s.decode_step))
    from gpuscout.estimate.memory import gib  # GB (the estimator's unit) as GiB, as GPU memory is sold

    rows.add_row("memory per GPU", f"{gib(s.memory_per_gpu_gb):,.1f} of {gib(s.memory_capacity_gb):,.1f} GiB")
    if s.keeps_kv_cache:
        rows.add_row("weights / KV per GPU", f"{gib(s.weights_gb):,.1f} / {gib(s.kv_cache_gb):,.1f} GiB")
    else:  # a training step or an image pipeline keeps no KV cache
        rows.add_row("weights per GPU", f"{gib(s.weights_gb):,.1f} GiB")
    if s.batch_per_replica is not None and s.max_batch_per_replica is not None:
        rows.add_row("users per replica (max)", f"{s.batch_per_replica} ({s.max_batch_per_replica})")
    if s.capacity_users is not None:
        limit = f" ({s.capacity_limit})" if s.capacity_limit else ""
        rows.add_row("sustains", f"{s.capacity_users:,} {plural(s.capacity_users, 'user')}{limit}")
    if rec.time_to_result_s is not None:
        label = "request latency" if workload.kind == "serve" else "time to finish"
        rows.add_row(label, duration(rec.time_to_result_s))
    if rec.time_s is not None and workload.kind == "serve":
        rows.add_row("active per day", duration(rec.time_s))
    return rows


def _breakdown_usd(x: float, total: float | None = None) -> str:
    """An amount of ``explain``'s cost breakdown, in USD without the sign, by the rule the web page's
    breakdown follows (:func:`gpuscout.wording.money_text`): its total as the table's ('0.0019' for a job
    of a fifth of a cent, '0.000041'), its items ``beside`` it to the total's precision ('<0.01' beside
    '199.13', '0.0017' beside '0.0019'); cents always from a cent ('1,234.50')."""
    return money_text(x, sign="", beside=total)


def _cost_table(workload: Any, rec: Any) -> Table:
    """``explain``'s cost breakdown of a row, with its unit costs."""
    cost = Table(title="cost (USD" + (", per month)" if workload.kind == "serve" else ", per run)"))
    cost.add_column("item")
    cost.add_column("USD", justify="right")
    for name in ("compute", "warmup", "storage", "egress", "interruption"):
        cost.add_row(name, _breakdown_usd(getattr(rec.cost, name), rec.cost.total))
    cost.add_row(Text("total", style="bold"), _text(_breakdown_usd(rec.cost.total), style="bold"))
    u = rec.unit_costs
    if u is not None:
        # the costs per unit as the table's cost/unit column writes them (``wording.money3``), in USD
        for label, val in (
            ("per M output tokens", u.per_million_output_tokens),
            ("per 1k requests", u.per_1k_requests),
            ("per 1k images", None if u.per_image is None else u.per_image * 1000),
            ("per M train tokens", u.per_million_train_tokens),
        ):
            if val is not None:
                cost.add_row(label, money3(val).replace("$", "", 1))
    return cost


def billing_note(rec: Any) -> str:
    """The row's reason saying what billing rounds up (``advise.reasons.billing_rounding``: the hours
    billed a day against those active), shown under ``--explain``'s cost table; "" where it has none."""
    from gpuscout.advise.reasons import BILLING_ROUNDING

    return next((r for r in rec.reasons if r.startswith(BILLING_ROUNDING)), "")


def explain(workload: Any, rec: Any) -> None:
    out = wide_console()
    o = rec.offer

    def line(text: str, style: str = "") -> None:
        out.print(_text(text, style=style), highlight=False)

    line(
        f"#{rec.rank} {rec.provider_name or o.provider} {o.instance_type} — {o.gpu_count}x {o.accelerator}, "
        f"{hour_price(rec)}/h {'spot' if rec.config.spot else 'on-demand'}",
        "bold",
    )
    picked = ", ".join(PICK_LABELS.get(p, p) for p in rec.picks)
    line(
        f"trade-off: {picked or mark(rec)}"
        + (" (on the Pareto front)" if rec.pareto and not rec.picks else "")
    )
    line(f"regions: {', '.join(rec.regions) or o.region}")
    print_wrapped(out, printable(o.source), prefix="source: ")  # a snapshot's address whole
    if o.notes:  # what the source says of its price or host ("the median of a group ..., not one listing")
        print_wrapped(out, printable(o.notes), prefix="source's note: ")
    if rec.substitution:
        line(f"runs differently from what was asked: {rec.substitution}", "yellow")
    c = rec.config
    gpus = f"{c.gpus_per_instance} {plural(c.gpus_per_instance, 'GPU')}"
    if c.training:  # training: the GPUs share one job; tensor-parallel replicas are a serving notion
        nodes = f"{c.nodes} {plural(c.nodes, 'node')}"
        line(f"config: {c.instances} {plural(c.instances, 'instance')} x {gpus}, {nodes}")
        line(f"training: {c.training}")
    else:
        # inference: each instance is a machine of its own (the replicas share no fabric between them)
        line(
            f"config: {c.instances} {plural(c.instances, 'instance')} x {gpus}, {c.split}, "
            f"{c.replicas_per_instance} {plural(c.replicas_per_instance, 'replica')} per instance, "
            f"{c.gpus_used} {plural(c.gpus_used, 'GPU')}"
            + (f" ({c.idle_per_instance} idle per instance, paid for)" if c.idle_per_instance else "")
        )
    if rec.estimate is not None:
        out.print(_estimate_table(workload, rec))
    rounding = billing_note(rec)
    if rec.cost is not None:
        out.print(_cost_table(workload, rec))
        if rounding:  # what compute holds besides the active hours, so the lines multiply out
            line(rounding)
    line("reasons", "bold")
    for r in rec.reasons:
        if r != rounding or rec.cost is None:  # said under the cost table
            print_wrapped(out, printable(r), prefix="  • ")
    if rec.warnings:
        line("warnings", "bold yellow")
        for w in rec.warnings:
            print_wrapped(out, printable(w), prefix="  ⚠ ")
    line("assumptions", "bold")
    for k, v in rec.assumptions.items():  # under its key: a source's address whole
        print_wrapped(out, printable(v), prefix=f"  {printable(key_words(k))}: ")


#: The ranking's own columns of ``recommend --csv``, after the rank and the offer's fields.
_REC_COLUMNS = (
    "provider_name",
    "regions_sold",
    "trade_off",
    "pareto",
    "picks",
    "dominated_by",
    "spot",
    "instances",
    "tp",
    "parallel",
    "replicas_per_instance",
    "fits",
    "engine",
    "precision",
    "throughput",
    "throughput_unit",
    "ttft_ms",
    "tpot_ms",
    "time_to_result_s",
    "usd_per_hour",
    "compute",
    "warmup",
    "storage",
    "egress",
    "interruption",
    "total",
    "usd_per_m_output_tokens",
    "usd_per_image",
    "usd_per_m_train_tokens",
    "time_s",
    "substitution",
    "fabric_assumed",
    "top_reason",
    "warnings",
    "rejected",
)


def _rec_record(r: Any) -> dict[str, Any]:
    c, s, cost, u = r.config, r.estimate, r.cost, r.unit_costs
    costs = ("compute", "warmup", "storage", "egress", "interruption")
    return {
        "provider_name": r.provider_name,
        "regions_sold": "; ".join(r.regions),
        "trade_off": mark(r) if r.rank is not None else "rejected",
        "pareto": r.pareto,
        "picks": "; ".join(r.picks),
        "dominated_by": r.dominated_by,
        "spot": c.spot,
        "instances": c.instances,
        "tp": c.tp,
        "parallel": c.parallel,
        "replicas_per_instance": c.replicas_per_instance,
        "fits": r.fits,
        "engine": s.engine if s else None,
        "precision": s.precision if s else None,
        "throughput": s.throughput if s else None,
        "throughput_unit": s.throughput_unit if s else None,
        "ttft_ms": s.ttft_ms if s else None,
        "tpot_ms": s.tpot_ms if s else None,
        "prefill_share": s.prefill_share if s else None,
        "checkpoint_every_s": c.checkpoint_every_s,
        "time_to_result_s": r.time_to_result_s,
        "usd_per_hour": r.price_usd_per_hour,
        **{name: getattr(cost, name) if cost else None for name in costs},
        "total": cost.total if cost else None,
        "usd_per_m_output_tokens": u.per_million_output_tokens if u else None,
        "usd_per_1k_requests": u.per_1k_requests if u else None,
        "usd_per_image": u.per_image if u else None,
        "usd_per_m_train_tokens": u.per_million_train_tokens if u else None,
        "time_s": r.time_s,
        "substitution": r.substitution,
        "fabric_assumed": r.fabric_assumed,
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
