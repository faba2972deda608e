"""Chart specs: labelled 1-2-5 ticks on log axes, linear where the range is narrow, sorted bars,
labels that do not overlap, a real history only with several snapshots, and the data as a table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.web.charts import (
    _overlap,
    axis,
    cheapest_on_demand,
    place_labels,
    price_history_chart,
    price_vs_bandwidth_chart,
    ticks_125,
    value_frontier,
)
from tests.web.conftest import make_offer
from tests.web.history_points import Point


def test_ticks_are_1_2_5_decades_spanning_the_values() -> None:
    assert ticks_125(0.09, 18) == [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20]
    assert ticks_125(200, 8000) == [200, 500, 1000, 2000, 5000, 10000]


def test_a_wide_range_is_a_log_axis_with_full_labels_a_narrow_one_linear_from_zero() -> None:
    wide = axis("$ per GPU-hour", [0.1, 2.0, 16.0], money=True)
    assert wide["type"] == "log" and wide["ticktext"] == [
        "$0.1",
        "$0.2",
        "$0.5",
        "$1",
        "$2",
        "$5",
        "$10",
        "$20",
    ]
    assert len(wide["tickvals"]) == len(wide["ticktext"])
    bandwidth = axis("GB/s", [300, 936, 8000])
    assert bandwidth["ticktext"] == ["200", "500", "1k", "2k", "5k", "10k"]
    narrow = axis("$ per GPU-hour", [1.0, 1.5, 2.9], money=True)
    assert narrow["type"] == "linear" and narrow["rangemode"] == "tozero" and narrow["tickprefix"] == "$"


def test_frontier_keeps_only_undominated_points() -> None:
    points = [
        ("cheap-slow", 900, 0.2),
        ("dear-slow", 900, 0.5),
        ("fast", 3000, 1.0),
        ("fast-dear", 2000, 2.0),
    ]
    assert value_frontier(points) == ["cheap-slow", "fast"]


def test_labels_never_overlap_each_other() -> None:
    points = [(f"GPU-{i}", 1500 + 40 * i, 1.0 + 0.05 * i) for i in range(8)] + [("far", 8000, 5.0)]
    placed = place_labels(points, [n for n, _, _ in points])
    assert "far" in placed and 2 <= len(placed) < len(points)  # the crowded ones are left to hover
    # re-derive the boxes the placement used and check no two overlap
    import math

    from gpuscout.web import charts

    xt = ticks_125(min(p[1] for p in points), max(p[1] for p in points))
    yt = ticks_125(min(p[2] for p in points), max(p[2] for p in points))
    xu = (math.log10(xt[-1] / xt[0]) + 0.1) / charts._PLOT_W_PX  # the axis's range: 0.05 decade each side
    yu = (math.log10(yt[-1] / yt[0]) + 0.1) / charts._PLOT_H_PX
    boxes = []
    for name, x, y in points:
        if name not in placed:
            continue
        lx, ly = math.log10(x), math.log10(y)
        w, h, m = len(name) * charts._CHAR_W_PX * xu, charts._LABEL_H_PX * yu, 8 * yu
        side = 9 * xu
        boxes.append(
            {
                "top center": (lx - w / 2, ly + m, lx + w / 2, ly + m + h),
                "bottom center": (lx - w / 2, ly - m - h, lx + w / 2, ly - m),
                "middle right": (lx + side, ly - h / 2, lx + side + w, ly + h / 2),
                "middle left": (lx - side - w, ly - h / 2, lx - side, ly + h / 2),
            }[placed[name]]
        )
    assert not any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def test_bandwidth_chart_colours_by_vendor_and_class_and_tables_its_data() -> None:
    offers = [
        make_offer(accelerator="H100-SXM", price_usd_per_hour=2.0),
        make_offer(accelerator="RTX4090", gpu_memory_gb=24, price_usd_per_hour=0.4),
        make_offer(accelerator="MI300X", gpu_memory_gb=192, price_usd_per_hour=3.0),
        make_offer(accelerator="L40S", gpu_memory_gb=48, price_usd_per_hour=0.1, stale=True),
    ]
    chart = price_vs_bandwidth_chart(offers, all_accelerators())
    names = {t["name"] for t in chart.figure["data"]}
    assert {"NVIDIA datacenter", "NVIDIA consumer", "AMD datacenter"} <= names
    assert "L40S" not in [r[0] for r in chart.rows]  # a stale price is not "the cheapest now"
    assert chart.figure["layout"]["legend"]["orientation"] == "h"  # under the plot, not over it
    assert "GB/s" in chart.title and "$/GPU-hour" in chart.title
    assert len(chart.rows) == 3 and chart.headers[0] == "GPU"


def test_one_snapshot_gives_sorted_bars_and_says_so() -> None:
    points = [Point(None, "vastai", 2.0, 2.1), Point(None, "lambda", 1.5, 1.5), Point(None, "aws", 6.9, 7.0)]
    chart = price_history_chart(points, "H100-SXM")
    assert "one snapshot so far" in chart.title and "observation date unknown" in chart.title
    bars = chart.figure["data"][0]
    assert bars["type"] == "bar" and bars["orientation"] == "h"
    assert bars["x"] == sorted(bars["x"], reverse=True)  # cheapest at the top of a horizontal bar chart
    assert bars["y"][-1] == "Lambda"  # display names, not slugs
    assert [r[0] for r in chart.rows] == ["Lambda", "Vast.ai", "Amazon Web Services"]
    assert "history appears once" in chart.summary


def test_the_price_chart_names_the_counted_providers_it_has_no_price_of() -> None:
    points = [Point(None, "lambda", 2.5, 2.5)]
    left_out = ["Mithril (auction price, interruptible like spot)", "Epsilon (spot price only)"]
    chart = price_history_chart(points, "H100-SXM", left_out)
    assert chart.summary.startswith("H100-SXM at 1 provider; cheapest $2.50/GPU-h at Lambda.")
    assert chart.summary.endswith(
        "Not in the chart: Mithril (auction price, interruptible like spot), Epsilon (spot price only)."
    )
    assert "Not in the chart" not in price_history_chart(points, "H100-SXM").summary


def test_an_auction_price_is_not_the_cheapest_on_demand_price_of_a_gpu() -> None:
    offers = [
        make_offer(accelerator="H100-SXM", price_usd_per_hour=2.0),
        make_offer(
            accelerator="H100-SXM",
            price_usd_per_hour=1.0,
            spot_price_usd_per_hour=1.0,
            price_is_interruptible=True,
        ),
    ]
    assert cheapest_on_demand(offers)["H100-SXM"].price_usd_per_hour == 2.0
    chart = price_vs_bandwidth_chart(offers, all_accelerators())
    assert [r[4] for r in chart.rows if r[0] == "H100-SXM"] == ["$2.00"]


def test_several_snapshots_give_a_line_per_provider_over_time() -> None:
    now = datetime(2026, 12, 1, tzinfo=UTC)
    points = [
        Point(now - timedelta(days=d), p, price + d / 10, price + d / 10)
        for d in (0, 3, 7)
        for p, price in (("vastai", 2.0), ("lambda", 2.5))
    ]
    chart = price_history_chart(points, "H100-SXM")
    assert "over time" in chart.title
    lines = chart.figure["data"]
    assert [t["name"] for t in lines] == ["Vast.ai", "Lambda"] and all(len(t["x"]) == 3 for t in lines)
    assert chart.figure["layout"]["xaxis"]["type"] == "date" and len(chart.rows) == 6


def test_the_bars_axis_leaves_room_for_the_longest_bars_price() -> None:
    # the price is written past the end of its bar: on a 390 px phone the longest bar's "$6.90" was cut off
    points = [Point(None, "lambda", 1.5, 1.5), Point(None, "aws", 6.9, 7.0)]
    xaxis = price_history_chart(points, "H100-SXM").figure["layout"]["xaxis"]
    assert xaxis["range"][0] == 0 and xaxis["range"][1] >= 6.9 * 1.2
