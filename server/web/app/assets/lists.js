// The athlete's lists (server/web/app/lists.ts): their activities (search by name, filter by sport
// and dates), their routes, and Find: clubs, athletes and challenges they are not in yet.
import { activityEntry, api, config, h, km, meters, readableName, ready, routeThumb, showFailure } from "./app.js";

const root = document.getElementById("lists");
const field = (label, input) => h("div", {}, h("label", { for: input.id }, label), input);

// ------------------------------------------------------------------ my activities

/**
 * All the athlete's activities in the date range (pages of 200, at most 2000), newest first. The
 * /v3 list takes before, after and page one at a time (the spec): pages walk back with `before` set
 * just past the oldest start seen (ids already listed are skipped), until one starts before `after`.
 */
async function myActivities(after, before) {
  const out = [];
  const seen = new Set();
  let cursor = before || 0;
  for (let round = 0; round < 10; round++) {
    const q = new URLSearchParams({ per_page: "200" });
    if (cursor) q.set("before", String(cursor));
    const rows = await api(`/athlete/activities?${q}`);
    const fresh = rows.filter((a) => !seen.has(a.id));
    for (const a of fresh) seen.add(a.id);
    out.push(...fresh.filter((a) => !after || Date.parse(a.start_date) / 1000 > after));
    const oldest = rows.length ? Math.floor(Date.parse(rows[rows.length - 1].start_date) / 1000) : 0;
    if (rows.length < 200 || fresh.length === 0 || (after && oldest <= after)) break;
    cursor = oldest + 1;
  }
  return out.sort((a, b) => (b.start_date ?? "").localeCompare(a.start_date ?? ""));
}

async function activities() {
  const params = new URLSearchParams(location.search);
  const name = h("input", {
    type: "search",
    id: "filter-name",
    name: "q",
    value: params.get("q") ?? config.query ?? "",
    placeholder: "Part of the name",
  });
  const sport = h(
    "select",
    { id: "filter-sport", name: "sport" },
    h("option", { value: "" }, "All sports"),
    config.activityTypes.map((t) => h("option", { value: t, selected: params.get("sport") === t }, readableName(t))),
  );
  const from = h("input", { type: "date", id: "filter-from", name: "from", value: params.get("from") ?? "" });
  const to = h("input", { type: "date", id: "filter-to", name: "to", value: params.get("to") ?? "" });
  const form = h(
    "form",
    { class: "filters card", id: "activity-filters", role: "search" },
    field("Name", name),
    field("Sport", sport),
    field("From", from),
    field("To", to),
    h("div", {}, h("button", { type: "submit" }, "Search")),
  );
  const status = h("p", { class: "muted", role: "status", id: "activities-status" }, "Loading…");
  const list = h("ol", { class: "feed-list", id: "activity-list" });
  root.replaceChildren(h("h1", {}, "Your activities"), form, status, list);
  let all = null, range = "";
  const draw = async () => {
    const after = from.value ? Date.parse(`${from.value}T00:00:00Z`) / 1000 - 14 * 3600 : 0;
    const before = to.value ? Date.parse(`${to.value}T23:59:59Z`) / 1000 + 14 * 3600 : 0;
    if (all === null || range !== `${after}-${before}`) {
      status.textContent = "Loading…";
      all = await myActivities(after, before);
      range = `${after}-${before}`;
    }
    const words = name.value.trim().toLowerCase();
    // Local dates are the athlete's own day: compared on start_date_local.
    const shown = all.filter((a) =>
      (!words || (a.name ?? "").toLowerCase().includes(words)) &&
      (!sport.value || a.type === sport.value || a.sport_type === sport.value) &&
      (!from.value || (a.start_date_local ?? "").slice(0, 10) >= from.value) &&
      (!to.value || (a.start_date_local ?? "").slice(0, 10) <= to.value)
    );
    list.replaceChildren(...shown.map((a) => activityEntry(a, { showAthlete: false })));
    status.textContent = shown.length
      ? `${shown.length} ${shown.length === 1 ? "activity" : "activities"}${
        shown.length < all.length ? ` of ${all.length}` : ""
      }`
      : all.length
      ? "No activity matches."
      : "No activities yet: upload one.";
    ready("lists", (window.appState?.lists ?? 0) + 1);
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    if (name.value.trim()) q.set("q", name.value.trim());
    if (sport.value) q.set("sport", sport.value);
    if (from.value) q.set("from", from.value);
    if (to.value) q.set("to", to.value);
    history.replaceState(null, "", `${location.pathname}${q.size ? `?${q}` : ""}`);
    draw().catch((error) => status.replaceChildren(h("span", { class: "error", role: "alert" }, error.message)));
  });
  await draw();
}

// ------------------------------------------------------------------ my routes

async function routes() {
  const rows = await api("/athlete/routes?per_page=200");
  const list = h(
    "ol",
    { class: "feed-list", id: "route-list" },
    rows.map((r) =>
      h(
        "li",
        { class: "card entry", dataset: { route: r.id } },
        h(
          "div",
          {},
          h("p", { class: "meta" }, `${r.type === 2 ? "Run" : "Ride"} route${r.private ? " · Only you" : ""}`),
          h("h2", {}, h("a", { href: `/routes/${r.id}` }, r.name || "Untitled route")),
          h(
            "dl",
            { class: "stats" },
            h("div", {}, h("dt", {}, "Distance"), h("dd", {}, km(r.distance ?? 0))),
            h("div", {}, h("dt", {}, "Elevation"), h("dd", {}, meters(r.elevation_gain))),
          ),
        ),
        routeThumb(r.map?.summary_polyline, `Map of ${r.name}`),
      )
    ),
  );
  root.replaceChildren(
    h("h1", {}, "Your routes"),
    rows.length ? list : h(
      "p",
      { class: "card", id: "route-list" },
      "No routes yet. Open one of your activities and choose “Make a route”.",
    ),
    h("p", { class: "muted" }, rows.length ? `${rows.length} ${rows.length === 1 ? "route" : "routes"}` : ""),
  );
  ready("lists", 1);
}

// ------------------------------------------------------------------ find

function resultList(idText, rows, render, empty) {
  return rows.length
    ? h("ul", { class: "result-list", id: idText }, rows.map(render))
    : h("p", { class: "muted", id: idText }, empty);
}

async function find() {
  const params = new URLSearchParams(location.search);
  const q = h("input", {
    type: "search",
    id: "find-q",
    name: "q",
    value: params.get("q") ?? "",
    placeholder: "A name, or nothing to see all",
  });
  const form = h(
    "form",
    { class: "filters card", id: "find-form", role: "search" },
    field("Name", q),
    h("div", {}, h("button", { type: "submit" }, "Find")),
  );
  const clubs = h(
    "section",
    { class: "card", "aria-labelledby": "find-clubs-title" },
    h("h2", { id: "find-clubs-title" }, "Clubs"),
  );
  const athletes = h(
    "section",
    { class: "card", "aria-labelledby": "find-athletes-title" },
    h("h2", { id: "find-athletes-title" }, "Athletes"),
  );
  const challenges = h(
    "section",
    { class: "card", "aria-labelledby": "find-challenges-title" },
    h("h2", { id: "find-challenges-title" }, "Challenges"),
  );
  root.replaceChildren(
    h("h1", {}, "Find clubs, athletes and challenges"),
    form,
    h("div", { class: "grid2" }, h("div", {}, clubs, challenges), athletes),
  );
  const draw = async () => {
    const text = encodeURIComponent(q.value.trim());
    const [c, a, ch] = await Promise.all([
      api(`/clubs/search?q=${text}&per_page=30`),
      api(`/athletes/search?q=${text}&per_page=30`),
      api(`/challenges/search?q=${text}&per_page=30`),
    ]);
    const badge = (on, label) => (on ? h("span", { class: "badge" }, label) : null);
    clubs.replaceChildren(
      clubs.firstChild,
      resultList("found-clubs", c, (club) =>
        h(
          "li",
          { dataset: { club: club.id } },
          h(
            "div",
            {},
            h("a", { href: `/clubs/${club.id}` }, club.name),
            h(
              "div",
              { class: "meta" },
              [
                club.sport_type,
                club.city,
                club.country,
                `${club.member_count} ${club.member_count === 1 ? "member" : "members"}`,
                club.private ? "private" : null,
              ].filter(Boolean).join(" · "),
            ),
          ),
          badge(club.joined, "Joined"),
        ), "No club matches."),
    );
    athletes.replaceChildren(
      athletes.firstChild,
      resultList("found-athletes", a, (x) =>
        h(
          "li",
          { dataset: { athlete: x.id } },
          h(
            "div",
            {},
            h("a", { href: `/athletes/${x.id}` }, `${x.firstname} ${x.lastname}`.trim()),
            x.city || x.country ? h("div", { class: "meta" }, [x.city, x.country].filter(Boolean).join(", ")) : null,
          ),
          badge(x.friend === "accepted", "Following"),
        ), "No athlete matches."),
    );
    challenges.replaceChildren(
      challenges.firstChild,
      resultList("found-challenges", ch, (x) =>
        h(
          "li",
          { dataset: { challenge: x.id } },
          h(
            "div",
            {},
            h("a", { href: `/challenges/${x.id}` }, x.name),
            h(
              "div",
              { class: "meta" },
              `${x.start_date.slice(0, 10)} – ${x.end_date.slice(0, 10)} · ${x.participant_count} taking part`,
            ),
          ),
          badge(x.joined, "Joined"),
        ), "No challenge matches."),
    );
    ready("lists", (window.appState?.lists ?? 0) + 1);
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    history.replaceState(
      null,
      "",
      `${location.pathname}${q.value.trim() ? `?q=${encodeURIComponent(q.value.trim())}` : ""}`,
    );
    draw().catch((error) => showFailure(root, error));
  });
  await draw();
}

const PAGES = { activities, routes, find };
(PAGES[config.list] ?? activities)().catch((error) => {
  showFailure(root, error);
  ready("lists", "failed");
});
