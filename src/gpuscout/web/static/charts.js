// Draws every chart of a page from its JSON block: <script type="application/json" data-chart="DIV_ID">.
// The data is parsed with JSON.parse (never evaluated), so provider strings stay plain text. Without
// JavaScript (or without Plotly) the chart box stays hidden and the data table under it stays open.
// On a narrow screen (the media query below) a figure's "narrow" layout is merged over its layout and each
// trace's meta.narrow over the trace: the server lays the chart out for a phone too (web/charts.py).
(function () {
  "use strict";
  if (typeof Plotly === "undefined") { return; }
  var narrow = window.matchMedia && window.matchMedia("(max-width: 600px)").matches;
  function merged(base, over) {  // ``over`` merged into a copy of ``base``, objects key by key
    var out = Object.assign({}, base);
    Object.keys(over).forEach(function (key) {
      var a = out[key], b = over[key];
      var objects = a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b);
      out[key] = objects ? merged(a, b) : b;
    });
    return out;
  }
  document.querySelectorAll("script[type='application/json'][data-chart]").forEach(function (block) {
    var id = block.getAttribute("data-chart");
    var target = document.getElementById(id);
    if (!target) { return; }
    var spec = JSON.parse(block.textContent);
    var layout = Object.assign({
      hovermode: "closest", paper_bgcolor: "#fff", plot_bgcolor: "#fff",
      font: { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif", size: 12, color: "#1b2230" }
    }, spec.layout || {});
    var data = spec.data;
    if (narrow) {
      data = data.map(function (trace) {  // fewer labels, placed for the smaller plot
        return trace.meta && trace.meta.narrow ? merged(trace, trace.meta.narrow) : trace;
      });
      layout = merged(layout, { margin: { l: 52, r: 8 }, font: { size: 11 } });
      if (spec.narrow) { layout = merged(layout, spec.narrow); }
    }
    target.hidden = false;
    Plotly.newPlot(target, data, layout, { displayModeBar: false, responsive: true, displaylogo: false })
      .then(function () {
        target.setAttribute("data-rendered", "true");
        var table = document.getElementById(id + "-data");
        if (table) { table.open = false; }
      });
  });
})();
