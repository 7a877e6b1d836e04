// What the training pages share (calendar, records, fitness): the athlete's name and the sub-navigation.
import { api, config, fullName, h } from "./app.js";

export const athleteId = config.athleteId;
export const self = athleteId === config.athlete?.id;

const PAGES = [
  ["profile", "", "Profile"],
  ["calendar", "/calendar", "Calendar"],
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

/** Every activity of the athlete (the viewer may see) that started on or after `from` (YYYY-MM-DD, local), newest first. */
export async function activitiesSince(from) {
  const all = [];
  for (let page = 1; page < 1000; page++) {
    const rows = await api(`/athletes/${athleteId}/activities?page=${page}&per_page=200`);
    all.push(...rows);
    const last = rows.at(-1);
    if (rows.length < 200 || (last && localDay(last) < from)) break;
  }
  return all.filter((a) => localDay(a) >= from);
}

/** The activity's local start day, YYYY-MM-DD. */
export const localDay = (a) => String(a.start_date_local ?? a.start_date ?? "").slice(0, 10);

/** Width in px for a chart drawn in a card of the page (its viewBox is the real size, so text stays legible). */
export function chartWidth(root) {
  return Math.max(280, Math.round((root.clientWidth || 720) - 44));
}
