"""The charts' phone layout, as the server specifies it (``figure["narrow"]``, ``meta.narrow``): the
legend anchored under the x axis's title, short axis titles, a right margin that holds a bar's price,
and reference-line labels placed away from the curves (tests/web/test_s61_narrow_charts.py checks the
drawn charts in Chromium)."""

from __future__ import annotations

from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu
from gpuscout.web import charts
from gpuscout.web.charts import price_history_chart, price_vs_bandwidth_chart, vram_chart
from tests.web.conftest import make_offer
from tests.web.history_points import Point


def test_the_bandwidth_chart_has_a_phone_layout_with_short_titles_and_the_legend_below_them() -> None:
    offers = [
        make_offer(accelerator="H100-SXM", price_usd_per_hour=2.0),
        make_offer(accelerator="RTX4090", gpu_memory_gb=24, price_usd_per_hour=0.4),
        make_offer(accelerator="MI300X", gpu_memory_gb=192, price_usd_per_hour=3.0),
    ]
    figure = price_vs_bandwidth_chart(offers, all_accelerators()).figure
    narrow = figure["narrow"]
    assert narrow["legend"]["yref"] == "container" and narrow["legend"]["yanchor"] == "bottom"
    assert narrow["xaxis"]["title"]["text"] == "bandwidth, GB/s"
    assert narrow["yaxis"]["title"]["text"] == "$ per GPU-h"
    # the bottom margin holds the x axis and one legend row per entry (too wide to sit side by side)
    assert narrow["margin"]["b"] >= len(figure["data"]) * 20 + 50
    for trace in figure["data"]:
        if "meta" in trace:
            small = trace["meta"]["narrow"]
            assert len(small["text"]) == len(trace["x"]) == len(small["textposition"])


def test_a_bar_charts_phone_margin_holds_the_longest_price() -> None:
    points = [Point(None, "aws", 10.0, 10.0), Point(None, "lambda", 1.5, 1.5)]
    figure = price_history_chart(points, "H100-SXM").figure
    assert figure["data"][0]["text"][0] == "$10.00"
    assert figure["narrow"]["margin"]["r"] >= 6 * len("$10.00")


def test_reference_labels_go_where_no_curve_is() -> None:
    """One curve runs just above the L40S line on the right half: its label goes to the left end."""
    contexts = [1024 * 2**i for i in range(8)]
    level = charts.usable_gib(resolve_gpu("L40S"))
    series = {"1 concurrent": [10.0] * 4 + [level * 1.04] * 4, "8 concurrent": [500.0] * 8}
    chart = vram_chart(contexts, series, [resolve_gpu("L40S")], "bf16", "test-model")
    line = chart.figure["data"][-1]
    assert line["name"] == "L40S 48 GB"
    written = [i for i, t in enumerate(line["text"]) if t]
    assert len(written) == 1 and line["x"][written[0]] < contexts[4]  # the left half, clear of the curve
    small = line["meta"]["narrow"]
    assert [t for t in small["text"] if t] == [f"L40S: {level:.0f} GiB"]
    assert line["x"][next(i for i, t in enumerate(small["text"]) if t)] < contexts[4]
    assert (
        chart.figure["layout"]["xaxis"]["range"][0]
        < 3.01
        < 5.12
        < chart.figure["layout"]["xaxis"]["range"][1]
    )
