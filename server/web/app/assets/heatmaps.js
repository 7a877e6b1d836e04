// Heatmaps: the athlete's list, a form to create one (types, date range), build progress, viewer links.
import { api, config, dateText, h, readableName, ready, showFailure } from "./app.js";

const root = document.getElementById("heatmaps");
const TYPES = config.activityTypes; // [id, name] in the API's numbering
const COMMON = ["Ride", "Run", "Walk", "Hike", "Swim", "VirtualRide", "EBikeRide", "NordicSki", "AlpineSki", "Rowing"];
const typeName = (id) => readableName(TYPES.find(([i]) => i === id)?.[1] ?? String(id));
const polling = new Map();

function row(m) {
  const status = m.status ?? "done";
  const li = h(
    "li",
    { class: "card", dataset: { heatmap: m.id, status } },
    h("h2", {}, m.activity_type_ids.map(typeName).join(", ")),
    h(
      "p",
      { class: "muted" },
      [
        m.start_date_local || m.end_date_local
          ? `${(m.start_date_local ?? "…").slice(0, 10)} – ${(m.end_date_local ?? "…").slice(0, 10)}`
          : "All dates",
        `${m.activities_count ?? 0} public activities`,
        m.created_at ? `created ${dateText(m.created_at)}` : null,
      ].filter(Boolean).join(" · "),
    ),
    h(
      "p",
      { class: "status", role: "status" },
      status === "done"
        ? h("a", { class: "button", href: new URL(m.web_url).pathname }, "Open the heatmap")
        : status === "error"
        ? h("span", { class: "error" }, m.status_message || "The build failed.")
        : `Building: ${status}${m.status_message ? ` — ${m.status_message}` : ""}…`,
    ),
  );
  if (status !== "done" && status !== "error" && !polling.has(m.id)) poll(m.id);
  return li;
}

async function poll(id) {
  polling.set(id, true);
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    let m;
    try {
      m = await api(`/athletes/${config.athlete.id}/heatmaps/${id}/progress`);
    } catch {
      continue;
    }
    const old = document.querySelector(`[data-heatmap="${id}"]`);
    if (old) old.replaceWith(row(m));
    if (m.status === "done" || m.status === "error") break;
  }
  polling.delete(id);
  ready("heatmapsPolled", (window.appState?.heatmapsPolled ?? 0) + 1);
}

function form() {
  const f = h(
    "form",
    { class: "stack card", id: "create-heatmap", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title" }, "New heatmap"),
    h(
      "fieldset",
      { style: "border:0;padding:0;margin:0" },
      h("legend", { style: "font-weight:600" }, "Activity types"),
      h(
        "div",
        { class: "actions" },
        COMMON.map((name) => {
          const id = TYPES.find(([, n]) => n === name)?.[0];
          return id
            ? h(
              "label",
              { class: "check" },
              h("input", { type: "checkbox", name: "type", value: String(id), checked: name === "Ride" }),
              readableName(name),
            )
            : null;
        }),
      ),
    ),
    h(
      "div",
      { class: "row" },
      h("div", {}, h("label", { for: "hm-from" }, "From (optional)"), h("input", { type: "date", id: "hm-from" })),
      h("div", {}, h("label", { for: "hm-to" }, "To (optional)"), h("input", { type: "date", id: "hm-to" })),
    ),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, "Build heatmap"),
      h("span", { id: "create-status", role: "status" }),
    ),
  );
  f.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = f.querySelector("#create-status");
    const ids = [...f.querySelectorAll("input[name=type]:checked")].map((i) => Number(i.value));
    if (!ids.length) {
      status.className = "error";
      status.textContent = "Choose at least one activity type.";
      return;
    }
    const body = { activity_type_ids: ids };
    const from = f.querySelector("#hm-from").value, to = f.querySelector("#hm-to").value;
    if (from) body.start_date_local = Date.parse(`${from}T00:00:00Z`) / 1000;
    if (to) body.end_date_local = Date.parse(`${to}T23:59:59Z`) / 1000;
    try {
      const created = await api("/athlete/heatmaps", { method: "POST", body });
      status.className = "ok";
      status.textContent = "Requested.";
      document.getElementById("heatmap-list").prepend(row({ ...created, status: "queued" }));
    } catch (error) {
      status.className = "error";
      status.textContent = error.message;
    }
  });
  return f;
}

async function main() {
  const maps = await api("/athlete/heatmaps");
  const withStatus = await Promise.all(
    maps.map((m) => api(`/athletes/${config.athlete.id}/heatmaps/${m.id}/progress`).catch(() => m)),
  );
  root.replaceChildren(
    h("h1", {}, "Heatmaps"),
    h(
      "p",
      { class: "muted" },
      "A heatmap draws all your public activities of the chosen types on one map; the more often you passed somewhere, the brighter it is.",
    ),
    form(),
    h("ol", { id: "heatmap-list", class: "feed-list" }, withStatus.map(row)),
  );
  ready("heatmaps");
}

main().catch((error) => showFailure(root, error));
