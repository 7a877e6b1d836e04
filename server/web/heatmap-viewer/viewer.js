// The heatmap viewer: Leaflet with our heat tiles on a dark background (an optional, darkened base
// map when the deployment configures one), opened on the activities' bounds (center_latlng and
// center_zoom, computed when the map is built). No debug grid.
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
  // The optional base map (darkened by CSS); without it, or offline, the heat shows on the plain background.
  if (config.baseMapUrl) {
    L.tileLayer(config.baseMapUrl, { maxZoom: 19, attribution: config.baseMapAttribution || "", className: "basemap" }).addTo(map);
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
  window.heatmapViewer.zoom = map.getZoom();
  L.control.scale({ imperial: false }).addTo(map);
})();
