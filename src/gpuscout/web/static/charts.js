// Draws every chart of a page from its JSON block: <script type="application/json" data-chart="DIV_ID">.
// The data is parsed with JSON.parse (never evaluated), so provider strings stay plain text.
(function () {
  "use strict";
  if (typeof Plotly === "undefined") { return; }
  document.querySelectorAll("script[type='application/json'][data-chart]").forEach(function (block) {
    var target = document.getElementById(block.getAttribute("data-chart"));
    if (!target) { return; }
    var spec = JSON.parse(block.textContent);
    var layout = Object.assign({ margin: { t: 40, r: 20, b: 50, l: 60 }, hovermode: "closest",
                                 font: { family: "system-ui, sans-serif", size: 12 } }, spec.layout || {});
    Plotly.newPlot(target, spec.data, layout, { displaylogo: false, responsive: true })
      .then(function () { target.setAttribute("data-rendered", "true"); });
  });
})();
