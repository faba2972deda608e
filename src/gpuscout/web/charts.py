"""Charts of the pages: a Plotly figure spec (plain dicts), a sentence saying what it shows, and the
same data as a table (the text alternative, and what a browser without JavaScript shows).

Nothing here is executed in the page: the figure dicts are embedded as JSON (``|tojson``) and parsed
by ``static/charts.js``, which draws them with the vendored Plotly bundle. Axes are readable by
construction: a log axis gets explicit 1-2-5 ticks with full labels ("0.2", "0.5", "1", "2k"), and a
range narrower than :data:`LOG_MIN_RATIO` is drawn linear from zero. Bars are sorted by value.
Colours say the vendor, marker shapes the class of card (datacenter, workstation, consumer).

A phone gets the same chart laid out for its width (``charts.js`` applies a figure's ``narrow`` layout
and each trace's ``meta.narrow`` on a screen up to 600 px wide): shorter axis titles, the legend under the
axis title rather than over it, point and reference-line labels placed again for the smaller plot (fewer
of them where they would collide), and room for a bar's value past its end.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.query import STALE_AFTER
from gpuscout.estimate.memory import GIB, capacity_bytes
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.web.providers_view import provider_label
from gpuscout.wording import and_list, plural

Figure = dict[str, Any]
#: A value range narrower than this (max / min) is drawn on a linear axis from zero.
LOG_MIN_RATIO = 12.0
VENDOR_COLOURS: dict[str, str] = {
    "NVIDIA": "#3f7f00",
    "AMD": "#c0182d",
    "Intel": "#0a62b0",
    "Google": "#b7791f",
    "AWS": "#7a3fb0",
}
KIND_SYMBOLS: dict[str, str] = {
    "datacenter": "circle",
    "workstation": "square",
    "consumer": "diamond",
    "tpu": "triangle-up",
    "asic": "triangle-up",
}
#: Reference cards drawn on the VRAM chart (label, accelerator).
REFERENCE_CARDS: tuple[tuple[str, str], ...] = (
    ("RTX 4090 24 GB", "RTX4090"),
    ("L40S 48 GB", "L40S"),
    ("H100 80 GB", "H100-SXM"),
    ("H200 141 GB", "H200-SXM"),
    ("B200 180 GB", "B200"),
)
LINE_COLOURS = ("#1f4fbf", "#c0182d", "#3f7f00", "#7a3fb0", "#b7791f", "#0f7c8c", "#5b6475", "#d04d9c")

# ---- narrow screens ----------------------------------------------------------------------------
#: The plot area (px, inside the axes) of a chart on a 390 px phone, as Chromium draws it: the chart box
#: is 348 px wide, less the narrow margins (52 left for the ticks and the axis title, 8 right, a few px
#: more where the ticks need them); the height is what the narrow layout sets.
NARROW_PLOT_W_PX, NARROW_PLOT_H_PX = 283.0, 300.0
#: Pixels of one character of the labels (11 px font on a phone; the wide charts' is ``_CHAR_W_PX``), a
#: legend row, and what the x axis takes below the plot (tick labels and its title).
_NARROW_CHAR_W_PX, _LEGEND_ROW_PX, _X_AXIS_PX = 6.8, 20.0, 58.0


def narrow_layout(legend: Sequence[str], **extra: Any) -> dict[str, Any]:
    """The layout a phone draws instead (merged over the wide one by ``charts.js``): a plot
    :data:`NARROW_PLOT_H_PX` tall, and the ``legend`` entries under the x axis's title, at the bottom of
    the chart, as many rows of them as the widest entry allows side by side (placed in the plot's own
    units, ``y: -0.2``, a short plot's legend lands on the axis title)."""
    entry = max((len(name) for name in legend), default=0) * _NARROW_CHAR_W_PX + 40  # symbol and gap
    per_row = max(1, int((NARROW_PLOT_W_PX + 52) // entry))
    legend_rows = math.ceil(len(legend) / per_row)
    bottom = _X_AXIS_PX + _LEGEND_ROW_PX * legend_rows + (8 if legend_rows else 0)
    layout: dict[str, Any] = {
        "height": NARROW_PLOT_H_PX + 16 + bottom,
        "margin": {"t": 16, "b": bottom},
    }
    if legend_rows:
        layout["legend"] = {"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom"}
    layout.update(extra)
    return layout


@dataclass(frozen=True, slots=True)
class Chart:
    """A figure with its title (units included), a one-sentence summary and its data as a table."""

    title: str
    summary: str
    figure: Figure
    headers: tuple[str, ...]
    rows: Sequence[tuple[str, ...]] = field(default_factory=list)
    numeric: tuple[bool, ...] = ()  # per column: right-aligned


# ---- axes --------------------------------------------------------------------------------------
def _label(value: float) -> str:
    """Tick label: 0.05, 0.2, 1, 20, 500, 1k, 2k, 10k, 1M."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def ticks_125(low: float, high: float) -> list[float]:
    """The 1-2-5 values spanning [low, high] (one below low and one above high included)."""
    if low <= 0 or high <= 0 or not (math.isfinite(low) and math.isfinite(high)):
        return []
    out: list[float] = []
    decade = 10.0 ** math.floor(math.log10(low))
    while decade <= high * 10:
        for step in (1, 2, 5):
            value = round(step * decade, 12)
            out.append(value)
        decade *= 10
    below = [v for v in out if v <= low]
    above = [v for v in out if v >= high]
    start = out.index(below[-1]) if below else 0
    end = out.index(above[0]) if above else len(out) - 1
    return out[start : end + 1]


#: A horizontal bar chart's value axis reaches this far past its longest bar, so that the bar's value,
#: written at its end, stays inside the plot on a narrow screen.
BAR_LABEL_ROOM = 1.22


def axis(title: str, values: Sequence[float], *, log_ok: bool = True, money: bool = False) -> dict[str, Any]:
    """A value axis: log with labelled 1-2-5 ticks when the range is wide, else linear from zero."""
    positive = [v for v in values if v is not None and v > 0]
    spec: dict[str, Any] = {"title": {"text": title}, "automargin": True, "zeroline": False}
    if log_ok and positive and max(positive) / min(positive) >= LOG_MIN_RATIO:
        ticks = ticks_125(min(positive), max(positive))
        spec.update(
            type="log",
            tickmode="array",
            tickvals=ticks,
            ticktext=[("$" if money else "") + _label(t) for t in ticks],
            range=[math.log10(ticks[0]) - 0.05, math.log10(ticks[-1]) + 0.05],
        )
    else:
        spec.update(type="linear", rangemode="tozero")
        if money:
            spec["tickprefix"] = "$"
    return spec


def _tokens(count: int) -> str:
    """Context lengths as people write them: 4096 -> "4k", 131072 -> "128k", 1000 -> "1000"."""
    return f"{count // 1024}k" if count >= 1024 and count % 1024 == 0 else f"{count:,}"


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    """Layout shared by the charts: the title is the page's figure caption (not drawn by Plotly, so it
    is never cut off or covered on a phone); the legend sits under the plot."""
    del title
    layout: dict[str, Any] = {
        "legend": {"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top"},
        "margin": {"t": 16, "r": 16, "b": 56, "l": 64},
    }
    layout.update(extra)
    return layout


# ---- GPUs: cheapest $/GPU-h against memory bandwidth -------------------------------------------
def cheapest_on_demand(offers: Iterable[Offer]) -> dict[str, Offer]:
    """The cheapest current on-demand offer per GPU of each accelerator (whole GPUs, not stale; an
    auction's interruptible price is no on-demand price: ``Offer.firm_on_demand``)."""
    best: dict[str, Offer] = {}
    for o in offers:
        price = o.price_usd_per_gpu_hour
        if price is None or not o.firm_on_demand or o.fractional or o.stale:
            continue
        held = best.get(o.accelerator)
        if held is None or price < (held.price_usd_per_gpu_hour or math.inf):
            best[o.accelerator] = o
    return best


def value_frontier(points: Sequence[tuple[str, float, float]]) -> list[str]:
    """Names on the value frontier of (name, bandwidth, price): no other point has at least the
    bandwidth for less money. In bandwidth order."""
    frontier: list[str] = []
    for name, bw, price in points:
        if not any((b >= bw and p < price) or (b > bw and p <= price) for n, b, p in points if n != name):
            frontier.append(name)
    order = {n: bw for n, bw, _ in points}
    return sorted(frontier, key=order.__getitem__)


# Label placement on a log-log scatter: a label is a box of its text's size in axis units (the plot
# area is 1,302 x 286 px on a 1440 px screen, as Chromium draws it; 7 px a character of the 11 px
# labels, DejaVu Sans's capitals and digits); each label takes the first position where it overlaps
# no placed label and no marker, or is left to the hover text.
_CHAR_W_PX, _LABEL_H_PX, _PLOT_W_PX, _PLOT_H_PX = 7.0, 14.0, 1302.0, 286.0
_POSITIONS = ("top center", "bottom center", "middle right", "middle left")


def place_labels(
    points: Sequence[tuple[str, float, float]],
    wanted: Sequence[str],
    plot_px: tuple[float, float] = (_PLOT_W_PX, _PLOT_H_PX),
    char_px: float = _CHAR_W_PX,
) -> dict[str, str]:
    """Text positions for the ``wanted`` names of (name, x, y) points on log axes, for a plot area of
    ``plot_px`` (width, height) and labels of ``char_px`` per character; names whose every position
    collides, or leaves the axes (where the label would be cut), are left out (they keep their hover
    text)."""
    logs = {n: (math.log10(x), math.log10(y)) for n, x, y in points if x > 0 and y > 0}
    if not logs:
        return {}
    x_ticks = ticks_125(min(x for _, x, _ in points), max(x for _, x, _ in points))
    y_ticks = ticks_125(min(y for _, _, y in points), max(y for _, _, y in points))
    # the axes' ranges as ``axis`` sets them (the outer ticks, 0.05 decades beyond), and the log units a
    # pixel of them spans
    inside = (
        math.log10(x_ticks[0]) - 0.05,
        math.log10(y_ticks[0]) - 0.05,
        math.log10(x_ticks[-1]) + 0.05,
        math.log10(y_ticks[-1]) + 0.05,
    )
    x_unit = (inside[2] - inside[0]) / plot_px[0]
    y_unit = (inside[3] - inside[1]) / plot_px[1]
    marker = 6.0
    boxes = [
        (x - marker * x_unit, y - marker * y_unit, x + marker * x_unit, y + marker * y_unit)
        for x, y in logs.values()
    ]
    out: dict[str, str] = {}
    for name in sorted(wanted, key=lambda n: logs.get(n, (0, 0))[0]):
        if name not in logs:
            continue
        x, y = logs[name]
        w, h = len(name) * char_px * x_unit, _LABEL_H_PX * y_unit
        m = (marker + 2) * y_unit
        candidates = {
            "top center": (x - w / 2, y + m, x + w / 2, y + m + h),
            "bottom center": (x - w / 2, y - m - h, x + w / 2, y - m),
            "middle right": (x + (marker + 3) * x_unit, y - h / 2, x + (marker + 3) * x_unit + w, y + h / 2),
            "middle left": (x - (marker + 3) * x_unit - w, y - h / 2, x - (marker + 3) * x_unit, y + h / 2),
        }
        own = (x - marker * x_unit, y - marker * y_unit, x + marker * x_unit, y + marker * y_unit)
        for position in _POSITIONS:
            box = candidates[position]
            if not _within(box, inside):
                continue
            if not any(_overlap(box, other) for other in boxes if other != own):
                out[name] = position
                boxes.append(box)
                break
    return out


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _within(a: tuple[float, float, float, float], bounds: tuple[float, float, float, float]) -> bool:
    return bounds[0] <= a[0] and a[2] <= bounds[2] and bounds[1] <= a[1] and a[3] <= bounds[3]


def price_vs_bandwidth_chart(
    offers: Iterable[Offer], accelerators: Sequence[Accelerator], labelled: Iterable[str] = ()
) -> Chart:
    """Cheapest on-demand $/GPU-h of each accelerator against its memory bandwidth (decode speed),
    coloured by vendor, shaped by class, with the value frontier drawn and named."""
    specs = {a.name: a for a in accelerators}
    best = {n: o for n, o in cheapest_on_demand(offers).items() if n in specs}
    points = [(n, specs[n].bandwidth_gbps, best[n].price_usd_per_gpu_hour or 0.0) for n in best]
    frontier = value_frontier(points)
    placed = place_labels(points, [n for n, _, _ in points if n in set(frontier) | set(labelled)])
    # a phone names the value frontier only, where its labels fit the smaller plot
    small = place_labels(points, frontier, (NARROW_PLOT_W_PX, NARROW_PLOT_H_PX), _NARROW_CHAR_W_PX)
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in sorted(best, key=lambda n: specs[n].bandwidth_gbps):
        groups[(specs[name].vendor, specs[name].kind)].append(name)
    data: list[dict[str, Any]] = []
    for (vendor, kind), names in sorted(groups.items(), key=lambda kv: (kv[0][0] != "NVIDIA", kv[0])):
        data.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": f"{vendor} {kind}",
                "x": [specs[n].bandwidth_gbps for n in names],
                "y": [best[n].price_usd_per_gpu_hour for n in names],
                "text": [n if n in placed else "" for n in names],
                "customdata": [[n, provider_label(best[n].provider).short_name] for n in names],
                "textposition": [placed.get(n, "top center") for n in names],
                "textfont": {"size": 11},
                "meta": {
                    "narrow": {
                        "text": [n if n in small else "" for n in names],
                        "textposition": [small.get(n, "top center") for n in names],
                    }
                },
                "marker": {
                    "size": 10,
                    "color": VENDOR_COLOURS.get(vendor, "#5b6475"),
                    "symbol": KIND_SYMBOLS.get(kind, "circle"),
                    "line": {"width": 1, "color": "#fff"},
                },
                "hovertemplate": "%{customdata[0]}<br>%{x:,.0f} GB/s<br>$%{y:.2f}/GPU-h at %{customdata[1]}"
                "<extra></extra>",
            }
        )
    if len(frontier) > 1:
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "best value (no card is faster for less)",
                "x": [specs[n].bandwidth_gbps for n in frontier],
                "y": [best[n].price_usd_per_gpu_hour for n in frontier],
                "line": {"dash": "dot", "width": 1.5, "color": "#5b6475"},
                "hoverinfo": "skip",
            }
        )
    title = "Cheapest on-demand $/GPU-hour vs memory bandwidth (GB/s)"
    figure = {
        "data": data,
        "layout": _layout(
            title,
            xaxis=axis("memory bandwidth, GB/s (decode speed)", [p[1] for p in points]),
            yaxis=axis("cheapest on-demand, $ per GPU-hour", [p[2] for p in points], money=True),
        ),
        # the caption above the chart says what is plotted: the axes keep their units
        "narrow": narrow_layout(
            [t["name"] for t in data],
            xaxis={"title": {"text": "bandwidth, GB/s"}},
            yaxis={"title": {"text": "$ per GPU-h"}},
        ),
    }
    rows = [
        (
            n,
            specs[n].vendor,
            specs[n].kind,
            f"{specs[n].bandwidth_gbps:,.0f}",
            f"${best[n].price_usd_per_gpu_hour:,.2f}",
            provider_label(best[n].provider).short_name,
            "yes" if n in frontier else "",
        )
        for n in sorted(best, key=lambda n: (best[n].price_usd_per_gpu_hour or 0.0) / specs[n].bandwidth_gbps)
    ]
    summary = (
        f"{len(points)} {plural(len(points), 'GPU')} with an on-demand price. Best value (no other GPU "
        f"has more bandwidth for less): {', '.join(frontier) if frontier else 'none'}."
    )
    return Chart(
        title,
        summary,
        figure,
        ("GPU", "Vendor", "Class", "Bandwidth GB/s", "Cheapest $/GPU-h", "Provider", "Best value"),
        rows,
        (False, False, False, True, True, False, False),
    )


# ---- a GPU's prices by provider, and over time --------------------------------------------------
#: The most providers a price history draws a line of (more do not stay readable); the others are named.
MAX_LINES = 8


def price_history_chart(
    points: Sequence[Any], gpu: str, left_out: Sequence[str] = (), *, newest: datetime | None = None
) -> Chart:
    """Cheapest on-demand $/GPU-h of ``gpu`` per provider: a line over time once the store has prices
    from two or more observation times, else sorted bars for the one snapshot there is (and says so,
    with its observation date). ``points`` are the store's ``HistoryPoint``s (on-demand prices, those
    flagged stale by their feed left out; an old row is kept at its own date); ``left_out`` names the
    providers with a current offer that the chart has no price of, and why ("Mithril (auction price,
    interruptible like spot)"), for the summary to say. ``newest`` is the store's newest live fetch
    time, against which a price older than the catalog's staleness rule
    (:data:`~gpuscout.catalog.query.STALE_AFTER`) is said to be old; the clock when not given (the
    newest dated point's for the lines).

    The lines: a provider whose last dated price is stale by that rule is drawn dashed and named so,
    after the current ones; the current ones are chosen by their latest price. A provider with only
    undated prices (the bundled snapshot's) has no place on a time axis: the summary names it, as it
    names those past :data:`MAX_LINES`."""
    dated = [p for p in points if p.at is not None]
    times = {p.at for p in dated}
    missing = list(left_out)
    if len(times) < 2:
        chart = _by_provider_bars(points, gpu, newest=newest)
    else:
        chart, not_drawn = _history_lines(points, times, gpu, newest=newest)
        missing = [*not_drawn, *missing]
    if missing:
        return replace(chart, summary=f"{chart.summary} Not in the chart: {_grouped(missing)}.")
    return chart


def _grouped(entries: Sequence[str]) -> str:
    """'A (why)' entries said once per reason: 'Mithril (auction price, interruptible like spot), Lambda
    (spot price only)'; several of one reason 'A, B and C (no dated price)', the groups then split by
    semicolons (the names hold no commas of their own)."""
    groups: dict[str, list[str]] = {}
    for entry in entries:
        name, _, why = entry.rpartition(" (") if entry.endswith(")") else (entry, "", "")
        groups.setdefault(f"({why}" if why else "", []).append(name)
    parts = []
    for why, names in groups.items():
        parts.append(f"{and_list(names)} {why}".strip())
    return ("; " if any(len(n) > 1 for n in groups.values()) else ", ").join(parts)


def _history_lines(
    points: Sequence[Any], times: set[Any], gpu: str, *, newest: datetime | None = None
) -> tuple[Chart, list[str]]:
    """The lines of the providers with dated prices, and what the chart leaves out and why."""
    by_provider: dict[str, list[Any]] = defaultdict(list)
    for p in points:
        if p.at is not None:
            by_provider[p.provider].append(p)
    undated = sorted(
        {p.provider for p in points if p.at is None} - set(by_provider),
        key=lambda prov: provider_label(prov).short_name.lower(),
    )
    latest = {prov: max(pts, key=lambda p: p.at) for prov, pts in by_provider.items()}
    reference = newest if newest is not None else max(times)
    stale = {prov for prov, p in latest.items() if reference - p.at > STALE_AFTER}
    # current prices first, the cheapest latest price first; then the stale ones, marked
    order = sorted(latest, key=lambda prov: (prov in stale, latest[prov].min_usd_per_gpu_hour))
    shown, beyond = order[:MAX_LINES], order[MAX_LINES:]
    drawn = [p for p in points if p.at is not None and p.provider in shown]
    data = []
    for i, provider in enumerate(shown):
        pts = sorted(by_provider[provider], key=lambda p: p.at)
        name = provider_label(provider).short_name
        line: dict[str, Any] = {"color": LINE_COLOURS[i % len(LINE_COLOURS)], "shape": "hv"}
        if provider in stale:
            name = f"{name} (stale: last {latest[provider].at:%Y-%m-%d})"
            line["dash"] = "dot"
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": name,
                "x": [p.at.isoformat() for p in pts],
                "y": [p.min_usd_per_gpu_hour for p in pts],
                "line": line,
                "hovertemplate": "%{x|%Y-%m-%d %H:%M}: $%{y:.2f}/GPU-h<extra>%{fullData.name}</extra>",
            }
        )
    title = f"{gpu}: cheapest on-demand $/GPU-hour over time, per provider"
    figure = {
        "data": data,
        "layout": _layout(
            title,
            xaxis={"title": {"text": "observed at (UTC)"}, "type": "date", "automargin": True},
            yaxis=axis("$ per GPU-hour", [p.min_usd_per_gpu_hour for p in drawn], money=True),
        ),
        "narrow": narrow_layout([str(t["name"]) for t in data]),
    }
    rows = [
        (
            provider_label(p.provider).short_name + (" (stale)" if p.provider in stale else ""),
            p.at.strftime("%Y-%m-%d %H:%M"),
            f"${p.min_usd_per_gpu_hour:,.2f}",
            f"${p.median_usd_per_gpu_hour:,.2f}",
            str(p.offers),
        )
        for p in sorted(drawn, key=lambda p: (p.provider, p.at))
    ]
    drawn_times = {p.at for p in drawn}
    first, last = min(drawn_times), max(drawn_times)
    summary = (
        f"Prices of {gpu} from {len(shown)} {plural(len(shown), 'provider')} at {len(drawn_times)} "
        f"observation {plural(len(drawn_times), 'time')}, {first:%Y-%m-%d} to {last:%Y-%m-%d}."
    )
    old = [prov for prov in shown if prov in stale]
    if old:
        names = ", ".join(f"{provider_label(prov).short_name} ({latest[prov].at:%Y-%m-%d})" for prov in old)
        summary += (
            f" Dotted: stale, no price within {_days(STALE_AFTER)} of the newest prices (the offers table "
            f"leaves such offers out): {names}."
        )
    not_drawn = [f"{provider_label(prov).short_name} (no dated price)" for prov in undated]
    not_drawn += [
        f"{provider_label(prov).short_name} (past the {MAX_LINES} lines drawn)"
        for prov in sorted(beyond, key=lambda prov: provider_label(prov).short_name.lower())
    ]
    return (
        Chart(
            title,
            summary,
            figure,
            ("Provider", "Observed (UTC)", "Cheapest $/GPU-h", "Median $/GPU-h", "Offers"),
            rows,
            (False, False, True, True, True),
        ),
        not_drawn,
    )


def _days(span: Any) -> str:
    """A span of time in words: "5 days", "30 hours", "under an hour"."""
    hours = span.total_seconds() / 3600
    if hours >= 48:
        return f"{hours / 24:.0f} days"
    return f"{hours:.0f} {plural(round(hours), 'hour')}" if hours >= 1 else "under an hour"


def _observed(at: datetime | None, newest: datetime | None) -> str:
    """When a one-snapshot price was observed, and, when older than the staleness rule, how old:
    ", observed 2026-11-29" or ", observed 2026-11-29, 5 days before the newest prices: not a
    current price" ("5 days ago" against the clock when the newest fetch time is not known)."""
    if at is None:
        return ""
    said = f", observed {at:%Y-%m-%d}"
    reference = newest if newest is not None else datetime.now(UTC)
    age = reference - at
    if age <= STALE_AFTER:
        return said
    before = "before the newest prices" if newest is not None else "ago"
    return f"{said}, {_days(age)} {before}: not a current price"


def _by_provider_bars(points: Sequence[Any], gpu: str, *, newest: datetime | None = None) -> Chart:
    latest: dict[str, Any] = {}
    for p in points:  # the store lists points oldest first: the last one per provider wins
        latest[p.provider] = p
    providers = sorted(latest, key=lambda prov: latest[prov].min_usd_per_gpu_hour, reverse=True)
    names = [provider_label(p).short_name for p in providers]
    dates = sorted({latest[p].at for p in providers if latest[p].at is not None})
    when = "one snapshot so far, " + (
        f"observed {dates[-1]:%Y-%m-%d}" if dates else "observation date unknown"
    )
    title = f"{gpu}: cheapest on-demand $/GPU-hour by provider ({when})"
    mins = [latest[p].min_usd_per_gpu_hour for p in providers]
    medians = [latest[p].median_usd_per_gpu_hour for p in providers]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": "cheapest",
            "y": names,
            "x": mins,
            "marker": {"color": "#1f4fbf"},
            "text": [f"${v:,.2f}" for v in mins],
            "textposition": "outside",
            "cliponaxis": False,
            "hovertemplate": "%{y}: cheapest $%{x:.2f}/GPU-h<extra></extra>",
        }
    ]
    data[0]["customdata"] = [
        [f"${m:,.2f}", latest[p].offers] for m, p in zip(medians, providers, strict=True)
    ]
    data[0]["hovertemplate"] = (
        "%{y}: cheapest $%{x:.2f}/GPU-h, median %{customdata[0]} over %{customdata[1]} offers<extra></extra>"
    )
    figure = {
        "data": data,
        "layout": _layout(
            title,
            height=max(260, 70 + 30 * len(providers)),
            xaxis={
                **axis("$ per GPU-hour", mins, log_ok=False, money=True),
                # room past the longest bar for its price, written outside it (cut off on a phone)
                "range": [0, max(mins, default=1.0) * BAR_LABEL_ROOM],
            },
            yaxis={"automargin": True},
            showlegend=False,
            bargap=0.35,
        ),
        # a phone's plot is a third as wide: the range's room past the longest bar is a few pixels, so
        # the right margin holds its value (the text, outside the bar, may run into the margin)
        "narrow": {
            "margin": {"r": 8 + round(_NARROW_CHAR_W_PX * max((len(t) for t in data[0]["text"]), default=0))}
        },
    }
    rows = [
        (
            provider_label(p).short_name,
            f"${latest[p].min_usd_per_gpu_hour:,.2f}",
            f"${latest[p].median_usd_per_gpu_hour:,.2f}",
            str(latest[p].offers),
        )
        for p in reversed(providers)
    ]
    at = f"{len(providers)} {plural(len(providers), 'provider')}"
    observed = _observed(latest[providers[-1]].at, newest) if providers else ""
    summary = (
        f"{gpu} at {at}; cheapest {rows[0][1]}/GPU-h at {rows[0][0]}{observed}. "
        f"A price history appears once the store holds prices from two or more refreshes."
        if rows
        else f"No on-demand price for {gpu}."
    )
    return Chart(
        title,
        summary,
        figure,
        ("Provider", "Cheapest $/GPU-h", "Median $/GPU-h", "Offers"),
        rows,
        (False, True, True, True),
    )


# ---- a model's memory against context length ---------------------------------------------------
#: The px of one character of the VRAM chart's reference labels (10 px font), wide and narrow.
_REF_CHAR_W_PX, _NARROW_REF_CHAR_W_PX = 6.0, 6.0
_SIZE_WORD = re.compile(r" \d+ GB$")  # "L40S 48 GB" -> "L40S"
Anchor = tuple[int, str]  # (the point of a reference line that carries its label, Plotly's textposition)


def _anchors(points: int) -> list[Anchor]:
    """Where a reference line of ``points`` points may carry its label, in order of preference: above,
    then below, the line at its right end (written leftwards) or its left end (rightwards), then centred
    on a point between them, from the right."""
    ends = [(points - 1, "top left"), (0, "top right"), (points - 1, "bottom left"), (0, "bottom right")]
    inner = [(i, f"{side} center") for i in range(points - 2, 0, -1) for side in ("top", "bottom")]
    return ends + inner


def _texts(label: str, anchor: Anchor, points: int) -> list[str]:
    """A reference line's texts, point by point: ``label`` at its anchor, nothing elsewhere."""
    return [label if i == anchor[0] else "" for i in range(points)]


def _unit(spec: dict[str, Any]) -> Callable[[float], float]:
    """Where a value falls on an axis with a set ``range``, 0 (bottom or left) to 1: log or linear."""
    lo, hi = spec["range"]
    if spec.get("type") == "log":
        return lambda v: (math.log10(max(v, 1e-12)) - lo) / (hi - lo)
    return lambda v: (v - lo) / (hi - lo)


def reference_labels(
    xs: Sequence[int],
    levels: Sequence[float],
    labels: Sequence[str],
    curves: Sequence[tuple[Sequence[int], Sequence[float]]],
    axes: tuple[dict[str, Any], dict[str, Any]],
    plot_px: tuple[float, float],
    char_px: float,
) -> list[Anchor]:
    """For each horizontal reference line at ``levels``, drawn through the points ``xs`` on the ``axes``
    (x and y, each with its ``range`` set), where its label goes (:func:`_anchors`): the first place whose
    box, in a plot of ``plot_px`` with ``char_px`` per character, stays inside the plot and clear of the
    ``curves`` and of the labels placed before it; where none is clear, the one least covered (a marker
    on the text counts as much as a stretch of line ten times its size, one at its edge three: a label
    crossed by a thin line stays legible, one under a marker less so)."""
    xaxis, yaxis = axes
    w_px, h_px = plot_px
    x_of, y_of = _unit(xaxis), _unit(yaxis)

    def x_px(x: float) -> float:
        return x_of(x) * w_px

    def y_px(y: float) -> float:
        return y_of(y) * h_px

    # the curves' markers, and their lines as points every few pixels: what a label there is hidden by
    markers: list[tuple[float, float]] = []
    lines: list[tuple[float, float]] = []
    for cx, cy in curves:
        pts = [(x_px(x), y_px(y)) for x, y in zip(cx, cy, strict=True) if x > 0]
        markers += pts
        for (ax, ay), (bx, by) in itertools.pairwise(pts):
            steps = max(1, int(math.hypot(bx - ax, by - ay) / 4))
            lines += [(ax + (bx - ax) * k / steps, ay + (by - ay) * k / steps) for k in range(1, steps)]
    reach, gap, text_h = 4.0, 2.0, 12.0
    placed: list[tuple[float, float, float, float]] = []
    out: list[Anchor] = []
    for level, label in zip(levels, labels, strict=True):
        y, w = y_px(level), len(label) * char_px
        best: tuple[float, Anchor, tuple[float, float, float, float]] | None = None
        for anchor in _anchors(len(xs)):
            at, position = x_px(xs[anchor[0]]), anchor[1]
            left = at - w if position.endswith("left") else at if position.endswith("right") else at - w / 2
            bottom = y + gap if position.startswith("top") else y - gap - text_h
            box = (left, bottom, left + w, bottom + text_h)
            if box[0] < 0 or box[2] > w_px or box[1] < 0 or box[3] > h_px:  # cut at the plot's edge
                continue

            def under(
                pts: list[tuple[float, float]], near: float, box: tuple[float, float, float, float] = box
            ) -> int:
                return sum(
                    1
                    for px, py in pts
                    if box[0] - near < px < box[2] + near and box[1] - near < py < box[3] + near
                )

            # a marker on the text hides a character; one at its edge, or a line through it, less
            hidden = under(markers, 1.0)
            cover = 10.0 * hidden + 3.0 * (under(markers, reach) - hidden) + under(lines, reach)
            cover += 1000.0 * sum(_overlap(box, o) for o in placed)
            if best is None or cover < best[0]:
                best = (cover, anchor, box)
            if cover == 0:
                break
        if best is None:  # no place inside the plot (a label wider than it): the right end, as drawn
            out.append(_anchors(len(xs))[0])
            continue
        placed.append(best[2])
        out.append(best[1])
    return out


def usable_gib(acc: Accelerator) -> float:
    """Usable memory of a card in GiB (the unit vendors' "GB" memory figures are in)."""
    return capacity_bytes(acc) / GIB


def vram_chart(
    contexts: Sequence[int],
    series: dict[str, list[float]],
    cards: Sequence[Accelerator],
    precision: str,
    model: str,
) -> Chart:
    """GiB needed (whole model, one GPU) against context length, one line per concurrency, with the
    usable memory of common cards as dashed lines. ``series`` values are GiB."""
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": label,
            "x": list(contexts),
            "y": list(values),
            "line": {"color": LINE_COLOURS[i % len(LINE_COLOURS)]},
            "hovertemplate": "%{x:,} tokens: %{y:,.1f} GiB<extra>" + label + "</extra>",
        }
        for i, (label, values) in enumerate(series.items())
    ]
    values = [v for vs in series.values() for v in vs]
    ends = [contexts[0], contexts[-1]] if contexts else [1, 1]
    card_names = {
        acc: next((lab for lab, name in REFERENCE_CARDS if name == acc.name), acc.name) for acc in cards
    }
    ordered = sorted(cards, key=usable_gib)
    levels = [usable_gib(acc) for acc in ordered]
    values += levels
    yaxis = axis("memory needed, GiB", values)
    # the ranges set (Plotly's autorange would pick about these), so that the labels' places are computed
    # on the axes drawn: linear from zero to the largest value and 5 % more; log past the end contexts
    if yaxis["type"] == "linear":
        yaxis["range"] = [0.0, max(values, default=1.0) * 1.05]
    span = math.log10(max(ends[-1], 1) / max(ends[0], 1)) or 1.0
    xaxis = {
        "title": {"text": "context length per sequence, tokens"},
        "type": "log",
        "tickmode": "array",
        "tickvals": list(contexts),
        "ticktext": [_tokens(c) for c in contexts],
        "range": [math.log10(max(ends[0], 1)) - 0.06 * span, math.log10(max(ends[-1], 1)) + 0.06 * span],
        "automargin": True,
    }
    curves = [(list(contexts), list(v)) for v in series.values()]
    labels = [f"{card_names[acc]} ({gib:.0f} GiB usable)" for acc, gib in zip(ordered, levels, strict=True)]
    # a phone's labels are shorter: "L40S: 45 GiB" (the summary says the lines are usable memory)
    shorts = [
        f"{_SIZE_WORD.sub('', card_names[acc])}: {gib:.0f} GiB"
        for acc, gib in zip(ordered, levels, strict=True)
    ]
    # each reference line runs through every context drawn and the midpoints between them (on the log
    # axis), so that its label can sit where no curve is
    xs = list(ends)
    if len(contexts) > 1:
        xs = [
            *(x for a, b in itertools.pairwise(contexts) for x in (a, round(math.sqrt(a * b)))),
            contexts[-1],
        ]
    axes = (xaxis, yaxis)
    wide = reference_labels(xs, levels, labels, curves, axes, (_PLOT_W_PX, _PLOT_H_PX), _REF_CHAR_W_PX)
    small = reference_labels(
        xs, levels, shorts, curves, axes, (NARROW_PLOT_W_PX, NARROW_PLOT_H_PX), _NARROW_REF_CHAR_W_PX
    )
    for acc, gib, label, short, at, at_small in zip(
        ordered, levels, labels, shorts, wide, small, strict=True
    ):
        data.append(
            {
                "type": "scatter",
                "mode": "lines+text",
                "name": card_names[acc],
                "x": xs,
                "y": [gib] * len(xs),
                "text": _texts(label, at, len(xs)),
                "textposition": at[1],
                "showlegend": False,
                "hoverinfo": "skip",
                "line": {"dash": "dash", "width": 1, "color": "#8c95a5"},
                "textfont": {"size": 10, "color": "#4f5868"},
                "meta": {"narrow": {"text": _texts(short, at_small, len(xs)), "textposition": at_small[1]}},
            }
        )
    title = f"{model}: GPU memory needed (GiB) vs context length, by concurrency ({precision}, one GPU)"
    figure = {
        "data": data,
        "layout": _layout(
            title,
            xaxis=xaxis,
            yaxis=yaxis,
        ),
        "narrow": narrow_layout(list(series), xaxis={"title": {"text": "context per sequence, tokens"}}),
    }
    rows = [(f"{c:,}", *(f"{series[k][i]:,.1f}" for k in series)) for i, c in enumerate(contexts)]
    longest = contexts[-1] if contexts else 0
    summary = (
        f"At {longest:,} tokens: "
        + ", ".join(f"{k} {series[k][-1]:,.1f} GiB" for k in series)
        + ". "
        + "Dashed: usable memory of "
        + ", ".join(card_names[a] for a in cards)
        + "."
        if contexts
        else "No context lengths to show."
    )
    return Chart(
        title,
        summary,
        figure,
        ("Context (tokens)", *(f"{k}, GiB" for k in series)),
        rows,
        (True, *(True for _ in series)),
    )
