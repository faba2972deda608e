// Draws every chart of a page from its JSON block: <script type="application/json" data-chart="DIV_ID">.
// The data is parsed with JSON.parse (never evaluated), so provider strings stay plain text. Without
// JavaScript (or without Plotly) the chart box stays hidden and the data table under it stays open.
(function () {
  "use strict";
  if (typeof Plotly === "undefined") { return; }
  var narrow = window.matchMedia && window.matchMedia("(max-width: 600px)").matches;
  document.querySelectorAll("script[type='application/json'][data-chart]").forEach(function (block) {
    var id = block.getAttribute("data-chart");
    var target = document.getElementById(id);
    if (!target) { return; }
    var spec = JSON.parse(block.textContent);
    var layout = Object.assign({
      hovermode: "closest", paper_bgcolor: "#fff", plot_bgcolor: "#fff",
      font: { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif", size: 12, color: "#1b2230" }
    }, spec.layout || {});
    if (narrow) {
      spec.data.forEach(function (trace) {  // fewer labels on a narrow plot
        if (trace.meta && trace.meta.narrowText) { trace.text = trace.meta.narrowText; }
      });
      layout.margin = Object.assign({}, layout.margin, { l: 52, r: 8 });
      layout.font = Object.assign({}, layout.font, { size: 11 });
    }
    target.hidden = false;
    Plotly.newPlot(target, spec.data, layout, { displayModeBar: false, responsive: true, displaylogo: false })
      .then(function () {
        target.setAttribute("data-rendered", "true");
        var table = document.getElementById(id + "-data");
        if (table) { table.open = false; }
      });
  });
})();
