// Upload several files: each gets a row with its progress, then its status (polling the upload).
import { api, config, currentToken, h, ready, visibilityField } from "./app.js";

const drop = document.getElementById("drop");
const input = document.getElementById("files");
const list = document.getElementById("uploads");
const TYPES = /\.(fit|tcx|gpx)(\.gz)?$/i;
let active = 0;

// Who can see the files' activities: the athlete's default unless changed here (the upload's `visibility`).
drop.before(
  visibilityField(
    "upload-visibility",
    config.defaultVisibility ?? "everyone",
    "For the activities of the files you add next; your default is in the settings.",
  ),
);
const visibility = document.getElementById("upload-visibility");

/** The API's error in plain words (its text may hold a link to the activity it duplicates). */
function plain(error) {
  if (!error) return "The file could not be read.";
  const text = String(error).replace(/<[^>]*>/g, "");
  if (/duplicate/i.test(text)) return "This file was uploaded before.";
  return text;
}

function duplicateLink(error) {
  const m = /activit(?:y |ies\/)(\d+)/.exec(String(error ?? ""));
  return m ? h("a", { href: `/activities/${m[1]}` }, "see that activity") : undefined;
}

function upload(file) {
  const status = h("p", { class: "status", role: "status" }, "Waiting…");
  const bar = h("progress", { max: 100, value: 0, "aria-label": `Upload of ${file.name}` });
  const row = h("li", { dataset: { file: file.name } }, h("span", { class: "name" }, file.name), bar, status);
  list.append(row);
  const match = TYPES.exec(file.name);
  if (!match) {
    row.dataset.state = "error";
    bar.remove();
    status.className = "status error";
    status.textContent = "Not a FIT, TCX or GPX file (or their .gz): choose a file your device recorded.";
    return;
  }
  const dataType = match[1].toLowerCase() + (match[2] ? ".gz" : "");
  active++;
  ready("uploadsActive", active);
  currentToken().then((token) => {
    const form = new FormData();
    form.append("file", file);
    form.append("data_type", dataType);
    form.append("visibility", visibility.value);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v3/uploads");
    xhr.setRequestHeader("authorization", `Bearer ${token}`);
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100);
      status.textContent = `Sending… ${bar.value}%`;
    });
    xhr.addEventListener("load", () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch { /* not JSON */ }
      if (xhr.status === 201 && body?.id) {
        bar.value = 100;
        status.textContent = body.status ?? "Processing…";
        poll(body.id, row, bar, status);
      } else {
        const why = xhr.status === 413 ? "The file is too large for this server." : plain(body?.error ?? body?.message);
        finish(row, bar, status, "error", why, duplicateLink(body?.error));
      }
    });
    xhr.addEventListener("error", () => finish(row, bar, status, "error", "The connection failed; try again."));
    xhr.send(form);
  });
}

function finish(row, bar, status, state, text, link) {
  row.dataset.state = state;
  bar.remove();
  status.className = `status ${state === "error" ? "error" : "ok"}`;
  status.replaceChildren(text, link ? " " : "", link ?? "");
  active--;
  ready("uploadsActive", active);
}

async function poll(uploadId, row, bar, status) {
  bar.removeAttribute("value"); // indeterminate while the server processes
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    let u;
    try {
      u = await api(`/uploads/${uploadId}`);
    } catch (error) {
      if (error.status === 429) continue;
      return finish(row, bar, status, "error", error.message);
    }
    if (u.error) return finish(row, bar, status, "error", plain(u.error), duplicateLink(u.error));
    if (u.activity_id) {
      return finish(
        row,
        bar,
        status,
        "done",
        "Ready:",
        h("a", { href: `/activities/${u.activity_id}` }, "see the activity"),
      );
    }
    status.textContent = u.status ?? "Processing…";
  }
  finish(row, bar, status, "error", "Still processing after 10 minutes; check your feed later.");
}

function take(files) {
  for (const file of files) upload(file);
}

input.addEventListener("change", () => {
  take(input.files);
  input.value = "";
});
for (const type of ["dragenter", "dragover"]) {
  drop.addEventListener(type, (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
}
for (const type of ["dragleave", "drop"]) drop.addEventListener(type, () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  take(e.dataTransfer.files);
});
ready("upload");
