// Explore segments on a map: GET /v3/segments/explore with the map's bounds, filtered by sport and climb category.
import { api, decodePolyline, h, km, meters, ready, showFailure, textNode } from "./app.js";
import { baseMap } from "./map.js";

const root = document.getElementById("segments");
const CATEGORIES = [
  [0, "Not categorised"],
  [1, "Category 4"],
  [2, "Category 3"],
  [3, "Category 2"],
  [4, "Category 1"],
  [5, "Hors catégorie"],
];
let map, layer, form, list, status, timer = 0, asked = 0;

function controls() {
  const select = (id, label, options, value) =>
    h(
      "div",
      {},
      h("label", { for: id }, label),
      h(
        "select",
        { id, name: id },
        options.map(([v, t]) => h("option", { value: String(v), selected: String(v) === String(value) }, t)),
      ),
    );
  form = h(
    "form",
    { class: "stack", id: "explore-filters", "aria-label": "Segment filters" },
    h(
      "div",
      { class: "row" },
      select("sport", "Sport", [["riding", "Rides"], ["running", "Runs"]], "riding"),
      select("min-cat", "Climb category from", CATEGORIES, 0),
      select("max-cat", "to", CATEGORIES, 5),
    ),
  );
  form.addEventListener("change", () => explore());
  form.addEventListener("submit", (e) => e.preventDefault());
  return form;
}

function row(s) {
  return h(
    "li",
    { class: "segment-row", dataset: { segment: s.id } },
    h("a", { href: `/segments/${s.id}` }, s.name),
    h("span", { class: "muted" }, ` ${km(s.distance)} · ${s.avg_grade.toFixed(1)} % · ${meters(s.elev_difference)} up`),
    s.climb_category > 0
      ? h("span", { class: "badge" }, s.climb_category_desc === "HC" ? "HC" : `Cat ${s.climb_category_desc}`)
      : null,
    s.starred ? h("span", { class: "badge", title: "Starred" }, "★ starred") : null,
  );
}

/** Segments inside the map's current bounds (debounced: panning asks once it stops). */
function explore() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    const b = map.getBounds();
    const clamp = (v, lim) => Math.max(-lim, Math.min(lim, v));
    const bounds = [clamp(b.getSouth(), 90), clamp(b.getWest(), 180), clamp(b.getNorth(), 90), clamp(b.getEast(), 180)]
      .map((v) => v.toFixed(5)).join(",");
    const min = Number(form.elements["min-cat"].value), max = Number(form.elements["max-cat"].value);
    const q = new URLSearchParams({
      bounds,
      activity_type: form.elements.sport.value,
      min_cat: String(Math.min(min, max)),
      max_cat: String(Math.max(min, max)),
    });
    history.replaceState(null, "", `?bounds=${bounds}`);
    const mine = ++asked;
    status.textContent = "Looking for segments…";
    try {
      const { segments } = await api(`/segments/explore?${q}`);
      if (mine !== asked) return;
      layer.clearLayers();
      for (const s of segments) {
        const line = window.L.polyline(decodePolyline(s.points ?? ""), { color: "#b83a07", weight: 5, opacity: 0.85 });
        line.bindTooltip(textNode(s.name)); // text, never markup (a string is HTML to Leaflet)
        line.on("click", () => location.assign(`/segments/${s.id}`));
        layer.addLayer(line);
      }
      list.replaceChildren(...segments.map(row));
      status.textContent = segments.length
        ? `${segments.length} ${segments.length === 1 ? "segment" : "segments"} in this area${
          segments.length === 10 ? " (the 10 most ridden; zoom in for more)" : ""
        }.`
        : "No segment starts in this area with these filters. Move or zoom the map.";
    } catch (error) {
      if (mine === asked) status.textContent = error.message;
    } finally {
      if (mine === asked) ready("explore", (window.appState?.explore ?? 0) + 1);
    }
  }, 250);
}

/** Where to open: around the athlete's latest activity with a route, else the starred segments, else the world. */
async function startView() {
  // An address with ?bounds=south,west,north,east (kept up to date as the map moves) opens there.
  const given = (new URLSearchParams(location.search).get("bounds") ?? "").split(",").map(Number);
  if (given.length === 4 && given.every(Number.isFinite)) {
    return window.L.latLngBounds([given[0], given[1]], [given[2], given[3]]);
  }
  const [latest, starred] = await Promise.all([
    api("/athlete/activities?per_page=5").catch(() => []),
    api("/segments/starred?per_page=20").catch(() => []),
  ]);
  const route = latest.find((a) => a.map?.summary_polyline);
  if (route) return window.L.latLngBounds(decodePolyline(route.map.summary_polyline)).pad(0.3);
  const points = starred.flatMap((s) => [s.start_latlng, s.end_latlng]).filter(Boolean);
  if (points.length) return window.L.latLngBounds(points).pad(0.3);
  return null;
}

async function main() {
  list = h("ol", { id: "explore-list", class: "feed-list segment-list", "aria-live": "polite" });
  status = h("p", { id: "explore-status", class: "muted", role: "status" }, "Loading…");
  const mapBox = h("div", { id: "map", role: "region", "aria-label": "Map of segments (drag and zoom to explore)" });
  root.replaceChildren(
    h("h1", {}, "Explore segments"),
    h(
      "p",
      { class: "muted" },
      "Move and zoom the map: the segments that start in the area it shows are drawn and listed.",
    ),
    h("section", { class: "card" }, controls()),
    mapBox,
    h(
      "section",
      { class: "card explore-results", "aria-labelledby": "results-title" },
      h("h2", { id: "results-title" }, "Segments here"),
      status,
      list,
    ),
  );
  map = baseMap(mapBox, { worldCopyJump: true });
  layer = window.L.layerGroup().addTo(map);
  const view = await startView();
  if (view) map.fitBounds(view);
  else map.setView([20, 0], 2);
  map.on("moveend", explore);
  explore();
}

main().catch((error) => showFailure(root, error));
