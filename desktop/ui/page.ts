/**
 * The companion's window: one self-contained page (no build step), served by the core on 127.0.0.1
 * and loaded by the Electron window. Electron adds `window.companionShell` (folder picker, start at
 * login); in a plain browser those controls fall back to typing a path.
 */
export function pageHtml(key: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fitness Companion</title>
<style>
  :root { --fg:#1d2430; --muted:#667085; --line:#e4e7ec; --bg:#f7f8fa; --accent:#fc5200; --ok:#067647; --warn:#b54708; --bad:#b42318; }
  * { box-sizing: border-box; }
  body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
  header { display:flex; align-items:center; gap:12px; padding:14px 20px; background:#fff; border-bottom:1px solid var(--line); }
  header h1 { font-size:18px; margin:0; }
  header .who { margin-left:auto; color:var(--muted); }
  main { padding:16px 20px; display:grid; gap:16px; max-width:1100px; }
  section { background:#fff; border:1px solid var(--line); border-radius:10px; padding:14px 16px; }
  section h2 { font-size:15px; margin:0 0 10px; }
  .banner { border-radius:8px; padding:10px 14px; font-weight:500; }
  .banner.warn { background:#fffaeb; color:var(--warn); border:1px solid #fedf89; }
  .banner.bad { background:#fef3f2; color:var(--bad); border:1px solid #fecdca; }
  .counts { display:flex; gap:18px; color:var(--muted); }
  .counts b { color:var(--fg); font-size:16px; }
  ul.devices { list-style:none; margin:0; padding:0; display:grid; gap:6px; }
  ul.devices li { display:flex; gap:10px; align-items:center; }
  .tag { font-size:11px; text-transform:uppercase; letter-spacing:.04em; padding:2px 7px; border-radius:99px; background:#eef4ff; color:#3538cd; }
  .tag.folder { background:#f2f4f7; color:#344054; }
  .path { color:var(--muted); font-family: ui-monospace, monospace; font-size:12px; }
  table { width:100%; border-collapse:collapse; }
  th, td { text-align:left; padding:7px 6px; border-bottom:1px solid var(--line); vertical-align:top; }
  th { font-size:12px; color:var(--muted); font-weight:600; }
  .status { font-weight:600; white-space:nowrap; }
  .status.ready { color:var(--ok); } .status.duplicate { color:var(--warn); } .status.error, .status.deleted { color:var(--bad); }
  .status.queued, .status.uploading, .status.processing { color:#175cd3; }
  progress { width:110px; height:8px; }
  .msg { color:var(--muted); font-size:12px; max-width:420px; }
  .msg.bad { color:var(--bad); }
  a { color:var(--accent); }
  form { display:flex; gap:8px; flex-wrap:wrap; align-items:center; margin:6px 0; }
  input[type=text], input[type=url] { padding:6px 8px; border:1px solid #d0d5dd; border-radius:6px; min-width:280px; }
  button { padding:6px 12px; border-radius:6px; border:1px solid #d0d5dd; background:#fff; cursor:pointer; }
  button.primary { background:var(--accent); color:#fff; border-color:var(--accent); }
  .empty { color:var(--muted); }
</style>
</head>
<body>
<header>
  <h1>Fitness Companion</h1>
  <span class="counts" id="counts"></span>
  <span class="who" id="who"></span>
  <button id="sign-in" class="primary" hidden>Sign in</button>
</header>
<main>
  <div id="banners"></div>
  <section><h2>Devices and folders</h2><ul class="devices" id="devices"></ul></section>
  <section>
    <h2>Files <button id="retry" title="Try queued files now">Retry now</button></h2>
    <table><thead><tr><th>File</th><th>From</th><th>Status</th><th>Progress</th><th>Activity / problem</th></tr></thead>
    <tbody id="files"></tbody></table>
  </section>
  <section>
    <h2>Settings</h2>
    <form id="server-form"><label>Server <input type="url" id="server" placeholder="https://fitness.example.org"></label>
      <label>Client id <input type="text" id="client-id" placeholder="application id"></label><button>Save</button>
      <span class="msg" id="settings-msg"></span></form>
    <form id="folder-form"><label>Watch a folder <input type="text" id="folder" placeholder="/home/me/Downloads/wahoo"></label>
      <button id="pick" type="button" hidden>Choose…</button><button>Add folder</button><span class="msg" id="folder-msg"></span></form>
    <ul class="devices" id="folders"></ul>
    <form><label><input type="checkbox" id="login"> Start at login</label><span class="msg" id="login-msg"></span></form>
  </section>
</main>
<script>
const KEY = ${JSON.stringify(key)};
const shell = window.companionShell;
const STATUS = { queued: "Waiting", uploading: "Uploading", processing: "Processing", ready: "Uploaded", duplicate: "Duplicate", error: "Failed", deleted: "Deleted" };
const STEP = { queued: 0.1, uploading: 0.35, processing: 0.7, ready: 1, duplicate: 1, error: 1, deleted: 1 };
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  for (const c of children) if (c !== undefined && c !== null) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}
async function api(path, body) {
  const res = await fetch(path, body === undefined ? { headers: { "x-companion-key": KEY } } :
    { method: "POST", headers: { "x-companion-key": KEY, "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.message || ("HTTP " + res.status));
  return json;
}
function time(iso) { return new Date(iso).toLocaleTimeString(); }
let settingsFilled = false;
function render(s) {
  $("counts").replaceChildren(
    el("span", { id: "count-pending" }, el("b", {}, s.counts.pending), " waiting"),
    el("span", { id: "count-ready" }, el("b", {}, s.counts.ready), " uploaded"),
    el("span", {}, el("b", {}, s.counts.duplicate), " duplicates"),
    el("span", {}, el("b", {}, s.counts.error), " failed"));
  const athlete = s.signedIn && s.signedIn.athlete;
  $("who").textContent = s.signedIn ? ("Signed in" + (athlete && athlete.firstname ? " as " + athlete.firstname + " " + (athlete.lastname || "") : "") + " · " + s.server) : ("Uploading to " + s.server);
  $("sign-in").hidden = !!s.signedIn && !s.problem;
  const banners = [];
  if (s.rateLimit) banners.push(el("div", { class: "banner warn", id: "rate-limit" }, "The server's rate limit was reached. Uploads wait until " + time(s.rateLimit.until) + ", when its window resets."));
  if (s.problem) banners.push(el("div", { class: "banner bad", id: "problem" }, s.problem));
  if (s.signIn && s.signIn.state === "failed") banners.push(el("div", { class: "banner bad" }, "Sign-in failed: " + s.signIn.message));
  if (s.signIn && s.signIn.state === "waiting" && s.signIn.url) banners.push(el("div", { class: "banner warn" }, "Finish signing in in your browser: ", el("a", { href: s.signIn.url, target: "_blank" }, "open the sign-in page")));
  $("banners").replaceChildren(...banners);
  const devices = s.devices.length ? s.devices.map((d) => el("li", { class: "device", "data-kind": d.kind },
    el("span", { class: "tag " + d.kind }, d.kind === "device" ? "device" : "folder"), el("b", {}, d.name),
    d.serial ? el("span", { class: "path" }, "serial " + d.serial) : null, el("span", { class: "path" }, d.folder)))
    : [el("li", { class: "empty" }, "No device plugged in. Connect a watch or bike computer by USB, or add a folder below.")];
  $("devices").replaceChildren(...devices);
  const rows = s.files.map((f) => {
    const activity = f.activityId || f.duplicateOfActivityId;
    let detail;
    if (f.status === "ready") detail = el("a", { href: f.activityUrl, target: "_blank", class: "activity" }, "Activity " + activity);
    else if (f.status === "duplicate") detail = el("span", {}, activity ? el("a", { href: f.activityUrl, target: "_blank", class: "activity" }, "Already activity " + activity) : "Already uploaded", el("div", { class: "msg" }, f.error || ""));
    else if (f.status === "error" || f.status === "deleted") detail = el("span", { class: "msg bad" }, f.error || "Failed");
    else if (f.error) detail = el("span", { class: "msg" }, f.error + (f.retryAt ? " Next try at " + time(f.retryAt) + "." : ""));
    else detail = el("span", { class: "msg" }, f.status === "processing" ? "The server is reading the file…" : "");
    return el("tr", { class: "file", "data-status": f.status, "data-name": f.name },
      el("td", {}, el("b", {}, f.name), el("div", { class: "path" }, f.path)),
      el("td", {}, f.sourceName),
      el("td", { class: "status " + f.status }, STATUS[f.status] || f.status),
      el("td", {}, el("progress", { max: "1", value: String(STEP[f.status] ?? 0) })),
      el("td", {}, detail));
  });
  $("files").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "5", class: "empty" }, "Nothing yet — activity files appear here as soon as a device or folder has them."))]));
  $("folders").replaceChildren(...s.settings.folders.map((f) => el("li", { class: "folder" }, el("span", { class: "path" }, f),
    Object.assign(el("button", { type: "button" }, "Remove"), { onclick: () => api("/api/folders/remove", { folder: f }).then(refresh) }))));
  if (!settingsFilled) {
    settingsFilled = true;
    $("server").value = s.settings.server || s.server;
    $("client-id").value = s.settings.clientId || "";
    $("login").checked = !!s.settings.startAtLogin;
  }
  document.title = s.counts.pending ? "(" + s.counts.pending + ") Fitness Companion" : "Fitness Companion";
}
async function refresh() {
  try { render(await api("/api/state")); } catch (e) { $("banners").replaceChildren(el("div", { class: "banner bad" }, "The companion isn't answering: " + e.message)); }
}
$("folder-form").onsubmit = async (ev) => {
  ev.preventDefault();
  try { await api("/api/folders", { folder: $("folder").value }); $("folder").value = ""; $("folder-msg").textContent = "Added."; }
  catch (e) { $("folder-msg").textContent = e.message; }
  refresh();
};
$("server-form").onsubmit = async (ev) => {
  ev.preventDefault();
  const r = await api("/api/settings", { server: $("server").value, clientId: $("client-id").value });
  $("settings-msg").textContent = r.restartNeeded ? "Saved. The new server is used after a restart." : "Saved.";
};
$("login").onchange = async () => {
  await api("/api/settings", { startAtLogin: $("login").checked });
  if (shell && shell.setStartAtLogin) shell.setStartAtLogin($("login").checked);
  $("login-msg").textContent = shell ? "Saved." : "Saved (takes effect in the desktop app).";
};
$("retry").onclick = () => api("/api/retry", {}).then(refresh);
$("sign-in").onclick = async () => {
  try { const r = await api("/api/sign-in", {}); if (!r.opened && r.url) window.open(r.url, "_blank"); } catch (e) { alert(e.message); }
  refresh();
};
if (shell && shell.pickFolder) {
  $("pick").hidden = false;
  $("pick").onclick = async () => { const f = await shell.pickFolder(); if (f) { $("folder").value = f; } };
}
refresh();
setInterval(refresh, 1000);
</script>
</body>
</html>`;
}
