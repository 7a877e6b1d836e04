// Fitness and freshness: the impulse-response model over the athlete's own training load
// (GET /v3/athletes/:id/fitness, an extension): fitness (CTL), fatigue (ATL) and form (TSB) by day,
// and each recent activity's load. Another athlete's page says it is theirs alone (the API: 403).
import { api, h, ready, showFailure, svg } from "./app.js";
import { athleteId, chartWidth, pageHead, self } from "./training-common.js";

const root = document.getElementById("fitness");
const RANGES = [[42, "6 weeks"], [90, "3 months"], [180, "6 months"], [365, "1 year"], [3650, "10 years"]];
const METHODS = { power: "Power (TSS)", heartrate: "Heart rate (TRIMP)", none: "None (no power or heart rate)" };

const dayText = (d) =>
  new Date(`${d}T00:00:00Z`).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });

function chart(days) {
  const W = chartWidth(root), H = 260, left = 40, right = 10, top = 10, bottom = 28;
  const values = days.flatMap((d) => [d.ctl, d.atl, d.tsb]);
  const max = Math.max(10, ...values), min = Math.min(0, ...values);
  const step = Math.max(5, Math.ceil((max - min) / 5 / 5) * 5);
  const lo = step * Math.floor(min / step), hi = step * Math.ceil(max / step);
  const x = (i) => left + ((W - left - right) * i) / Math.max(1, days.length - 1);
  const y = (v) => H - bottom - ((H - bottom - top) * (v - lo)) / (hi - lo);
  const last = days.at(-1);
  const box = svg("svg", {
    class: "fitness-chart",
    id: "fitness-chart",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": `Fitness, fatigue and form from ${
      days[0].date
    } to ${last.date}; on the last day fitness ${last.ctl}, fatigue ${last.atl}, form ${last.tsb}`,
  });
  for (let v = lo; v <= hi; v += step) {
    box.append(svg("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), stroke: v === 0 ? "#8c959f" : "#dde1e6" }));
    const t = svg("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" });
    t.textContent = String(v);
    box.append(t);
  }
  const ticks = W < 500 ? 3 : 6;
  for (let k = 0; k < ticks; k++) {
    const i = Math.round(((days.length - 1) * k) / (ticks - 1));
    const t = svg("text", { x: x(i), y: H - 8, "text-anchor": k === 0 ? "start" : k === ticks - 1 ? "end" : "middle" });
    const long = days.length > 300;
    t.textContent = new Date(`${days[i].date}T00:00:00Z`).toLocaleDateString(
      "en-GB",
      long ? { month: "short", year: "numeric", timeZone: "UTC" } : { day: "numeric", month: "short", timeZone: "UTC" },
    );
    box.append(t);
  }
  for (const key of ["ctl", "atl", "tsb"]) {
    box.append(
      svg("path", {
        class: key,
        d: days.map((d, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(d[key]).toFixed(1)}`).join(""),
      }),
    );
  }
  return box;
}

function figure(label, value, id) {
  return h("div", { id }, h("dt", {}, label), h("dd", {}, String(value)));
}

function formWords(tsb) {
  if (tsb > 5) return "fresh";
  if (tsb >= -10) return "neutral";
  if (tsb >= -30) return "training hard";
  return "very fatigued";
}

async function draw(range) {
  const data = await api(`/athletes/${athleteId}/fitness?days=${range}`);
  const box = document.getElementById("fitness-body");
  if (!data.days.length) {
    box.replaceChildren(
      h("p", { class: "muted", id: "fitness-empty" }, "No activities yet: upload some with heart rate or power."),
    );
    return 0;
  }
  const today = data.days.at(-1);
  const recent = data.activities.slice(-10).reverse();
  box.replaceChildren(
    h(
      "section",
      { class: "card", "aria-labelledby": "today-title" },
      h("h2", { id: "today-title" }, `Today (${dayText(today.date)})`),
      h(
        "dl",
        { class: "stats", id: "fitness-today" },
        figure("Fitness (CTL, 42 days)", today.ctl, "ctl"),
        figure("Fatigue (ATL, 7 days)", today.atl, "atl"),
        figure(`Form (TSB): ${formWords(today.tsb)}`, today.tsb, "tsb"),
      ),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "chart-title" },
      h("h2", { id: "chart-title" }, "Fitness, fatigue and form"),
      chart(data.days),
      h(
        "ul",
        { class: "legend" },
        h("li", {}, h("span", { class: "line-key ctl", "aria-hidden": "true" }), "Fitness (CTL)"),
        h("li", {}, h("span", { class: "line-key atl", "aria-hidden": "true" }), "Fatigue (ATL)"),
        h("li", {}, h("span", { class: "line-key tsb", "aria-hidden": "true" }), "Form (TSB)"),
      ),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "loads-title" },
      h("h2", { id: "loads-title" }, "Recent training load"),
      recent.length
        ? h(
          "table",
          { class: "records", id: "loads" },
          h("thead", {}, h("tr", {}, ["Activity of", "Load", "From"].map((c) => h("th", { scope: "col" }, c)))),
          h(
            "tbody",
            {},
            recent.map((a) =>
              h(
                "tr",
                { dataset: { activity: a.activity_id } },
                h("td", {}, h("a", { href: `/activities/${a.activity_id}` }, dayText(a.date))),
                h("td", {}, String(Math.round(a.load))),
                h("td", {}, METHODS[a.method] ?? a.method),
              )
            ),
          ),
        )
        : h("p", { class: "muted" }, "No activities in this period."),
      h(
        "p",
        { class: "muted small" },
        data.ftp
          ? `Rides with power count their Training Stress Score with your FTP (now ${data.ftp} W); the others their heart-rate TRIMP.`
          : "No FTP is set, so every activity counts its heart-rate TRIMP (set an FTP with PUT /v3/athlete for power-based TSS).",
      ),
    ),
  );
  return data.days.length;
}

async function main() {
  const head = await pageHead("fitness", "Fitness and freshness");
  if (!self) {
    root.replaceChildren(
      ...head,
      h(
        "p",
        { class: "card", id: "fitness-own" },
        "Fitness and freshness is each athlete's own: only they can see theirs.",
      ),
    );
    ready("fitness", "other");
    return;
  }
  const asked = Number(new URLSearchParams(location.search).get("days"));
  const initial = RANGES.some(([d]) => d === asked) ? asked : 90;
  const select = h(
    "select",
    { id: "fitness-range" },
    RANGES.map(([d, label]) => h("option", { value: d, selected: d === initial }, label)),
  );
  root.replaceChildren(
    ...head,
    h("p", { class: "month-nav" }, h("label", { for: "fitness-range" }, "Period"), select),
    h("div", { id: "fitness-body", "aria-live": "polite" }),
    h(
      "p",
      { class: "muted small" },
      "Each activity's load is its Training Stress Score from power (with your FTP) or else its heart-rate TRIMP; fitness is the 42-day and fatigue the 7-day exponentially weighted average of the daily load, form is fitness minus fatigue.",
    ),
  );
  select.addEventListener("change", async () => {
    try {
      history.replaceState(null, "", `?days=${select.value}`);
      ready("fitness", await draw(Number(select.value)));
    } catch (error) {
      document.getElementById("fitness-body").replaceChildren(h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  ready("fitness", await draw(initial));
}

main().catch((error) => {
  showFailure(root, error);
  ready("fitness", "failed");
});
