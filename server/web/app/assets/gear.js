// One bike or pair of shoes: its distance, "Replace at …" once its reminder is reached, the reminder
// distance to set, and Retire / Put back in use (GET and PUT /v3/gear/:id).
import { api, config, distanceUnit, gearBadges, h, ready, showFailure, wholeDistance } from "./app.js";

const root = document.getElementById("gear-page");
const id = config.gearId;

function stat(label, value, attrs = {}) {
  return h("div", {}, h("dt", {}, label), h("dd", attrs, value));
}

function draw(g) {
  // Each card says what its own button did, beside the button.
  const reminderStatus = h("span", { id: "reminder-status", role: "status" });
  const status = h("span", { id: "gear-status", role: "status" });
  const save = async (body, done, statusId) => {
    try {
      draw(await api(`/gear/${id}`, { method: "PUT", body }));
      const now = document.getElementById(statusId);
      now.className = "ok";
      now.textContent = done;
    } catch (error) {
      const failed = statusId === "reminder-status" ? reminderStatus : status;
      failed.className = "error";
      failed.textContent = error.message;
    }
  };
  const reminder = h("input", {
    type: "number",
    id: "reminder-distance",
    min: 1,
    max: Math.floor(100_000_000 / distanceUnit.meters),
    step: 1,
    inputmode: "numeric",
    value: g.reminder_distance ? Math.round(g.reminder_distance / distanceUnit.meters) : "",
    "aria-describedby": "reminder-hint",
  });
  const form = h(
    "form",
    { class: "stack", id: "reminder-form" },
    h("label", { for: "reminder-distance" }, `Replace at (${distanceUnit.name})`),
    reminder,
    h(
      "p",
      { class: "muted small", id: "reminder-hint" },
      "A reminder shows beside its name — here, on your activities and on your feed — once it has gone that far. Leave empty for none.",
    ),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Save reminder"), reminderStatus),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = reminder.value.trim();
    save(
      { reminder_distance: value === "" ? 0 : Math.round(Number(value) * distanceUnit.meters) },
      value === "" ? "Reminder removed." : "Reminder saved.",
      "reminder-status",
    );
  });
  const retire = h(
    "button",
    { type: "button", id: "retire", class: g.retired ? "secondary" : "danger" },
    g.retired ? "Put back in use" : "Retire",
  );
  retire.addEventListener(
    "click",
    () => save({ retired: !g.retired }, g.retired ? "Back in use." : "Retired.", "gear-status"),
  );
  const left = g.reminder_distance && !g.reminder_reached ? g.reminder_distance - g.distance : null;
  document.title = `${g.name} · Fitness Platform`;
  root.replaceChildren(
    h("p", {}, h("a", { href: "/settings" }, "← Settings")),
    h("h1", { id: "gear-name" }, g.name, ...gearBadges(g)),
    h(
      "p",
      { class: "muted" },
      [g.frame_type !== undefined ? "Bike" : "Shoes", g.brand_name, g.model_name, g.primary ? "default" : null]
        .filter(Boolean).join(" · "),
    ),
    h(
      "section",
      { class: "card", "aria-label": "Distance" },
      h(
        "dl",
        { class: "stats", id: "gear-stats" },
        stat("Distance", wholeDistance(g.distance), { id: "gear-distance" }),
        g.reminder_distance ? stat("Replace at", wholeDistance(g.reminder_distance), { id: "gear-reminder" }) : null,
        left !== null ? stat("To go", wholeDistance(left), { id: "gear-left" }) : null,
      ),
      g.retired
        ? h(
          "p",
          { class: "muted" },
          "Retired: kept with its distance, no longer offered when you choose gear for an activity.",
        )
        : null,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "reminder-title" },
      h("h2", { id: "reminder-title" }, "Reminder"),
      form,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "retire-title" },
      h("h2", { id: "retire-title" }, g.retired ? "Retired" : "Retire"),
      h("div", { class: "actions" }, retire, status),
    ),
  );
  ready("gear");
}

api(`/gear/${id}`).then(draw, (error) => showFailure(root, error));
