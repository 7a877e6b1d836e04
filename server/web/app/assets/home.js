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

/** Week (Monday on) and year totals from the API's activity list (after=start of year, oldest first). */
async function totals() {
  const box = document.getElementById("totals");
  const now = new Date();
  const yearStart = Date.UTC(now.getUTCFullYear(), 0, 1) / 1000;
  const day = (now.getUTCDay() + 6) % 7;
  const weekStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - day) / 1000;
  const sums = { week: { n: 0, d: 0, t: 0, e: 0 }, year: { n: 0, d: 0, t: 0, e: 0 } };
  let after = yearStart;
  try {
    for (let i = 0; i < 25; i++) {
      const rows = await api(`/athlete/activities?after=${after}&per_page=200`);
      for (const a of rows) {
        const start = Date.parse(a.start_date) / 1000;
        for (const [key, from] of [["week", weekStart], ["year", yearStart]]) {
          if (start < from) continue;
          const s = sums[key];
          s.n++, s.d += a.distance ?? 0, s.t += a.moving_time ?? 0, s.e += a.total_elevation_gain ?? 0;
        }
        after = Math.max(after, Math.floor(start));
      }
      if (rows.length < 200) break;
    }
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
      h("tbody", {}, row("This week", sums.week), row(String(now.getUTCFullYear()), sums.year)),
    ),
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
