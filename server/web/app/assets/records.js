// Personal records: the runs' best efforts (400 m … marathon) and the rides' power curve (5 s … 1 h),
// each linked to its activity with the date it was set (GET /v3/athletes/:id/records, an extension).
// Another athlete's records count only the activities the viewer may see.
import { api, duration, h, paceMeters, paceUnit, ready, showFailure, svg } from "./app.js";
import { athleteId, chartWidth, pageHead, self } from "./training-common.js";

const root = document.getElementById("records");

const dayText = (iso) =>
  new Date(iso).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const durationLabel = (s) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`);
const DISTANCE_NAMES = {
  "400m": "400 m",
  "1K": "1 km",
  "5K": "5 km",
  "10K": "10 km",
  "15K": "15 km",
  "20K": "20 km",
  "30K": "30 km",
  "Half-Marathon": "Half marathon",
};

function link(activity) {
  return h("a", { href: `/activities/${activity.id}` }, activity.name || "Untitled activity");
}

function runTable(efforts) {
  if (!efforts.length) {
    return h(
      "p",
      { class: "muted", id: "run-records" },
      self ? "No runs with best efforts yet." : "No runs you may see.",
    );
  }
  return h(
    "div",
    { class: "scroll-x", tabindex: 0, role: "region", "aria-label": "Running best efforts" },
    h(
      "table",
      { class: "records", id: "run-records" },
      h(
        "thead",
        {},
        h("tr", {}, ["Distance", "Time", "Pace", "Activity", "Date"].map((c) => h("th", { scope: "col" }, c))),
      ),
      h(
        "tbody",
        {},
        efforts.map((e) =>
          h(
            "tr",
            { dataset: { effort: e.name, activity: e.activity.id } },
            h("th", { scope: "row" }, DISTANCE_NAMES[e.name] ?? e.name),
            h("td", {}, duration(e.elapsed_time)),
            h("td", {}, `${duration((paceMeters("Run") * e.elapsed_time) / e.distance)} /${paceUnit("Run")}`),
            h("td", {}, link(e.activity)),
            h("td", {}, dayText(e.start_date_local)),
          )
        ),
      ),
    ),
  );
}

/** The power curve: watts over duration on a log axis, one point per duration. */
function curveChart(points) {
  const W = chartWidth(root), H = 240, left = 48, right = 12, top = 12, bottom = 30;
  const max = Math.max(...points.map((p) => p.watts));
  const step = max > 600 ? 200 : max > 300 ? 100 : 50;
  const top_ = step * Math.ceil(max / step);
  const lo = Math.log(5), hi = Math.log(3600);
  const x = (d) => left + ((W - left - right) * (Math.log(d) - lo)) / (hi - lo);
  const y = (w) => H - bottom - ((H - bottom - top) * w) / top_;
  const chart = svg("svg", {
    class: "power-curve",
    id: "power-curve",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": `Power curve: ${points.map((p) => `${durationLabel(p.duration)} ${p.watts} W`).join(", ")}`,
  });
  for (let w = 0; w <= top_; w += step) {
    chart.append(svg("line", { x1: left, x2: W - right, y1: y(w), y2: y(w), stroke: "#dde1e6" }));
    const t = svg("text", { x: left - 6, y: y(w) + 4, "text-anchor": "end" });
    t.textContent = `${w} W`;
    chart.append(t);
  }
  for (const d of W < 500 ? [5, 60, 1200, 3600] : [5, 30, 60, 300, 1200, 3600]) {
    const t = svg("text", { x: x(d), y: H - 10, "text-anchor": "middle" });
    t.textContent = durationLabel(d);
    chart.append(t);
  }
  chart.append(
    svg("path", {
      class: "curve",
      d: points.map((p, i) => `${i ? "L" : "M"}${x(p.duration).toFixed(1)},${y(p.watts).toFixed(1)}`).join(""),
    }),
  );
  for (const p of points) chart.append(svg("circle", { cx: x(p.duration), cy: y(p.watts), r: 3.5, fill: "#2f81f7" }));
  return chart;
}

function powerSection(points) {
  if (!points.length) {
    return h(
      "p",
      { class: "muted", id: "power-records" },
      self ? "No rides with power yet." : "No rides with power you may see.",
    );
  }
  return [
    curveChart(points),
    h(
      "div",
      { class: "scroll-x", tabindex: 0, role: "region", "aria-label": "Power records" },
      h(
        "table",
        { class: "records", id: "power-records" },
        h("thead", {}, h("tr", {}, ["Duration", "Power", "Activity", "Date"].map((c) => h("th", { scope: "col" }, c)))),
        h(
          "tbody",
          {},
          points.map((p) =>
            h(
              "tr",
              { dataset: { duration: p.duration, activity: p.activity.id } },
              h("th", { scope: "row" }, durationLabel(p.duration)),
              h("td", {}, `${p.watts} W`),
              h("td", {}, link(p.activity)),
              h("td", {}, dayText(p.start_date_local)),
            )
          ),
        ),
      ),
    ),
  ];
}

/** The year asked (?year=YYYY), else null: all time. */
function shownYear() {
  const text = new URLSearchParams(location.search).get("year") ?? "";
  return /^\d{4}$/.test(text) ? Number(text) : null;
}

/** All time or one year: the years the athlete has activities in (the training-volume read model). */
function yearPicker(year, years) {
  const known = [...new Set([year, ...years.buckets.map((b) => Number(b.start.slice(0, 4)))])].filter(Boolean)
    .sort((a, b) => b - a);
  const select = h(
    "select",
    { id: "records-year", name: "year" },
    h("option", { value: "" }, "All time"),
    known.map((y) => h("option", { value: String(y), selected: y === year }, String(y))),
  );
  select.addEventListener("change", () => {
    location.assign(select.value ? `${location.pathname}?year=${select.value}` : location.pathname);
  });
  return h("p", { class: "year-controls" }, h("label", { for: "records-year" }, "Records of"), select);
}

async function main() {
  const year = shownYear();
  const [head, records, years] = await Promise.all([
    pageHead("records", "Personal records"),
    api(`/athletes/${athleteId}/records${year ? `?year=${year}` : ""}`),
    api(`/athletes/${athleteId}/volume?period=year&from=1900-01-01&to=2200-12-31`),
  ]);
  root.replaceChildren(...[
    ...head,
    yearPicker(year, years),
    h(
      "section",
      { class: "card", "aria-labelledby": "runs-title" },
      h("h2", { id: "runs-title" }, "Running best efforts"),
      runTable(records.best_efforts),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "power-title" },
      h("h2", { id: "power-title" }, "Power curve (rides)"),
      powerSection(records.power_curve),
      h(
        "p",
        { class: "muted small" },
        "The highest mean power over each duration of any ride with a power meter or a trainer.",
      ),
    ),
    self
      ? years.includes_private ? h("p", { class: "muted small" }, "Your private activities included.") : null
      : h("p", { class: "muted small" }, "Only the activities you may see are counted."),
  ].filter(Boolean));
  ready("records", records.best_efforts.length + records.power_curve.length);
}

main().catch((error) => {
  showFailure(root, error);
  ready("records", "failed");
});
