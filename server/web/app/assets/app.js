// Shared by every page: the config, the API client (session token), DOM helpers and formats.
export const config = JSON.parse(document.getElementById("app-config").textContent);

let token = document.querySelector('meta[name="api-token"]')?.content ?? null;
let tokenExpiresAt = config.tokenExpiresAt ?? 0;

export class ApiFailure extends Error {
  constructor(status, body, headers) {
    super(plainMessage(status, body, headers));
    this.status = status;
    this.body = body;
  }
}

/** A refusal by the API's rate limit: 429, or the spec's 403 "Rate Limit Exceeded". */
function rateLimited(status, body) {
  return status === 429 ||
    (status === 403 &&
      (body?.message === "Rate Limit Exceeded" || body?.errors?.some((e) => e.field === "rate limit")));
}

/**
 * Seconds until the limit's window resets: Retry-After when sent, else from X-RateLimit-Limit and
 * X-RateLimit-Usage (short window: the next :00/:15/:30/:45; daily: midnight UTC) by the server's Date.
 */
export function retryAfterSeconds(headers, now = Date.now()) {
  const retry = Number(headers?.get("retry-after"));
  if (Number.isFinite(retry) && retry > 0) return Math.ceil(retry);
  const at = Date.parse(headers?.get("date") ?? "") || now;
  const [shortLimit, longLimit] = (headers?.get("x-ratelimit-limit") ?? "").split(",").map(Number);
  const [, long] = (headers?.get("x-ratelimit-usage") ?? "").split(",").map(Number);
  const quarter = 15 * 60_000, day = 24 * 60 * 60_000;
  const until = long > longLimit ? (Math.floor(at / day) + 1) * day : (Math.floor(at / quarter) + 1) * quarter;
  return shortLimit ? Math.max(1, Math.ceil((until - at) / 1000)) : 60;
}

function plainMessage(status, body, headers) {
  const first = body?.errors?.[0];
  if (rateLimited(status, body)) return `Too many requests, try again in ${retryAfterSeconds(headers)} s.`;
  if (status === 404) return "Not found: it may have been deleted or be private.";
  if (status === 403) return "You are not allowed to do that.";
  if (status === 401) return "Your session has ended; please sign in again.";
  if (status >= 500) return "The server had a problem; try again.";
  if (first) {
    return `${body.message ?? "Error"}: ${first.resource ?? ""} ${first.field ?? ""} ${first.code ?? ""}`.trim();
  }
  return body?.message ?? `Request failed (${status})`;
}

/** A fresh session token before the current one expires (POST with the CSRF token, same origin). */
async function refreshToken() {
  const res = await fetch("/app/token", {
    method: "POST",
    headers: { "x-csrf-token": config.csrf ?? "" },
    credentials: "same-origin",
  });
  if (!res.ok) {
    location.assign(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
    throw new ApiFailure(401, null);
  }
  const body = await res.json();
  token = body.access_token;
  tokenExpiresAt = body.expires_at * 1000;
}

/** Calls /v3 with the session's token; JSON in and out; throws ApiFailure with a plain message. */
export async function api(path, { method = "GET", body, form, retry = true } = {}) {
  if (!token || Date.now() > tokenExpiresAt - 60_000) await refreshToken();
  const headers = { authorization: `Bearer ${token}` };
  let payload;
  if (form) payload = form;
  else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(`/v3${path}`, { method, headers, body: payload });
  if (res.status === 401 && retry) {
    await refreshToken();
    return api(path, { method, body, form, retry: false });
  }
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) throw new ApiFailure(res.status, json, res.headers);
  return json;
}

/** The current token (for XMLHttpRequest uploads with progress). */
export async function currentToken() {
  if (!token || Date.now() > tokenExpiresAt - 60_000) await refreshToken();
  return token;
}

/** Builds an element: h("a", { href }, "text", child…). Text is always text (never HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * User text for a Leaflet tooltip or popup, or any API that would parse a string as HTML: a node
 * holding the text (Leaflet inserts a string with innerHTML, a node as it is). A fresh node each call.
 */
export function textNode(value) {
  return h("span", {}, value ?? "");
}

/** SVG element helper. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/** The athlete's measurement_preference (PUT /v3/athlete, chosen on /settings): "feet" is miles and feet. */
export const imperial = config.athlete?.units === "feet";
/** Metres in the distance unit (km or mile) and the unit's name. */
export const MILE = 1609.344;
export const distanceUnit = imperial ? { meters: MILE, name: "mi" } : { meters: 1000, name: "km" };

/** A distance in km, or miles for an imperial athlete (the name stays: every page calls it). */
export const km = (m) => {
  const n = (m ?? 0) / distanceUnit.meters;
  return (n >= 10 ? n.toFixed(1) : n.toFixed(2)) + ` ${distanceUnit.name}`;
};

export function duration(s) {
  s = Math.round(s ?? 0);
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  return hh
    ? `${hh}:${String(mm).padStart(2, "0")}:${String(ss).padStart(2, "0")}`
    : `${mm}:${String(ss).padStart(2, "0")}`;
}

/** An elevation (or height): metres, or feet for an imperial athlete. */
export const meters = (m) => (imperial ? `${Math.round((m ?? 0) * 3.28084).toLocaleString("en")} ft` : metres(m));
/** Always metres. */
export const metres = (m) => `${Math.round(m ?? 0).toLocaleString("en")} m`;
/** Metres in a yard. */
export const YARD = 0.9144;
/** A swim's distance: metres, or yards for an imperial athlete (as Strava shows swims). */
export const swimDistance = (m) => (imperial ? `${Math.round((m ?? 0) / YARD).toLocaleString("en")} yd` : metres(m));

/** Swims are measured in metres (yards for an imperial athlete) and paced per 100 m (100 yd). */
export const isSwim = (type) => /Swim/.test(type ?? "");

/** A distance in the sport's unit: metres (or yards) for swims, kilometres (or miles) otherwise. */
export const distanceText = (m, type) => (isSwim(type) ? swimDistance(m) : km(m ?? 0));

/** Rowing (on water or indoors) is paced per 500 m, as rowers and Strava do, in either units. */
export const isRow = (type) => /Row/.test(type ?? "");

/** Pace for runs, walks and hikes (min/km), swims (min/100 m) and rowing (min/500 m), speed (km/h) otherwise. */
export function isPaceSport(type) {
  return /Run|Walk|Hike|Swim|Row/.test(type ?? "");
}

/** Metres per pace unit: 100 m (100 yd for an imperial athlete) for swims, 500 m for rowing, a km (or a mile) otherwise. */
export const paceMeters = (
  type,
) => (isSwim(type) ? (imperial ? 100 * YARD : 100) : isRow(type) ? 500 : distanceUnit.meters);
/** The pace unit's name: "100 m", "100 yd", "500 m", "km" or "mi". */
export const paceUnit = (
  type,
) => (isSwim(type) ? (imperial ? "100 yd" : "100 m") : isRow(type) ? "500 m" : distanceUnit.name);
/** Metres per second in km/h (or mi/h), and the unit's name. */
export const speedUnit = imperial ? { perMps: 3600 / MILE, name: "mi/h" } : { perMps: 3.6, name: "km/h" };

export function speedText(mps, type) {
  if (!mps) return "—";
  if (isPaceSport(type)) return `${duration(paceMeters(type) / mps)} /${paceUnit(type)}`;
  return `${(mps * speedUnit.perMps).toFixed(1)} ${speedUnit.name}`;
}

/** Steps per minute for runs, walks and hikes (the API's cadence counts one foot), else as given. */
export const isStepSport = (type) => /Run|Walk|Hike/.test(type ?? "");

/** An enum of the API in words: "VirtualRide" → "Virtual ride", "CumulativeChallenge" → "Cumulative challenge". */
export function readableName(name) {
  const words = String(name ?? "").match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g);
  if (!words) return String(name ?? "");
  const text = words.map((w, i) => (i && w.length > 1 && w !== w.toUpperCase() ? w.toLowerCase() : w)).join(" ");
  return text.replace(/^E (?=[a-z])/, "E-");
}

export const kudosText = (n) => `${n ?? 0} ${n === 1 ? "kudo" : "kudos"}`;

/** A whole distance in the athlete's unit ("700 km"): gear totals and reminders. */
export const wholeDistance = (m) =>
  `${Math.round((m ?? 0) / distanceUnit.meters).toLocaleString("en")} ${distanceUnit.name}`;

/** The gear's "Replace at …" reminder (once its distance reached it) and "Retired", as badges beside its name. */
export function gearBadges(g) {
  return [
    g?.retired ? h("span", { class: "badge retired" }, "Retired") : null,
    // A retired piece is replaced already: no reminder.
    g?.reminder_reached && g.reminder_distance && !g.retired
      ? h("span", { class: "badge replace" }, `Replace at ${wholeDistance(g.reminder_distance)}`)
      : null,
  ].filter(Boolean);
}

/** Strava's visibility values in words (the API's `visibility`). */
export const VISIBILITY_WORDS = { everyone: "Everyone", followers_only: "Followers", only_me: "Only me" };

/** Who sees an activity, for its meta line: nothing for everyone. */
export function audienceText(a) {
  const visibility = a.visibility ?? (a.private ? "only_me" : "everyone");
  return visibility === "only_me" ? "Only you" : visibility === "followers_only" ? "Followers" : "";
}

/** The "Who can see this" control: a labelled select of Everyone / Followers / Only me. */
export function visibilityField(id, value, hint) {
  return h(
    "div",
    { class: "visibility-field" },
    h("label", { for: id }, "Who can see this"),
    h(
      "select",
      { id, ...(hint ? { "aria-describedby": `${id}-hint` } : {}) },
      Object.entries(VISIBILITY_WORDS).map(([v, words]) => h("option", { value: v, selected: v === value }, words)),
    ),
    hint ? h("p", { class: "muted small", id: `${id}-hint` }, hint) : null,
  );
}

export function dateText(iso) {
  const d = new Date(iso);
  return d.toLocaleString("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
  });
}

/** A moment (an ISO time in UTC, e.g. a comment's created_at) in the viewer's own time zone. */
export function localDateText(iso) {
  return new Date(iso).toLocaleString("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/** Decodes a Google encoded polyline into [lat, lng] pairs. */
export function decodePolyline(text) {
  const points = [];
  let index = 0, lat = 0, lng = 0;
  while (index < text.length) {
    for (const which of [0, 1]) {
      let result = 0, shift = 0, b;
      do {
        b = text.charCodeAt(index++) - 63;
        result |= (b & 0x1f) << shift;
        shift += 5;
      } while (b >= 0x20 && index < text.length);
      const delta = result & 1 ? ~(result >> 1) : result >> 1;
      if (which === 0) lat += delta;
      else lng += delta;
    }
    points.push([lat / 1e5, lng / 1e5]);
  }
  return points;
}

/** A small SVG drawing of a route (no map tiles needed). */
export function routeThumb(polyline, label) {
  const points = polyline ? decodePolyline(polyline) : [];
  if (points.length < 2) return h("span", { "aria-hidden": "true" });
  const box = svg("svg", { class: "route-thumb", viewBox: "0 0 120 90", role: "img", "aria-label": label });
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  const xy = points.map(([la, ln]) => {
    const x = ln * Math.cos((la * Math.PI) / 180), y = -la;
    minX = Math.min(minX, x), maxX = Math.max(maxX, x), minY = Math.min(minY, y), maxY = Math.max(maxY, y);
    return [x, y];
  });
  const scale = Math.min(108 / (maxX - minX || 1e-9), 78 / (maxY - minY || 1e-9));
  const ox = (120 - (maxX - minX) * scale) / 2, oy = (90 - (maxY - minY) * scale) / 2;
  const d = xy.map(([x, y], i) =>
    `${i ? "L" : "M"}${(ox + (x - minX) * scale).toFixed(1)},${(oy + (y - minY) * scale).toFixed(1)}`
  ).join("");
  box.append(svg("path", { d }));
  return box;
}

/** Shows a failure in place of the page's content. */
export function showFailure(container, error) {
  container.replaceChildren(h("p", { class: "error", role: "alert" }, error?.message ?? String(error)));
}

/** Marks the page as drawn (tests and the bench wait for it). */
export function ready(name, value = true) {
  window.appState = window.appState ?? {};
  window.appState[name] = value;
}

/**
 * Wires a join/leave button: on click it runs `action` (an API call), then `render` redraws the page
 * and focus returns to the new button; a refusal is shown next to the button in plain words.
 */
export function membershipButton(button, action, render) {
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await action();
      await render();
      document.querySelector("#join, #leave")?.focus();
    } catch (error) {
      button.disabled = false;
      button.after(h("p", { class: "error", role: "alert" }, error.message));
    }
  });
  return button;
}

/** An athlete picture's address on this origin (the API answers absolute URLs on the public URL). */
export function avatarSrc(url) {
  if (!url) return null;
  try {
    const u = new URL(url, location.href);
    return u.pathname.startsWith("/avatars/") ? u.pathname + u.search : null;
  } catch {
    return null;
  }
}

export const fullName = (a) => `${a?.firstname ?? ""} ${a?.lastname ?? ""}`.trim() || "An athlete";

/**
 * One activity of a feed or a profile list: athlete (when someone else's), name, type, date,
 * distance, time, elevation, speed or pace, kudos and comments, route thumbnail.
 */
export function activityEntry(a, { showAthlete = true } = {}) {
  const when = dateText(a.start_date_local ?? a.start_date);
  const mine = a.athlete?.id === config.athlete?.id;
  const who = showAthlete && a.athlete?.id && !mine
    ? h(
      "p",
      { class: "who-row" },
      avatarSrc(a.athlete.profile_medium)
        ? h("img", { class: "avatar small", src: avatarSrc(a.athlete.profile_medium), alt: "", width: 32, height: 32 })
        : null,
      h("a", { href: `/athletes/${a.athlete.id}` }, fullName(a.athlete)),
    )
    : null;
  return h(
    "li",
    { class: "card entry", dataset: { activity: a.id, athlete: a.athlete?.id ?? "" } },
    h(
      "div",
      {},
      who,
      h(
        "p",
        { class: "meta" },
        `${readableName(a.sport_type ?? a.type)} · ${when}${audienceText(a) ? ` · ${audienceText(a)}` : ""}`,
      ),
      h("h2", {}, h("a", { href: `/activities/${a.id}` }, a.name || "Untitled activity")),
      h(
        "dl",
        { class: "stats" },
        // No distance recorded (indoor rowing, a trainer without speed): neither "0.00 km" nor an empty pace.
        a.distance ? h("div", {}, h("dt", {}, "Distance"), h("dd", {}, distanceText(a.distance, a.type))) : null,
        h("div", {}, h("dt", {}, "Time"), h("dd", {}, duration(a.moving_time))),
        h("div", {}, h("dt", {}, "Elevation"), h("dd", {}, meters(a.total_elevation_gain))),
        a.distance
          ? h(
            "div",
            {},
            h("dt", {}, isPaceSport(a.type) ? "Pace" : "Speed"),
            h("dd", {}, speedText(a.average_speed, a.type)),
          )
          : null,
      ),
      a.kudos_count || a.comment_count
        ? h(
          "p",
          { class: "meta" },
          `${kudosText(a.kudos_count)} · ${a.comment_count} ${a.comment_count === 1 ? "comment" : "comments"}`,
        )
        : null,
    ),
    routeThumb(a.map?.summary_polyline, `Route of ${a.name}`),
  );
}

/**
 * Infinite scroll over API pages: `fetchPage(n)` answers page n (1-based); rows are appended to
 * `list` as `render(row)`; `status` is the live line under the list and the scroll sentinel;
 * `more` the "Load more" button (shown after a failure or when scrolling is not possible).
 */
export function infiniteList({ list, status, more, perPage, fetchPage, render, endText, emptyText, readyKey }) {
  let page = 0, loading = false, done = false;
  async function loadMore() {
    if (loading || done) return;
    loading = true;
    more.hidden = true;
    status.textContent = "Loading activities…";
    try {
      const rows = await fetchPage(page + 1);
      page++;
      for (const row of rows) list.append(render(row));
      done = rows.length < perPage;
      status.textContent = done ? (list.children.length ? endText : emptyText) : "";
      more.hidden = done;
    } catch (error) {
      status.textContent = error.message;
      more.hidden = false;
      loading = false;
      return; // the "Load more" button retries
    } finally {
      loading = false;
      ready(readyKey, page);
    }
    // Still near the bottom (a short page or a fast reader): the observer fires no new event.
    if (!done && status.getBoundingClientRect().top < innerHeight + 400) setTimeout(loadMore, 0);
  }
  more.addEventListener("click", loadMore);
  new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) loadMore();
  }, { rootMargin: "400px" }).observe(status);
  loadMore();
}
