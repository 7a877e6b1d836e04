// Leaflet helpers: a map with the configured base tiles (missing tiles leave the route visible).
import { config, imperial } from "./app.js";

/** A Leaflet map in `element` with the base map; tile errors are counted, never fatal. */
export function baseMap(element, options = {}) {
  const L = window.L;
  const map = L.map(element, { zoomSnap: 0.25, scrollWheelZoom: false, ...options });
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  const tiles = L.tileLayer(config.tiles.url, {
    maxZoom: 19,
    attribution: config.tiles.attribution,
    crossOrigin: false,
  });
  window.appState = window.appState ?? {};
  window.appState.tileErrors = 0;
  tiles.on("tileerror", () => window.appState.tileErrors++);
  tiles.addTo(map);
  // The scale in the athlete's units (measurement_preference).
  L.control.scale({ imperial, metric: !imperial }).addTo(map);
  return map;
}
