"""Catalog commands: ``refresh``, ``sources``, ``offers``, ``history``, ``prune``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from typer.core import TyperCommand

from gpuscout.catalog.filter_bounds import MAX_GPU_MEMORY_GB, MAX_GPUS_PER_OFFER, MAX_PRICE_USD_PER_HOUR
from gpuscout.catalog.query import DEFAULT_SORT, SORT_ALIASES, SORT_KEYS
from gpuscout.cli.help_layout import help_paragraphs
from gpuscout.cli.offers_view import MAX_ROWS, print_offers_csv
from gpuscout.cli.offers_view import age_text as _age
from gpuscout.cli.offers_view import money as _money
from gpuscout.cli.offers_view import short_source as short_source
from gpuscout.cli.output import (
    CsvOption,
    DbOption,
    JsonOption,
    console,
    err_console,
    number,
    plain,
    print_json,
    print_records,
    to_jsonable,
    user_errors,
    wide_console,
)
from gpuscout.cli.table_fit import Column, fitted_table, terminal_width
from gpuscout.errors import InvalidInputError
from gpuscout.wording import REGION_HELP, plural

if TYPE_CHECKING:
    from rich.console import Console

    from gpuscout.catalog.refresh import RefreshStore
    from gpuscout.catalog.status import HistoryPoint, SourceStatus


_SPARK = "▁▂▃▄▅▆▇█"
# Bounds of the numeric options (refused beyond them with the range): far past any real offer.
MAX_DAYS = 36_500.0  # a century of history
MAX_REFRESH_SECONDS = 86_400.0  # a refresh that may take a day


#: What ``history`` leaves out (``catalog.status.price_history``), said under its table.
HISTORY_LEFT_OUT = (
    "auction (interruptible) prices and prices flagged stale by their feed are left out; "
    "older prices are kept at their own date"
)

SOURCES_HELP = (
    "Every source with its state (active, needs credentials, retired...), the age of its current data, its "
    "last attempt and error, and why rows were dropped (counts per reason)."
)


def register(app: typer.Typer) -> None:
    """Add the catalog commands to ``app``."""
    app.command("refresh")(refresh_cmd)
    app.command("sources", help=SOURCES_HELP)(sources_cmd)
    app.command("offers")(offers_cmd)
    app.command("history", cls=_HistoryCommand, help=help_paragraphs(history_cmd.__doc__ or ""))(history_cmd)
    app.command("prune")(prune_cmd)


def refresh_cmd(
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source", "-s", help="Source to refresh (repeatable): a name, 'snapshot' or 'file:PATH'."
        ),
    ] = None,
    db: DbOption = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            parser=number(1, MAX_REFRESH_SECONDS),
            help="Per-source deadline, seconds (a hung provider is cut off); "
            "default 120 or $GPUSCOUT_REFRESH_TIMEOUT.",
        ),
    ] = None,
    deadline: Annotated[
        float | None,
        typer.Option(
            "--deadline",
            parser=number(1, MAX_REFRESH_SECONDS),
            help="Deadline for the whole refresh, seconds (default: --timeout + 30 for storing).",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Refresh offers from the providers, concurrently; each source is validated and stored on its own.

    Every source has its own deadline and the whole run has one, whatever the network does.

    Each provider says on stderr when it starts and when it waits to try again.

    A source that fails keeps its last good data. Exits non-zero only when every requested source failed.
    """
    from gpuscout.catalog.api import open_refresh_store
    from gpuscout.catalog.refresh import RefreshResult, default_sources, refresh, resolve_sources, summarize

    with user_errors():
        store = open_refresh_store(db)
        chosen = resolve_sources(source) if source else default_sources()
        if not chosen:
            console.print("no sources to refresh")
            return
        results: list[RefreshResult]
        if json_out:  # progress on stderr: stdout is the JSON alone
            results = refresh(
                store, chosen, timeout_s=timeout, deadline_s=deadline, on_progress=_progress_line
            )
            print_json(results)
            store.close()
            if not any(r.ok for r in results):
                raise typer.Exit(1)
            return
        out = wide_console()
        if out.is_terminal and _is_tty(out):
            results = _refresh_with_progress(out, store, chosen, timeout, deadline)
            out.print(_summary_table(results, out.width))
        else:  # a log or a pipe (even one Rich is told to colour): each source's final state, once
            results = refresh(
                store, chosen, timeout_s=timeout, deadline_s=deadline, on_progress=_progress_line,
                on_result=lambda r: out.print(plain(_result_line(r)), highlight=False, soft_wrap=True),
            )  # fmt: skip
        if any(r.error for r in results):
            out.print(REFRESH_DETAIL_NOTE, markup=False, highlight=False)
        out.print(plain(summarize(results, store).line), highlight=False)
    store.close()
    if not any(r.ok for r in results):
        raise typer.Exit(1)


def _progress_line(source: str, text: str) -> None:
    """``vastai: no good answer after 30s (try 1 of 4); retry 2 of 4 in 1.02s``, on stderr."""
    err_console.print(plain(f"{source}: {text}"), highlight=False, soft_wrap=True)


#: Said under a refresh's results when a source failed, was refused or skipped: its line gives the short
#: reason, ``sources`` the whole error.
REFRESH_DETAIL_NOTE = "the full error of each source: gpuscout sources (--json for the whole text)"
#: The longest reason a result line gives: the first words of an error no rule shortens.
MAX_REASON_CHARS = 60
#: The narrowest reason column before the time and dropped columns give way to it.
MIN_REASON_WIDTH = 30

# What a failure comes down to, by what its error says (the error names the URL, the exception and its
# errno; the reason names the problem). Checked in order: a timeout's text may also name a connection.
_NETWORK_DOWN = re.compile(
    r"name or service not known|nodename nor servname|temporary failure in name resolution|"
    r"getaddrinfo failed|no address associated|network is unreachable|no route to host|"
    r"\[errno -[23]\]|\[errno (?:101|113|65)\]",
    re.IGNORECASE,
)
_TIMED_OUT = re.compile(r"timed out after (\S+?)(?=[\s;,)]|$)")
_UNFINISHED = re.compile(r"did not finish within (\S+?)(?=[\s;,)]|$)")  # gpuhunt's download, cut off
_TIMEOUT_WORDS = re.compile(r"no complete answer within|timeout|timed out", re.IGNORECASE)
_HTTP = re.compile(r"\bHTTP (\d{3})\b")
_TRIES = re.compile(r"gave up after (\d+) attempts?")
_CREDENTIALS = re.compile(r"credentials missing: set (.+)$")


def short_reason(error: str | None, source: str = "") -> str:
    """Why a source's refresh did not succeed, in a few words: ``network unreachable (4 tries)``,
    ``timed out after 20s``, ``HTTP 503``, ``needs RUNPOD_API_KEY``; an error no rule shortens keeps
    its first :data:`MAX_REASON_CHARS` characters. The whole error is in ``gpuscout sources``."""
    if not error:
        return ""
    text = error.strip()
    if source and text.startswith(f"{source}: "):
        text = text[len(source) + 2 :]
    text = text.split(" (not recorded: ")[0]  # the store's own trouble: `sources` shows the rest
    tries = _TRIES.search(text)
    suffix = f" ({tries[1]} tries)" if tries and tries[1] != "1" else ""
    if (m := _CREDENTIALS.search(text)) is not None:
        return f"needs {m[1]}"
    if (m := _TIMED_OUT.search(text)) is not None:
        return f"timed out after {m[1]}"
    if (m := _UNFINISHED.search(text)) is not None:
        return f"timed out (did not finish within {m[1]})"
    if (m := _HTTP.search(text)) is not None:
        refused = " (check the credentials)" if m[1] in ("401", "403") else ""
        return f"HTTP {m[1]}{refused}{suffix}"
    if _NETWORK_DOWN.search(text):
        return f"network unreachable{suffix}"
    if "connection refused" in text.lower():
        return f"connection refused{suffix}"
    if _TIMEOUT_WORDS.search(text):
        return f"timed out{suffix}"
    if "ConnectError" in text or "URLError" in text:
        return f"cannot connect{suffix}"
    if text.startswith("answer too large"):
        return "answer too large"
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1].rstrip() + "\u2026"


def _is_tty(out: Console) -> bool:
    """Whether ``out`` writes to a terminal that redraws in place: Rich also says "terminal" for a pipe
    when told to colour (FORCE_COLOR), where a spinner's every redraw would land in the log."""
    isatty = getattr(out.file, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):  # a closed stream
        return False


def _result_line(r: object) -> str:
    """``vastai: ok 512 rows in 1.2s (3 dropped)`` or ``lambda: failed in 4.0s - HTTP 503``: one line, the
    short reason (:func:`short_reason`)."""
    from gpuscout.catalog.refresh import RefreshResult

    assert isinstance(r, RefreshResult)
    text = f"{r.source}: {r.status} {r.rows} rows in {r.elapsed_s:.1f}s"
    if r.dropped:
        text += f" ({r.dropped} dropped)"
    if r.error:
        text += f" - {short_reason(r.error, r.source)}"
    return text


def _summary_table(results: list[Any], width: int | None = None) -> Table:
    """The refresh's results, one line per source at any ``width`` (the terminal's; ``None``: no limit):
    a long source name and the reason end in an ellipsis (the whole error is in ``gpuscout sources``)."""
    dropped = any(r.dropped for r in results)
    rows: list[list[str]] = []
    for r in results:
        cells = [plain(r.source), r.status, str(r.rows)]
        if dropped:
            cells.append(str(r.dropped))
        rows.append([*cells, f"{r.elapsed_s:.1f}s", plain(short_reason(r.error, r.source))])
    headers = ["source", "status", "rows", *(["dropped"] if dropped else []), "time", "reason"]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]
    widths[0] = min(widths[0], 18)

    def room() -> int:  # what the other columns leave the reason (3 per column: padding and rule)
        return (width or 0) - sum(widths[:-1]) - 3 * len(widths) - 1

    if width is not None:
        for gives_way in ("time", "dropped"):  # a narrow terminal keeps the reason readable first
            if room() < MIN_REASON_WIDTH and gives_way in headers:
                i = headers.index(gives_way)
                del headers[i], widths[i]
                for row in rows:
                    del row[i]
        widths[-1] = max(len("reason"), min(widths[-1], room()))
    table = Table(title="refresh summary")
    for i, header in enumerate(headers):
        right = header in ("rows", "dropped", "time")
        table.add_column(
            header, justify="right" if right else "left", no_wrap=True, overflow="ellipsis", width=widths[i]
        )
    for row in rows:
        table.add_row(*row)
    return table


def _refresh_with_progress(
    out: Console, store: RefreshStore, chosen: list[Any], timeout: float | None, deadline: float | None
) -> list[Any]:
    """The refresh with one Rich progress line per source, updated as each one ends; each line is cut
    to the terminal's width (never wrapped). When every line fits the screen, the lines go once the
    refresh is over: the summary table says each source's final state, once."""
    from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
    from rich.table import Column as RichColumn

    from gpuscout.catalog.refresh import RefreshResult, refresh

    text = TextColumn(
        "{task.description}", table_column=RichColumn(no_wrap=True, overflow="ellipsis", ratio=1)
    )
    with Progress(
        SpinnerColumn(),
        text,
        TimeElapsedColumn(),
        console=out,
        transient=len(chosen) < out.height - 1,
        expand=True,
    ) as progress:
        tasks: dict[str, TaskID] = {}

        def started(name: str) -> None:
            tasks[name] = progress.add_task(f"{plain(name)}: fetching", total=1)

        def doing(name: str, text: str) -> None:  # the line says what the source is waiting for
            task = tasks.get(name)
            if task is not None:
                progress.update(task, description=f"{plain(name)}: {plain(text)}")

        def finished(r: RefreshResult) -> None:
            style = {"ok": "green", "rejected": "yellow", "skipped": "dim"}.get(r.status, "red")
            text = f"{plain(r.source)}: [{style}]{r.status}[/] {r.rows} rows {r.elapsed_s:.1f}s"
            if r.error:
                text += f" - {plain(short_reason(r.error, r.source))}"
            task = tasks.get(r.source)
            if task is not None:
                progress.update(task, description=text, completed=1)

        return refresh(
            store,
            chosen,
            timeout_s=timeout,
            deadline_s=deadline,
            on_start=started,
            on_result=finished,
            on_progress=doing,
        )


def _drops(counts: dict[str, int], limit: int = 2) -> str:
    """``4: 3x no positive price; 1x unknown GPU``."""
    if not counts:
        return ""
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    text = "; ".join(f"{n}x {reason}" for reason, n in top[:limit])
    if len(top) > limit:
        text += f"; +{len(top) - limit} more reasons"
    return f"{sum(counts.values())}: {text}"


#: The columns ``sources`` is for (its help names them): a terminal too narrow for any of them gets the
#: compact table (:data:`COMPACT_SOURCE_COLUMNS`), never a table without them.
SOURCES_KEY_COLUMNS = ("age of data", "stale", "last attempt", "last error")

#: ``sources`` in a narrow terminal: what a source is, whether it is usable (the state names the
#: credentials to set), its rows, how fresh they are (stale ones counted beside the age) and its last
#: attempt (its status, when, and the error's short reason).
COMPACT_SOURCE_COLUMNS = (
    Column("source", max_width=17),
    Column("state", wrap=True),
    Column("rows", right=True, drop=1),
    Column("age of data", wrap=True, drop=3),
    Column("last attempt", wrap=True, drop=2),  # its longer words broken (_broken)
)
#: The longest word of a compact ``sources`` table's last attempt: an error's longer words (paths,
#: field names) are broken there, so that the column stays narrow enough for the others.
ATTEMPT_WORD = 11
#: Under the compact table: what it leaves out ({} the columns it had to cut too) and what it folds.
COMPACT_SOURCES_NOTE = (
    "not shown at this width: current, dropped (per reason){}, the whole last error (a wider terminal or "
    "--json shows them); the stale rows are counted beside the age, the last error is its short reason"
)


def sources_left_out_note(headers: Sequence[str]) -> str | None:
    """The line under ``sources``' table when columns were left out: ``sources`` has ``--json``, no
    ``--csv``."""
    if not headers:
        return None
    return f"not shown at this width: {', '.join(headers)} (a wider terminal or --json shows them)"


def _compact_row(s: SourceStatus, state: str) -> tuple[str, ...]:
    """A source's cells of :data:`COMPACT_SOURCE_COLUMNS`."""
    from gpuscout.catalog.clock import format_age, now

    if s.current_snapshot_id is None:
        age = "-"
    else:
        age = s.age_text + (f", {s.stale_rows:,} stale" if s.stale_rows else "")
    if s.last_attempt_at is None:
        attempt = "never"
    else:
        ago = format_age((now() - s.last_attempt_at).total_seconds())
        attempt = f"{s.last_status or '?'}, {ago} ago"
        if s.last_error and s.last_status != "ok":
            attempt += f": {_broken(short_reason(s.last_error, s.source), ATTEMPT_WORD)}"
    return (plain(s.source), state, str(s.row_count), age, plain(attempt))


def _broken(text: str, longest: int) -> str:
    """``text`` with each word longer than ``longest`` characters broken onto lines of that length."""
    words = []
    for word in text.split(" "):
        while len(word) > longest:
            words.append(word[:longest] + "\n")
            word = word[longest:]
        words.append(word)
    return " ".join(words).replace("\n ", "\n")


def sources_cmd(db: DbOption = None, json_out: JsonOption = False) -> None:
    """Every source with its state, the age of its data, its last attempt and error, its dropped rows
    (SOURCES_HELP)."""
    from gpuscout.catalog.api import sources_status
    from gpuscout.catalog.refresh import offer_file_sources
    from gpuscout.catalog.sources.registry import RETIRED, all_sources, source_state
    from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME

    with user_errors():
        existing_store(db)
        statuses = sources_status(db)
        known = {**all_sources(), **{s.name: s for s in offer_file_sources()}}

    def state(name: str, *, naming: bool = False) -> str:
        """The source's state; with ``naming``, a missing credential is named: ``needs RUNPOD_API_KEY``."""
        if name == SNAPSHOT_NAME:
            return "bundled"
        source = known.get(name)
        text = source_state(name, source)
        if naming and text == "needs credentials" and source is not None:
            return "needs " + ", ".join(source.missing_credentials())
        return text

    if json_out:
        records = [{**to_jsonable(s), "age": s.age_text, "state": state(s.source)} for s in statuses]
        print_json([{**row, "retired": RETIRED.get(row["source"])} for row in records])
        return
    # Narrow terminals keep what a source is and whether it is usable; the detail gives way first, and
    # where a key figure would go, the compact table takes over (SOURCES_KEY_COLUMNS)
    columns = (
        Column("source", max_width=22),
        Column("state", wrap=True),
        Column("current", drop=3),
        Column("age of data", drop=6, max_width=16),
        Column("rows", right=True),
        Column("stale", right=True, drop=4),
        Column("last attempt", drop=5),
        Column("status"),
        Column("dropped (per reason)", drop=2, max_width=30),
        Column("last error", drop=7, max_width=30),
        Column("credentials", drop=1, max_width=24),
    )
    rows: list[tuple[str, ...]] = []
    for s in statuses:
        if s.credentials_present is None:
            creds = "-" if not s.needs_credentials else "?"
        elif not s.needs_credentials:
            creds = "not needed"
        else:
            creds = "present" if s.credentials_present else "missing: " + ", ".join(s.needs_credentials)
        current = "yes" if s.current_snapshot_id is not None else "no"
        if s.fallback and s.current_snapshot_id is not None:
            current = "yes (bundled)"
        age = s.age_text
        if s.age_s is None and s.current_snapshot_id is not None:
            age = "unknown (dates not established)" if s.fallback else "unknown"
        attempt = s.last_attempt_at.strftime("%Y-%m-%d %H:%M UTC") if s.last_attempt_at else "never"
        rows.append(
            (
                plain(s.source),
                state(s.source),
                current,
                age if s.current_snapshot_id is not None else "-",
                str(s.row_count),
                str(s.stale_rows),
                attempt,
                s.last_status or "-",
                plain(_drops(s.last_drop_reasons)),
                plain(s.last_error or "") if s.last_status != "ok" else "",
                plain(creds),
            )
        )
    out = wide_console()
    width = terminal_width(out)
    table, left_out = fitted_table("offer sources", columns, rows, width)
    if "credentials" in left_out:  # too narrow for that column: the state names what to set instead
        named = [(r[0], state(s.source, naming=True), *r[2:-1]) for r, s in zip(rows, statuses, strict=True)]
        table, left_out = fitted_table("offer sources", columns[:-1], named, width)
    note = sources_left_out_note(left_out)
    if set(left_out) & set(SOURCES_KEY_COLUMNS):
        # too narrow for the figures the command is for: each source on the columns that say whether it is
        # usable and how fresh, the rest folded into them (stale beside the age, status and the error's
        # short reason beside the attempt)
        compact = [_compact_row(s, state(s.source, naming=True)) for s in statuses]
        table, cut = fitted_table("offer sources", COMPACT_SOURCE_COLUMNS, compact, width)
        note = COMPACT_SOURCES_NOTE.format("".join(f", {header}" for header in cut))
    out.print(table)
    if note:
        out.print(note, markup=False, highlight=False)
    retired = [name for name in RETIRED if any(s.source == name for s in statuses)]
    for name in retired:
        out.print(f"{name}: retired - {RETIRED[name]}", markup=False, highlight=False)


def offers_cmd(
    gpu: Annotated[
        list[str] | None,
        typer.Option(
            "--gpu",
            help="GPU name (repeatable, or comma-separated); a family name like H100 matches all variants.",
        ),
    ] = None,
    min_vram: Annotated[
        float | None,
        typer.Option("--min-vram", parser=number(0, MAX_GPU_MEMORY_GB), help="Minimum memory per GPU, GiB."),
    ] = None,
    gpus: Annotated[
        int | None,
        typer.Option("--gpus", min=1, max=MAX_GPUS_PER_OFFER, help="Exact GPU count per instance."),
    ] = None,
    provider: Annotated[
        list[str] | None, typer.Option("--provider", help="Provider (repeatable, or comma-separated).")
    ] = None,
    region: Annotated[
        list[str] | None,
        typer.Option(
            "--region",
            help=(
                'Region filter (repeatable, or comma-separated; a name with a comma, like "Texas, US", '
                "stays one): " + REGION_HELP + "."
            ),
        ),
    ] = None,
    spot: Annotated[
        bool, typer.Option("--spot", help="Only offers with a spot price; sorting and --max-price use it.")
    ] = False,
    on_demand: Annotated[
        bool,
        typer.Option(
            "--on-demand",
            help="Only offers with an on-demand price (an auction market's interruptible price is not one).",
        ),
    ] = False,
    available: Annotated[
        bool, typer.Option("--available", help="Drop offers known to be unavailable.")
    ] = False,
    interconnect: Annotated[str | None, typer.Option("--interconnect", help="nvlink or pcie.")] = None,
    max_price: Annotated[
        float | None,
        typer.Option(
            "--max-price", parser=number(0, MAX_PRICE_USD_PER_HOUR), help="Max USD/hour per instance."
        ),
    ] = None,
    sort: Annotated[
        str,
        typer.Option(
            "--sort",
            help=f"One of {', '.join(SORT_KEYS)} (or the web table's {', '.join(SORT_ALIASES)}). Cheapest, "
            "most per dollar, most memory, freshest, "
            "NVLink, available and names A-Z come first, unknown values last; price and price_per_gpu "
            f"use the spot price with --spot. Default {DEFAULT_SORT}, as on the web table and the API.",
        ),
    ] = DEFAULT_SORT,
    limit: Annotated[
        int, typer.Option("--limit", min=0, max=MAX_ROWS, help="At most N rows (0 = all).")
    ] = 30,
    fresh_only: Annotated[
        bool,
        typer.Option(
            "--no-stale/--include-stale",
            help="Rows from stale feeds are hidden, as on the web table, the API, faq and recommend; "
            "--include-stale lists them, 'stale' after their age (a table too narrow for the age column "
            "counts them under it).",
        ),
    ] = True,
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    db: DbOption = None,
) -> None:
    """List current offers, filtered and sorted; every row shows its source and the age of its price."""
    from gpuscout.cli.offers_view import OffersOptions, find_offers, print_offers_table, why_no_offers

    with user_errors():
        options = OffersOptions(
            gpu=gpu, min_vram=min_vram, gpus=gpus, provider=provider, region=region, spot=spot,
            on_demand=on_demand, available=available, interconnect=interconnect, max_price=max_price,
            sort=sort, limit=limit, fresh_only=fresh_only, json_out=json_out, csv_out=csv_out, db=db,
        )  # fmt: skip
        offers, total, stale_hidden = find_offers(options)
        # an empty table says why in one line; JSON and CSV stay the empty list they are
        why_none = "" if total or json_out or csv_out else why_no_offers(options)
    if json_out:
        print_records(offers, lambda o: {"age": _age(o)})
        return
    if csv_out:
        print_offers_csv(offers)
        return
    print_offers_table(offers, total, options.sort, spot=spot, why_none=why_none, stale_hidden=stale_hidden)


def _sparkline(values: list[float]) -> str:
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = hi - lo
    return "".join(_SPARK[0 if span == 0 else round((v - lo) / span * (len(_SPARK) - 1))] for v in values)


class _HistoryCommand(TyperCommand):
    """``history``: its GPU is its first argument; ``--gpu`` (as ``offers`` takes it) is answered
    with that, not with click's "No such option: --gpu (Possible options: --db)"."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        typed = list(args)  # click's parser consumes the list
        try:
            rest: list[str] = super().parse_args(ctx, args)
        except Exception as exc:
            if type(exc).__name__ != "NoSuchOption" or getattr(exc, "option_name", None) != "--gpu":
                raise
            usage = next(c for c in type(exc).__mro__ if c.__name__ == "UsageError")  # click's, vendored
            message = f"--gpu: the GPU is the first argument: {_gpu_first(typed)}"
            raise usage(message, ctx) from None
        return rest


def _gpu_first(args: list[str]) -> str:
    """``gpuscout history ARGS`` with the GPU given to ``--gpu`` (``--gpu H100``, ``--gpu=H100``) as
    its first argument, the rest as typed; ``H100`` where ``--gpu`` has no value."""
    import shlex

    gpu, rest, i = "", [], 0
    while i < len(args):
        name, eq, value = args[i].partition("=")
        if name == "--gpu" and not gpu:
            if eq:
                gpu = value
            elif i + 1 < len(args) and not args[i + 1].startswith("-"):
                gpu, i = args[i + 1], i + 1
        else:
            rest.append(args[i])
        i += 1
    return shlex.join(["gpuscout", "history", gpu or "H100", *rest])


def _days(text: str) -> float:
    """The ``--days`` of ``history`` as a number; its range is the catalog's one rule, checked where the
    history is read (``gpuscout.catalog.status.check_history_days``) and said as the JSON API says it."""
    try:
        return float(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a number") from None


def history_cmd(
    gpu: Annotated[str, typer.Argument(help="GPU name; a family name like H100 covers its variants.")],
    provider: Annotated[str | None, typer.Option("--provider", help="Only this provider.")] = None,
    days: Annotated[
        float | None,
        typer.Option(
            "--days",
            parser=_days,
            help="Only prices observed in the last N days (a number above 0; 0.5 is 12 hours); prices "
            "without an observation date (the bundled snapshot's) are then left out.",
        ),
    ] = None,
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Min and median on-demand price per GPU-hour over time, from the stored snapshots, with a chart.

    Auction prices and prices flagged stale by their feed are left out; older prices keep their own date.
    A family name (H100) lists each variant (SXM, PCIe, NVL) on its own rows. Prices without an
    observation date show the date they were loaded, and identical loads of them are shown once.
    """
    from gpuscout.catalog.api import gpu_family, price_history
    from gpuscout.catalog.clock import now
    from gpuscout.catalog.status import check_history_days, history_provider

    with user_errors():
        if days is not None:
            try:
                check_history_days(days)
            except InvalidInputError as exc:
                raise InvalidInputError("--days", exc.message, exc.accepted) from None
        variants = gpu_family(gpu)  # the arguments checked before the store is opened
        existing_store(db)
        # each variant read on its own: a family's rows would mix an SXM's prices with a PCIe's
        raw = [p for name in variants for p in price_history(name, db=db)]
        if provider is not None:
            pid = history_provider(provider, {p.provider for p in raw}, field="--provider")
            raw = [p for p in raw if p.provider == pid]
    shown = distinct_points(raw)
    undated_left_out: list[ShownPoint] = []
    if days is not None:  # by when a price was observed, never by when a snapshot was loaded
        cutoff = now() - timedelta(days=days)
        undated_left_out = [h for h in shown if h.point.at is None]
        shown = [h for h in shown if h.point.at is not None and h.point.at >= cutoff]
    if json_out:
        print_json([{**to_jsonable(h.point), "loads": h.loads} for h in shown])
        return
    out = wide_console()
    if not shown:
        at = f" at {provider}" if provider else ""
        within = f" observed in the last {days:g} days" if days is not None else ""
        out.print(plain(f"no stored on-demand prices for {gpu}{at}{within}; {HISTORY_LEFT_OUT}"))
        if undated_left_out:
            out.print(plain(_undated_note(undated_left_out)), highlight=False)
        return
    _print_history(out, gpu, shown)
    if undated_left_out:
        out.print(plain(_undated_note(undated_left_out)), highlight=False)


#: The longest bar of ``history``'s chart column, in characters (its highest median).
HISTORY_BAR = 12

#: Said under a history whose rows include prices without an observation date.
HISTORY_LOADED_NOTE = (
    "loaded DATE: the price has no observation date (the bundled snapshot's); the date it was first "
    "loaded into this store is shown, the price is older; identical loads are shown once"
)


def _undated_note(rows: Sequence[ShownPoint]) -> str:
    """What ``--days`` left out of the history: its undated rows (one a provider and variant, identical
    loads folded into one), and the offers they price, counted as the table counts them: '15 provider
    rows (60 offers) ...'."""
    n = len(rows)
    offers = sum(h.point.offers for h in rows)
    return (
        f"{n} provider {plural(n, 'row')} ({offers:,} {plural(offers, 'offer')}) without an observation "
        "date (the bundled snapshot's) left out by --days: when they were observed is unknown"
    )


@dataclass(frozen=True, slots=True)
class ShownPoint:
    """A history point as ``history`` shows it: ``loads`` identical loads of the same undated prices
    (the bundled snapshot loaded again) stand as one point, the first of them."""

    point: HistoryPoint
    loads: int = 1


def distinct_points(points: Sequence[HistoryPoint]) -> list[ShownPoint]:
    """``points`` (of one or several variants) in time order, each provider's and variant's undated
    points that repeat the one before (the same bundled snapshot loaded again: the same offers, min and
    median) folded into the first. A point whose prices changed stays, whatever its date."""
    ordered = sorted(
        points, key=lambda p: (p.at is not None, p.at or p.recorded_at, p.provider, p.accelerator)
    )
    shown: list[ShownPoint] = []
    last: dict[tuple[str, str, str], int] = {}  # (source, provider, variant) -> its last shown index
    for p in ordered:
        key = (p.source, p.provider, p.accelerator)
        i = last.get(key)
        if p.at is None and i is not None:
            prev = shown[i].point
            same = (prev.offers, prev.min_usd_per_gpu_hour, prev.median_usd_per_gpu_hour) == (
                p.offers,
                p.min_usd_per_gpu_hour,
                p.median_usd_per_gpu_hour,
            )
            if prev.at is None and same:
                shown[i] = ShownPoint(prev, shown[i].loads + 1)
                continue
        last[key] = len(shown)
        shown.append(ShownPoint(p))
    return shown


def _print_history(out: Console, gpu: str, shown: Sequence[ShownPoint]) -> None:
    """The history table (a variant column where the rows are of several), its notes and the trend of
    each provider and variant with more than one price."""
    variants = len({h.point.accelerator for h in shown}) > 1
    top = max(h.point.median_usd_per_gpu_hour for h in shown)
    columns = [
        Column("date"),
        Column("provider", max_width=16),
        *([Column("gpu")] if variants else []),
        Column("offers", right=True),
        Column("min", right=True),
        Column("median", right=True),
        Column("min (bar)", drop=1),
    ]
    rows: list[tuple[str, ...]] = []
    for h in shown:
        p = h.point
        when = p.at.strftime("%Y-%m-%d %H:%M") if p.at else f"loaded {p.recorded_at:%Y-%m-%d}"
        bar = "█" * max(1, round(p.min_usd_per_gpu_hour / top * HISTORY_BAR))
        rows.append(
            (
                when,
                plain(p.provider),
                *([plain(p.accelerator)] if variants else []),
                str(p.offers),
                _money(p.min_usd_per_gpu_hour),
                _money(p.median_usd_per_gpu_hour),
                bar,
            )
        )
    title = f"{plain(gpu)}: USD per GPU-hour over time (on-demand)"
    table, left_out = fitted_table(title, columns, rows, terminal_width(out))
    out.print(table)
    out.print(plain(f"on-demand prices only: {HISTORY_LEFT_OUT}"), highlight=False)
    if any(h.point.at is None for h in shown):
        loads = max(h.loads for h in shown)
        folded = f" (up to {loads} here; --json counts them)" if loads > 1 else ""
        out.print(plain(HISTORY_LOADED_NOTE + folded), highlight=False)
    if left_out:
        out.print(
            plain(f"not shown at this width: {', '.join(left_out)} (a wider terminal shows it)"),
            highlight=False,
        )
    series: dict[tuple[str, str], list[float]] = {}
    for h in shown:
        series.setdefault((h.point.provider, h.point.accelerator), []).append(h.point.min_usd_per_gpu_hour)
    moving = {k: v for k, v in series.items() if len(v) > 1}
    if not moving:
        out.print(
            "min price trend: one price per provider so far, no trend yet (each refresh adds one)",
            highlight=False,
        )
        return
    out.print("min price trend per provider (oldest -> newest):", highlight=False)
    labels = {k: f"{k[0]} {k[1]}" if variants else k[0] for k in moving}
    wide = max(16, *(len(label) for label in labels.values()))
    for key, values in sorted(moving.items()):
        trend = f"{_sparkline(values)}  {_money(values[0])} -> {_money(values[-1])}"
        out.print(plain(f"  {labels[key]:<{wide}} {trend}"), highlight=False)


def existing_store(db: str | None) -> None:
    """Refuse a ``--db`` naming a SQLite file that does not exist, for the commands that read or delete
    what a store holds (``prune``, ``history``, ``sources``): opening it would create an empty store (and
    its folder) and answer from that, so a mistyped path read "removed 0 snapshots". The default store
    (no ``--db``) is created on first use, as every command does."""
    if db is None:
        return
    import os

    from gpuscout.catalog.db import parse_url

    parsed = parse_url(db)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return
    path = os.path.abspath(parsed.database)
    if not os.path.exists(path):
        raise InvalidInputError(
            "--db",
            f"no store at {path}",
            "the URL of an existing store (`gpuscout refresh --db URL` creates one; "
            "without --db the default store is used)",
        )


def prune_cmd(
    older_than_days: Annotated[
        float,
        typer.Option(
            "--older-than-days",
            parser=number(0, MAX_DAYS),
            help="Remove snapshots older than N days (each source's current one is kept).",
        ),
    ],
    db: DbOption = None,
) -> None:
    """Delete old snapshots and their offers from the store's history."""
    from gpuscout.catalog.store import Store

    with user_errors():
        existing_store(db)
        store = Store(db)
        removed = store.prune(older_than_days)
        store.close()
    console.print(f"removed {removed} {plural(removed, 'snapshot')}")
