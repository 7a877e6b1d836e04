// The activity page's Crop and Split card (the owner's uploaded activities): keep a part of the
// recording (POST /v3/activities/:id/crop), cut it in two (POST …/split), undo the latest of them
// (DELETE …/edits/:edit). Times are h:mm:ss from the activity's start, as its charts count them.
import { api, config, dateText, duration, h, km, localDateText, ready } from "./app.js";

const id = config.activityId;
/** Another athlete's page starts from an embedded summary (activity.js): no card there. */
const mine = !config.summary;

function drawnPage() {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const look = () => {
      const root = document.getElementById("activity");
      if (globalThis.appState?.activityDrawn && root) return resolve(root);
      if (root?.dataset.state === "failed") return reject(new Error("page failed"));
      if (Date.now() - started > 60_000) return reject(new Error("page not drawn"));
      setTimeout(look, 30);
    };
    look();
  });
}

/** "1:02:03" or "2:03" (or a bare number of seconds) → seconds; NaN when it is neither. */
export function secondsOf(text) {
  const t = String(text).trim();
  if (/^\d+$/.test(t)) return Number(t);
  const m = /^(?:(\d+):)?([0-5]?\d):([0-5]\d)$/.exec(t);
  return m ? Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) : NaN;
}

/** h:mm:ss always (a field's value reads the same whatever its size). */
const clock = (s) => {
  s = Math.round(s);
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}:${
    String(s % 60).padStart(2, "0")
  }`;
};

/** A time field with its slider, kept in step; onChange(seconds) after either moves. */
function timeField(key, label, value, max, onChange) {
  const text = h("input", {
    type: "text",
    id: `${key}`,
    name: key,
    inputmode: "numeric",
    autocomplete: "off",
    value: clock(value),
    "aria-describedby": `${key}-hint`,
    size: 8,
  });
  const range = h("input", {
    type: "range",
    id: `${key}-range`,
    min: 0,
    max,
    step: 1,
    value,
    "aria-label": `${label} (slider)`,
  });
  range.addEventListener("input", () => {
    text.value = clock(Number(range.value));
    onChange();
  });
  text.addEventListener("input", () => {
    const s = secondsOf(text.value);
    if (Number.isFinite(s) && s <= max) range.value = String(s);
    onChange();
  });
  return {
    el: h(
      "div",
      { class: "time-field" },
      h("label", { for: key }, label),
      h("div", { class: "time-inputs" }, range, text),
    ),
    seconds: () => secondsOf(text.value),
  };
}

/** The distance the activity had covered `s` seconds after its start (its streams), for the summaries. */
function distanceAt(streams, s) {
  const time = streams.time?.data ?? [], distance = streams.distance?.data ?? [];
  if (!time.length || !distance.length) return null;
  let lo = 0, hi = time.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (time[mid] < s) lo = mid + 1;
    else hi = mid;
  }
  return distance[lo];
}

const failure = (error) => h("p", { class: "error", role: "alert" }, error?.message ?? String(error));

async function run(button, status, label, action) {
  button.disabled = true;
  status.replaceChildren(`${label}… the activity is worked out again from its file.`);
  try {
    await action();
    location.reload();
  } catch (error) {
    button.disabled = false;
    status.replaceChildren(failure(error));
  }
}

function cropForm(a, streams, status) {
  const elapsed = a.elapsed_time;
  const summary = h("p", { class: "muted", id: "crop-summary", "aria-live": "polite" });
  const update = () => {
    const s = start.seconds(), e = end.seconds();
    button.disabled = true;
    if (!(s >= 0 && e <= elapsed && e > s)) {
      summary.textContent = "The end must come after the start, both within " + clock(elapsed) + ".";
      return;
    }
    if (s === 0 && e === elapsed) {
      summary.textContent = "Move the start or the end to crop the activity.";
      return;
    }
    button.disabled = false;
    const ds = distanceAt(streams, s), de = distanceAt(streams, e);
    summary.textContent = `Keeps ${duration(e - s)} of ${duration(elapsed)}` +
      (ds !== null && de !== null ? `, ${km(de - ds)} of ${km(a.distance)}` : "") + ".";
  };
  const button = h("button", { type: "submit", id: "crop-submit" }, "Crop");
  const start = timeField("crop-start", "Start", 0, elapsed, update);
  const end = timeField("crop-end", "End", elapsed, elapsed, update);
  const form = h(
    "form",
    { id: "crop-form", class: "crop-form", "aria-labelledby": "crop-title" },
    h("h3", { id: "crop-title" }, "Crop"),
    h("p", { class: "muted", id: "crop-start-hint" }, "Keep only the part between start and end (h:mm:ss)."),
    start.el,
    end.el,
    h("span", { id: "crop-end-hint", hidden: true }, "h:mm:ss from the start"),
    summary,
    button,
  );
  update();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const s = start.seconds(), e = end.seconds();
    run(
      button,
      status,
      "Cropping",
      () => api(`/activities/${id}/crop`, { method: "POST", body: { start_time: s, end_time: e } }),
    );
  });
  return form;
}

function splitForm(a, streams, status) {
  const elapsed = a.elapsed_time;
  const summary = h("p", { class: "muted", id: "split-summary", "aria-live": "polite" });
  const update = () => {
    const t = at.seconds();
    button.disabled = !(t > 0 && t < elapsed);
    if (button.disabled) {
      summary.textContent = "The split must fall inside the activity (after 0:00:00, before " + clock(elapsed) + ").";
      return;
    }
    const d = distanceAt(streams, t);
    summary.textContent = `First part ${duration(t)}${d === null ? "" : `, ${km(d)}`}; second part ${
      duration(elapsed - t)
    }${d === null ? "" : `, ${km(a.distance - d)}`} (a new activity).`;
  };
  const button = h("button", { type: "submit", id: "split-submit" }, "Split");
  const at = timeField("split-at", "Split at", Math.round(elapsed / 2), elapsed, update);
  const form = h(
    "form",
    { id: "split-form", class: "crop-form", "aria-labelledby": "split-title" },
    h("h3", { id: "split-title" }, "Split"),
    h("p", { class: "muted", id: "split-at-hint" }, "Cut the activity in two at this time (h:mm:ss)."),
    at.el,
    summary,
    button,
  );
  update();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const t = at.seconds();
    run(button, status, "Splitting", () => api(`/activities/${id}/split`, { method: "POST", body: { time: t } }));
  });
  return form;
}

/** The crops and splits in effect, the latest with its Undo button; times of day as the activity's local time. */
function editList(a, edits, status) {
  const offset = Date.parse(a.start_date_local) - Date.parse(a.start_date);
  const local = (iso) => new Date(Date.parse(iso) + offset).toISOString();
  const items = [];
  if (edits.split_from) {
    items.push(h(
      "li",
      { id: "split-from" },
      "Split from ",
      h("a", { href: `/activities/${edits.split_from.activity_id}` }, "another activity"),
      " (undo the split there).",
    ));
  }
  edits.edits.forEach((e, k) => {
    const latest = k === edits.edits.length - 1;
    const when = `${dateText(local(e.start_date)).replace(/^\w+, /, "")}–${
      dateText(local(e.end_date)).replace(/^.*, /, "")
    }`;
    const undo = latest
      ? h(
        "button",
        { type: "button", class: "secondary", id: "undo-edit" },
        e.kind === "split" ? "Undo split" : "Undo crop",
      )
      : null;
    undo?.addEventListener(
      "click",
      () => run(undo, status, "Undoing", () => api(`/activities/${id}/edits/${e.edit}`, { method: "DELETE" })),
    );
    items.push(h(
      "li",
      { dataset: { edit: e.edit } },
      h(
        "span",
        {},
        e.kind === "split" ? "Split: this activity keeps " : "Cropped to ",
        when,
        e.kind === "split" && e.split_activity_id
          ? ["; the rest is ", h("a", { href: `/activities/${e.split_activity_id}` }, "a new activity")]
          : "",
        h("span", { class: "muted" }, ` · ${localDateText(e.created_at)}`),
      ),
      undo,
    ));
  });
  return items.length ? h("ul", { class: "edit-list", id: "edit-list" }, items) : null;
}

async function main() {
  const root = await drawnPage();
  if (!mine) return ready("cropTools", "none");
  const [a, edits] = await Promise.all([api(`/activities/${id}`), api(`/activities/${id}/edits`)]);
  if (!edits.croppable) return ready("cropTools", "none");
  const streams = await api(`/activities/${id}/streams?keys=time,distance&key_by_type=true`).catch(() => ({}));
  const status = h("p", { class: "muted", role: "status", id: "crop-status" });
  const section = h(
    "section",
    { class: "card", id: "crop-split", "aria-labelledby": "crop-split-title" },
    h("h2", { id: "crop-split-title" }, "Crop and split"),
    h(
      "p",
      { class: "muted" },
      "Keep only part of the recording (a forgotten stop at the start or the end), or cut it in two (a coffee stop " +
        "recorded as one ride). Figures, laps, segment efforts and achievements are worked out again from the file " +
        "your device recorded; the latest crop or split can be undone.",
    ),
    editList(a, edits, status),
    h("div", { class: "crop-forms" }, cropForm(a, streams, status), splitForm(a, streams, status)),
    status,
  );
  const social = document.getElementById("social");
  if (social) social.before(section);
  else root.append(section);
  ready("cropTools", true);
}

main().catch((error) => {
  console.warn("crop tools", error);
  ready("cropTools", "failed");
});
