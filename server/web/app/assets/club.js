// A club: details, members, recent activities, join / leave.
import { api, config, duration, h, km, membershipButton, readableName, ready, showFailure } from "./app.js";

const id = config.clubId;
const root = document.getElementById("club");

async function render() {
  const club = await api(`/clubs/${id}`);
  // Members and activities are for members (and anyone, for a public club's member list).
  const [members, feed] = await Promise.all([
    api(`/clubs/${id}/members?per_page=50`).catch(() => []),
    club.membership === "member" ? api(`/clubs/${id}/activities?per_page=20`).catch(() => []) : Promise.resolve([]),
  ]);
  document.title = `${club.name} · Fitness Platform`;
  const member = club.membership === "member";
  const pending = club.membership === "pending";
  const button = h("button", {
    type: "button",
    id: member || pending ? "leave" : "join",
    class: member ? "secondary" : "",
  }, member ? "Leave club" : pending ? "Withdraw request" : "Join club");
  membershipButton(
    button,
    () => api(`/clubs/${id}/${member || pending ? "leave" : "join"}`, { method: "POST" }),
    render,
  );
  root.replaceChildren(
    h(
      "div",
      { class: "activity-head" },
      h(
        "div",
        {},
        h("h1", { id: "title" }, club.name),
        h(
          "p",
          { class: "muted" },
          [club.sport_type, club.city, club.country, club.private ? "Private club" : "Public club"].filter(Boolean)
            .join(" · "),
        ),
        club.description ? h("p", {}, club.description) : null,
      ),
      h(
        "div",
        { class: "actions" },
        button,
        h(
          "span",
          { id: "membership", role: "status" },
          member ? "You are a member." : pending ? "Your request is pending." : "",
        ),
      ),
    ),
    h(
      "div",
      { class: "grid2" },
      h(
        "section",
        { class: "card", "aria-labelledby": "members-title" },
        h("h2", { id: "members-title" }, `Members (${club.member_count ?? members.length})`),
        h(
          "ul",
          { id: "members", class: "feed-list" },
          members.map((m) =>
            h(
              "li",
              { class: "comment" },
              m.id
                ? h("a", { href: `/athletes/${m.id}` }, `${m.firstname} ${m.lastname ?? ""}`.trim())
                : `${m.firstname} ${m.lastname ?? ""}`.trim(),
              m.admin ? h("span", { class: "badge" }, m.owner ? "Owner" : "Admin") : null,
            )
          ),
        ),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "club-feed-title" },
        h("h2", { id: "club-feed-title" }, "Recent activities"),
        feed.length
          ? h(
            "ul",
            { id: "club-feed", class: "feed-list" },
            feed.map((a) =>
              h(
                "li",
                { class: "comment" },
                h(
                  "span",
                  { class: "who" },
                  a.athlete?.id
                    ? h(
                      "a",
                      { href: `/athletes/${a.athlete.id}` },
                      `${a.athlete?.firstname ?? ""} ${a.athlete?.lastname ?? ""}`.trim(),
                    )
                    : `${a.athlete?.firstname ?? ""} ${a.athlete?.lastname ?? ""}`.trim(),
                ),
                " ",
                a.id ? h("a", { href: `/activities/${a.id}` }, a.name) : a.name,
                h(
                  "p",
                  { class: "muted", style: "margin:0" },
                  [
                    readableName(a.sport_type ?? a.type ?? ""),
                    a.distance ? km(a.distance) : null,
                    duration(a.moving_time),
                  ]
                    .filter(Boolean).join(" · "),
                ),
              )
            ),
          )
          : h(
            "p",
            { class: "muted", id: "club-feed" },
            member ? "No activities yet." : "Members see the club's activities.",
          ),
      ),
    ),
  );
  ready("club", (window.appState?.club ?? 0) + 1);
}

render().catch((error) => showFailure(root, error));
