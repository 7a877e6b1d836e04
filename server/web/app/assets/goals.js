// The athlete's goals: each with its progress, a form to set one and a button to remove each
// (GET, POST /v3/athlete/goals, DELETE /v3/athlete/goals/:id).
import { api, h, readableName, ready, showFailure } from "./app.js";
import { goalItem, goalLabel, goalUnit } from "./goals-view.js";

const root = document.getElementById("goals");
const TYPES = ["Run", "Ride", "Swim", "Walk", "Hike", "VirtualRide", "Rowing", "NordicSki"];

function field(id, label, input) {
  return h("div", {}, h("label", { for: id }, label), input);
}

function form(onSet) {
  const status = h("span", { id: "goal-status", role: "status" });
  const dimension = h(
    "select",
    { id: "goal-dimension" },
    h("option", { value: "distance" }, "Distance"),
    h("option", { value: "time" }, "Moving time"),
    h("option", { value: "elevation" }, "Elevation gain"),
  );
  const target = h("input", { type: "number", id: "goal-target", min: 0.1, step: "any", required: true });
  const targetLabel = h("label", { for: "goal-target" });
  const unitText = () => (targetLabel.textContent = `Target (${goalUnit(dimension.value).name})`);
  dimension.addEventListener("change", unitText);
  unitText();
  const el = h(
    "form",
    { class: "stack", id: "goal-form" },
    h(
      "div",
      { class: "row" },
      field(
        "goal-type",
        "Sport",
        h("select", { id: "goal-type" }, TYPES.map((t) => h("option", { value: t }, readableName(t)))),
      ),
      field(
        "goal-period",
        "Every",
        h(
          "select",
          { id: "goal-period" },
          h("option", { value: "week" }, "Week (from Monday)"),
          h("option", { value: "month" }, "Month"),
          h("option", { value: "year" }, "Year"),
        ),
      ),
      field("goal-dimension", "Measure", dimension),
      h("div", {}, targetLabel, target),
    ),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Set goal"), status),
  );
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("/athlete/goals", {
        method: "POST",
        body: {
          type: el.querySelector("#goal-type").value,
          period: el.querySelector("#goal-period").value,
          dimension: dimension.value,
          goal: Number(target.value) * goalUnit(dimension.value).per,
        },
      });
      target.value = "";
      await onSet("Goal set.");
    } catch (error) {
      status.className = "error";
      status.textContent = error.message;
    }
  });
  return el;
}

async function draw(message) {
  const goals = await api("/athlete/goals");
  const list = goals.length
    ? h(
      "ul",
      { class: "goals", id: "goal-list" },
      goals.map((g) => {
        const remove = h("button", { type: "button", class: "link", "aria-label": `Remove ${goalLabel(g)}` }, "Remove");
        remove.addEventListener("click", async () => {
          remove.disabled = true;
          try {
            await api(`/athlete/goals/${g.id}`, { method: "DELETE" });
            await draw("Goal removed.");
          } catch (error) {
            remove.disabled = false;
            remove.after(h("p", { class: "error", role: "alert" }, error.message));
          }
        });
        return goalItem(g, remove);
      }),
    )
    : h("p", { class: "muted", id: "goal-list" }, "No goals yet: set one below.");
  root.replaceChildren(
    h("h1", {}, "Goals"),
    h(
      "p",
      { class: "muted" },
      "Weekly (from Monday), monthly and yearly targets for a sport; your activities of that sport add up as you record them.",
    ),
    h("section", { class: "card", "aria-label": "Your goals" }, list),
    h(
      "section",
      { class: "card", "aria-labelledby": "new-goal-title" },
      h("h2", { id: "new-goal-title" }, "Set a goal"),
      form(draw),
    ),
  );
  if (message) {
    const status = document.getElementById("goal-status");
    status.className = "ok";
    status.textContent = message;
  }
  ready("goals", (window.appState?.goals ?? 0) + 1);
}

draw().catch((error) => showFailure(root, error));
