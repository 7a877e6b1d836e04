// The feed: one's own and followed athletes' activities newest first, infinite scroll over API pages, and totals.
import {
  activityEntry,
  api,
  config,
  duration,
  gearBadges,
  h,
  infiniteList,
  km,
  meters,
  ready,
  showFailure,
  wholeDistance,
} from "./app.js";
import { goalsCard } from "./goals-view.js";

const PER_PAGE = config.perPage ?? 20;

// One's own and followed athletes' activities (the following feed extension), newest first.
infiniteList({
  list: document.getElementById("feed"),
  status: document.getElementById("feed-status"),
  more: document.getElementById("feed-more"),
  perPage: PER_PAGE,
  fetchPage: (page) => api(`/activities/following?page=${page}&per_page=${PER_PAGE}`),
  render: (a) => activityEntry(a),
  endText: "That's all the activities of you and the athletes you follow.",
  emptyText: "No activities yet — upload your first one.",
  readyKey: "feedPages",
});

/** A local calendar day as YYYY-MM-DD. */
const dayText = (d) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

/** Sums of a volume answer's buckets: activities, distance, moving time, elevation. */
function sum(buckets) {
  const s = { n: 0, d: 0, t: 0, e: 0 };
  for (const b of buckets) s.n += b.count, s.d += b.distance, s.t += b.moving_time, s.e += b.total_elevation_gain;
  return s;
}

/**
 * This week's (Monday on) and this year's totals, from the training-volume read model
 * (GET /v3/athletes/:id/volume): two small reads whatever the history's size. One's own private
 * activities count (the page's token has view_private), and the box says so.
 */
async function totals() {
  const box = document.getElementById("totals");
  const me = config.athlete.id;
  const now = new Date();
  const monday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - ((now.getDay() + 6) % 7));
  const sunday = new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 6);
  const year = now.getFullYear();
  let week, ytd;
  try {
    [week, ytd] = await Promise.all([
      api(`/athletes/${me}/volume?period=week&from=${dayText(monday)}&to=${dayText(sunday)}`),
      api(`/athletes/${me}/volume?period=year&from=${year}-01-01&to=${year}-12-31`),
    ]);
  } catch (error) {
    showFailure(box, error);
    return;
  }
  const row = (label, s) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, label),
      h("td", {}, String(s.n)),
      h("td", {}, km(s.d)),
      h("td", {}, duration(s.t)),
      h("td", {}, meters(s.e)),
    );
  box.replaceChildren(
    ...[
      h("h2", { id: "totals-title" }, "Totals"),
      h(
        "table",
        { class: "totals" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("td", {}),
            h("th", { scope: "col" }, "Acts"),
            h("th", { scope: "col" }, "Dist"),
            h("th", { scope: "col" }, "Time"),
            h("th", { scope: "col" }, "Elev"),
          ),
        ),
        h("tbody", {}, row("This week", sum(week.buckets)), row(String(year), sum(ytd.buckets))),
      ),
      ytd.includes_private ? h("p", { class: "muted small" }, "Your private activities included.") : null,
      h("p", { class: "small" }, h("a", { href: `/athletes/${me}/year` }, "Your year by week and month")),
    ].filter(Boolean),
  );
  ready("totals");
}

async function clubs() {
  const box = document.getElementById("my-clubs");
  try {
    const [mine, challenges] = await Promise.all([api("/athlete/clubs"), api("/challenges/joined").catch(() => [])]);
    box.replaceChildren(...[
      h("h2", { id: "clubs-title" }, "Your clubs"),
      mine.length
        ? h("ul", {}, mine.map((c) => h("li", {}, h("a", { href: `/clubs/${c.id}` }, c.name))))
        : h("p", { class: "muted" }, "You are in no club yet."),
      challenges.length ? h("h2", {}, "Your challenges") : null,
      challenges.length
        ? h(
          "ul",
          { id: "my-challenges" },
          challenges.map((c) => h("li", {}, h("a", { href: `/challenges/${c.id}` }, c.name))),
        )
        : null,
    ].filter(Boolean)); // replaceChildren writes null as the text "null"
  } catch (error) {
    showFailure(box, error);
  }
}

/** The athlete's gear in use whose reminder distance is reached: "Replace at …" beside each name. */
async function gearReminders() {
  const box = document.getElementById("gear-reminders");
  try {
    const me = await api("/athlete");
    const due = [...(me.bikes ?? []), ...(me.shoes ?? [])].filter((g) => g.reminder_reached && !g.retired);
    if (due.length) {
      box.replaceChildren(
        h("h2", { id: "gear-reminders-title" }, "Gear to replace"),
        h(
          "ul",
          { id: "gear-due" },
          due.map((g) =>
            h(
              "li",
              {},
              h("a", { href: `/gear/${g.id}` }, g.name ?? g.id),
              ...gearBadges(g),
              h("span", { class: "muted" }, ` ${wholeDistance(g.distance)} so far`),
            )
          ),
        ),
      );
      box.hidden = false;
    }
  } catch (error) {
    box.hidden = false;
    showFailure(box, error);
  }
  ready("gearReminders");
}

/** The athlete's goals and their progress. */
async function goals() {
  const box = document.getElementById("feed-goals");
  try {
    await goalsCard(box, api);
  } catch (error) {
    showFailure(box, error);
  }
  ready("goals");
}

totals();
clubs();
gearReminders();
goals();
