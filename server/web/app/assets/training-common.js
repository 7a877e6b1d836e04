// What the training pages share (calendar, year, records, fitness): the athlete's name and the sub-navigation.
import { api, config, fullName, h } from "./app.js";

export const athleteId = config.athleteId;
export const self = athleteId === config.athlete?.id;

const PAGES = [
  ["profile", "", "Profile"],
  ["calendar", "/calendar", "Calendar"],
  ["year", "/year", "Year"],
  ["records", "/records", "Records"],
  ["fitness", "/fitness", "Fitness"],
];

/** The page's heading and the links between the athlete's training pages. */
export async function pageHead(current, title) {
  const answer = await api(`/athletes/${athleteId}/profile`);
  const name = fullName(answer.athlete);
  document.title = `${title} · ${name} · Fitness Platform`;
  return [
    h(
      "div",
      { class: "page-head" },
      h("h1", { id: "title" }, self ? `Your ${title.toLowerCase()}` : `${name}: ${title.toLowerCase()}`),
    ),
    h(
      "nav",
      { "aria-label": "Training" },
      h(
        "ul",
        { class: "subnav" },
        PAGES.map(([key, path, label]) =>
          h(
            "li",
            {},
            h("a", { href: `/athletes/${athleteId}${path}`, "aria-current": key === current ? "page" : null }, label),
          )
        ),
      ),
    ),
  ];
}

/** Sport group of an activity type: ride, run, swim or other. */
export function sportGroup(type) {
  if (/Ride|Velomobile|Handcycle/.test(type ?? "")) return "ride";
  if (/Run|Walk|Hike/.test(type ?? "")) return "run";
  if (/Swim/.test(type ?? "")) return "swim";
  return "other";
}

export const GROUPS = [["ride", "Rides"], ["run", "Runs, walks, hikes"], ["swim", "Swims"], ["other", "Other"]];

/**
 * A label with a shorter form for phones ("Moving time" / "Time"): both are in the page, the short
 * one shown on narrow screens (training.css), the long one read by screen readers.
 */
export function shortened(long, short) {
  if (!short || short === long) return long;
  return [h("span", { class: "long" }, long), h("span", { class: "short", "aria-hidden": "true" }, short)];
}

/** A total of moving time, short: "137h 07m", "45m". */
export function hours(seconds) {
  const m = Math.round((seconds ?? 0) / 60);
  return m >= 60 ? `${Math.floor(m / 60).toLocaleString("en")}h ${String(m % 60).padStart(2, "0")}m` : `${m}m`;
}

const SHORT_GROUPS = { run: "Runs" };
/** A sport group's label, shortened on phones. */
export const groupLabel = (g, name) => shortened(name, SHORT_GROUPS[g]);

/** The activity's local start day, YYYY-MM-DD. */
export const localDay = (a) => String(a.start_date_local ?? a.start_date ?? "").slice(0, 10);

/** Width in px for a chart drawn in a card of the page (its viewBox is the real size, so text stays legible). */
export function chartWidth(root) {
  return Math.max(280, Math.round((root.clientWidth || 720) - 44));
}
