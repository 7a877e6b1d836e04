// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { readFileSync } from "node:fs";
import jpeg from "jpeg-js";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import yazl from "yazl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { WebClient } from "../oauth/web-client.ts";
import { cookieHeader, freshEmail } from "./web-attacks.ts";

/**
 * Issue 29 item 4: markup from one athlete must reach every page as text, for its author and for
 * everyone else. Every user-controlled text field is set, over HTTP against the server as
 * `npm start` runs it, to a distinct markup payload (an <img onerror>, an <svg onload>, a
 * <meta http-equiv=refresh> — which the CSP does not stop — and a "><script> break-out), then every
 * page that shows it is opened in Chromium at 1280 px, signed in as the author and as another
 * athlete. On each: no payload element in the DOM (nor any inline on… attribute, meta refresh or
 * inline script), no window.__xss, no dialog, no navigation away, no CSP violation; and each
 * payload is visible as text in the page's main content (so the check cannot pass by showing
 * nothing, nor by the viewer's own name in the header). The map tooltips of /segments are opened
 * by pointing at each line. A photo's caption, an upload's external_id and its file name are set
 * too, though no page shows them; privacy zones and heatmaps have no text field.
 */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const RIDE = deviceFile("gpx/strava-export-cycling-power-hr-cad-atemp.gpx");
const PASSWORD = "markup-password-1";

let count = 0;
/** Which field each payload's tag stands for (in failure messages). */
const fields = new Map<string, string>();
/**
 * A distinct payload per field, the kinds taken in turn. `file` for file names: no "/" (it would
 * make a path of it) and no double quote (a multipart filename carries it as %22), so unquoted
 * attributes. Every element a payload could make carries data-xss.
 */
function payload(field: string, file = false): string {
  const tag = `X${String(++count).padStart(2, "0")}`; // short: a club's or an application's name is at most 100 characters
  fields.set(tag, field);
  const kinds = file
    ? [
      `${tag}<img src=x data-xss=${tag} onerror=window.__xss=${count}>`,
      `${tag}<svg data-xss=${tag} onload=window.__xss=${count}>`,
      `${tag}<meta data-xss=${tag} http-equiv=refresh content=0;url=evil-${tag}>`,
      `${tag}'><img src=x data-xss=${tag} onerror=window.__xss=${count}>`,
    ]
    : [
      `${tag}<img src=x data-xss="${tag}" onerror="window.__xss='${tag}'">`,
      `${tag}<svg data-xss="${tag}" onload="window.__xss='${tag}'">`,
      `${tag}<meta data-xss="${tag}" http-equiv="refresh" content="0;url=/evil-${tag}">`,
      `${tag}"><script data-xss="${tag}">window.__xss='${tag}'</script>`,
    ];
  return kinds[count % kinds.length];
}

const P = {
  aFirst: payload("athlete-firstname"),
  aLast: payload("athlete-lastname"),
  bFirst: payload("other-firstname"),
  bLast: payload("other-lastname"),
  activityName: payload("activity-name"),
  activityDescription: payload("activity-description"),
  externalId: payload("upload-external-id"),
  uploadFile: payload("upload-file-name", true),
  comment: payload("comment"),
  clubName: payload("club-name"),
  clubDescription: payload("club-description"),
  clubCity: payload("club-city"),
  segmentName: payload("segment-name"),
  segmentName2: payload("segment-name-2"),
  routeName: payload("route-name"),
  routeDescription: payload("route-description"),
  gearName: payload("gear-name"),
  gearBrand: payload("gear-brand"),
  caption: payload("photo-caption"),
  appName: payload("application-name"),
  appDescription: payload("application-description"),
  appWebsite: "",
  pickedFileA: payload("picked-file-a", true) + ".gpx",
  pickedFileB: payload("picked-file-b", true) + ".gpx",
  archiveA: payload("archive-a", true) + ".zip",
  archiveB: payload("archive-b", true) + ".zip",
  archivedFileA: payload("file-in-archive-a", true) + ".gpx",
  archivedFileB: payload("file-in-archive-b", true) + ".gpx",
};
// The website must be an http(s) address without spaces (the form checks it).
P.appWebsite = `https://site.example/?X${++count}"><svg/data-xss="X${count}"/onload="window.__xss='X${count}'">`;
fields.set(`X${count}`, "application-website");

let server: DenoServer;
let browser: Browser;

interface Athlete {
  email: string;
  id: number;
  token: string;
  web: WebClient;
  context: BrowserContext;
  page: Page;
  name: string;
  role: "author" | "other athlete";
}

async function register(role: Athlete["role"], firstname: string, lastname: string): Promise<Athlete> {
  const email = freshEmail("markup");
  const web = new WebClient(server.url);
  const form = await web.get("/register");
  const res = await web.post("/register", {
    _csrf: WebClient.csrf(form.text),
    firstname,
    lastname,
    email,
    password: PASSWORD,
  });
  expect(res.status, `sign-up: ${res.text.slice(0, 300)}`).toBe(303);
  const home = await web.get("/");
  const token = /<meta name="api-token" content="([^"]+)"/.exec(home.text)?.[1];
  expect(token).toBeTruthy();
  const me = await call(token!, "GET", "/athlete");
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener(
      "securitypolicyviolation",
      (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`),
    );
  });
  const page = await context.newPage();
  await page.goto(`${server.url}/login`);
  await page.fill("#email", email);
  await page.fill("#password", PASSWORD);
  await Promise.all([page.waitForURL(`${server.url}/`), page.click("button[type=submit]")]);
  return { email, id: me.id, token: token!, web, context, page, name: `${firstname} ${lastname}`, role };
}

async function call(
  token: string,
  method: string,
  path: string,
  body?: Record<string, unknown> | FormData,
): Promise<any> {
  const res = await fetch(new URL(`/v3${path}`, server.url), {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body && !(body instanceof FormData) ? { "content-type": "application/json" } : {}),
    },
    body: body instanceof FormData ? body : body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

function tinyJpeg(): Uint8Array<ArrayBuffer> {
  const width = 16, height = 16, data = Buffer.alloc(width * height * 4, 200);
  return new Uint8Array(jpeg.encode({ width, height, data }, 80).data);
}

function zipOf(entries: Record<string, string>): Promise<Uint8Array<ArrayBuffer>> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    zip.outputStream.on("error", reject);
  });
}

/**
 * Posts a Strava-layout archive through the import form (CSRF field first) whose activities.csv
 * names a recording `inner` the archive lacks (so the run lists it as failed), waits for the run to
 * end (a running one's page refreshes itself) and answers the run's page path.
 */
async function importArchive(who: Athlete, fileName: string, inner: string): Promise<string> {
  const form = await who.web.get("/settings/import");
  const body = new FormData();
  body.set("_csrf", WebClient.csrf(form.text));
  const csv =
    `Activity ID,Activity Date,Activity Name,Activity Type,Filename\n1,"Mar 1, 2026, 6:00:00 AM",Ride,Ride,activities/${inner}\n`;
  body.set("file", new Blob([await zipOf({ "activities.csv": csv })], { type: "application/zip" }), fileName);
  // The form's own action (it may carry the CSRF token in its address too).
  const action = /<form method="post" action="([^"]+)" enctype="multipart\/form-data"/.exec(form.text)?.[1].replaceAll(
    "&amp;",
    "&",
  ) ?? "/settings/import";
  const res = await fetch(new URL(action, server.url), {
    method: "POST",
    headers: { cookie: cookieHeader(who.web), accept: "text/html" },
    body,
    redirect: "manual",
  });
  expect(res.status, await res.clone().text()).toBe(303);
  const path = new URL(res.headers.get("location")!, server.url).pathname;
  for (let i = 0; i < 300; i++) {
    const page = await who.web.get(path);
    if (!page.headers.get("refresh")) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return path;
}

let visits = 0;
const checked: string[] = [];

/** What the page must show (as text) and, optionally, a step before the checks (open tooltips, pick files). */
interface Expect {
  text: string[];
  title?: string;
  act?: (page: Page) => Promise<void>;
}

/** Opens `path` as `who` and checks the page: every expected payload is text, none is markup. */
async function visit(who: Athlete, label: string, path: string, want: Expect): Promise<void> {
  const { page } = who;
  const dialogs: string[] = [];
  const onDialog = (d: import("playwright-core").Dialog) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  };
  page.on("dialog", onDialog);
  const navigations: string[] = [];
  // A document request of the page's frame (a meta refresh, a link followed); history.replaceState is none.
  const onNav = (request: import("playwright-core").Request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigations.push(request.url());
  };
  try {
    const res = await page.goto(`${server.url}${path}`);
    expect(res?.status(), `${label} as the ${who.role}`).toBeLessThan(400);
    const opened = new URL(page.url()).pathname;
    page.on("request", onNav);
    await page.waitForFunction(
      (texts) => texts.every((t) => (document.querySelector("main") ?? document.body).innerText.includes(t)),
      want.text,
      { timeout: 30_000 },
    )
      .catch(() => {});
    if (want.act) await want.act(page);
    await page.waitForTimeout(800); // a meta refresh of 0 s fires well within this
    const seen = await page.evaluate((texts) => {
      const w = window as unknown as { __xss?: unknown; __csp?: string[] };
      const injected = [...document.querySelectorAll("*")].filter((el) =>
        el.hasAttribute("data-xss") ||
        [...el.attributes].some((a) => /^on/i.test(a.name)) ||
        (el.tagName === "META" && el.hasAttribute("http-equiv")) ||
        (el.tagName === "IMG" && el.getAttribute("src") === "x") ||
        (el.tagName === "SCRIPT" && !el.hasAttribute("src") && el.getAttribute("type") !== "application/json")
      ).map((el) => el.outerHTML.slice(0, 160));
      return {
        xss: w.__xss ?? null,
        csp: w.__csp ?? [],
        injected,
        missing: texts.filter((t) => !(document.querySelector("main") ?? document.body).innerText.includes(t)),
        title: document.title,
      };
    }, want.text);
    const where = `${label} (${path.slice(0, 60)}) as the ${who.role}`;
    expect(seen.injected, `${where}: elements made of user text`).toEqual([]);
    expect(seen.xss, `${where}: window.__xss`).toBeNull();
    expect(seen.csp, `${where}: CSP violations`).toEqual([]);
    expect(dialogs, `${where}: dialogs`).toEqual([]);
    expect(navigations, `${where}: navigations`).toEqual([]);
    expect(new URL(page.url()).pathname, `${where}: still on the page`).toBe(opened);
    expect(seen.missing, `${where}: payloads not shown as text`).toEqual([]);
    if (want.title) expect(seen.title, `${where}: title`).toBe(`${want.title} · Fitness Platform`);
    visits++;
    checked.push(where);
  } finally {
    page.off("dialog", onDialog);
    page.off("request", onNav);
  }
}

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("markup in user text reaches every page as text (issue 29 item 4)", () => {
  let a: Athlete, b: Athlete;
  let activityId = 0, segmentId = 0, routeId = 0, clubId = 0, appId = 0, challengeId = 0;
  let bounds = "";

  it("puts markup into every user-controlled field over HTTP", async () => {
    a = await register("author", P.aFirst, P.aLast);
    b = await register("other athlete", P.bFirst, P.bLast);

    // The activity: file name, external id, name and description of an upload.
    const upload = new FormData();
    upload.set("file", new Blob([readFileSync(RIDE)]), `${P.uploadFile}.gpx`);
    upload.set("data_type", "gpx");
    upload.set("name", P.activityName);
    upload.set("description", P.activityDescription);
    upload.set("external_id", P.externalId);
    const started = await call(a.token, "POST", "/uploads", upload);
    for (let i = 0; i < 600 && !activityId; i++) {
      const status = await call(a.token, "GET", `/uploads/${started.id}`);
      if (status.error) throw new Error(status.error);
      activityId = status.activity_id ?? 0;
      if (!activityId) await new Promise((r) => setTimeout(r, 200));
    }
    expect(activityId).toBeGreaterThan(0);

    const gear = await call(a.token, "POST", "/gear", { kind: "bike", name: P.gearName, brand_name: P.gearBrand });
    await call(a.token, "PUT", `/activities/${activityId}`, { gear_id: gear.id });
    const photo = new FormData();
    photo.set("file", new Blob([tinyJpeg()], { type: "image/jpeg" }), "photo.jpg");
    photo.set("caption", P.caption);
    await call(a.token, "POST", `/activities/${activityId}/photos`, photo);

    const segment = await call(a.token, "POST", "/segments", {
      name: P.segmentName,
      activity_id: activityId,
      start_index: 1000,
      end_index: 1600,
    });
    segmentId = segment.id;
    // A second one (another kind of payload), so the explore map has two tooltips of markup.
    const second = await call(a.token, "POST", "/segments", {
      name: P.segmentName2,
      activity_id: activityId,
      start_index: 2000,
      end_index: 2600,
    });
    const ends: [number, number][] = [segment.start_latlng, segment.end_latlng, second.start_latlng, second.end_latlng];
    const lats = ends.map((p) => p[0]), lngs = ends.map((p) => p[1]);
    bounds = [Math.min(...lats) - 0.01, Math.min(...lngs) - 0.01, Math.max(...lats) + 0.01, Math.max(...lngs) + 0.01]
      .map((v) => v.toFixed(5)).join(",");
    routeId = (await call(a.token, "POST", "/routes", {
      activity_id: activityId,
      name: P.routeName,
      description: P.routeDescription,
    })).id;
    clubId =
      (await call(a.token, "POST", "/clubs", { name: P.clubName, description: P.clubDescription, city: P.clubCity }))
        .id;

    // The other athlete follows, joins the club, comments and gives kudos.
    await call(b.token, "PUT", `/athletes/${a.id}/follow`);
    await call(b.token, "POST", `/clubs/${clubId}/join`);
    await call(b.token, "POST", `/activities/${activityId}/comments`, { text: P.comment });
    await call(b.token, "POST", `/activities/${activityId}/kudos`);

    // The demo's challenge of this month: both join, the author rides 12 km today (her name on its board).
    for (let id = 1; id <= 5 && !challengeId; id++) {
      const c = await call(a.token, "GET", `/challenges/${id}`).catch(() => null);
      if (c?.dimension === "distance") challengeId = id;
    }
    expect(challengeId).toBeGreaterThan(0);
    for (const who of [a, b]) await call(who.token, "POST", `/challenges/${challengeId}/athletes`).catch(() => null);
    const today = new Date().toISOString().slice(0, 10);
    await call(a.token, "POST", "/activities", {
      name: "Morning ride",
      type: "Ride",
      start_date_local: `${today}T06:00:00Z`,
      elapsed_time: 1800,
      distance: 12_000,
    });

    // An API application (name, website, description) through its form; both athletes authorize it.
    const form = await a.web.get("/settings/api");
    const created = await a.web.post("/settings/api", {
      _csrf: WebClient.csrf(form.text),
      name: P.appName,
      website: P.appWebsite,
      description: P.appDescription,
      callback_domain: "localhost",
    });
    expect(created.status, created.text.slice(0, 300)).toBe(303);
    appId = Number(/id="client-id">(\d+)</.exec((await a.web.get("/settings/api")).text)?.[1]);
    expect(appId).toBeGreaterThan(0);
    for (const who of [a, b]) {
      const back = await who.web.authorize({
        client_id: String(appId),
        redirect_uri: "http://localhost/cb",
        response_type: "code",
        scope: "read",
        approval_prompt: "force",
      });
      expect(back.searchParams.get("code")).toBeTruthy();
    }
  }, 300_000);

  it("shows each as text on every page, to the author and to another athlete", async () => {
    const names = () => [a.name, b.name];
    const pages: [string, string, (me: Athlete) => Expect][] = [
      ["feed", "/", (me) => ({ text: [P.activityName, P.clubName, ...(me === b ? [a.name] : [])] })],
      ["activity", `/activities/${activityId}`, (me) => ({
        title: P.activityName,
        text: [P.activityName, P.comment, b.name, ...(me === a ? [P.activityDescription, P.gearName] : [a.name])],
        // The owner's edit form holds the texts as values (attributes and a textarea's text).
        act: me === a
          ? async (page) => {
            await page.waitForSelector("#edit-form");
            expect(await page.inputValue("#edit-name")).toBe(P.activityName);
            expect(await page.inputValue("#edit-description")).toBe(P.activityDescription);
            expect(await page.locator("#edit-gear option:checked").innerText()).toBe(P.gearName);
          }
          : undefined,
      })],
      ["athlete profile (author)", `/athletes/${a.id}`, () => ({ title: a.name, text: [a.name, P.activityName] })],
      ["athlete profile (other)", `/athletes/${b.id}`, () => ({ title: b.name, text: [b.name] })],
      ["segments explore", `/segments?bounds=${bounds}`, () => ({
        text: [P.segmentName, P.segmentName2],
        act: async (page) => {
          // Points at each line of the map: its tooltip opens and must hold the name as text.
          await page.waitForSelector("#map path.leaflet-interactive");
          const paths = page.locator("#map path.leaflet-interactive");
          const n = await paths.count();
          expect(n).toBeGreaterThan(0);
          const tooltips = new Set<string>();
          // Several points along each line (lines may cross), until every line's tooltip was seen.
          for (let i = 0; i < n; i++) {
            for (const at of [0.5, 0.25, 0.75, 0.1, 0.9]) {
              const point = await paths.nth(i).evaluate((el, f) => {
                const path = el as SVGPathElement;
                const p = path.getPointAtLength(path.getTotalLength() * f).matrixTransform(path.getScreenCTM()!);
                return { x: p.x, y: p.y };
              }, at).catch(() => null);
              if (!point) break;
              await page.mouse.move(point.x, point.y);
              // Markup in a tooltip may navigate away at once: the checks after this step say so.
              const tip = await page.waitForSelector(".leaflet-tooltip", { timeout: 3_000 }).catch(() => null);
              const text = await tip?.innerText().catch(() => null);
              await page.mouse.move(5, 5).catch(() => {});
              await page.waitForSelector(".leaflet-tooltip", { state: "detached", timeout: 3_000 }).catch(() => {});
              if (text && !tooltips.has(text)) {
                tooltips.add(text);
                break;
              }
            }
          }
          if (new URL(page.url()).pathname === "/segments") {
            expect([...tooltips]).toEqual(expect.arrayContaining([P.segmentName, P.segmentName2]));
          }
        },
      })],
      ["segment", `/segments/${segmentId}`, () => ({
        title: P.segmentName,
        text: [P.segmentName],
        act: async (page) => {
          await page.waitForSelector("#f-club_id");
          expect(await page.locator("#f-club_id option").allInnerTexts()).toContain(P.clubName);
        },
      })],
      ["route", `/routes/${routeId}`, () => ({ title: P.routeName, text: [P.routeName, P.routeDescription] })],
      [
        "club",
        `/clubs/${clubId}`,
        () => ({ title: P.clubName, text: [P.clubName, P.clubDescription, P.clubCity, ...names(), P.activityName] }),
      ],
      ["challenge", `/challenges/${challengeId}`, () => ({ text: [a.name] })],
      ["settings", "/settings", (me) => ({ text: me === a ? [a.name, P.gearName] : [b.name] })],
      [
        "consent",
        `/oauth/authorize?client_id=${appId}&redirect_uri=http://localhost/cb&response_type=code&scope=read&approval_prompt=force`,
        (me) => ({ text: [P.appName, P.appWebsite, P.appDescription, me.name] }),
      ],
      ["my apps", "/settings/apps", () => ({ text: [P.appName, P.appWebsite] })],
      ["upload (picked file)", "/upload", (me) => {
        const name = me === a ? P.pickedFileA : P.pickedFileB;
        return {
          text: [],
          act: async (page) => {
            await page.setInputFiles("#files", {
              name,
              mimeType: "application/gpx+xml",
              buffer: Buffer.from("not a gpx"),
            });
            await page.waitForFunction(
              (t) => (document.querySelector("main") ?? document.body).innerText.includes(t),
              name,
              { timeout: 10_000 },
            );
            await page.waitForSelector("#uploads li[data-state]", { timeout: 30_000 });
            expect(await page.locator("#uploads li .name").innerText()).toBe(name);
          },
        };
      }],
    ];
    for (const [label, path, expected] of pages) {
      for (const who of [a, b]) await visit(who, label, path, expected(who));
    }
    // The author alone sees the application's own page; each athlete sees her own archive imports.
    await visit(a, "my API application", "/settings/api", { text: [P.appName, P.appWebsite, P.appDescription] });
    for (const [who, archive, inner] of [[a, P.archiveA, P.archivedFileA], [b, P.archiveB, P.archivedFileB]] as const) {
      const run = await importArchive(who, archive, inner);
      await visit(who, "import run", run, { text: [archive, `activities/${inner}`] });
      await visit(who, "imports", "/settings/import", { text: [archive] });
    }
    console.log(`payload tags: ${[...fields].map(([t, f]) => `${t} ${f}`).join(", ")}`);
    console.log(
      `markup in user text: ${visits} pages × viewers checked (${Object.keys(P).length} fields with markup):\n  ${
        checked.join("\n  ")
      }`,
    );
    expect(visits).toBe(pages.length * 2 + 5);
  }, 600_000);
});
