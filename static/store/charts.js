/* Charts of the store screens: each <canvas data-chart="BLOB:KEY"> is drawn from the
   chart spec KEY of the JSON in <script id="BLOB"> (written by Django's json_script).
   A spec is {type, labels, series: [{label, values, type?, axis?}], xTitle?, yTitle?,
   y2Title?, yMax?}. Charts are (re)drawn on load and after every htmx swap. */
(function () {
  "use strict";
  var PALETTE = ["#3366cc", "#dc7633", "#2e9e6b", "#a855c9", "#c0392b", "#7f8c8d",
                 "#d4ac0d", "#17a2b8", "#6c5ce7"];

  function config(spec) {
    var many = spec.type === "doughnut";
    var scales = {};
    if (!many) {
      scales.x = {title: {display: !!spec.xTitle, text: spec.xTitle || ""},
                  ticks: {maxRotation: 0, autoSkip: true, autoSkipPadding: 12}};
      scales.y = {beginAtZero: true, title: {display: !!spec.yTitle, text: spec.yTitle || ""}};
      if (spec.yMax !== undefined) { scales.y.max = spec.yMax; } else { scales.y.ticks = {precision: 0}; }
      if (spec.series.some(function (s) { return s.axis === "y2"; })) {
        scales.y2 = {beginAtZero: true, position: "right", grid: {drawOnChartArea: false},
                     title: {display: !!spec.y2Title, text: spec.y2Title || ""}};
      }
    }
    return {
      type: spec.type,
      data: {
        labels: spec.labels,
        datasets: spec.series.map(function (s, i) {
          var colour = PALETTE[i % PALETTE.length];
          return {
            label: s.label, data: s.values, type: s.type || undefined,
            yAxisID: many ? undefined : (s.axis || "y"),
            backgroundColor: many ? s.values.map(function (_, j) { return PALETTE[j % PALETTE.length]; }) : colour,
            borderColor: many ? "#fff" : colour,
            pointRadius: 0, borderWidth: s.type === "line" || spec.type === "line" ? 2 : 1,
            tension: 0.2
          };
        })
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        interaction: {mode: many ? "nearest" : "index", intersect: false},
        plugins: {legend: {display: many || spec.series.length > 1, position: "bottom"}},
        scales: scales
      }
    };
  }

  function draw(root) {
    if (typeof Chart === "undefined") { return; }
    var blobs = {};
    root.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
      if (Chart.getChart(canvas)) { return; }
      var parts = canvas.dataset.chart.split(":");
      if (!(parts[0] in blobs)) {
        var source = document.getElementById(parts[0]);
        blobs[parts[0]] = source ? JSON.parse(source.textContent) : {};
      }
      var spec = blobs[parts[0]][parts[1]];
      if (spec) { new Chart(canvas, config(spec)); }
    });
  }

  function forget(root) {
    if (typeof Chart === "undefined") { return; }
    root.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
      var chart = Chart.getChart(canvas);
      if (chart) { chart.destroy(); }
    });
  }

  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:beforeSwap", function (event) { forget(event.detail.target); });
  document.addEventListener("htmx:afterSettle", function () { draw(document); });
})();
