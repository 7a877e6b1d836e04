// The athlete's lists (server/web/app/lists.ts): their activities (search by name, filter by sport
// and dates), their routes, and Find: clubs, athletes and challenges they are not in yet.
import { activityEntry, api, config, h, km, meters, readableName, ready, routeThumb, showFailure } from "./app.js";

const root = document.getElementById("lists");
const field = (label, input) => h("div", {}, h("label", { for: input.id }, label), input);

// ------------------------------------------------------------------ my activities

/** Activities per page: the page holds one page at a time, however long the history. */
const PER_PAGE = 30;
/** The filters kept in the address, by the API's parameter each maps to. */
const FILTERS = [
  ["q", "q"],
  ["sport", "sport_type"],
  ["from", "from"],
  ["to", "to"],
  ["gear", "gear_id"],
  ["commute", "commute"],
  ["trainer", "trainer"],
];

const choice = (id, name, label, value) =>
  h(
    "select",
    { id, name },
    h("option", { value: "" }, label),
    h("option", { value: "true", selected: value === "true" }, "Yes"),
    h("option", { value: "false", selected: value === "false" }, "No"),
  );

async function activities() {
  const params = new URLSearchParams(location.search);
  const me = config.athlete.id;
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
  const gear = h("select", { id: "filter-gear", name: "gear" }, h("option", { value: "" }, "Any gear"));
  const commute = choice("filter-commute", "commute", "Commute or not", params.get("commute"));
  const trainer = choice("filter-trainer", "trainer", "Indoor or not", params.get("trainer"));
  const form = h(
    "form",
    { class: "filters card", id: "activity-filters", role: "search" },
    field("Name", name),
    field("Sport", sport),
    field("From", from),
    field("To", to),
    field("Gear", gear),
    field("Commute", commute),
    field("Indoor", trainer),
    h("div", {}, h("button", { type: "submit" }, "Search")),
  );
  const status = h("p", { class: "muted", role: "status", id: "activities-status" }, "Loading…");
  const list = h("ol", { class: "feed-list", id: "activity-list" });
  const newer = h("button", { type: "button", class: "secondary", id: "newer-page", hidden: true }, "← Newer");
  const older = h("button", { type: "button", class: "secondary", id: "older-page", hidden: true }, "Older →");
  const pager = h("nav", { class: "pager", "aria-label": "Pages of activities" }, newer, older);
  root.replaceChildren(h("h1", {}, "Your activities"), form, status, list, pager);
  // The gear to filter by (the athlete's bikes and shoes), without holding up the list.
  api("/athlete").then((athlete) => {
    const want = new URLSearchParams(location.search).get("gear");
    for (const g of [...(athlete.bikes ?? []), ...(athlete.shoes ?? [])]) {
      gear.append(h("option", { value: g.id, selected: want === g.id }, g.name));
    }
  }).catch(() => {});

  /** The address's filters and page as the API's query. */
  const query = () => {
    const here = new URLSearchParams(location.search);
    const q = new URLSearchParams({ per_page: String(PER_PAGE) });
    for (const [key, apiKey] of FILTERS) if (here.get(key)) q.set(apiKey, here.get(key));
    for (const key of ["before", "after"]) if (here.get(key)) q.set(key, here.get(key));
    return q;
  };
  const go = (changes, push) => {
    const q = new URLSearchParams(location.search);
    for (const [key, value] of Object.entries(changes)) value ? q.set(key, value) : q.delete(key);
    history[push ? "pushState" : "replaceState"](null, "", `${location.pathname}${q.size ? `?${q}` : ""}`);
    return draw();
  };
  const number = (n) => n.toLocaleString("en");
  let drawing = 0;
  async function draw() {
    const mine = ++drawing;
    status.textContent = "Loading…";
    const page = await api(`/athletes/${me}/activities/search?${query()}`);
    if (mine !== drawing) return; // a later search took over
    list.replaceChildren(...page.activities.map((a) => activityEntry(a, { showAthlete: false })));
    const word = (n) => (n === 1 ? "activity" : "activities");
    status.textContent = page.count === 0
      ? page.total ? "No activity matches." : "No activities yet: upload one."
      : page.count < page.total
      ? `${number(page.count)} of ${number(page.total)} ${word(page.total)} match`
      : `${number(page.total)} ${word(page.total)}`;
    newer.hidden = !page.newer;
    older.hidden = !page.older;
    newer.onclick = () => go({ after: page.newer, before: null }, true).then(() => list.scrollIntoView?.());
    older.onclick = () => go({ before: page.older, after: null }, true).then(() => list.scrollIntoView?.());
    ready("lists", (window.appState?.lists ?? 0) + 1);
  }
  const failed = (error) => status.replaceChildren(h("span", { class: "error", role: "alert" }, error.message));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const values = {
      q: name.value.trim(),
      sport: sport.value,
      from: from.value,
      to: to.value,
      gear: gear.value,
      commute: commute.value,
      trainer: trainer.value,
    };
    // A new search starts at the newest match.
    go({ ...values, before: null, after: null }, false).catch(failed);
  });
  addEventListener("popstate", () => draw().catch(failed));
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
