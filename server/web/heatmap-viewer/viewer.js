// The heatmap viewer: Leaflet with our heat tiles on a dark background (an optional, darkened base
// map when the deployment configures one), opened on the activities' bounds (center_latlng and
// center_zoom, computed when the map is built), fitted to the window. No debug grid. The panel's
// "← Heatmaps" link (server/web/heatmaps.ts) leads back to the athlete's heatmaps.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("heatmap-config").textContent);
  window.heatmapViewer = { tilesLoaded: 0, tilesFailed: 0, ready: false };
  const map = L.map("map", {
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
    L.tileLayer(config.baseMapUrl, { maxZoom: 19, attribution: config.baseMapAttribution || "", className: "basemap" })
      .addTo(map);
  }
  // Tiles that cannot hold any heat are not asked for: a transparent image stands in (the rule is
  // occupancy.js's). Opening on a city's rides is then the handful of tiles with heat, not the
  // 20-30 a 1280 px window spans.
  const NOTHING =
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
  const mayHoldHeat = window.heatmapMayHoldHeat(config.occupied);
  const HeatLayer = L.TileLayer.extend({
    getTileUrl: function (coords) {
      return mayHoldHeat(coords) ? L.TileLayer.prototype.getTileUrl.call(this, coords) : NOTHING;
    },
  });
  const heat = new HeatLayer(config.tilePath + "/{z}/{x}/{y}.png", {
    minZoom: 0,
    maxZoom: 18,
    noWrap: true,
    bounds: [[-85.0511, -180], [85.0511, 180]],
    className: "heat",
    attribution: "Heatmap: " + config.activitiesCount + " public activities",
  });
  heat.on("tileload", function () {
    window.heatmapViewer.tilesLoaded++;
  });
  heat.on("tileerror", function () {
    window.heatmapViewer.tilesFailed++;
  });
  heat.on("load", function () {
    window.heatmapViewer.ready = true;
  });
  heat.addTo(map);
  if (config.bounds) {
    // The tracks' own bounds in the area with the most activities (server/heatmaps/tiles.ts), fitted
    // to this window, at most zoom 16 (a single short track would otherwise fill the screen at 18).
    map.fitBounds(config.bounds, { padding: [24, 24], maxZoom: 16, animate: false });
  } else if (config.center) {
    // The server's center_zoom is the largest zoom at which the tracks' bounding box fits a 960 x 640
    // view around center_latlng; that view's box holds every track. Fitting it to this window opens on
    // the activities at any size (a phone is a zoom or two further out).
    const middle = map.project(config.center, config.zoom);
    const box = L.latLngBounds(
      map.unproject(middle.subtract([480, 320]), config.zoom),
      map.unproject(middle.add([480, 320]), config.zoom),
    );
    map.fitBounds(box, { maxZoom: config.zoom, animate: false });
  } else {
    map.setView([20, 0], 2);
  }
  window.heatmapViewer.zoom = map.getZoom();
  L.control.scale({ imperial: false }).addTo(map);
})();
