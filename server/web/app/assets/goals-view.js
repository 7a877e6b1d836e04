// Goals as the feed, the profile and the goals page show them: "Run · this week" and "12.3 / 20 km"
// with a progress bar (GET /v3/athlete/goals: progress and goal in metres, seconds or metres).
import { distanceUnit, h, imperial, readableName } from "./app.js";

const PERIOD_WORDS = { week: "this week", month: "this month", year: "this year" };
const DIMENSION_WORDS = { distance: "distance", time: "moving time", elevation: "elevation" };

/** A number with at most one decimal, trailing ".0" dropped: 20, 12.3, 1,250. */
const short = (x, decimals = 1) =>
  Number(x.toFixed(decimals)).toLocaleString("en", { maximumFractionDigits: decimals });

/** The goal's unit: km (mi), h, m (ft); and how many of the API's units make one. */
export function goalUnit(dimension) {
  if (dimension === "distance") return { name: distanceUnit.name, per: distanceUnit.meters, decimals: 1 };
  if (dimension === "time") return { name: "h", per: 3600, decimals: 1 };
  return imperial ? { name: "ft", per: 0.3048, decimals: 0 } : { name: "m", per: 1, decimals: 0 };
}

/** "12.3 / 20 km": the progress and the goal in the goal's unit. */
export function goalText(goal) {
  const unit = goalUnit(goal.dimension);
  return `${short(goal.progress / unit.per, unit.decimals)} / ${
    short(goal.goal / unit.per, unit.decimals)
  } ${unit.name}`;
}

/** What a goal measures, in words: "Run · distance this week". */
export function goalLabel(goal) {
  return `${readableName(goal.type)} · ${DIMENSION_WORDS[goal.dimension]} ${PERIOD_WORDS[goal.period]}`;
}

/** One goal as a list item: its label, "12.3 / 20 km" and a progress bar (`extra`: e.g. a delete button). */
export function goalItem(goal, extra = null) {
  const label = goalLabel(goal);
  return h(
    "li",
    { class: `goal${goal.completed ? " done" : ""}`, dataset: { goal: goal.id } },
    h(
      "div",
      { class: "goal-head" },
      h("span", { class: "goal-label" }, label),
      h(
        "strong",
        { class: "goal-value" },
        goalText(goal),
        goal.completed ? h("span", { class: "badge" }, "Done") : null,
      ),
    ),
    h("progress", {
      max: goal.goal,
      value: Math.min(goal.progress, goal.goal),
      "aria-label": `${label}: ${goalText(goal)}`,
    }),
    extra,
  );
}

/** The "Goals" card of the feed and the profile: each goal's progress, and a link to set them. */
export async function goalsCard(box, api) {
  const goals = await api("/athlete/goals");
  box.replaceChildren(
    h("h2", { id: "goals-title" }, "Goals"),
    goals.length
      ? h("ul", { class: "goals", id: "goal-list" }, goals.map((g) => goalItem(g)))
      : h("p", { class: "muted" }, "No goals yet."),
    h("p", {}, h("a", { href: "/goals", id: "goals-link" }, goals.length ? "Change your goals" : "Set a goal")),
  );
  return goals;
}
