// Training calendar: a month of activities by day (weeks from Monday), each week's totals by sport,
// the month's totals by sport and a chart of the last 12 weeks' volume (moving time by sport).
// Another athlete's calendar holds only what the API lets the viewer see (never their only-me ones; followers-only ones for their followers).
import { api, distanceText, duration, h, km, meters, ready, showFailure, svg } from "./app.js";
import {
  athleteId,
  chartWidth,
  groupLabel,
  GROUPS,
  hours,
  localDay,
  pageHead,
  self,
  shortened,
  sportGroup,
} from "./training-common.js";

const root = document.getElementById("calendar");
const WEEKS_IN_CHART = 12;
const DAY = 86_400_000;

const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (text) => Date.parse(`${text}T00:00:00Z`);
/** Monday of the week holding `ms` (UTC day arithmetic on local calendar days). */
const monday = (ms) => ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY;

/** The month shown: ?month=YYYY-MM, else this month. */
function shownMonth() {
  const asked = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(new URLSearchParams(location.search).get("month") ?? "");
  const now = new Date();
  return asked ? [Number(asked[1]), Number(asked[2]) - 1] : [now.getFullYear(), now.getMonth()];
}

const monthName = (y, m) =>
  new Date(Date.UTC(y, m, 1)).toLocaleString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
const monthParam = (y, m) => {
  const d = new Date(Date.UTC(y, m, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
};

/** Totals by sport group of volume buckets (GET …/volume): {group: {count, distance, time, elevation}}. */
function totals(buckets) {
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

const groupDistance = (g, m) => (g === "swim" ? distanceText(m, "Swim") : km(m));

function weekCell(buckets) {
  const t = totals(buckets);
  const rows = GROUPS.filter(([g]) => t[g]);
  if (!rows.length) return h("td", { class: "week muted" }, "—");
  return h(
    "td",
    { class: "week" },
    h(
      "ul",
      {},
      rows.map(([g]) =>
        h(
          "li",
          { dataset: { sport: g } },
          h("span", { class: `sport-dot sport-${g}`, "aria-hidden": "true" }),
          // A week of workouts without a distance (strength, yoga) shows its time only, never "0.00 km".
          t[g].distance ? [h("span", { class: "week-distance" }, groupDistance(g, t[g].distance)), " "] : null,
          h("span", { class: "week-time" }, duration(t[g].time)),
        )
      ),
    ),
  );
}

function calendarTable(y, m, byDay, dayBuckets) {
  const first = Date.UTC(y, m, 1), last = Date.UTC(y, m + 1, 0);
  const rows = [];
  for (let week = monday(first); week <= last; week += 7 * DAY) {
    const days = [];
    const inWeek = [];
    for (let d = 0; d < 7; d++) {
      const ms = week + d * DAY, key = iso(ms);
      const list = byDay.get(key) ?? [];
      inWeek.push(...(dayBuckets.get(key) ?? []));
      const other = new Date(ms).getUTCMonth() !== new Date(first).getUTCMonth();
      days.push(
        h(
          "td",
          { class: `day${other ? " other" : ""}`, dataset: { day: key } },
          h("span", { class: "date" }, String(new Date(ms).getUTCDate())),
          list.length
            ? h(
              "ul",
              {},
              list.map((a) => {
                const g = sportGroup(a.sport_type ?? a.type);
                return h(
                  "li",
                  {},
                  h("span", { class: `sport-dot sport-${g}`, "aria-hidden": "true" }),
                  h(
                    "a",
                    { href: `/activities/${a.id}`, title: a.name ?? "" },
                    h("span", { class: "name" }, `${a.name || "Untitled activity"} · `),
                    a.distance ? groupDistance(g, a.distance) : duration(a.moving_time),
                  ),
                );
              }),
            )
            : null,
        ),
      );
    }
    rows.push(h("tr", { dataset: { week: iso(week) } }, days, weekCell(inWeek)));
  }
  return h(
    "div",
    { class: "scroll-x", tabindex: 0, role: "region", "aria-label": "Calendar" },
    h(
      "table",
      { class: "calendar", id: "calendar-grid" },
      h("caption", { class: "visually-hidden" }, `Activities in ${monthName(y, m)}, by day, with each week's totals`),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map((d) => h("th", { scope: "col" }, d)),
          h("th", { scope: "col", class: "week-col" }, "Week"),
        ),
      ),
      h("tbody", {}, rows),
    ),
  );
}

function monthTotals(buckets, y, m) {
  const t = totals(buckets);
  const rows = GROUPS.filter(([g]) => t[g]);
  return h(
    "section",
    { class: "card", "aria-labelledby": "month-totals-title" },
    h("h2", { id: "month-totals-title" }, `${monthName(y, m)} totals`),
    rows.length
      ? h(
        "div",
        { class: "scroll-x", tabindex: 0, role: "region", "aria-label": "Month totals" },
        h(
          "table",
          { class: "totals-table", id: "month-totals" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Sport"),
              h("th", { scope: "col", class: "num" }, shortened("Activities", "Acts")),
              h("th", { scope: "col", class: "num" }, shortened("Distance", "Dist")),
              h("th", { scope: "col", class: "num" }, shortened("Moving time", "Time")),
              h("th", { scope: "col", class: "num" }, shortened("Elevation", "Elev")),
            ),
          ),
          h(
            "tbody",
            {},
            rows.map(([g, label]) =>
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
                h("td", { class: "num" }, t[g].distance ? groupDistance(g, t[g].distance) : "—"),
                h("td", { class: "num" }, hours(t[g].time)),
                h("td", { class: "num" }, t[g].elevation ? meters(t[g].elevation) : "—"),
              )
            ),
          ),
        ),
      )
      : h(
        "p",
        { class: "muted", id: "month-totals" },
        self ? "No activities this month." : "No activities you may see this month.",
      ),
  );
}

/** Stacked bars: moving hours per week by sport, the 12 weeks up to the month's last. */
function volumeChart(weeks, byWeek) {
  const W = Math.min(600, chartWidth(root) / (innerWidth > 760 ? 2 : 1)), H = 200, left = 40, bottom = 28, top = 10;
  const perWeek = weeks.map((w) => GROUPS.map(([g]) => ((byWeek.get(w)?.[g]?.time ?? 0) / 3600)));
  const max = Math.max(1, ...perWeek.map((hs) => hs.reduce((s, v) => s + v, 0)));
  const step = Math.max(1, Math.ceil(max / 4));
  const scaleMax = step * Math.ceil(max / step);
  const y = (v) => H - bottom - ((H - bottom - top) * v) / scaleMax;
  const slot = (W - left) / weeks.length;
  const total = perWeek.map((hs) => hs.reduce((s, v) => s + v, 0));
  const label = `Weekly moving time, ${weeks.length} weeks from ${weeks[0]}: ` +
    weeks.map((w, i) => `${w} ${total[i].toFixed(1)} h`).join(", ");
  const chart = svg("svg", {
    class: "volume-chart",
    id: "volume-chart",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": label,
  });
  for (let v = 0; v <= scaleMax; v += step) {
    chart.append(svg("line", { x1: left, x2: W, y1: y(v), y2: y(v), stroke: "#dde1e6" }));
    const t = svg("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" });
    t.textContent = `${v} h`;
    chart.append(t);
  }
  weeks.forEach((w, i) => {
    let base = 0;
    GROUPS.forEach(([g], k) => {
      const v = perWeek[i][k];
      if (!v) return;
      chart.append(
        svg("rect", {
          class: `sport-${g}`,
          x: left + i * slot + slot * 0.15,
          width: slot * 0.7,
          y: y(base + v),
          height: y(base) - y(base + v),
          "data-week": w,
          "data-sport": g,
        }),
      );
      base += v;
    });
    if (i % (W < 400 ? 3 : 2) === 0) {
      const t = svg("text", { x: left + i * slot + slot / 2, y: H - 8, "text-anchor": "middle" });
      t.textContent = new Date(dayMs(w)).toLocaleString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
      chart.append(t);
    }
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "volume-title" },
    h("h2", { id: "volume-title" }, "Weekly volume"),
    chart,
    h(
      "ul",
      { class: "legend" },
      GROUPS.map(([g, name]) => h("li", {}, h("span", { class: `sport-dot sport-${g}`, "aria-hidden": "true" }), name)),
    ),
    h("p", { class: "muted small" }, "Moving time per week (Monday to Sunday), stacked by sport."),
  );
}

/**
 * The activities of the days shown (the grid's weeks), newest first: the search endpoint over that
 * window of local days, page after page (a window of weeks, so a handful of pages at most).
 */
async function activitiesOfDays(from, to) {
  const all = [];
  let before = null;
  for (let page = 0; page < 50; page++) {
    const q = new URLSearchParams({ from, to, per_page: "200" });
    if (before) q.set("before", before);
    const answer = await api(`/athletes/${athleteId}/activities/search?${q}`);
    all.push(...answer.activities);
    if (!answer.older) break;
    before = answer.older;
  }
  return all;
}

async function main() {
  const [y, m] = shownMonth();
  const first = Date.UTC(y, m, 1), last = Date.UTC(y, m + 1, 0);
  const lastWeek = monday(last);
  const weeks = Array.from({ length: WEEKS_IN_CHART }, (_, i) => iso(lastWeek - (WEEKS_IN_CHART - 1 - i) * 7 * DAY));
  const gridFrom = iso(monday(first)), gridTo = iso(lastWeek + 6 * DAY);
  const from = iso(Math.min(monday(first), dayMs(weeks[0])));
  // The month's grid and the chart's 12 weeks: one indexed read of day totals and the grid's activities,
  // however far the month lies from today.
  const [head, volume, list] = await Promise.all([
    pageHead("calendar", "Training calendar"),
    api(`/athletes/${athleteId}/volume?period=day&from=${from}&to=${gridTo}`),
    activitiesOfDays(gridFrom, gridTo),
  ]);
  const byDay = new Map();
  for (const a of [...list].reverse()) {
    const day = localDay(a);
    if (!byDay.has(day)) byDay.set(day, []);
    byDay.get(day).push(a);
  }
  const dayBuckets = new Map();
  const byWeekBuckets = new Map();
  for (const b of volume.buckets) {
    if (!dayBuckets.has(b.start)) dayBuckets.set(b.start, []);
    dayBuckets.get(b.start).push(b);
    const w = iso(monday(dayMs(b.start)));
    if (!byWeekBuckets.has(w)) byWeekBuckets.set(w, []);
    byWeekBuckets.get(w).push(b);
  }
  const byWeek = new Map([...byWeekBuckets].map(([w, l]) => [w, totals(l)]));
  const inMonth = volume.buckets.filter((b) => b.start >= iso(first) && b.start <= iso(last));
  root.replaceChildren(...[
    ...head,
    h(
      "div",
      { class: "month-nav" },
      h(
        "a",
        { class: "button secondary", href: `?month=${monthParam(y, m - 1)}`, id: "prev-month" },
        "← Previous month",
      ),
      h("h2", { id: "month-title" }, monthName(y, m)),
      h("a", { class: "button secondary", href: `?month=${monthParam(y, m + 1)}`, id: "next-month" }, "Next month →"),
    ),
    h("section", { class: "card", "aria-labelledby": "month-title" }, calendarTable(y, m, byDay, dayBuckets)),
    h("div", { class: "grid2" }, monthTotals(inMonth, y, m), volumeChart(weeks, byWeek)),
    self
      ? volume.includes_private ? h("p", { class: "muted small" }, "Your private activities included.") : null
      : h("p", { class: "muted small" }, "Only the activities you may see are counted."),
  ].filter(Boolean)); // replaceChildren writes null as the text "null"
  ready("calendar", inMonth.reduce((n, b) => n + b.count, 0));
}

main().catch((error) => {
  showFailure(root, error);
  ready("calendar", "failed");
});
