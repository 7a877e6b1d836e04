// Volume over the years: one year's weekly or monthly totals by sport (distance, moving time, elevation or
// activities) as a stacked chart with its table, and the year's totals by sport — any year the athlete has,
// from the training-volume read model (GET /v3/athletes/:id/volume: a few bounded reads whatever the history).
// Another athlete's year holds only what the viewer may see.
import { api, distanceText, distanceUnit, h, imperial, km, meters, ready, showFailure, svg } from "./app.js";
import {
  athleteId,
  chartWidth,
  groupLabel,
  GROUPS,
  hours,
  pageHead,
  self,
  shortened,
  sportGroup,
} from "./training-common.js";

const root = document.getElementById("year");
const DAY = 86_400_000;
const METRICS = [
  ["distance", "Distance"],
  ["time", "Moving time"],
  ["elevation", "Elevation"],
  ["count", "Activities"],
];
const GRAINS = [["week", "Week"], ["month", "Month"]];

const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (text) => Date.parse(`${text}T00:00:00Z`);
const monday = (ms) => ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY;

/** The address's choices: ?year=YYYY&by=week|month&show=distance|time|elevation|count. */
function choices() {
  const q = new URLSearchParams(location.search);
  const year = /^\d{4}$/.test(q.get("year") ?? "") ? Number(q.get("year")) : new Date().getFullYear();
  const by = GRAINS.some(([g]) => g === q.get("by")) ? q.get("by") : "week";
  const show = METRICS.some(([m]) => m === q.get("show")) ? q.get("show") : "distance";
  return { year, by, show };
}

/** Sums by sport group of volume buckets: {group: {count, distance, time, elevation}}. */
function byGroup(buckets) {
  const t = {};
  for (const b of buckets) {
    const g = sportGroup(b.sport_type);
    t[g] ??= { count: 0, distance: 0, time: 0, elevation: 0 };
    t[g].count += b.count;
    t[g].distance += b.distance;
    t[g].time += b.moving_time;
    t[g].elevation += b.total_elevation_gain;
  }
  return t;
}

/** A metric's value in the unit the chart draws (km or mi, hours, m or ft, activities). */
function chartValue(metric, g, totals) {
  const t = totals?.[g];
  if (!t) return 0;
  if (metric === "distance") return t.distance / distanceUnit.meters;
  if (metric === "time") return t.time / 3600;
  if (metric === "elevation") return imperial ? t.elevation * 3.28084 : t.elevation;
  return t.count;
}

/** A metric's value as text. */
function valueText(metric, g, t) {
  if (!t || (metric === "distance" && !t.distance) || (metric === "elevation" && !t.elevation)) return "—";
  if (metric === "distance") return g === "swim" ? distanceText(t.distance, "Swim") : km(t.distance);
  if (metric === "time") return hours(t.time);
  if (metric === "elevation") return meters(t.elevation);
  return String(t.count);
}

/** The value's number alone, rounded for a phone's column (its unit in the column's header). */
function valueNumber(metric, g, t) {
  if (!t || (metric === "distance" && !t.distance) || (metric === "elevation" && !t.elevation)) return "—";
  if (metric === "distance" && g === "swim") {
    return Math.round(t.distance / (imperial ? 0.9144 : 1)).toLocaleString("en");
  }
  const v = metric === "time" ? t.time / 3600 : chartValue(metric, g, { [g]: t });
  return metric === "count" ? String(v) : v >= 100 ? Math.round(v).toLocaleString("en") : v.toFixed(1);
}

/** A total, rounded for a phone but with its unit ("4,157 km", "137 h"). */
function compact(metric, g, t) {
  const n = valueNumber(metric, g, t);
  return n === "—" ? n : `${n} ${groupUnit(metric, g)}`;
}

/** A cell: the full text, or on a phone the number alone. */
const cell = (metric, g, t) => h("td", { class: "num" }, shortened(valueText(metric, g, t), valueNumber(metric, g, t)));

/** A group's unit of a metric, for a column's header on a phone. */
const groupUnit = (metric, g) =>
  metric === "distance" && g === "swim" ? (imperial ? "yd" : "m") : metric === "time" ? "h" : unitOf(metric);

const unitOf = (metric) =>
  metric === "distance"
    ? distanceUnit.name
    : metric === "time"
    ? "h"
    : metric === "elevation"
    ? (imperial ? "ft" : "m")
    : "";

/** The year's buckets: each week from the Monday on or before 1 January, or each month. */
function bucketsOf(year, by) {
  if (by === "month") return Array.from({ length: 12 }, (_, m) => iso(Date.UTC(year, m, 1)));
  const out = [];
  for (let w = monday(Date.UTC(year, 0, 1)); w <= Date.UTC(year, 11, 31); w += 7 * DAY) out.push(iso(w));
  return out;
}

function bucketLabel(start, by, year) {
  const d = new Date(dayMs(start));
  if (by === "month") return d.toLocaleString("en-GB", { month: "long", timeZone: "UTC" });
  const text = d.toLocaleString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
  return d.getUTCFullYear() === year ? `Week of ${text}` : `Week of ${text} ${d.getUTCFullYear()}`;
}

/** The bucket's row header: "Week of 6 Jan" (on a phone "6 Jan"), "January" (on a phone "Jan"). */
function bucketHeader(start, by, year) {
  const d = new Date(dayMs(start));
  const short = by === "month"
    ? d.toLocaleString("en-GB", { month: "short", timeZone: "UTC" })
    : d.toLocaleString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
  return shortened(bucketLabel(start, by, year), short);
}

/** Stacked bars of the metric per bucket by sport group. */
function chart(buckets, byStart, metric, by, year) {
  const W = chartWidth(root), H = 240, left = 48, bottom = 28, top = 10;
  const values = buckets.map((b) => GROUPS.map(([g]) => chartValue(metric, g, byStart.get(b))));
  const sums = values.map((vs) => vs.reduce((s, v) => s + v, 0));
  const max = Math.max(1, ...sums);
  const magnitude = 10 ** Math.floor(Math.log10(max / 4));
  const step = [1, 2, 5, 10].map((k) => k * magnitude).find((s) => max / s <= 5) ?? 10 * magnitude;
  const scaleMax = step * Math.ceil(max / step);
  const y = (v) => H - bottom - ((H - bottom - top) * v) / scaleMax;
  const slot = (W - left) / buckets.length;
  const unit = unitOf(metric);
  const name = METRICS.find(([m]) => m === metric)[1];
  const label = `${name} per ${by} in ${year}${unit ? ` (${unit})` : ""}: ` +
    buckets.map((b, i) => `${bucketLabel(b, by, year)} ${Number(sums[i].toFixed(1))}`).join(", ");
  const el = svg("svg", {
    class: "volume-chart",
    id: "year-chart",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": label,
  });
  for (let v = 0; v <= scaleMax + 1e-9; v += step) {
    el.append(svg("line", { x1: left, x2: W, y1: y(v), y2: y(v), stroke: "#dde1e6" }));
    const t = svg("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" });
    t.textContent = `${Number(v.toFixed(2)).toLocaleString("en")}${unit && v === 0 ? ` ${unit}` : ""}`;
    el.append(t);
  }
  buckets.forEach((b, i) => {
    let base = 0;
    GROUPS.forEach(([g], k) => {
      const v = values[i][k];
      if (!v) return;
      el.append(svg("rect", {
        class: `sport-${g}`,
        x: left + i * slot + slot * 0.12,
        width: Math.max(1, slot * 0.76),
        y: y(base + v),
        height: y(base) - y(base + v),
        "data-bucket": b,
        "data-sport": g,
      }));
      base += v;
    });
  });
  // Month initials under the bars (weeks: the first week of each month).
  let lastMonth = -1;
  buckets.forEach((b, i) => {
    const d = new Date(dayMs(b) + (by === "week" ? 6 * DAY : 0));
    if (d.getUTCMonth() === lastMonth) return;
    lastMonth = d.getUTCMonth();
    // On a phone every other month is named (and the last week's month only if it fits).
    if (W < 500 && lastMonth % 2) return;
    if (by === "week" && i > buckets.length - 3) return;
    const t = svg("text", {
      x: left + i * slot + (by === "week" ? 0 : slot / 2),
      y: H - 8,
      "text-anchor": by === "week" ? "start" : "middle",
    });
    t.textContent = d.toLocaleString("en-GB", { month: "short", timeZone: "UTC" });
    el.append(t);
  });
  return el;
}

function bucketTable(buckets, byStart, metric, by, year, groups, yearTotals) {
  const name = METRICS.find(([m]) => m === metric)[1];
  return h(
    "div",
    { class: "scroll-x", tabindex: 0, role: "region", "aria-label": `${name} per ${by}` },
    h(
      "table",
      { class: "totals-table", id: "year-table" },
      h("caption", { class: "visually-hidden" }, `${name} per ${by} in ${year}, by sport`),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, by === "week" ? "Week" : "Month"),
          groups.map(([g, label]) =>
            h(
              "th",
              { scope: "col", class: "num" },
              h("span", { class: `sport-dot sport-${g}`, "aria-hidden": "true" }),
              shortened(
                label,
                `${g === "run" ? "Runs" : label}${groupUnit(metric, g) ? ` (${groupUnit(metric, g)})` : ""}`,
              ),
            )
          ),
        ),
      ),
      h(
        "tbody",
        {},
        buckets.map((b) =>
          h(
            "tr",
            { dataset: { bucket: b } },
            h("th", { scope: "row" }, bucketHeader(b, by, year)),
            groups.map(([g]) => cell(metric, g, byStart.get(b)?.[g])),
          )
        ),
      ),
      h(
        "tfoot",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "row" }, String(year)),
          groups.map(([g]) => cell(metric, g, yearTotals[g])),
        ),
      ),
    ),
  );
}

function yearTotalsTable(year, groups, t) {
  if (!groups.length) {
    return h(
      "p",
      { class: "muted", id: "year-totals" },
      self ? `No activities in ${year}.` : `No activities you may see in ${year}.`,
    );
  }
  return h(
    "div",
    { class: "scroll-x", tabindex: 0, role: "region", "aria-label": `Totals of ${year}` },
    h(
      "table",
      { class: "totals-table", id: "year-totals" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Sport"),
          [["Activities", "Acts"], ["Distance", "Dist"], ["Moving time", "Time"], ["Elevation", "Elev"]].map(([c, s]) =>
            h("th", { scope: "col", class: "num" }, shortened(c, s))
          ),
        ),
      ),
      h(
        "tbody",
        {},
        groups.map(([g, label]) =>
          h(
            "tr",
            { dataset: { sport: g } },
            h(
              "th",
              { scope: "row" },
              h("span", { class: `sport-dot sport-${g}`, "aria-hidden": "true" }),
              groupLabel(g, label),
            ),
            h("td", { class: "num" }, String(t[g].count)),
            h("td", { class: "num" }, shortened(valueText("distance", g, t[g]), compact("distance", g, t[g]))),
            h("td", { class: "num" }, shortened(hours(t[g].time), compact("time", g, t[g]))),
            h("td", { class: "num" }, shortened(valueText("elevation", g, t[g]), compact("elevation", g, t[g]))),
          )
        ),
      ),
    ),
  );
}

async function main() {
  const { year, by, show } = choices();
  const [head, years, weeks, months] = await Promise.all([
    pageHead("year", "Year"),
    api(`/athletes/${athleteId}/volume?period=year&from=1900-01-01&to=2200-12-31`),
    by === "week" ? api(`/athletes/${athleteId}/volume?period=week&from=${year}-01-01&to=${year}-12-31`) : null,
    by === "month" ? api(`/athletes/${athleteId}/volume?period=month&from=${year}-01-01&to=${year}-12-31`) : null,
  ]);
  const answer = weeks ?? months;
  const buckets = bucketsOf(year, by);
  const grouped = new Map();
  for (const b of answer.buckets) {
    if (!grouped.has(b.start)) grouped.set(b.start, []);
    grouped.get(b.start).push(b);
  }
  const byStart = new Map([...grouped].map(([start, list]) => [start, byGroup(list)]));
  const yearTotals = byGroup(years.buckets.filter((b) => b.start.startsWith(`${year}-`)));
  const groups = GROUPS.filter(([g]) => yearTotals[g]);
  // The chart's and the table's sports: those with some of the metric shown (workouts have no distance).
  const measured = groups.filter(([g]) => chartValue(show, g, yearTotals) > 0);
  const known = [...new Set([new Date().getFullYear(), year, ...years.buckets.map((b) => Number(b.start.slice(0, 4)))])]
    .sort((a, b) => b - a);

  const select = (id, label, options, value) =>
    h(
      "div",
      {},
      h("label", { for: id }, label),
      h(
        "select",
        { id, name: id },
        options.map(([v, text]) => h("option", { value: String(v), selected: String(v) === String(value) }, text)),
      ),
    );
  const form = h(
    "form",
    { class: "year-controls", id: "year-form" },
    select("year-select", "Year", known.map((y) => [y, String(y)]), year),
    select("by-select", "Per", GRAINS, by),
    select("show-select", "Show", METRICS, show),
    h("noscript", {}, h("button", { type: "submit" }, "Show")),
  );
  form.addEventListener("change", () => {
    const q = new URLSearchParams({
      year: form.querySelector("#year-select").value,
      by: form.querySelector("#by-select").value,
      show: form.querySelector("#show-select").value,
    });
    location.assign(`${location.pathname}?${q}`);
  });
  const metricName = METRICS.find(([m]) => m === show)[1];
  root.replaceChildren(...[
    ...head,
    form,
    h(
      "section",
      { class: "card", "aria-labelledby": "year-chart-title" },
      h("h2", { id: "year-chart-title" }, `${metricName} per ${by}, ${year}`),
      measured.length
        ? chart(buckets, byStart, show, by, year)
        : h("p", { class: "muted" }, `No ${metricName.toLowerCase()} recorded in ${year}.`),
      h(
        "ul",
        { class: "legend" },
        GROUPS.map(([g, name]) =>
          h("li", {}, h("span", { class: `sport-dot sport-${g}`, "aria-hidden": "true" }), name)
        ),
      ),
      measured.length ? bucketTable(buckets, byStart, show, by, year, measured, yearTotals) : null,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "year-totals-title" },
      h("h2", { id: "year-totals-title" }, `${year} totals`),
      yearTotalsTable(year, groups, yearTotals),
    ),
    self
      ? years.includes_private ? h("p", { class: "muted small" }, "Your private activities included.") : null
      : h("p", { class: "muted small" }, "Only the activities you may see are counted."),
  ].filter(Boolean));
  ready("year", groups.reduce((n, [g]) => n + yearTotals[g].count, 0));
}

main().catch((error) => {
  showFailure(root, error);
  ready("year", "failed");
});
