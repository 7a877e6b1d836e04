import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, ROOT, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Routes in the web app (issue #19), in Debian's chromium against the server as `npm start` runs it
 * (offline: the base map's tiles fail, the route still shows): an athlete makes a route of her
 * activity from its page, sees it (map, summary, profile), downloads the GPX, and the page passes
 * axe-core (no serious or critical violation). Screenshots go to docs/screens/route-*.png.
 */
const SCREENS = join(ROOT, "docs", "screens");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const RIDE = deviceFile("gpx/strava-export-cycling-power-hr-cad-atemp.gpx");

let server: DenoServer;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    // deno-lint-ignore no-explicit-any
    return r.violations.filter((v: any) => v.impact === "serious" || v.impact === "critical").map((v: any) =>
      `${v.id} (${v.impact})`
    );
  });
}

describe("routes in the web app", () => {
  it("makes a route of one's activity, shows it and downloads its GPX", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error" && !(m.location().url ?? "").includes("tile.openstreetmap.org")) errors.push(m.text());
    });
    await page.goto(`${server.url}/login`);
    await page.fill("#email", "ada@example.com");
    await page.fill("#password", "demo-password");
    await Promise.all([page.waitForURL(`${server.url}/`), page.click("button[type=submit]")]);

    // The ride, uploaded with the page's own session token (the upload page is tested elsewhere).
    const gpx = readFileSync(RIDE, "utf8");
    // A string, so the test runner does not rewrite the dynamic import of the page's own module.
    const activityId: number = await page.evaluate(`(async () => {
      const app = await import("/app/assets/app.js");
      const form = new FormData();
      form.set("file", new Blob([${JSON.stringify(gpx)}]), "ride.gpx");
      form.set("data_type", "gpx");
      const upload = await app.api("/uploads", { method: "POST", form });
      for (let i = 0; i < 1200; i++) {
        const status = await app.api("/uploads/" + upload.id);
        if (status.activity_id) return status.activity_id;
        if (status.error) throw new Error(status.error);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("upload did not finish");
    })()`);

    await page.goto(`${server.url}/activities/${activityId}`);
    await page.waitForSelector("#make-route");
    await Promise.all([page.waitForURL(/\/routes\/\d+$/), page.click("#make-route")]);
    await page.waitForFunction(
      () => (window as unknown as { appState?: { route?: unknown } }).appState?.route === true,
      null,
      { timeout: 60_000 },
    );
    const routeId = Number(new URL(page.url()).pathname.split("/").pop());
    const res: { name: string; distance: number } = await page.evaluate(
      `import("/app/assets/app.js").then((app) => app.api("/routes/${routeId}"))`,
    );
    expect(await page.textContent("#title")).toBe(res.name);
    expect(await page.textContent("#summary")).toContain(`${(res.distance / 1000).toFixed(1)} km`);
    expect(await page.locator("#map path.leaflet-interactive").count()).toBe(1);
    expect(await page.locator("#profile canvas").count()).toBeGreaterThan(0);
    expect(await page.locator("#delete-route").count()).toBe(1);

    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-gpx")]);
    const file = readFileSync((await download.path())!, "utf8");
    expect(download.suggestedFilename()).toMatch(/\.gpx$/);
    expect(file).toContain('<gpx version="1.1"');
    expect((file.match(/<trkpt /g) ?? []).length).toBeGreaterThan(1000);

    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENS, "route-desktop.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENS, "route-phone.png"), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 300_000);
});
