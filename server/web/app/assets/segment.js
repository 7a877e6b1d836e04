// A segment: map, elevation profile, leaderboard with the spec's filters and the viewer's context, the viewer's efforts, star.
import { api, config, dateText, decodePolyline, duration, h, km, meters, ready, showFailure } from "./app.js";
import { elevationProfile } from "./elevation.js";
import { baseMap } from "./map.js";
import { compareCard } from "./segment-compare.js";

const id = config.segmentId;
const root = document.getElementById("segment");
/** The Compare card (segment-compare.js), once drawn. */
let compare = null;

function filtersForm(onChange, clubs) {
  const select = (name, label, options) =>
    h(
      "div",
      {},
      h("label", { for: `f-${name}` }, label),
      h(
        "select",
        { id: `f-${name}`, name },
        h("option", { value: "" }, "All"),
        options.map(([v, t]) => h("option", { value: v }, t)),
      ),
    );
  const form = h(
    "form",
    { class: "stack", id: "filters", "aria-label": "Leaderboard filters" },
    h(
      "div",
      { class: "row" },
      select("gender", "Gender", [["F", "Women"], ["M", "Men"]]),
      select(
        "age_group",
        "Age group (premium)",
        config.ageGroups.map((g) => [g, g.replace("_plus", "+").replace("_", "–")]),
      ),
      select(
        "weight_class",
        "Weight class (premium)",
        config.weightClassesKg.map((g) => [g, `${g.replace("_plus", "+").replace("_", "–")} kg`]),
      ),
      select("date_range", "When", [["this_year", "This year"], ["this_month", "This month"], [
        "this_week",
        "This week",
      ], ["today", "Today"]]),
      select("club_id", "Club", clubs.map((c) => [String(c.id), c.name])),
      h(
        "div",
        {},
        h(
          "label",
          { class: "check", style: "margin-top:1.9rem" },
          h("input", { type: "checkbox", id: "f-following", name: "following" }),
          "Only people I follow",
        ),
      ),
    ),
  );
  form.addEventListener("change", onChange);
  form.addEventListener("submit", (e) => e.preventDefault());
  return form;
}

async function board(form) {
  const box = document.getElementById("leaderboard");
  const q = new URLSearchParams({ per_page: "10", context_entries: "2" });
  for (const el of form.elements) {
    if (el.name === "following") {
      if (el.checked) q.set("following", "true");
    } else if (el.name && el.value) q.set(el.name, el.value);
  }
  box.setAttribute("aria-busy", "true");
  try {
    const b = await api(`/segments/${id}/leaderboard?${q}`);
    const shift = Math.min(...b.entries.map((e) => e.rank)) === 0 ? 1 : 0;
    box.replaceChildren(
      h("p", { class: "muted", id: "entry-count" }, `${b.entry_count} ${b.entry_count === 1 ? "athlete" : "athletes"}`),
      b.entries.length
        ? h(
          "div",
          { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Leaderboard entries" },
          h(
            "table",
            {},
            h(
              "thead",
              {},
              h("tr", {}, ["Rank", "Athlete", "Date", "Time", ""].map((c) => h("th", { scope: "col" }, c))),
            ),
            h(
              "tbody",
              {},
              b.entries.map((e) =>
                h(
                  "tr",
                  { class: e.athlete_id === config.athlete.id ? "me" : "", dataset: { athlete: e.athlete_id } },
                  h("td", {}, String(e.rank + shift)),
                  h("td", {}, h("a", { href: `/athletes/${e.athlete_id}` }, e.athlete_name)),
                  h(
                    "td",
                    {},
                    h(
                      "a",
                      { href: `/activities/${e.activity_id}` },
                      dateText(e.start_date_local).replace(/, \d\d:\d\d$/, ""),
                    ),
                  ),
                  h("td", {}, duration(e.elapsed_time)),
                  h(
                    "td",
                    {},
                    e.athlete_id !== config.athlete.id && compare?.mine
                      ? h("button", {
                        type: "button",
                        class: "secondary small",
                        "aria-label": `Compare with ${e.athlete_name}'s effort`,
                        onclick: () => compare.compareWith(e.effort_id, e.athlete_name),
                      }, "Compare")
                      : "",
                  ),
                )
              ),
            ),
          ),
        )
        : h("p", {}, "No efforts match these filters yet."),
    );
    compare?.setBoard(b.entries);
  } catch (error) {
    showFailure(box, error);
  } finally {
    box.removeAttribute("aria-busy");
    ready("leaderboard", (window.appState?.leaderboard ?? 0) + 1);
  }
}

async function main() {
  const [seg, streams, efforts, clubs] = await Promise.all([
    api(`/segments/${id}`),
    api(`/segments/${id}/streams?keys=latlng,distance,altitude&key_by_type=true`).catch(() => ({})),
    api(`/segments/${id}/all_efforts?athlete_id=${config.athlete.id}&per_page=50`).catch(() => []),
    api("/athlete/clubs").catch(() => []),
  ]);
  document.title = `${seg.name} · Fitness Platform`;
  const star = h(
    "button",
    { type: "button", id: "star", class: "secondary", "aria-pressed": String(!!seg.starred) },
    seg.starred ? "★ Starred" : "☆ Star",
  );
  star.addEventListener("click", async () => {
    star.disabled = true;
    try {
      const now = await api(`/segments/${id}/starred`, {
        method: "PUT",
        body: { starred: star.getAttribute("aria-pressed") !== "true" },
      });
      star.setAttribute("aria-pressed", String(!!now.starred));
      star.textContent = now.starred ? "★ Starred" : "☆ Star";
    } catch (error) {
      star.after(h("p", { class: "error", role: "alert" }, error.message));
    } finally {
      star.disabled = false;
    }
  });
  const form = filtersForm(() => board(form), clubs);
  const s = {};
  for (const [k, v] of Object.entries(streams ?? {})) s[k] = v.data;
  root.replaceChildren(
    h(
      "div",
      { class: "activity-head" },
      h(
        "div",
        {},
        h("h1", { id: "title" }, seg.name),
        h("p", { class: "muted" }, [seg.activity_type, seg.city, seg.country].filter(Boolean).join(" · ")),
      ),
      h("div", { class: "actions" }, star),
    ),
    h(
      "section",
      { class: "card", "aria-label": "Summary" },
      h(
        "dl",
        { class: "stats" },
        ...[
          ["Distance", km(seg.distance)],
          ["Average grade", `${(seg.average_grade ?? 0).toFixed(1)} %`],
          ["Max grade", `${(seg.maximum_grade ?? 0).toFixed(1)} %`],
          ["Elevation", `${meters(seg.elevation_low)} – ${meters(seg.elevation_high)}`],
          ["Climb category", seg.climb_category ? String(seg.climb_category) : "—"],
          ["Attempts", String(seg.effort_count ?? "—")],
        ].map(([t, v]) => h("div", {}, h("dt", {}, t), h("dd", {}, v))),
      ),
    ),
    h("div", { id: "map", role: "region", "aria-label": "Map of the segment" }),
    h(
      "section",
      { "aria-label": "Elevation profile" },
      h("h2", { style: "margin-top:1rem" }, "Elevation profile"),
      h("div", { id: "profile" }),
    ),
    h(
      "div",
      { class: "grid2" },
      h(
        "section",
        { class: "card", "aria-labelledby": "lb-title" },
        h("h2", { id: "lb-title" }, "Leaderboard"),
        form,
        h("div", { id: "leaderboard", "aria-live": "polite" }),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "mine-title" },
        h("h2", { id: "mine-title" }, "Your efforts"),
        efforts.length
          ? h(
            "table",
            { id: "my-efforts" },
            h("thead", {}, h("tr", {}, ["Date", "Time", ""].map((c) => h("th", { scope: "col" }, c)))),
            h(
              "tbody",
              {},
              efforts.map((e) =>
                h(
                  "tr",
                  {},
                  h(
                    "td",
                    {},
                    h(
                      "a",
                      { href: `/activities/${e.activity?.id}` },
                      dateText(e.start_date_local).replace(/, \d\d:\d\d$/, ""),
                    ),
                  ),
                  h("td", {}, duration(e.elapsed_time)),
                  h(
                    "td",
                    {},
                    e.pr_rank ? h("span", { class: "badge" }, e.pr_rank === 1 ? "PR" : `PR #${e.pr_rank}`) : "",
                  ),
                )
              ),
            ),
          )
          : h("p", { class: "muted", id: "my-efforts" }, "You have no effort on this segment yet."),
      ),
    ),
  );
  compare = { ...compareCard(id, efforts), mine: efforts.length > 0 };
  root.append(compare.section);
  const latlng = s.latlng ?? (seg.map?.polyline ? decodePolyline(seg.map.polyline) : []);
  if (latlng.length) {
    const map = baseMap(document.getElementById("map"));
    const line = window.L.polyline(latlng, { color: "#b83a07", weight: 5 }).addTo(map);
    map.fitBounds(line.getBounds(), { padding: [20, 20] });
    new ResizeObserver(() => {
      map.invalidateSize();
      map.fitBounds(line.getBounds(), { padding: [20, 20] });
    }).observe(document.getElementById("map"));
  }
  elevationProfile(
    document.getElementById("profile"),
    s.distance,
    s.altitude,
    "No elevation known for this segment yet.",
  );
  await board(form);
  ready("segment");
}

main().catch((error) => showFailure(root, error));
