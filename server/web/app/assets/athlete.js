// An athlete's profile: picture, name, location, follow / unfollow, totals, recent activities.
import {
  activityEntry,
  api,
  avatarSrc,
  config,
  distanceText,
  duration,
  fullName,
  h,
  infiniteList,
  km,
  ready,
  showFailure,
} from "./app.js";
import { goalsCard } from "./goals-view.js";

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
        h("a", { href: `/athletes/${id}/records` }, "Personal records"),
        self ? [" · ", h("a", { href: `/athletes/${id}/fitness` }, "Fitness and freshness")] : null,
      ),
    ),
  );
  ready("profile", (window.appState?.profile ?? 0) + 1);
}

/** Totals by period (last 4 weeks, this year, all time), one row per sport that has any. */
function totalsTable(stats) {
  const groups = [["Rides", "ride"], ["Runs", "run"], ["Swims", "swim"]];
  const periods = [["Last 4 weeks", "recent"], [String(new Date().getUTCFullYear()), "ytd"], ["All time", "all"]];
  if (!groups.some(([, g]) => stats[`all_${g}_totals`].count > 0)) {
    return h(
      "p",
      { class: "muted", id: "profile-totals" },
      self ? "No totals yet." : "No activities that everyone may see yet.",
    );
  }
  return h(
    "table",
    { id: "profile-totals", class: "totals" },
    h("thead", {}, h("tr", {}, h("td", {}), ["Acts", "Distance", "Time"].map((c) => h("th", { scope: "col" }, c)))),
    periods.map(([label, p]) => {
      const rows = groups.filter(([, g]) => stats[`${p}_${g}_totals`].count > 0);
      return h(
        "tbody",
        {},
        h("tr", { class: "period" }, h("th", { scope: "rowgroup", colspan: 4 }, label)),
        rows.length
          ? rows.map(([name, g]) => {
            const t = stats[`${p}_${g}_totals`];
            return h(
              "tr",
              {},
              h("th", { scope: "row" }, name),
              h("td", {}, String(t.count)),
              h("td", {}, g === "swim" ? distanceText(t.distance, "Swim") : km(t.distance)),
              h("td", {}, duration(t.moving_time)),
            );
          })
          : h("tr", {}, h("td", { colspan: 4, class: "muted" }, "None")),
      );
    }),
  );
}

async function main() {
  const [answer, stats] = await Promise.all([
    api(`/athletes/${id}/profile`),
    // Own stats from Strava's endpoint; another athlete's from the totals extension (their Everyone activities).
    api(self ? `/athletes/${id}/stats` : `/athletes/${id}/totals`),
  ]);
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
          totalsTable(stats),
          self ? null : h("p", { class: "muted small" }, "Counting the activities you may see."),
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
