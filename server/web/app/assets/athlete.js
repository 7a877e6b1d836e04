// An athlete's profile: picture, name, location, follow / unfollow, totals, recent activities.
import {
  activityEntry,
  api,
  avatarSrc,
  config,
  distanceText,
  fullName,
  h,
  infiniteList,
  km,
  ready,
  showFailure,
} from "./app.js";
import { goalsCard } from "./goals-view.js";
import { GROUPS, hours, sportGroup } from "./training-common.js";

const id = config.athleteId;
const self = id === config.athlete?.id;
const root = document.getElementById("athlete");
const PER_PAGE = 10;

function followButton(profile) {
  const following = profile.friend === "accepted";
  const button = h("button", {
    type: "button",
    id: following ? "unfollow" : "follow",
    class: following ? "secondary" : "",
    "aria-pressed": String(following),
  }, following ? "Following" : "Follow");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const updated = await api(`/athletes/${id}/follow`, { method: following ? "DELETE" : "PUT" });
      const counts = profileOf(await api(`/athletes/${id}/profile`));
      head(counts ?? updated);
      document.querySelector("#follow, #unfollow")?.focus();
    } catch (error) {
      button.disabled = false;
      button.after(h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  return button;
}

/** The profile extension answers {athlete, follower_count, friend_count}: the athlete's summary beside their counts. */
function profileOf(answer) {
  return answer && { ...answer.athlete, follower_count: answer.follower_count, friend_count: answer.friend_count };
}

function head(profile) {
  const place = [profile.city, profile.state, profile.country].filter(Boolean).join(", ");
  const box = document.getElementById("profile-head");
  box.replaceChildren(
    h("img", {
      class: "avatar large",
      src: avatarSrc(profile.profile) ?? "",
      alt: `Picture of ${fullName(profile)}`,
      width: 124,
      height: 124,
    }),
    h(
      "div",
      { class: "who-block" },
      h("h1", { id: "title" }, fullName(profile)),
      place ? h("p", { class: "muted", id: "place" }, place) : null,
      h(
        "p",
        { class: "muted", id: "follow-counts" },
        `${profile.follower_count} ${
          profile.follower_count === 1 ? "follower" : "followers"
        } · following ${profile.friend_count}`,
        profile.follower === "accepted" && !self ? " · follows you" : "",
      ),
      h(
        "div",
        { class: "actions" },
        self
          ? h("a", { class: "button secondary", href: "/settings" }, "Edit profile and picture")
          : followButton(profile),
        h(
          "span",
          { id: "follow-status", role: "status" },
          !self && profile.friend === "accepted" ? `You follow ${profile.firstname}.` : "",
        ),
      ),
      h(
        "p",
        { class: "training-links" },
        h("a", { href: `/athletes/${id}/calendar` }, "Training calendar"),
        " · ",
        h("a", { href: `/athletes/${id}/year` }, "Year"),
        " · ",
        h("a", { href: `/athletes/${id}/records` }, "Personal records"),
        self ? [" · ", h("a", { href: `/athletes/${id}/fitness` }, "Fitness and freshness")] : null,
      ),
    ),
  );
  ready("profile", (window.appState?.profile ?? 0) + 1);
}

/** A local calendar day as YYYY-MM-DD. */
const dayText = (d) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

/** Totals by sport group of volume buckets: {group: {count, distance, time}}. */
function byGroup(buckets) {
  const t = {};
  for (const b of buckets) {
    const g = sportGroup(b.sport_type);
    t[g] ??= { count: 0, distance: 0, time: 0 };
    t[g].count += b.count;
    t[g].distance += b.distance;
    t[g].time += b.moving_time;
  }
  return t;
}

/**
 * Totals by period (last 4 weeks, this year, all time), one row per sport group that has any,
 * from the training-volume read model (GET /v3/athletes/:id/volume): the activities the viewer may
 * see — one's own private ones included on one's own profile, and labelled so.
 */
async function totalsSection() {
  const today = new Date();
  const first = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 27);
  const year = today.getFullYear();
  const [recent, years] = await Promise.all([
    api(`/athletes/${id}/volume?period=day&from=${dayText(first)}&to=${dayText(today)}`),
    api(`/athletes/${id}/volume?period=year&from=1900-01-01&to=2200-12-31`),
  ]);
  const periods = [
    ["Last 4 weeks", byGroup(recent.buckets)],
    [String(year), byGroup(years.buckets.filter((b) => b.start.startsWith(`${year}-`)))],
    ["All time", byGroup(years.buckets)],
  ];
  const groups = GROUPS.filter(([g]) => periods[2][1][g]);
  const table = groups.length
    ? h(
      "table",
      { id: "profile-totals", class: "totals" },
      h("thead", {}, h("tr", {}, h("td", {}), ["Acts", "Distance", "Time"].map((c) => h("th", { scope: "col" }, c)))),
      periods.map(([label, t]) => {
        const rows = groups.filter(([g]) => t[g]);
        return h(
          "tbody",
          {},
          h("tr", { class: "period" }, h("th", { scope: "rowgroup", colspan: 4 }, label)),
          rows.length
            ? rows.map(([g, name]) =>
              h(
                "tr",
                { dataset: { sport: g } },
                h("th", { scope: "row" }, name),
                h("td", {}, String(t[g].count)),
                h(
                  "td",
                  {},
                  !t[g].distance ? "—" : g === "swim" ? distanceText(t[g].distance, "Swim") : km(t[g].distance),
                ),
                h("td", {}, hours(t[g].time)),
              )
            )
            : h("tr", {}, h("td", { colspan: 4, class: "muted" }, "None")),
        );
      }),
    )
    : h(
      "p",
      { class: "muted", id: "profile-totals" },
      self ? "No totals yet." : "No activities you may see yet.",
    );
  return [
    table,
    h(
      "p",
      { class: "muted small", id: "profile-totals-note" },
      years.includes_private
        ? "Your private activities included: only you see these totals."
        : self
        ? "Counting the activities everyone may see."
        : "Counting the activities you may see.",
    ),
  ];
}

async function main() {
  const [answer, totals] = await Promise.all([api(`/athletes/${id}/profile`), totalsSection()]);
  const profile = profileOf(answer);
  document.title = `${fullName(profile)} · Fitness Platform`;
  root.replaceChildren(
    h("div", { id: "profile-head", class: "profile-head" }),
    h(
      "div",
      { class: "columns" },
      h(
        "section",
        { "aria-labelledby": "recent-title" },
        h("h2", { id: "recent-title" }, "Recent activities"),
        h("ol", { id: "athlete-activities", class: "feed-list", "aria-live": "polite" }),
        h("p", { id: "athlete-status", class: "muted", role: "status" }),
        h("p", {}, h("button", { id: "athlete-more", class: "secondary", type: "button", hidden: true }, "Load more")),
      ),
      h(
        "aside",
        {},
        h(
          "section",
          { class: "card", "aria-labelledby": "profile-totals-title" },
          h("h2", { id: "profile-totals-title" }, "Totals"),
          totals,
        ),
        // Goals are the athlete's own: on their own profile only.
        self ? h("section", { class: "card", id: "profile-goals", "aria-labelledby": "goals-title" }) : null,
      ),
    ),
  );
  head(profile);
  if (self) {
    goalsCard(document.getElementById("profile-goals"), api).then(
      () => ready("goals"),
      (error) => showFailure(document.getElementById("profile-goals"), error),
    );
  }
  infiniteList({
    list: document.getElementById("athlete-activities"),
    status: document.getElementById("athlete-status"),
    more: document.getElementById("athlete-more"),
    perPage: PER_PAGE,
    fetchPage: (page) => api(`/athletes/${id}/activities?page=${page}&per_page=${PER_PAGE}`),
    render: (a) => activityEntry(a, { showAthlete: false }),
    endText: "That's all.",
    emptyText: self ? "No activities yet." : "No activities to show.",
    readyKey: "athleteActivities",
  });
}

main().catch((error) => showFailure(root, error));
