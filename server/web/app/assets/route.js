// A route: map, elevation profile, summary, GPX/TCX downloads, delete (owner).
import {
  api,
  config,
  currentToken,
  dateText,
  decodePolyline,
  duration,
  h,
  km,
  meters,
  ready,
  showFailure,
} from "./app.js";
import { elevationProfile } from "./elevation.js";
import { baseMap } from "./map.js";

const id = config.routeId;
const root = document.getElementById("route");
const SUB_TYPES = { 1: "Road", 2: "Mountain bike", 3: "Cross", 4: "Trail", 5: "Mixed" };

/** Downloads an export with the session's token (a plain link would carry no token). */
async function download(kind, button) {
  button.disabled = true;
  try {
    const res = await fetch(`/v3/routes/${id}/export_${kind}`, {
      headers: { authorization: `Bearer ${await currentToken()}` },
    });
    if (!res.ok) throw new Error(`The ${kind.toUpperCase()} file could not be made (${res.status}).`);
    const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? `route.${kind}`;
    const url = URL.createObjectURL(await res.blob());
    const a = h("a", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (error) {
    button.after(h("p", { class: "error", role: "alert" }, error.message));
  } finally {
    button.disabled = false;
  }
}

async function main() {
  const [route, streams] = await Promise.all([
    api(`/routes/${id}`),
    api(`/routes/${id}/streams?key_by_type=true`).catch(() => ({})),
  ]);
  document.title = `${route.name} · Fitness Platform`;
  const mine = route.athlete?.id === config.athlete.id;
  const gpx = h("button", { type: "button", id: "export-gpx", class: "secondary" }, "Download GPX");
  const tcx = h("button", { type: "button", id: "export-tcx", class: "secondary" }, "Download TCX");
  gpx.addEventListener("click", () => download("gpx", gpx));
  tcx.addEventListener("click", () => download("tcx", tcx));
  const remove = mine ? h("button", { type: "button", id: "delete-route", class: "danger" }, "Delete route") : null;
  remove?.addEventListener("click", async () => {
    if (!confirm(`Delete the route "${route.name}"?`)) return;
    remove.disabled = true;
    try {
      await api(`/routes/${id}`, { method: "DELETE" });
      location.assign("/");
    } catch (error) {
      remove.disabled = false;
      remove.after(h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  const kind = `${route.type === 2 ? "Run" : "Ride"} · ${SUB_TYPES[route.sub_type] ?? ""}`;
  root.replaceChildren(
    h(
      "div",
      { class: "activity-head" },
      h(
        "div",
        {},
        h("h1", { id: "title" }, route.name),
        h(
          "p",
          { class: "muted" },
          `${kind} · made ${dateText(route.created_at)}${route.private ? " · Only you can see it" : ""}`,
        ),
        route.description ? h("p", { id: "description" }, route.description) : null,
      ),
      h("div", { class: "actions" }, gpx, tcx, remove),
    ),
    h(
      "section",
      { class: "card", "aria-label": "Summary" },
      h(
        "dl",
        { class: "stats", id: "summary" },
        ...[["Distance", km(route.distance)], ["Elevation gain", meters(route.elevation_gain)], [
          "Estimated moving time",
          duration(route.estimated_moving_time),
        ]]
          .map(([t, v]) => h("div", {}, h("dt", {}, t), h("dd", {}, v))),
      ),
    ),
    h("div", { id: "map", role: "region", "aria-label": "Map of the route" }),
    h(
      "section",
      { "aria-label": "Elevation profile" },
      h("h2", { style: "margin-top:1rem" }, "Elevation profile"),
      h("div", { id: "profile" }),
    ),
  );
  const latlng = streams.latlng?.data ?? (route.map?.polyline ? decodePolyline(route.map.polyline) : []);
  if (latlng.length) {
    const map = baseMap(document.getElementById("map"));
    const line = window.L.polyline(latlng, { color: "#b83a07", weight: 5 }).addTo(map);
    map.fitBounds(line.getBounds(), { padding: [20, 20] });
    new ResizeObserver(() => {
      map.invalidateSize();
      map.fitBounds(line.getBounds(), { padding: [20, 20] });
    }).observe(document.getElementById("map"));
  }
  elevationProfile(
    document.getElementById("profile"),
    streams.distance?.data,
    streams.altitude?.data,
    "This route has no elevation (a drawn line without altitudes).",
  );
  ready("route");
}

main().catch((error) => {
  showFailure(root, error);
  ready("route", "failed");
});
