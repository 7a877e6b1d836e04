// The activity page's heart-rate and power zones (GET /v3/activities/:id/zones): time in each zone
// as a bar and a share, drawn below the charts once activity.js has drawn the page. Owner only (as
// the API); the API answers 403 for an owner without premium, said here in plain words.
import { api, config, duration, h, ready } from "./app.js";

const id = config.activityId;

/**
 * Waits until activity.js has drawn the page; the zones go below the charts (the map and the charts
 * stay where they were, in the first screen), else below the summary.
 */
function drawnPage() {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const look = () => {
      const summary = document.getElementById("summary");
      const charts = document.getElementById("charts")?.closest("section");
      if (globalThis.appState?.activityDrawn && summary) {
        return resolve(charts ?? summary.closest("section") ?? summary);
      }
      if (document.getElementById("activity")?.dataset.state === "failed") return reject(new Error("page failed"));
      if (Date.now() - started > 60_000) return reject(new Error("page not drawn"));
      setTimeout(look, 30);
    };
    look();
  });
}

const UNITS = { heartrate: "bpm", power: "W" };
const TITLES = { heartrate: "Heart rate", power: "Power" };

/** "114–133 bpm", "> 450 W" (the last bucket is open: max −1). */
function rangeText(b, unit) {
  if (b.max === -1 || b.max === undefined || b.max === null) return `> ${Math.round(b.min)} ${unit}`;
  return `${Math.round(b.min)}–${Math.round(b.max)} ${unit}`;
}

function zoneTable(zone) {
  const unit = UNITS[zone.type] ?? "";
  const buckets = zone.distribution_buckets ?? [];
  const total = buckets.reduce((sum, b) => sum + (b.time ?? 0), 0);
  const longest = Math.max(1, ...buckets.map((b) => b.time ?? 0));
  const key = zone.type === "power" ? "power" : "heartrate";
  const note = zone.type === "heartrate"
    ? `Zones from a max heart rate of ${zone.max ?? "—"} bpm${
      zone.points !== undefined ? ` · ${zone.points} effort points` : ""
    }.`
    : buckets.length === 7
    ? "Coggan's 7 zones from your FTP."
    : "50 W bands: set your FTP (PUT /v3/athlete ftp) for zones of your own.";
  return h(
    "div",
    { class: "zone-block", id: `zones-${key}`, dataset: { zone: key } },
    h(
      "table",
      { class: "zones" },
      h("caption", {}, TITLES[zone.type] ?? zone.type),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Zone"),
          h("th", { scope: "col" }, "Range"),
          h("th", { scope: "col", class: "bar-col" }, h("span", { class: "visually-hidden" }, "Share of time")),
          h("th", { scope: "col", class: "num" }, "Time"),
          h("th", { scope: "col", class: "num" }, "%"),
        ),
      ),
      h(
        "tbody",
        {},
        buckets.map((b, i) => {
          const share = total ? (100 * (b.time ?? 0)) / total : 0;
          return h(
            "tr",
            { dataset: { time: b.time ?? 0 } },
            h("th", { scope: "row" }, `Z${i + 1}`),
            h("td", {}, rangeText(b, unit)),
            h(
              "td",
              { class: "bar-col", "aria-hidden": "true" },
              h("span", {
                class: `zone-bar z${Math.min(i + 1, 7)}`,
                style: `width:${((100 * (b.time ?? 0)) / longest).toFixed(1)}%`,
              }),
            ),
            h("td", { class: "num" }, duration(b.time ?? 0)),
            h("td", { class: "num" }, `${Math.round(share)} %`),
          );
        }),
      ),
    ),
    h("p", { class: "muted small" }, note),
  );
}

async function main() {
  if (config.summary || !id) return; // another athlete's activity: the API answers zones to the owner only
  // The API answers zones to premium owners only: ask only when it will answer (no refused request).
  const zonesOrRefusal = api("/athlete").then((me) =>
    me.premium || me.summit ? api(`/activities/${id}/zones`) : Object.assign(new Error("premium"), { status: 403 })
  );
  const [place, zones] = await Promise.all([drawnPage(), zonesOrRefusal.catch((error) => error)]);
  let content;
  if (zones instanceof Error) {
    content = zones.status === 403
      ? h("p", { class: "muted" }, "Heart-rate and power zones are for premium athletes on this server.")
      : h("p", { class: "error", role: "alert" }, `The zones could not be loaded: ${zones.message}`);
  } else if (!zones.length) {
    content = h("p", { class: "muted" }, "No heart rate or power was recorded, so there are no zones.");
  } else {
    content = h("div", { class: "zone-grid" }, zones.map(zoneTable));
  }
  place.after(
    h(
      "section",
      { class: "card", id: "zones", "aria-labelledby": "zones-title" },
      h("h2", { id: "zones-title" }, "Heart-rate and power zones"),
      content,
    ),
  );
  ready("zones", zones instanceof Error ? (zones.status === 403 ? "premium" : "failed") : zones.length);
}

main().catch((error) => {
  console.warn("zones not shown", error);
  ready("zones", "failed");
});
