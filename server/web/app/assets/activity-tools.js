// The activity page's tools, drawn below the page once activity.js has drawn it: photos (shown
// through the photo routes, which strip EXIF; the owner adds one), downloads (GPX for whoever sees
// the activity, through the same privacy engine as its reads; the original file for the owner) and,
// for the owner, a segment made from a stretch of the activity (POST /v3/segments).
import { api, config, currentToken, distanceUnit, h, km, ready } from "./app.js";

const id = config.activityId;
/** Another athlete's page starts from the summary the server embedded (see activity.js). */
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

const failure = (error) => h("p", { class: "error", role: "alert" }, error?.message ?? String(error));

// ------------------------------------------------------------------ photos

/** The URL of a photo's rendition nearest 600 px (urls is keyed by size). */
function photoUrl(urls) {
  const sizes = Object.keys(urls ?? {}).map(Number).sort((a, b) => a - b);
  if (!sizes.length) return null;
  const url = urls[String(sizes.find((s) => s >= 600) ?? sizes[sizes.length - 1])];
  return URL.canParse(url, location.href) ? url : null;
}

function photoFigure(url, caption) {
  return h(
    "figure",
    { class: "photo" },
    // The photo route of this server, by its path (the public URL may name another host than the page's).
    h("img", { src: new URL(url, location.href).pathname, alt: caption || "Photo of the activity", loading: "lazy" }),
    caption ? h("figcaption", {}, caption) : null,
  );
}

async function photos() {
  const list = h("div", { class: "photo-grid", id: "photo-list" });
  const section = h(
    "section",
    { class: "card", id: "photos", "aria-labelledby": "photos-title" },
    h("h2", { id: "photos-title" }, "Photos"),
    list,
  );
  const show = (items) => {
    list.replaceChildren(...items.map((p) => photoFigure(p.url, p.caption)));
    if (!items.length) list.append(h("p", { class: "muted", id: "no-photos" }, mine ? "No photos yet." : "No photos."));
  };
  if (!mine) {
    // The API's photo list answers the owner only: the page embeds the photos' URLs and captions.
    show((config.photos ?? []).map((p) => ({ url: photoUrl(p.urls), caption: p.caption ?? "" })).filter((p) => p.url));
    return section;
  }
  const load = async () => {
    const all = await api(`/activities/${id}/photos?photo_sources=true&size=600`);
    show(all.map((p) => ({ url: photoUrl(p.urls), caption: p.caption ?? "" })).filter((p) => p.url));
  };
  await load();
  const file = h("input", {
    type: "file",
    id: "photo-file",
    name: "file",
    accept: "image/jpeg,image/png,image/gif",
    required: true,
  });
  const caption = h("input", { type: "text", id: "photo-caption", name: "caption", maxlength: 255 });
  const status = h("p", { class: "muted", role: "status", id: "photo-status" });
  const button = h("button", { type: "submit", id: "photo-add" }, "Add photo");
  const form = h(
    "form",
    { id: "photo-form", class: "inline-form" },
    h("label", { for: "photo-file" }, "Photo (JPEG, PNG or GIF)"),
    file,
    h("label", { for: "photo-caption" }, "Caption"),
    caption,
    button,
    status,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!file.files?.length) return;
    button.disabled = true;
    status.textContent = "Adding…";
    try {
      const data = new FormData();
      data.set("file", file.files[0]);
      if (caption.value.trim()) data.set("caption", caption.value.trim());
      await api(`/activities/${id}/photos`, { method: "POST", form: data });
      form.reset();
      await load();
      status.textContent = "Photo added.";
    } catch (error) {
      status.replaceChildren(failure(error));
    } finally {
      button.disabled = false;
    }
  });
  section.append(form);
  return section;
}

// ------------------------------------------------------------------ downloads

/** Downloads an API file with the page's token (a plain link would carry none). */
async function download(path, fallbackName, status) {
  status.textContent = "Preparing the download…";
  const res = await fetch(`/v3${path}`, { headers: { authorization: `Bearer ${await currentToken()}` } });
  if (!res.ok) {
    throw new Error(res.status === 404 ? "That file is not available." : `The download failed (${res.status}).`);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  status.textContent = `Downloaded ${name}.`;
}

function downloads(a) {
  const status = h("p", { class: "muted", role: "status", id: "download-status" });
  const button = (idText, label, path, name) => {
    const b = h("button", { type: "button", class: "secondary", id: idText }, label);
    b.addEventListener("click", async () => {
      b.disabled = true;
      try {
        await download(path, name, status);
      } catch (error) {
        status.replaceChildren(failure(error));
      } finally {
        b.disabled = false;
      }
    });
    return b;
  };
  return h(
    "section",
    { class: "card", id: "downloads", "aria-labelledby": "downloads-title" },
    h("h2", { id: "downloads-title" }, "Download"),
    h(
      "p",
      { class: "actions" },
      button("download-gpx", "GPX file", `/activities/${id}/export_gpx`, "activity.gpx"),
      mine && a.upload_id
        ? button("download-original", "Original file", `/activities/${id}/export_original`, "activity")
        : null,
    ),
    h(
      "p",
      { class: "muted" },
      mine
        ? "The GPX file holds your whole track; the original file is the one your device recorded."
        : "The GPX file holds what you may see of this activity: nothing inside the athlete's privacy zones.",
    ),
    status,
  );
}

// ------------------------------------------------------------------ create a segment

async function segmentForm(a) {
  if (!mine || !/Ride|Run/.test(a.type ?? "") || !(a.map?.summary_polyline || a.map?.polyline)) return null;
  const streams = await api(`/activities/${id}/streams?keys=distance,latlng&key_by_type=true`);
  const distance = streams.distance?.data ?? [];
  if (distance.length < 2 || !streams.latlng) return null;
  const total = distance[distance.length - 1];
  // In km, or miles for an imperial athlete (distanceUnit).
  const kmValue = (m) => (m / distanceUnit.meters).toFixed(2);
  const name = h("input", { type: "text", id: "segment-name", name: "name", required: true, maxlength: 255 });
  const from = h("input", {
    type: "number",
    id: "segment-from",
    min: 0,
    max: kmValue(total),
    step: "0.01",
    value: kmValue(total / 3),
    required: true,
  });
  const to = h("input", {
    type: "number",
    id: "segment-to",
    min: 0,
    max: kmValue(total),
    step: "0.01",
    value: kmValue((2 * total) / 3),
    required: true,
  });
  // A segment others may see is never cut from an activity that not everyone may see (the API's 400).
  const notPublic = (a.visibility ?? (a.private ? "only_me" : "everyone")) !== "everyone";
  const privateBox = h("input", {
    type: "checkbox",
    id: "segment-private",
    checked: notPublic,
    disabled: notPublic,
  });
  const status = h("p", { class: "muted", role: "status", id: "segment-status" });
  const button = h("button", { type: "submit", id: "segment-create" }, "Create segment");
  /** The first stream index at or past a distance (metres). */
  const indexAt = (m) => {
    let lo = 0, hi = distance.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (distance[mid] < m) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const form = h(
    "form",
    { id: "segment-form", class: "inline-form" },
    h("label", { for: "segment-name" }, "Segment name"),
    name,
    h("label", { for: "segment-from" }, `From (${distanceUnit.name}, of ${km(total)})`),
    from,
    h("label", { for: "segment-to" }, `To (${distanceUnit.name})`),
    to,
    h("label", { class: "check" }, privateBox, notPublic ? "Private (not everyone may see the activity)" : "Private"),
    button,
    status,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const start = indexAt(Number(from.value) * distanceUnit.meters),
      end = indexAt(Number(to.value) * distanceUnit.meters);
    if (!(end > start)) {
      status.replaceChildren(failure(new Error("The end must come after the start.")));
      return;
    }
    button.disabled = true;
    status.textContent = "Creating…";
    try {
      const made = await api("/segments", {
        method: "POST",
        body: {
          name: name.value.trim(),
          activity_id: id,
          start_index: start,
          end_index: end,
          private: privateBox.checked,
        },
      });
      location.assign(`/segments/${made.id}`);
    } catch (error) {
      button.disabled = false;
      status.replaceChildren(failure(error));
    }
  });
  return h(
    "section",
    { class: "card", id: "make-segment", "aria-labelledby": "make-segment-title" },
    h("h2", { id: "make-segment-title" }, "Create a segment"),
    h(
      "p",
      { class: "muted" },
      "A stretch of this activity becomes a segment with its own leaderboard; this activity's effort is on it at once.",
    ),
    form,
  );
}

async function main() {
  const root = await drawnPage();
  const a = mine ? await api(`/activities/${id}`) : config.summary;
  // Before the kudos and comments (which, with the owner's edit form, stay the page's end).
  const tools = h("div", { id: "activity-tools", class: "grid2" });
  const social = document.getElementById("social");
  if (social) social.before(tools);
  else root.append(tools);
  const parts = await Promise.all([
    photos().catch((error) => h("section", { class: "card", id: "photos" }, h("h2", {}, "Photos"), failure(error))),
    Promise.resolve(downloads(a)),
    segmentForm(a).catch((error) =>
      h("section", { class: "card", id: "make-segment" }, h("h2", {}, "Create a segment"), failure(error))
    ),
  ]);
  tools.append(...parts.filter(Boolean));
  ready("activityTools", performance.now());
}

main().catch((error) => {
  console.warn("activity tools", error);
  ready("activityTools", "failed");
});
