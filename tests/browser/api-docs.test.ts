import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DropinServer, startDropinServer } from "../dropin/deno-server.ts";

/**
 * /docs in a real browser (Debian's chromium) on the server as `npm start` runs it: Swagger UI
 * (vendored from swagger-ui-dist) renders our /v3/openapi.json with every operation, its response
 * models by Strava's names, no console error and no request outside the server; the "Connect your
 * app" guide is linked from it. Screenshots: docs/screens/api-docs-desktop.png, api-connect-desktop.png.
 */
const SCREENS = join(import.meta.dirname!, "..", "..", "docs", "screens");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

let s: DropinServer;
let browser: Browser;
let base = "";

beforeAll(async () => {
  s = await startDropinServer(["Ann"]);
  base = s.server.url.replace(/\/$/, "");
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/** A page that records console errors, page errors and every request outside the server. */
async function watchedPage(width = 1280, height = 900) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems: string[] = [];
  const outside: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith("data:")) outside.push(r.url());
  });
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  return { page, problems, outside, close: () => context.close() };
}

async function operationCount(page: Page) {
  return await page.locator(".opblock").count();
}

describe("/docs: the API reference", () => {
  it(
    "lists every operation of the document, grouped by tag, with no console error and nothing from outside",
    async () => {
      const doc = await (await fetch(`${base}/v3/openapi.json`)).json();
      const ids: string[] = [];
      for (const item of Object.values(doc.paths) as Record<string, { operationId: string }>[]) {
        for (const m of ["get", "post", "put", "delete"]) if (item[m]) ids.push(item[m].operationId);
      }
      const { page, problems, outside, close } = await watchedPage(1280, 1400);
      const res = await page.goto(`${base}/docs`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
      await page.waitForFunction((n) => document.querySelectorAll(".opblock").length >= n, ids.length, {
        timeout: 60_000,
      });
      expect(await operationCount(page)).toBe(ids.length);
      // Operation ids are shown (displayOperationId): Strava's names.
      const text = await page.locator("#swagger-ui").innerText();
      for (
        const id of ["getLoggedInAthlete", "getActivityById", "createUpload", "getActivityStreams", "getStats", "token"]
      ) {
        expect(text, id).toContain(id);
      }
      for (
        const tag of doc.tags.map((t: { name: string }) => t.name).filter((name: string) =>
          ids.length && text.includes(name)
        )
      ) {
        expect(await page.locator(`.opblock-tag[data-tag="${tag}"]`).count(), tag).toBe(1);
      }
      expect(await page.locator(".opblock-tag").count()).toBeGreaterThanOrEqual(10);
      mkdirSync(SCREENS, { recursive: true });
      await page.screenshot({ path: join(SCREENS, "api-docs-desktop.png") });
      // An operation opens on its response, with the model's members.
      await page.locator("#operations-Athlete-getLoggedInAthlete .opblock-summary-control").click();
      await page.locator("#operations-Athlete-getLoggedInAthlete .responses-wrapper").waitFor();
      const athlete = await page.locator("#operations-Athlete-getLoggedInAthlete").innerText();
      expect(athlete).toContain("firstname");
      expect(athlete).toContain("200");
      // The guide is one click away.
      expect(await page.locator('a[href="/docs/connect"]').count()).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      expect(outside).toEqual([]);
      await close();
    },
    120_000,
  );

  it(
    "shows the Connect your app guide: register, authorize, exchange, refresh, call, with this server's URLs",
    async () => {
      const { page, problems, outside, close } = await watchedPage();
      const res = await page.goto(`${base}/docs/connect`);
      expect(res?.status()).toBe(200);
      const headings = await page.locator("main h2").allInnerTexts();
      expect(headings.slice(0, 5)).toEqual([
        "1. Register your application",
        "2. Send the athlete to authorize",
        "3. Exchange the code for tokens",
        "4. Refresh before it expires",
        "5. Call the API",
      ]);
      const text = await page.locator("main").innerText();
      expect(text).toContain(`${base}/oauth/authorize?client_id=`);
      expect(text).toContain(`${base}/oauth/token`);
      expect(text).toContain("grant_type=refresh_token");
      expect(text).toContain("activity:read_all");
      expect(await page.locator('main a[href="/settings/api"]').count()).toBe(1);
      await page.screenshot({ path: join(SCREENS, "api-connect-desktop.png"), fullPage: true });
      expect(problems).toEqual([]);
      expect(outside).toEqual([]);
      await close();
    },
    60_000,
  );

  it("is linked from the web app's settings", async () => {
    const res = await fetch(`${base}/app/assets/settings.js`);
    expect(res.status).toBe(200);
    const js = await res.text();
    expect(js.match(/href: "\/docs\/connect"/g)?.length).toBe(1);
  });
});
