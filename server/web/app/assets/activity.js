// One activity: map, charts with a cursor linked to the map, stats, splits, laps, efforts, social, edit.
import {
  api,
  audienceText,
  config,
  dateText,
  distanceText,
  distanceUnit,
  duration,
  gearBadges,
  h,
  imperial,
  isPaceSport,
  isStepSport,
  isSwim,
  km,
  kudosText,
  localDateText,
  meters,
  paceMeters,
  paceUnit,
  readableName,
  ready,
  showFailure,
  speedText,
  speedUnit,
  visibilityField,
  YARD,
} from "./app.js";
import { baseMap } from "./map.js";

const id = config.activityId;
const root = document.getElementById("activity");
const KEYS = "latlng,altitude,velocity_smooth,heartrate,watts,cadence,time,distance";

let activity, streams, map, route, marker, plots = [], xMode = "distance";

function stat(label, value) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, value));
}

function header(a) {
  const mine = a.athlete?.id === config.athlete.id;
  return h(
    "div",
    { class: "activity-head" },
    h(
      "div",
      {},
      h("h1", { id: "title" }, a.name || "Untitled activity"),
      h(
        "p",
        { class: "muted" },
        config.ownerName
          ? [h("a", { href: `/athletes/${config.ownerId}`, id: "owner" }, config.ownerName), " · "]
          : null,
        `${readableName(a.sport_type ?? a.type)} · ${dateText(a.start_date_local ?? a.start_date)}${
          audienceText(a) === "Only you"
            ? " · Only you can see it"
            : audienceText(a) === "Followers"
            ? (mine ? " · Your followers can see it" : " · Followers only")
            : ""
        }`,
      ),
      a.description ? h("p", { id: "description" }, a.description) : null,
    ),
    mine
      ? h("div", { class: "actions" }, makeRouteButton(a), h("a", { class: "button secondary", href: "#edit" }, "Edit"))
      : null,
  );
}

/** Makes a route of one's own activity (private unless everyone may see the activity) and opens it. */
function makeRouteButton(a) {
  if (!a.map?.summary_polyline && !a.map?.polyline) return null;
  const button = h("button", { type: "button", id: "make-route", class: "secondary" }, "Make a route");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const made = await api("/routes", {
        method: "POST",
        body: { activity_id: a.id, name: a.name || "Route", private: (a.visibility ?? "everyone") !== "everyone" },
      });
      location.assign(`/routes/${made.id}`);
    } catch (error) {
      button.disabled = false;
      button.after(h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  return button;
}

/** Whether the activity covered a distance (an indoor rowing or trainer file may record none). */
const hasDistance = (a) => (a?.distance ?? 0) > 0;

function summary(a) {
  const pace = isPaceSport(a.type);
  // No distance recorded: no "0.00 km" and no speed of "—", as Strava shows such an activity.
  const moved = hasDistance(a);
  return h(
    "section",
    { class: "card", "aria-label": "Summary" },
    h(
      "dl",
      { class: "stats", id: "summary" },
      moved ? stat("Distance", distanceText(a.distance, a.type)) : null,
      stat("Moving time", duration(a.moving_time)),
      stat("Elapsed time", duration(a.elapsed_time)),
      stat("Elevation gain", meters(a.total_elevation_gain)),
      moved ? stat(pace ? "Avg pace" : "Avg speed", speedText(a.average_speed, a.type)) : null,
      moved ? stat(pace ? "Best pace" : "Max speed", speedText(a.max_speed, a.type)) : null,
      a.has_heartrate || a.average_heartrate ? stat("Avg heart rate", `${Math.round(a.average_heartrate)} bpm`) : null,
      a.average_watts
        ? stat(a.device_watts === false ? "Avg power (estimated)" : "Avg power", `${Math.round(a.average_watts)} W`)
        : null,
      a.average_cadence ? stat("Avg cadence", cadenceText(a.average_cadence, a.type)) : null,
      a.calories ? stat("Calories", `${Math.round(a.calories).toLocaleString("en")} kcal`) : null,
      a.gear
        ? stat("Gear", [
          a.athlete?.id === config.athlete.id
            ? h("a", { href: `/gear/${a.gear.id}`, id: "activity-gear" }, a.gear.name ?? a.gear.id)
            : h("span", { id: "activity-gear" }, a.gear.name ?? a.gear.id),
          ...gearBadges(a.gear),
        ])
        : null,
    ),
    // The altitudes are the recording's GPS altitude (no barometer, no terrain tile): say so (docs/numbers.md).
    a.elevation_from_gps && a.total_elevation_gain > 0
      ? h(
        "p",
        { class: "muted", id: "elevation-note" },
        "Elevation gain from GPS altitude: nothing in the file says it is a barometric altimeter's, and no terrain data covers the place, so the gain may read well above the real climb.",
      )
      : null,
  );
}

/** Cadence in its sport's unit: steps/min for runs (the API counts one foot), strokes/min for swims and rowing, rpm otherwise. */
function cadenceText(value, type) {
  return `${Math.round(isStepSport(type) ? value * 2 : value)} ${cadenceUnit(type)}`;
}

function cadenceUnit(type) {
  if (isStepSport(type)) return "steps/min";
  if (isSwim(type) || /Row/.test(type ?? "")) return "strokes/min";
  return "rpm";
}

function table(caption, head, rows, id) {
  if (!rows.length) return null;
  return h(
    "section",
    { class: "card", id },
    h("h2", {}, caption),
    h(
      "div",
      { class: "table-wrap", tabindex: "0", role: "region", "aria-label": caption },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c))))),
      ),
    ),
  );
}

function achievements(e) {
  const out = [];
  if (e.kom_rank) out.push(h("span", { class: "badge kom" }, e.kom_rank === 1 ? "KOM" : `KOM #${e.kom_rank}`));
  if (e.pr_rank) out.push(h("span", { class: "badge" }, e.pr_rank === 1 ? "PR" : `PR #${e.pr_rank}`));
  return out.length ? out : "—";
}

/**
 * Laps in their own sport's units: a multisport file's laps carry their leg's sport (sport_type;
 * null in a transition), so a triathlon's swim leg reads per 100 m and its run per km, with a "Leg"
 * column; other activities' laps are the activity's sport.
 */
function lapsTable(laps, type) {
  const sports = laps.map((l) => (l.sport_type === undefined ? type : l.sport_type));
  const legs = new Set(sports).size > 1;
  const unitOf = (sport) => sport ?? type;
  const head = legs
    ? ["Lap", "Leg", "Distance", "Time", "Speed / pace", "Avg HR"]
    : ["Lap", "Distance", "Time", isPaceSport(type) ? "Pace" : "Speed", "Avg HR"];
  return table(
    "Laps",
    head,
    laps.map((l, i) => [
      String(l.lap_index ?? l.name),
      ...(legs ? [sports[i] ? readableName(sports[i]) : "Transition"] : []),
      l.distance ? distanceText(l.distance, unitOf(sports[i])) : "—",
      duration(l.moving_time),
      speedText(l.average_speed, unitOf(sports[i])),
      l.average_heartrate ? `${Math.round(l.average_heartrate)}` : "—",
    ]),
    "laps",
  );
}

function tables(a) {
  const type = a.type;
  return [
    table(
      imperial ? "Splits (mi)" : "Splits (km)",
      [imperial ? "Mile" : "Km", "Distance", "Time", isPaceSport(type) ? "Pace" : "Speed", "Elev"],
      ((imperial ? a.splits_standard : a.splits_metric) ?? []).map((
        s,
      ) => [
        String(s.split),
        km(s.distance),
        duration(s.moving_time),
        speedText(s.average_speed, type),
        meters(s.elevation_difference),
      ]),
      "splits",
    ),
    lapsTable(a.laps ?? [], type),
    table(
      "Segment efforts",
      ["Segment", "Time", "Distance", "Achievements"],
      (a.segment_efforts ?? []).map((
        e,
      ) => [
        h("a", { href: `/segments/${e.segment?.id}` }, e.name ?? e.segment?.name ?? "Segment"),
        duration(e.elapsed_time),
        km(e.distance),
        achievements(e),
      ]),
      "efforts",
    ),
    table(
      "Best efforts",
      ["Distance", "Time", "Achievements"],
      (a.best_efforts ?? []).map((e) => [e.name, duration(e.elapsed_time), achievements(e)]),
      "best-efforts",
    ),
  ];
}

// ------------------------------------------------------------------ map and charts

function drawMap(latlng) {
  const box = document.getElementById("map");
  if (!box) return; // the first draw found no track and said so: a redraw has nothing to replace
  if (!latlng?.length) {
    box.replaceWith(h("p", { class: "card muted no-map", id: "no-map" }, "No GPS track: nothing to map."));
    return;
  }
  const L = window.L;
  if (!map) {
    map = baseMap(box);
    route = L.polyline(latlng, { color: "#b83a07", weight: 4, opacity: 0.9 }).addTo(map);
    L.circleMarker(latlng[0], { radius: 6, color: "#fff", weight: 2, fillColor: "#1a7f37", fillOpacity: 1 })
      .bindTooltip("Start").addTo(map);
    L.circleMarker(latlng[latlng.length - 1], {
      radius: 6,
      color: "#fff",
      weight: 2,
      fillColor: "#cf222e",
      fillOpacity: 1,
    }).bindTooltip("Finish").addTo(map);
    marker = L.circleMarker(latlng[0], {
      radius: 7,
      color: "#0a58ca",
      weight: 3,
      fillColor: "#fff",
      fillOpacity: 1,
      interactive: false,
    });
    map.fitBounds(route.getBounds(), { padding: [20, 20] });
  } else {
    route.setLatLngs(latlng);
  }
}

const CHARTS = [
  { key: "altitude", label: "Elevation (m)", color: "#6e7781", fill: "rgba(110,119,129,.25)", map: (v) => v },
  { key: "velocity_smooth", label: "Speed", color: "#0a58ca", map: (v) => v },
  { key: "heartrate", label: "Heart rate (bpm)", color: "#cf222e", map: (v) => v },
  { key: "watts", label: "Power (W)", color: "#8250df", map: (v) => v },
  { key: "cadence", label: "Cadence (rpm)", color: "#1a7f37", map: (v) => v },
];

function byType(list) {
  const out = {};
  for (const s of list ?? []) out[s.type] = s.data;
  return out;
}

function drawCharts(s) {
  const box = document.getElementById("charts");
  for (const p of plots) p.destroy();
  plots = [];
  box.replaceChildren();
  // Swims over distance in metres (yards for an imperial athlete), other sports in km (miles).
  const swim = isSwim(activity.type);
  const xUnit = swim
    ? (imperial ? { meters: YARD, name: "yd", digits: 0 } : { meters: 1, name: "m", digits: 0 })
    : { ...distanceUnit, digits: 2 };
  const x = xMode === "distance" ? (s.distance ?? []).map((d) => d / xUnit.meters) : (s.time ?? []).map((t) => t / 60);
  if (!x.length) {
    box.closest("section").hidden = true;
    return;
  }
  const pace = isPaceSport(activity.type);
  const width = Math.max(280, box.clientWidth);
  for (const chart of CHARTS) {
    const data = s[chart.key];
    if (!data || !data.some((v) => v !== null && v !== 0)) continue;
    // A flat elevation (an indoor activity's constant barometer reading) is no profile.
    if (chart.key === "altitude" && !s.latlng?.length) {
      const known = data.filter((v) => v !== null);
      if (Math.max(...known) - Math.min(...known) < 1) continue;
    }
    let values = data, label = chart.label;
    if (chart.key === "velocity_smooth") {
      const unit = paceMeters(activity.type), slow = isSwim(activity.type) ? 0.2 : 0.5;
      values = pace ? data.map((v) => (v > slow ? unit / v / 60 : null)) : data.map((v) => v * speedUnit.perMps);
      label = pace ? `Pace (min/${paceUnit(activity.type)})` : `Speed (${speedUnit.name})`;
    }
    if (chart.key === "altitude" && imperial) {
      values = data.map((v) => (v === null ? null : v * 3.28084));
      label = "Elevation (ft)";
    }
    if (chart.key === "cadence") {
      if (isStepSport(activity.type)) values = data.map((v) => (v === null ? null : v * 2));
      label = `Cadence (${cadenceUnit(activity.type)})`;
    }
    // A heart rate of 0 is no reading (a strap's gap beyond the 30 s a reading is held): a gap in the line.
    if (chart.key === "heartrate") values = data.map((v) => (v > 0 ? v : null));
    if (chart.key === "watts" && activity.device_watts === false) label = "Power (W, estimated)";
    const holder = h("figure", { class: "chart", "data-chart": chart.key }, h("h3", {}, label));
    box.append(holder);
    const plot = new window.uPlot(
      {
        width,
        height: 130,
        legend: { show: true, live: true },
        cursor: { sync: { key: "activity" }, drag: { x: false, y: false } },
        scales: { x: { time: false }, y: pace && chart.key === "velocity_smooth" ? { dir: -1 } : {} },
        axes: [
          {
            label: chart === CHARTS[CHARTS.length - 1] ? undefined : undefined,
            values: (_u, v) => v.map((n) => xMode === "distance" ? `${n} ${xUnit.name}` : `${n} min`),
          },
          { size: 50 },
        ],
        series: [
          {
            label: xMode === "distance" ? xUnit.name : "min",
            value: (_u, v) => v === null ? "—" : v.toFixed(xMode === "distance" ? xUnit.digits : 2),
          },
          {
            label,
            stroke: chart.color,
            fill: chart.fill,
            width: 1.5,
            points: { show: false },
            value: (_u, v) =>
              v === null
                ? "—"
                : pace && chart.key === "velocity_smooth"
                ? duration(v * 60)
                : v.toFixed(chart.key === "altitude" ? 0 : 1),
          },
        ],
        hooks: { setCursor: [(u) => moveMarker(u.cursor.idx)] },
      },
      [x, values],
      holder,
    );
    plots.push(plot);
  }
  if (!plots.length) box.append(h("p", { class: "muted" }, "No chartable data."));
}

function moveMarker(idx) {
  if (!marker || !streams?.latlng) return;
  const point = idx === null || idx === undefined ? null : streams.latlng[idx];
  if (!point) {
    marker.remove();
    return;
  }
  marker.setLatLng(point);
  if (!map.hasLayer(marker)) marker.addTo(map);
}

async function loadStreams(resolution) {
  const q = resolution ? `&resolution=${resolution}` : "";
  return byType(await api(`/activities/${id}/streams?keys=${KEYS}${q}`));
}

// ------------------------------------------------------------------ social and edit

/**
 * Kudos as the server answered them: the owner reads who gave them; others see the count and
 * has_kudoed of the activity the page loaded (the API's kudoers list is the owner's). Giving kudos
 * (201, or 409 when given meanwhile elsewhere) adds this viewer's one to that count, once.
 */
let kudos = null;

async function social(a) {
  const box = document.getElementById("social");
  const mine = a.athlete?.id === config.athlete.id;
  const [kudoers, comments] = await Promise.all([
    mine ? api(`/activities/${id}/kudos?per_page=200`) : Promise.resolve(null),
    api(`/activities/${id}/comments?per_page=200`),
  ]);
  kudos ??= { count: a.kudos_count ?? 0, given: a.has_kudoed === true };
  const count = kudoers ? kudoers.length : kudos.count;
  const kudosButton = mine ? null : h(
    "button",
    { type: "button", id: "give-kudos", class: "secondary", disabled: kudos.given },
    kudos.given ? "You gave kudos" : "Give kudos",
  );
  kudosButton?.addEventListener("click", async () => {
    kudosButton.disabled = true;
    try {
      await api(`/activities/${id}/kudos`, { method: "POST" });
    } catch (error) {
      if (error.status !== 409) { // 409: given before (in another tab): the server holds it
        kudosButton.disabled = false;
        kudosButton.after(h("p", { class: "error", role: "alert" }, error.message));
        return;
      }
    }
    if (!kudos.given) kudos = { count: kudos.count + 1, given: true };
    try {
      await social(a);
      document.getElementById("give-kudos")?.focus();
    } catch (error) {
      socialFailure(error);
    }
  });
  const form = h(
    "form",
    { class: "stack", id: "comment-form" },
    h("label", { for: "comment-text" }, "Add a comment"),
    h("textarea", { id: "comment-text", name: "text", required: true, maxlength: 1000 }),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Post comment")),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = form.querySelector("textarea").value.trim();
    if (!text) return;
    try {
      await api(`/activities/${id}/comments`, { method: "POST", body: { text } });
      await social(a);
      document.getElementById("comment-text")?.focus();
    } catch (error) {
      form.append(h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  box.replaceChildren(
    h("h2", {}, "Kudos and comments"),
    h(
      "div",
      { class: "actions" },
      kudosButton,
      h("span", { id: "kudos-count" }, kudosText(count)),
      kudoers?.length
        ? h("span", { class: "muted" }, kudoers.map((k) => `${k.firstname} ${k.lastname ?? ""}`.trim()).join(", "))
        : null,
    ),
    h(
      "ol",
      { id: "comments", class: "feed-list" },
      comments.map((c) =>
        h(
          "li",
          { class: "comment" },
          h("span", { class: "who" }, `${c.athlete?.firstname ?? "Athlete"} ${c.athlete?.lastname ?? ""}`.trim()),
          " ",
          h("span", { class: "muted" }, localDateText(c.created_at)),
          h("p", { style: "margin:.2rem 0 0" }, c.text),
        )
      ),
    ),
    form,
  );
}

/** A failure of the kudos and comments box, shown in it (the rest of the page stays). */
function socialFailure(error) {
  const box = document.getElementById("social");
  box?.querySelector(".error")?.remove();
  box?.append(h("p", { class: "error", role: "alert" }, error.message));
}

async function editForm(a) {
  const me = await api("/athlete");
  // Retired gear leaves the picker (the activity's own stays, marked).
  const gear = [...(me.bikes ?? []), ...(me.shoes ?? [])].filter((g) => !g.retired || g.id === a.gear_id);
  const field = (id, label, input) => h("div", {}, h("label", { for: id }, label), input);
  const types = [
    "Ride",
    "Run",
    "Walk",
    "Hike",
    "Swim",
    "VirtualRide",
    "EBikeRide",
    "MountainBikeRide",
    "GravelRide",
    "TrailRun",
    "Rowing",
    "NordicSki",
    "AlpineSki",
    "Workout",
  ];
  if (!types.includes(a.type)) types.unshift(a.type);
  const form = h(
    "form",
    { class: "stack", id: "edit-form" },
    h(
      "div",
      { class: "row" },
      field(
        "edit-name",
        "Name",
        h("input", { type: "text", id: "edit-name", value: a.name ?? "", required: true, maxlength: 255 }),
      ),
      field(
        "edit-type",
        "Type",
        h(
          "select",
          { id: "edit-type" },
          types.map((t) => h("option", { value: t, selected: t === a.type }, readableName(t))),
        ),
      ),
      field(
        "edit-gear",
        "Gear",
        h(
          "select",
          { id: "edit-gear" },
          h("option", { value: "none" }, "No gear"),
          gear.map((g) =>
            h(
              "option",
              { value: g.id, selected: g.id === a.gear_id },
              `${g.name ?? g.id}${g.retired ? " (retired)" : ""}`,
            )
          ),
        ),
      ),
    ),
    field(
      "edit-description",
      "Description",
      h("textarea", { id: "edit-description", maxlength: 10000 }, a.description ?? ""),
    ),
    visibilityField("edit-visibility", a.visibility ?? (a.private ? "only_me" : "everyone")),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, "Save"),
      h("button", { type: "button", class: "danger", id: "delete" }, "Delete activity"),
      h("span", { id: "edit-status", role: "status" }),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = form.querySelector("#edit-status");
    try {
      activity = await api(`/activities/${id}`, {
        method: "PUT",
        body: {
          name: form.querySelector("#edit-name").value,
          type: form.querySelector("#edit-type").value,
          description: form.querySelector("#edit-description").value,
          visibility: form.querySelector("#edit-visibility").value,
          gear_id: form.querySelector("#edit-gear").value,
        },
      });
      document.getElementById("head").replaceChildren(header(activity));
      status.className = "ok";
      status.textContent = "Saved.";
    } catch (error) {
      status.className = "error";
      status.textContent = error.message;
    }
  });
  form.querySelector("#delete").addEventListener("click", async () => {
    if (!confirm("Delete this activity? This cannot be undone.")) return;
    try {
      await api(`/activities/${id}`, { method: "DELETE" });
      location.assign("/");
    } catch (error) {
      form.querySelector("#edit-status").textContent = error.message;
    }
  });
  return h(
    "section",
    { class: "card", id: "edit", "aria-labelledby": "edit-title" },
    h("h2", { id: "edit-title" }, "Edit activity"),
    form,
  );
}

// ------------------------------------------------------------------ page

async function main() {
  // The owner reads the detailed activity; another athlete's page starts from the summary and the
  // segment efforts the server embedded (GET /v3/activities/:id answers the owner only) and the laps.
  const others = config.summary ? { ...config.summary, segment_efforts: config.segmentEfforts ?? [] } : null;
  const [a, s] = await Promise.all([
    others
      ? api(`/activities/${id}/laps`).then((laps) => ({ ...others, laps }), () => others)
      : api(`/activities/${id}`),
    loadStreams("medium"),
  ]);
  activity = a, streams = s;
  document.title = `${a.name} · Fitness Platform`;
  // No distance recorded (indoor rowing, a trainer without speed): the charts are over time only
  // (over distance, every sample sat at 0 on an axis of 0-100 km).
  const overDistance = hasDistance(a) && (s.distance ?? []).some((d) => d > 0);
  xMode = overDistance ? "distance" : "time";
  const toggle = overDistance
    ? h(
      "div",
      { class: "charts-bar", role: "group", "aria-label": "Chart axis" },
      h("span", { class: "muted" }, "Charts over"),
      h(
        "label",
        { class: "check" },
        h("input", { type: "radio", name: "x", value: "distance", checked: true }),
        "distance",
      ),
      h("label", { class: "check" }, h("input", { type: "radio", name: "x", value: "time" }), "time"),
    )
    : h("div", { class: "charts-bar" }, h("span", { class: "muted" }, "Charts over time (no distance recorded)"));
  const edit = a.athlete?.id === config.athlete.id ? await editForm(a) : null;
  root.replaceChildren(...[
    h("div", { id: "head" }, header(a)),
    summary(a),
    h("div", { id: "map", role: "region", "aria-label": "Map of the route" }),
    h("section", { "aria-label": "Charts" }, toggle, h("div", { id: "charts" })),
    h("div", { class: "grid2" }, h("div", {}, tables(a).slice(0, 2)), h("div", {}, tables(a).slice(2))),
    h("section", { class: "card", id: "social", "aria-live": "polite" }, h("h2", {}, "Kudos and comments")),
    edit,
  ].filter(Boolean)); // replaceChildren writes null as the text "null"
  let lastWidth = document.getElementById("charts").clientWidth;
  new ResizeObserver(() => {
    const width = document.getElementById("charts")?.clientWidth ?? 0;
    if (!width || width === lastWidth) return;
    lastWidth = width;
    for (const p of plots) p.setSize({ width: Math.max(280, width), height: 130 });
    if (map && route) {
      map.invalidateSize();
      map.fitBounds(route.getBounds(), { padding: [20, 20] });
    }
  }).observe(document.getElementById("charts"));
  toggle.addEventListener("change", (e) => {
    xMode = e.target.value;
    drawCharts(streams);
  });
  drawMap(s.latlng);
  drawCharts(s);
  root.dataset.state = "drawn";
  ready("activityDrawn", performance.now()); // since navigation start
  social(a).catch(socialFailure);
  // The full-resolution streams replace the reduced ones when they arrive. The page is drawn: a
  // failure from here on is said beside the charts and never replaces what is shown.
  try {
    const full = await loadStreams(null);
    if ((full.distance?.length ?? 0) > (s.distance?.length ?? 0)) {
      drawMap(full.latlng);
      drawCharts(full);
      streams = full;
    }
  } catch (error) {
    console.warn("full-resolution redraw failed", error);
    document.getElementById("charts")?.after(
      h(
        "p",
        { class: "error", role: "alert", id: "full-failed" },
        `The full-resolution data could not be shown: ${error.message}`,
      ),
    );
    // drawCharts may have stopped half-way: draw the reduced streams again.
    try {
      drawCharts(streams);
    } catch {
      // the reduced charts were drawn once; nothing more to do
    }
  }
  ready("activityFull", performance.now());
}

main().catch((error) => {
  if (root.dataset.state === "drawn") return; // never wipe a drawn page (handled above)
  root.dataset.state = "failed";
  showFailure(root, error);
});
