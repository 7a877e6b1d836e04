// The feed: the athlete's activities newest first, infinite scroll over API pages, and totals.
import { api, config, dateText, duration, h, km, meters, ready, routeThumb, showFailure, speedText } from "./app.js";

const PER_PAGE = config.perPage ?? 20;
const list = document.getElementById("feed");
const status = document.getElementById("feed-status");
const more = document.getElementById("feed-more");
let page = 0, loading = false, done = false;
const sentinel = status;

function entry(a) {
  const when = dateText(a.start_date_local ?? a.start_date);
  return h("li", { class: "card entry", dataset: { activity: a.id } },
    h("div", {},
      h("p", { class: "meta" }, `${a.type} · ${when}${a.private ? " · Only you" : ""}`),
      h("h2", {}, h("a", { href: `/activities/${a.id}` }, a.name || "Untitled activity")),
      h("dl", { class: "stats" },
        h("div", {}, h("dt", {}, "Distance"), h("dd", {}, km(a.distance ?? 0))),
        h("div", {}, h("dt", {}, "Time"), h("dd", {}, duration(a.moving_time))),
        h("div", {}, h("dt", {}, "Elevation"), h("dd", {}, meters(a.total_elevation_gain))),
        h("div", {}, h("dt", {}, /Run|Walk|Hike/.test(a.type) ? "Pace" : "Speed"), h("dd", {}, speedText(a.average_speed, a.type))),
      ),
      a.kudos_count || a.comment_count
        ? h("p", { class: "meta" }, `${a.kudos_count} kudos · ${a.comment_count} ${a.comment_count === 1 ? "comment" : "comments"}`)
        : null,
    ),
    routeThumb(a.map?.summary_polyline, `Route of ${a.name}`),
  );
}

async function loadMore() {
  if (loading || done) return;
  loading = true;
  more.hidden = true;
  status.textContent = "Loading activities…";
  try {
    const rows = await api(`/athlete/activities?page=${page + 1}&per_page=${PER_PAGE}`);
    page++;
    for (const a of rows) list.append(entry(a));
    done = rows.length < PER_PAGE;
    status.textContent = done
      ? (list.children.length ? "That's all your activities." : "No activities yet — upload your first one.")
      : "";
    more.hidden = done;
  } catch (error) {
    status.textContent = error.message;
    more.hidden = false;
    loading = false;
    return; // the "Load more" button retries
  } finally {
    loading = false;
    ready("feedPages", page);
  }
  // Still near the bottom (a short page or a fast reader): the observer fires no new event.
  if (!done && sentinel.getBoundingClientRect().top < innerHeight + 400) setTimeout(loadMore, 0);
}

more.addEventListener("click", loadMore);
new IntersectionObserver((entries) => {
  if (entries.some((e) => e.isIntersecting)) loadMore();
}, { rootMargin: "400px" }).observe(sentinel);

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
  const row = (label, s) => h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, String(s.n)), h("td", {}, km(s.d)), h("td", {}, duration(s.t)), h("td", {}, meters(s.e)));
  box.replaceChildren(
    h("h2", { id: "totals-title" }, "Totals"),
    h("table", { class: "totals" },
      h("thead", {}, h("tr", {}, h("td", {}), h("th", { scope: "col" }, "Acts"), h("th", { scope: "col" }, "Dist"), h("th", { scope: "col" }, "Time"), h("th", { scope: "col" }, "Elev"))),
      h("tbody", {}, row("This week", sums.week), row(String(now.getUTCFullYear()), sums.year)),
    ),
  );
  ready("totals");
}

async function clubs() {
  const box = document.getElementById("my-clubs");
  try {
    const [mine, challenges] = await Promise.all([api("/athlete/clubs"), api("/challenges/joined").catch(() => [])]);
    box.replaceChildren(
      h("h2", { id: "clubs-title" }, "Your clubs"),
      mine.length
        ? h("ul", {}, mine.map((c) => h("li", {}, h("a", { href: `/clubs/${c.id}` }, c.name))))
        : h("p", { class: "muted" }, "You are in no club yet."),
      challenges.length ? h("h2", {}, "Your challenges") : null,
      challenges.length ? h("ul", { id: "my-challenges" }, challenges.map((c) => h("li", {}, h("a", { href: `/challenges/${c.id}` }, c.name)))) : null,
    );
  } catch (error) {
    showFailure(box, error);
  }
}

loadMore();
totals();
clubs();
