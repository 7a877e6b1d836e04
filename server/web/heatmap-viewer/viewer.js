// The heatmap viewer: Leaflet with our heat tiles over a dark, faint tile grid (no outside base map
// is needed); an optional base map when the deployment configures one.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("heatmap-config").textContent);
  window.heatmapViewer = { tilesLoaded: 0, tilesFailed: 0, ready: false };
  var map = L.map("map", {
    minZoom: 0,
    maxZoom: 18,
    zoomSnap: 1,
    worldCopyJump: false,
    maxBounds: [[-90, -200], [90, 200]],
    attributionControl: true,
  });
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  if (config.baseMapUrl) {
    L.tileLayer(config.baseMapUrl, { maxZoom: 18, attribution: config.baseMapAttribution || "", className: "basemap" }).addTo(map);
  } else {
    var Grid = L.GridLayer.extend({
      createTile: function (coords) {
        var tile = document.createElement("canvas");
        var size = this.getTileSize();
        tile.width = size.x;
        tile.height = size.y;
        var ctx = tile.getContext("2d");
        ctx.strokeStyle = "rgba(120, 140, 170, 0.16)";
        ctx.lineWidth = 1;
        ctx.strokeRect(0.5, 0.5, size.x, size.y);
        ctx.fillStyle = "rgba(120, 140, 170, 0.28)";
        ctx.font = "10px system-ui, sans-serif";
        ctx.fillText(coords.z + "/" + coords.x + "/" + coords.y, 6, 14);
        return tile;
      },
    });
    new Grid({ noWrap: true, bounds: [[-85.0511, -180], [85.0511, 180]], className: "grid" }).addTo(map);
  }
  var heat = L.tileLayer(config.tilePath + "/{z}/{x}/{y}.png", {
    minZoom: 0,
    maxZoom: 18,
    noWrap: true,
    bounds: [[-85.0511, -180], [85.0511, 180]],
    className: "heat",
    attribution: "Heatmap: " + config.activitiesCount + " public activities",
  });
  heat.on("tileload", function () { window.heatmapViewer.tilesLoaded++; });
  heat.on("tileerror", function () { window.heatmapViewer.tilesFailed++; });
  heat.on("load", function () { window.heatmapViewer.ready = true; });
  heat.addTo(map);
  map.setView(config.center || [20, 0], config.center ? config.zoom : 2);
  L.control.scale({ imperial: false }).addTo(map);
})();
