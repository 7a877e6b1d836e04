// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { type Api, api } from "../helpers/http.ts";
import { garminArchiveEntries, stravaArchiveEntries, writeZip } from "./archives.ts";

/**
 * The /settings/import page in Chromium and the POST /v3/athlete/imports extension, against the
 * real server (Deno, PGlite on disk). Screenshots go to tests/artifacts/archive/ (git-ignored).
 */
const ARTIFACTS = join(import.meta.dirname!, "..", "artifacts", "archive");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const dir = mkdtempSync(join(tmpdir(), "archive-web-"));
const dataDir = join(dir, "data");
let server: DenoServer;
let browser: Browser | undefined;
let call: Api;
let athleteId: number;
let token: string;
let readToken: string;
const email = "kopecky@example.com";
const password = "flandrien-2022";

beforeAll(async () => {
  const env = { DATA_DIR: dataDir };
  const athlete = await runCli([
    "athlete",
    "create",
    "--firstname",
    "Lotte",
    "--lastname",
    "Kopecky",
    "--email",
    email,
    "--password",
    password,
    "--json",
  ], env);
  athleteId = JSON.parse(athlete.stdout).id;
  const app = JSON.parse(
    (await runCli([
      "app",
      "create",
      "--name",
      "Checker",
      "--callback-domain",
      "example.com",
      "--owner",
      String(athleteId),
      "--json",
    ], env)).stdout,
  );
  token = JSON.parse(
    (await runCli([
      "token",
      "issue",
      "--athlete",
      String(athleteId),
      "--client-id",
      String(app.client_id),
      "--scope",
      "read_all,activity:read_all,profile:read_all,view_private,write",
      "--json",
    ], env)).stdout,
  ).access_token;
  readToken = JSON.parse(
    (await runCli([
      "token",
      "issue",
      "--athlete",
      String(athleteId),
      "--client-id",
      String(app.client_id),
      "--scope",
      "read",
      "--json",
    ], env)).stdout,
  ).access_token;
  server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
  call = api(server.url);
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}, 480_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function untilFinished(id: string, bearer = token) {
  for (;;) {
    const status = await call("GET", `/v3/athlete/imports/${id}`, { token: bearer });
    expect(status.status).toBe(200);
    if (status.body.status !== "running") return status.body;
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe("/settings/import in a real browser", () => {
  it("uploads a Strava export through the form and shows the import's progress and outcome", async () => {
    const file = join(dir, "export_12345.zip");
    await writeZip(file, stravaArchiveEntries().entries);
    const page = await browser!.newPage();
    await page.goto(`${server.url}/settings/import`);
    // Signed out: sent to the sign-in page, then back.
    expect(page.url()).toContain("/login");
    await page.fill("#email", email);
    await page.fill("#password", password);
    await Promise.all([page.waitForURL(/\/settings\/import$/), page.click("button[type=submit]")]);
    await page.screenshot({ path: join(ARTIFACTS, "import-form.png"), fullPage: true });
    expect(await page.textContent("h1")).toBe("Import your history");
    await page.setInputFiles("#file", file);
    await Promise.all([
      page.waitForURL(/\/settings\/import\/[0-9a-f]{16}$/),
      page.click("form[enctype] button[type=submit]"),
    ]);
    await page.screenshot({ path: join(ARTIFACTS, "import-running.png"), fullPage: true });
    // The page refreshes itself until the import is done.
    await page.waitForSelector("text=Import finished", { timeout: 240_000 });
    await page.screenshot({ path: join(ARTIFACTS, "import-done.png"), fullPage: true });
    expect(await page.textContent("#imported")).toBe("7");
    expect(await page.textContent("#failed")).toBe("1");
    expect(await page.textContent("#failures")).toContain("activities/108.gpx");
    expect(await page.getAttribute("#progress", "value")).toBe("8");

    const list = await call("GET", "/v3/athlete/activities", { token, query: { per_page: 50 } });
    expect(list.body.map((a: any) => a.name).sort()).toEqual(
      ["Export run", "Forerunner run", "Gym", "Morning ride with photo", "Versa ride", "Watch run", "Zwift session"],
    );
    const ride = list.body.find((a: any) => a.name === "Morning ride with photo");
    const photos = await call("GET", `/v3/activities/${ride.id}/photos`, { token, query: { photo_sources: "true" } });
    expect(photos.body).toHaveLength(1);

    // Signed in, but a form without its CSRF token: refused before the archive is written.
    const forged = await page.request.post(`${server.url}/settings/import`, {
      multipart: { file: { name: "export.zip", mimeType: "application/zip", buffer: readFileSync(file) } },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain("security token");
    await page.close();
  }, 300_000);
});

describe("POST /v3/athlete/imports (extension)", () => {
  it("imports a Garmin export sent as multipart and reports it at GET /v3/athlete/imports/:id", async () => {
    const file = join(dir, "garmin.zip");
    await writeZip(file, await garminArchiveEntries());
    const form = new FormData();
    form.set("file", new Blob([readFileSync(file)], { type: "application/zip" }), "garmin.zip");
    const started = await call("POST", "/v3/athlete/imports", { token, multipart: form });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: "running", file_name: "garmin.zip" });
    const done = await untilFinished(started.body.id);
    expect(done).toMatchObject({
      status: "done",
      layout: "garmin",
      imported: 2,
      duplicates: 0,
      skipped: 1,
      failed: [],
    });
    // A read-only token of the athlete may read the status but not import.
    const other = await call("GET", `/v3/athlete/imports/${started.body.id}`, { token: readToken });
    expect(other.status).toBe(200);
    const refused = await call("POST", "/v3/athlete/imports", { token: readToken, multipart: form });
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0]).toMatchObject({
      resource: "AccessToken",
      field: "write_permission",
      code: "missing",
    });
  }, 300_000);

  it("takes a raw application/zip body; the same archive again adds nothing", async () => {
    const res = await fetch(`${server.url}/v3/athlete/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
      body: readFileSync(join(dir, "export_12345.zip")),
    });
    expect(res.status).toBe(202);
    const done = await untilFinished((await res.json()).id);
    expect(done).toMatchObject({ status: "done", layout: "strava", imported: 0, duplicates: 7 });
    const list = await call("GET", "/v3/athlete/activities", { token, query: { per_page: 50 } });
    expect(list.body).toHaveLength(9);
  }, 300_000);

  it("answers a refused archive with the reason and imports nothing", async () => {
    const notZip = join(dir, "not.zip");
    writeFileSync(notZip, "hello");
    const form = new FormData();
    form.set("file", new Blob([readFileSync(notZip)]), "not.zip");
    const started = await call("POST", "/v3/athlete/imports", { token, multipart: form });
    expect(started.status).toBe(202);
    const done = await untilFinished(started.body.id);
    expect(done.status).toBe("refused");
    expect(done.error).toMatch(/not a zip archive/);
    const empty = await call("POST", "/v3/athlete/imports", { token, multipart: new FormData() });
    expect(empty.status).toBe(400);
    const unknown = await call("GET", "/v3/athlete/imports/0123456789abcdef", { token });
    expect(unknown.status).toBe(404);
  }, 120_000);
});
