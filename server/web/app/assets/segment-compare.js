// The segment page's Compare card: two efforts on the segment (one of the viewer's and another of
// theirs or one from the leaderboard) side by side along the segment — the time gap ("+2:19") and
// each one's speed, heart rate and power where recorded (GET /v3/segments/:id/compare).
import { api, config, dateText, distanceUnit, duration, h, showFailure, speedUnit } from "./app.js";

const COLORS = ["#b83a07", "#0969da"];

/** A gap in seconds as "+2:19" / "−0:45" / "0:00" (the second effort's time minus the first's). */
export function gapText(seconds) {
  const s = Math.round(seconds);
  return `${s > 0 ? "+" : s < 0 ? "−" : ""}${duration(Math.abs(s))}`;
}

const day = (iso) => dateText(iso).replace(/, \d\d:\d\d$/, "");

function option(value, text, selected) {
  return h("option", { value, selected: selected || undefined }, text);
}

/** A chart of one series per effort (or one gap series) against the distance along the segment. */
function chart(box, key, label, x, series, format) {
  const holder = h("figure", { class: "chart", "data-chart": key }, h("h3", {}, label));
  box.append(holder);
  const width = Math.max(260, box.clientWidth);
  const plot = new window.uPlot(
    {
      width,
      height: 140,
      legend: { show: true, live: true },
      cursor: { sync: { key: "compare" }, drag: { x: false, y: false } },
      scales: { x: { time: false } },
      axes: [{ values: (_u, v) => v.map((n) => `${n} ${distanceUnit.name}`) }, { size: 52 }],
      series: [
        { label: distanceUnit.name, value: (_u, v) => (v === null ? "—" : v.toFixed(2)) },
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 1.5,
          points: { show: false },
          value: (_u, v) => (v === null ? "—" : format(v)),
        })),
      ],
    },
    [x, ...series.map((s) => s.values)],
    holder,
  );
  new ResizeObserver(() => {
    const w = Math.max(260, box.clientWidth);
    if (w !== plot.width) plot.setSize({ width: w, height: 140 });
  }).observe(box);
}

function average(values) {
  const known = (values ?? []).filter((v) => v !== null);
  return known.length ? known.reduce((a, b) => a + b, 0) / known.length : null;
}

/** "Your effort" within a sentence; another athlete's name stays as it is. */
const lower = (name) => name.replace(/^Your /, "your ");

function drawResult(box, result, names) {
  const [a, b] = result.efforts;
  const gap = result.final_gap;
  const who = names[1];
  const words = gap === 0
    ? `${who} finished level with ${lower(names[0])}.`
    : `${who} finished ${duration(Math.abs(gap))} ${gap > 0 ? "behind" : "ahead of"} ${lower(names[0])}.`;
  const x = result.distance.map((d) => d / distanceUnit.meters);
  const charts = h("div", { class: "compare-charts", id: "compare-charts" });
  const row = (e, name, k) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, h("span", { class: "swatch", style: `background:${COLORS[k]}` }), name),
      h("td", {}, h("a", { href: `/activities/${e.effort.activity_id}` }, day(e.effort.start_date_local))),
      h("td", {}, duration(e.effort.elapsed_time)),
      h("td", {}, `${((result.segment.distance / Math.max(1, e.effort.elapsed_time)) * speedUnit.perMps).toFixed(1)}`),
      h("td", {}, e.effort.average_heartrate == null ? "—" : String(Math.round(e.effort.average_heartrate))),
      h(
        "td",
        {},
        e.effort.average_watts == null
          ? (average(e.watts) === null ? "—" : `${Math.round(average(e.watts))}`)
          : String(Math.round(e.effort.average_watts)),
      ),
    );
  box.replaceChildren(
    h(
      "p",
      { class: "gap-headline" },
      h("strong", { id: "compare-gap", class: gap > 0 ? "behind" : gap < 0 ? "ahead" : "" }, gapText(gap)),
      h("span", { id: "compare-words" }, words),
    ),
    h(
      "div",
      { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "The two efforts" },
      h(
        "table",
        { id: "compare-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Effort", "Date", "Time", `Speed (${speedUnit.name})`, "Heart rate (bpm)", "Power (W)"].map((c) =>
              h("th", { scope: "col" }, c)
            ),
          ),
        ),
        h("tbody", {}, row(a, names[0], 0), row(b, names[1], 1)),
      ),
    ),
    charts,
  );
  chart(charts, "gap", `Time gap along the segment (s): above 0, ${lower(names[1])} is behind`, x, [
    { label: "Gap (s)", color: "#57606a", values: result.gap },
  ], (v) => gapText(v));
  const channel = (key, label, map, format) => {
    if (!result.efforts.some((e) => e[key])) return;
    chart(
      charts,
      key,
      label,
      x,
      result.efforts.map((e, k) => ({
        label: names[k],
        color: COLORS[k],
        values: (e[key] ?? result.distance.map(() => null)).map((v) => (v === null ? null : map(v))),
      })),
      format,
    );
  };
  channel("velocity_smooth", `Speed (${speedUnit.name})`, (v) => v * speedUnit.perMps, (v) => v.toFixed(1));
  channel("heartrate", "Heart rate (bpm)", (v) => v, (v) => v.toFixed(0));
  channel("watts", "Power (W)", (v) => v, (v) => v.toFixed(0));
}

/**
 * The Compare card for segment `segmentId`: `mine` are the viewer's efforts on it. Answers the card,
 * `setBoard(entries)` (the leaderboard's entries shown: others' efforts to pick from) and
 * `compareWith(effortId, name)`, which picks an effort as the other one and compares.
 */
export function compareCard(segmentId, mine) {
  const status = h("div", { id: "compare-result", "aria-live": "polite" });
  const section = h(
    "section",
    { class: "card", id: "compare", "aria-labelledby": "compare-title" },
    h("h2", { id: "compare-title" }, "Compare efforts"),
  );
  if (!mine.length) {
    section.append(
      h("p", { class: "muted", id: "compare-none" }, "Ride or run this segment to compare your effort with others."),
    );
    return { section, setBoard: () => {}, compareWith: () => {} };
  }
  const best = [...mine].sort((x, y) => x.elapsed_time - y.elapsed_time)[0];
  const mineSelect = h(
    "select",
    { id: "compare-mine", name: "mine" },
    mine.map((e) => option(String(e.id), `${day(e.start_date_local)} · ${duration(e.elapsed_time)}`, e === best)),
  );
  /** Others' efforts by id: their names (from the leaderboard). */
  const others = new Map();
  const boardGroup = h("optgroup", { label: "Leaderboard" });
  const otherSelect = h(
    "select",
    { id: "compare-other", name: "other" },
    boardGroup,
    mine.length > 1
      ? h(
        "optgroup",
        { label: "Your efforts" },
        mine.map((e) => option(String(e.id), `${day(e.start_date_local)} · ${duration(e.elapsed_time)}`)),
      )
      : null,
  );
  const button = h("button", { type: "submit", id: "compare-submit" }, "Compare");
  const form = h(
    "form",
    { id: "compare-form", class: "compare-form" },
    h("div", {}, h("label", { for: "compare-mine" }, "Your effort"), mineSelect),
    h("div", {}, h("label", { for: "compare-other" }, "Compare with"), otherSelect),
    button,
  );
  /** The chosen effort of yours is "Your effort"; another of yours says its time; another athlete's, whose. */
  const nameOf = (effortId) => {
    const own = mine.find((e) => String(e.id) === effortId);
    if (own) return effortId === mineSelect.value ? "Your effort" : `Your other effort (${duration(own.elapsed_time)})`;
    return `${others.get(effortId) ?? "The other athlete"}'s effort`;
  };
  const compare = async () => {
    const ids = [mineSelect.value, otherSelect.value];
    if (!ids[1]) {
      status.replaceChildren(h("p", { class: "muted" }, "Nobody else is on the leaderboard yet."));
      return;
    }
    if (ids[0] === ids[1]) {
      status.replaceChildren(h("p", { class: "error", role: "alert" }, "Pick two different efforts."));
      return;
    }
    button.disabled = true;
    status.setAttribute("aria-busy", "true");
    try {
      const result = await api(`/segments/${segmentId}/compare?effort_ids=${ids.join(",")}`);
      drawResult(status, result, ids.map(nameOf));
    } catch (error) {
      showFailure(status, error);
    } finally {
      button.disabled = false;
      status.removeAttribute("aria-busy");
      window.appState = { ...window.appState, compare: (window.appState?.compare ?? 0) + 1 };
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    compare();
  });
  section.append(form, status);
  return {
    section,
    setBoard(entries) {
      const chosen = otherSelect.value;
      const theirs = entries.filter((e) => e.athlete_id !== config.athlete.id);
      for (const e of theirs) others.set(String(e.effort_id), e.athlete_name);
      boardGroup.replaceChildren(
        ...theirs.map((e) => option(String(e.effort_id), `${e.athlete_name} · ${duration(e.elapsed_time)}`)),
      );
      if ([...otherSelect.options].some((o) => o.value === chosen)) otherSelect.value = chosen;
    },
    compareWith(effortId, name) {
      others.set(String(effortId), name);
      if (![...otherSelect.options].some((o) => o.value === String(effortId))) {
        boardGroup.prepend(option(String(effortId), name));
      }
      otherSelect.value = String(effortId);
      section.scrollIntoView({ block: "start" });
      compare();
    },
  };
}
