// Training calendar: a month of activities by day (weeks from Monday), each week's totals by sport,
// the month's totals by sport and a chart of the last 12 weeks' volume (moving time by sport).
// Another athlete's calendar holds only what the API lets the viewer see (never their only-me ones; followers-only ones for their followers).
import { distanceText, duration, h, km, meters, ready, showFailure, svg } from "./app.js";
import { activitiesSince, chartWidth, GROUPS, localDay, pageHead, self, sportGroup } from "./training-common.js";

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

/** Totals by sport group of some activities: {group: {count, distance, time, elevation}}. */
function totals(list) {
  const t = {};
  for (const a of list) {
    const g = sportGroup(a.sport_type ?? a.type);
    t[g] ??= { count: 0, distance: 0, time: 0, elevation: 0 };
    t[g].count++;
    t[g].distance += a.distance ?? 0;
    t[g].time += a.moving_time ?? 0;
    t[g].elevation += a.total_elevation_gain ?? 0;
  }
  return t;
}

const groupDistance = (g, m) => (g === "swim" ? distanceText(m, "Swim") : km(m));

function weekCell(list) {
  const t = totals(list);
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
          h("span", { class: "week-distance" }, groupDistance(g, t[g].distance)),
          " ",
          h("span", { class: "week-time" }, duration(t[g].time)),
        )
      ),
    ),
  );
}

function calendarTable(y, m, byDay) {
  const first = Date.UTC(y, m, 1), last = Date.UTC(y, m + 1, 0);
  const rows = [];
  for (let week = monday(first); week <= last; week += 7 * DAY) {
    const days = [];
    const inWeek = [];
    for (let d = 0; d < 7; d++) {
      const ms = week + d * DAY, key = iso(ms);
      const list = byDay.get(key) ?? [];
      inWeek.push(...list);
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

function monthTotals(list, y, m) {
  const t = totals(list);
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
              h("th", { scope: "col", class: "num" }, "Activities"),
              h("th", { scope: "col", class: "num" }, "Distance"),
              h("th", { scope: "col", class: "num" }, "Moving time"),
              h("th", { scope: "col", class: "num" }, "Elevation"),
            ),
          ),
          h(
            "tbody",
            {},
            rows.map(([g, label]) =>
              h(
                "tr",
                { dataset: { sport: g } },
                h("th", { scope: "row" }, h("span", { class: `sport-dot sport-${g}`, "aria-hidden": "true" }), label),
                h("td", { class: "num" }, String(t[g].count)),
                h("td", { class: "num" }, groupDistance(g, t[g].distance)),
                h("td", { class: "num" }, duration(t[g].time)),
                h("td", { class: "num" }, meters(t[g].elevation)),
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
  const hours = weeks.map((w) => GROUPS.map(([g]) => ((byWeek.get(w)?.[g]?.time ?? 0) / 3600)));
  const max = Math.max(1, ...hours.map((hs) => hs.reduce((s, v) => s + v, 0)));
  const step = Math.max(1, Math.ceil(max / 4));
  const scaleMax = step * Math.ceil(max / step);
  const y = (v) => H - bottom - ((H - bottom - top) * v) / scaleMax;
  const slot = (W - left) / weeks.length;
  const total = hours.map((hs) => hs.reduce((s, v) => s + v, 0));
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
      const v = hours[i][k];
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

async function main() {
  const [y, m] = shownMonth();
  const first = Date.UTC(y, m, 1), last = Date.UTC(y, m + 1, 0);
  const lastWeek = monday(last);
  const weeks = Array.from({ length: WEEKS_IN_CHART }, (_, i) => iso(lastWeek - (WEEKS_IN_CHART - 1 - i) * 7 * DAY));
  const from = iso(Math.min(monday(first), dayMs(weeks[0])));
  const [head, list] = await Promise.all([pageHead("calendar", "Training calendar"), activitiesSince(from)]);
  const byDay = new Map(), byWeekList = new Map();
  for (const a of [...list].reverse()) {
    const day = localDay(a);
    if (!byDay.has(day)) byDay.set(day, []);
    byDay.get(day).push(a);
    const w = iso(monday(dayMs(day)));
    if (!byWeekList.has(w)) byWeekList.set(w, []);
    byWeekList.get(w).push(a);
  }
  const byWeek = new Map([...byWeekList].map(([w, l]) => [w, totals(l)]));
  const inMonth = list.filter((a) => {
    const d = localDay(a);
    return d >= iso(first) && d <= iso(last);
  });
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
    h("section", { class: "card", "aria-labelledby": "month-title" }, calendarTable(y, m, byDay)),
    h("div", { class: "grid2" }, monthTotals(inMonth, y, m), volumeChart(weeks, byWeek)),
    self ? null : h("p", { class: "muted small" }, "Only the activities you may see are counted."),
  ].filter(Boolean)); // replaceChildren writes null as the text "null"
  ready("calendar", inMonth.length);
}

main().catch((error) => {
  showFailure(root, error);
  ready("calendar", "failed");
});
