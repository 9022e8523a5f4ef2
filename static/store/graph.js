/* The store's graph: memories, their links and the entities they mention, drawn with
   Cytoscape.js from the elements in <script id="..."> named by data-graph. Pan, zoom,
   click a memory to open it, click an entity to light up its memories. */
(function () {
  "use strict";
  var COLOURS = {episodic: "#3366cc", semantic: "#2e9e6b", procedural: "#dc7633"};

  function start() {
    var box = document.querySelector("[data-graph]");
    if (!box || typeof cytoscape === "undefined") { return; }
    var elements = JSON.parse(document.getElementById(box.dataset.graph).textContent);
    if (!elements.nodes.length) {
      box.textContent = "No memories yet.";
      return;
    }
    var cy = cytoscape({
      container: box,
      elements: elements,
      wheelSensitivity: 0.3,
      minZoom: 0.1,
      maxZoom: 4,
      style: [
        {selector: "node", style: {
          "label": "data(label)", "font-size": 8, "text-wrap": "ellipsis",
          "text-max-width": 120, "color": "#1d1d1f", "text-valign": "bottom",
          "text-margin-y": 3, "min-zoomed-font-size": 7}},
        {selector: "node[group = 'memory']", style: {
          "background-color": function (n) { return COLOURS[n.data("type")] || "#7f8c8d"; },
          "width": "mapData(importance, 1, 10, 10, 28)",
          "height": "mapData(importance, 1, 10, 10, 28)", "cursor": "pointer"}},
        {selector: "node[group = 'entity']", style: {
          "shape": "diamond", "background-color": "#a855c9", "width": 14, "height": 14}},
        {selector: "edge", style: {
          "width": 1, "line-color": "#9aa5b1", "curve-style": "bezier", "opacity": 0.7}},
        {selector: "edge[group = 'link']", style: {
          "width": 1.5, "target-arrow-shape": "triangle", "target-arrow-color": "#9aa5b1",
          "label": "data(label)", "font-size": 6, "color": "#52606d",
          "min-zoomed-font-size": 8, "text-rotation": "autorotate"}},
        {selector: "edge[group = 'mention']", style: {"line-style": "dashed", "opacity": 0.4}},
        {selector: "edge[group = 'relationship']", style: {
          "line-color": "#a855c9", "label": "data(label)", "font-size": 6,
          "min-zoomed-font-size": 8}},
        {selector: ".faded", style: {"opacity": 0.12}},
        {selector: ".lit", style: {"border-width": 2, "border-color": "#111"}}
      ],
      layout: {name: "cose", animate: false, nodeDimensionsIncludeLabels: false,
               idealEdgeLength: 60, nodeRepulsion: 6000, randomize: false}
    });

    cy.on("tap", "node[group = 'memory']", function (event) {
      window.location.href = event.target.data("url");
    });
    cy.on("tap", "node[group = 'entity']", function (event) {
      var near = event.target.closedNeighborhood();
      cy.elements().addClass("faded").removeClass("lit");
      near.removeClass("faded");
      event.target.addClass("lit");
    });
    cy.on("tap", function (event) {
      if (event.target === cy) { cy.elements().removeClass("faded lit"); }
    });
    var fit = document.getElementById("graph-fit");
    if (fit) { fit.addEventListener("click", function () { cy.elements().removeClass("faded lit"); cy.fit(undefined, 20); }); }
  }

  document.addEventListener("DOMContentLoaded", start);
})();
