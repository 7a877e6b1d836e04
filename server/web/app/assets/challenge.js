// A challenge: details, progress, leaderboard, join / leave.
import { api, config, h, km, membershipButton, meters, readableName, ready, showFailure } from "./app.js";

const id = config.challengeId;
const root = document.getElementById("challenge");

function amount(value, dimension) {
  if (value === null || value === undefined) return "—";
  if (/distance/.test(dimension ?? "")) return km(value);
  if (/time/.test(dimension ?? "")) return `${(value / 3600).toFixed(1)} h`;
  if (/elevation/.test(dimension ?? "")) return meters(value);
  return String(value);
}

async function render() {
  const c = await api(`/challenges/${id}`);
  const board = await api(`/challenges/${id}/leaderboard?per_page=20`).catch(() => null);
  const entries = Array.isArray(board) ? board : board?.entries ?? [];
  document.title = `${c.name} · Fitness Platform`;
  const button = h(
    "button",
    { type: "button", id: c.joined ? "leave" : "join", class: c.joined ? "secondary" : "" },
    c.joined ? "Leave challenge" : "Join challenge",
  );
  membershipButton(button, () => api(`/challenges/${id}/athletes`, { method: c.joined ? "DELETE" : "POST" }), render);
  root.replaceChildren(
    h(
      "div",
      { class: "activity-head" },
      h(
        "div",
        {},
        h("h1", { id: "title" }, c.name),
        h(
          "p",
          { class: "muted" },
          [
            c.type && readableName(c.type),
            c.start_date?.slice(0, 10) && `${c.start_date.slice(0, 10)} – ${(c.end_date ?? "").slice(0, 10)}`,
          ].filter(Boolean).join(" · "),
        ),
        c.description ? h("p", {}, c.description) : null,
      ),
      h(
        "div",
        { class: "actions" },
        button,
        h("span", { id: "joined", role: "status" }, c.joined ? "You joined." : ""),
      ),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "board-title" },
      h("h2", { id: "board-title" }, "Leaderboard"),
      entries.length
        ? h(
          "table",
          { id: "challenge-board" },
          h("thead", {}, h("tr", {}, ["Rank", "Athlete", "Progress"].map((t) => h("th", { scope: "col" }, t)))),
          h(
            "tbody",
            {},
            entries.map((e, i) =>
              h(
                "tr",
                {},
                h("td", {}, String(e.rank ?? i + 1)),
                h(
                  "td",
                  {},
                  e.athlete_id && e.athlete_name
                    ? h("a", { href: `/athletes/${e.athlete_id}` }, e.athlete_name)
                    : e.athlete_name ?? "",
                ),
                h("td", {}, amount(e.total_dimension, c.dimension)),
              )
            ),
          ),
        )
        : h("p", { class: "muted", id: "challenge-board" }, "Nobody has progress yet."),
    ),
  );
  ready("challenge", (window.appState?.challenge ?? 0) + 1);
}

render().catch((error) => showFailure(root, error));
