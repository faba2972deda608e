"""Plotly figure specs (plain dicts) for the pages. The browser draws them with the served plotly.js.

Nothing here is executed in the page: the dicts are embedded as JSON (``|tojson``) and parsed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from gpuscout.catalog.offer import Offer
from gpuscout.knowledge.accelerator_types import Accelerator

CARD_SIZES_GB: tuple[int, ...] = (24, 48, 80, 141, 192)
Figure = dict[str, Any]


def price_history_figure(points: Sequence[Any]) -> Figure:
    """Min and median $/GPU-h per provider over time (``HistoryPoint``s from the store).

    Points whose observation time is unknown (bundled snapshot) cannot be placed on a time axis:
    when there are no dated points, the figure shows them as bars per provider instead, and says so.
    """
    dated = [p for p in points if p.at is not None]
    if not dated:
        undated = [p for p in points if p.at is None]
        providers = sorted({p.provider for p in undated})
        latest = {p.provider: p for p in undated}  # last snapshot per provider wins
        return {
            "data": [
                {"type": "bar", "name": "min", "x": providers,
                 "y": [latest[p].min_usd_per_gpu_hour for p in providers]},
                {"type": "bar", "name": "median", "x": providers,
                 "y": [latest[p].median_usd_per_gpu_hour for p in providers]},
            ],
            "layout": {
                "title": {"text": "On-demand $/GPU-h by provider (observation date unknown)"},
                "barmode": "group",
                "yaxis": {"title": {"text": "$ per GPU-hour"}, "rangemode": "tozero"},
            },
        }
    by_provider: dict[str, list[Any]] = defaultdict(list)
    for p in dated:
        by_provider[p.provider].append(p)
    data: list[dict[str, Any]] = []
    for provider in sorted(by_provider):
        pts = sorted(by_provider[provider], key=lambda p: p.at)
        xs = [p.at.isoformat() for p in pts]
        data.append({"type": "scatter", "mode": "lines+markers", "name": f"{provider} min", "x": xs,
                     "y": [p.min_usd_per_gpu_hour for p in pts], "legendgroup": provider})
        data.append({"type": "scatter", "mode": "lines", "name": f"{provider} median", "x": xs,
                     "y": [p.median_usd_per_gpu_hour for p in pts], "legendgroup": provider,
                     "line": {"dash": "dot"}})
    return {
        "data": data,
        "layout": {
            "title": {"text": "On-demand $/GPU-h over time: min (solid) and median (dotted) per provider"},
            "xaxis": {"title": {"text": "observed at"}, "type": "date"},
            "yaxis": {"title": {"text": "$ per GPU-hour"}, "rangemode": "tozero"},
        },
    }


def price_vs_bandwidth_figure(offers: Iterable[Offer], accelerators: Sequence[Accelerator]) -> Figure:
    """Cheapest on-demand $/GPU-h of each accelerator against its memory bandwidth."""
    specs = {a.name: a for a in accelerators}
    cheapest: dict[str, float] = {}
    for o in offers:
        price = o.price_usd_per_gpu_hour
        if price is None or o.fractional or o.accelerator not in specs:
            continue
        if price < cheapest.get(o.accelerator, float("inf")):
            cheapest[o.accelerator] = price
    names = sorted(cheapest, key=lambda n: specs[n].bandwidth_gbps)
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [specs[n].bandwidth_gbps for n in names],
                "y": [cheapest[n] for n in names],
                "text": names,
                "textposition": "top center",
                "marker": {"size": 9},
                "hovertemplate": "%{text}<br>%{x:,.0f} GB/s<br>$%{y:.2f}/GPU-h<extra></extra>",
            }
        ],
        "layout": {
            "title": {"text": "Cheapest on-demand $/GPU-h vs memory bandwidth (decode speed)"},
            "xaxis": {"title": {"text": "memory bandwidth, GB/s"}, "type": "log"},
            "yaxis": {"title": {"text": "$ per GPU-hour"}, "type": "log"},
            "showlegend": False,
        },
    }


def vram_figure(contexts: Sequence[int], series: dict[str, list[float]]) -> Figure:
    """VRAM needed (GB, whole model) against context length, one line per concurrency, with the
    common card sizes as dashed reference lines (traces, so they sit right on the log axes)."""
    data: list[dict[str, Any]] = [
        {"type": "scatter", "mode": "lines+markers", "name": label, "x": list(contexts), "y": list(values)}
        for label, values in series.items()
    ]
    x_ends = [contexts[0], contexts[-1]] if contexts else [1, 1]
    for gb in CARD_SIZES_GB:
        data.append({
            "type": "scatter", "mode": "lines+text", "name": f"{gb} GB card", "x": x_ends, "y": [gb, gb],
            "text": [f"{gb} GB", ""], "textposition": "top right", "showlegend": False,
            "hoverinfo": "name", "line": {"dash": "dash", "width": 1, "color": "#888"},
            "textfont": {"size": 10, "color": "#666"},
        })
    return {
        "data": data,
        "layout": {
            "title": {"text": "VRAM needed vs context length, by concurrency (one GPU; dashed: card sizes)"},
            "xaxis": {"title": {"text": "context length per sequence (tokens)"}, "type": "log"},
            "yaxis": {"title": {"text": "GB (log scale)"}, "type": "log"},
        },
    }
