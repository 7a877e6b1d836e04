/**
 * The companion's window page rendered in Chromium (playwright-core), driven by the real core, which
 * uploads to the real server. Screenshots go to tests/artifacts/companion/ (git-ignored).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Companion } from "../../desktop/core/companion.ts";
import { FileTokenStore, OAuthSession } from "../../desktop/core/oauth.ts";
import { startUiServer } from "../../desktop/core/ui-server.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { DEVICES } from "../helpers/fixtures.ts";

const FIT = join(DEVICES, "fit");
const BROKEN = join(DEVICES, "broken");
const ARTIFACTS = join(import.meta.dirname!, "..", "artifacts", "companion");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const root = mkdtempSync(join(tmpdir(), "companion-ui-"));
let server: TestServer;
let browser: Browser;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  [server, browser] = await Promise.all([
    startTestServer(),
    chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS }),
  ]);
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await browser?.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("the companion window", () => {
  it("shows the device, the queue with each file's status, activity links, errors, and adds a folder", async () => {
    const athlete = await server.athlete();
    const media = join(root, "media");
    const activities = join(media, "EDGE530", "Garmin", "Activity");
    mkdirSync(activities, { recursive: true });
    copyFileSync(
      join(FIT, "garmin-edge530-indoor-cycling-power-hrv-laps.fit"),
      join(activities, "2024-06-01-08-00-00.fit"),
    );
    copyFileSync(
      join(BROKEN, "strava-android-app-truncated-datasize.fit"),
      join(activities, "2024-06-02-08-00-00.fit"),
    );
    const drop = join(root, "wahoo-exports");
    mkdirSync(drop, { recursive: true });
    copyFileSync(join(FIT, "wahoo-elemnt-cycling-power-hr-pauses.fit"), join(drop, "wahoo-ride.fit"));

    const stateDir = join(root, "state");
    const store = new FileTokenStore(join(stateDir, "token.json"));
    store.save({
      server: server.url,
      client_id: String(athlete.applicationId),
      access_token: athlete.token,
      athlete: { firstname: "Ann", lastname: "Rider" },
    });
    const companion = new Companion({
      server: server.url,
      tokens: new OAuthSession(store),
      stateDir,
      volumeRoots: [media],
    });
    await companion.start();
    closers.push(() => companion.stop());
    const ui = await startUiServer({ companion, stateDir, tokenStore: store });
    closers.push(() => ui.close());

    const withoutKey = await fetch(ui.url.replace(/\?key=.*/, ""));
    expect(withoutKey.status).toBe(403);
    const apiWithoutKey = await fetch(new URL("/api/state", ui.url));
    expect(apiWithoutKey.status).toBe(403);

    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await page.goto(ui.url);
    await expect.poll(() => page.locator("li.device").first().textContent()).toContain("EDGE530");
    expect(await page.locator("#who").textContent()).toContain("Signed in as Ann Rider");

    const good = page.locator('tr.file[data-name="2024-06-01-08-00-00.fit"]');
    const broken = page.locator('tr.file[data-name="2024-06-02-08-00-00.fit"]');
    await expect.poll(() => good.getAttribute("data-status"), { timeout: 90_000 }).toBe("ready");
    await expect.poll(() => broken.getAttribute("data-status"), { timeout: 90_000 }).toBe("error");
    const link = good.locator("a.activity");
    const activityId = (await link.textContent())!.replace(/\D/g, "");
    expect(await link.getAttribute("href")).toBe(`${server.url}/activities/${activityId}`);
    expect((await server.api("GET", `/v3/activities/${activityId}`, { token: athlete.token })).status).toBe(200);
    expect(await broken.locator(".msg.bad").textContent()).not.toBe("");
    expect(await broken.locator(".status").textContent()).toBe("Failed");

    // Settings: add a folder by typing its path.
    await page.fill("#folder", drop);
    await page.click("#folder-form button:not([type])");
    await expect.poll(() => page.locator('li.device[data-kind="folder"]').textContent()).toContain(drop);
    const wahoo = page.locator('tr.file[data-name="wahoo-ride.fit"]');
    await expect.poll(() => wahoo.getAttribute("data-status"), { timeout: 90_000 }).toBe("ready");
    expect(await page.locator("#folders li.folder").textContent()).toContain(drop);
    expect(await page.locator("#count-ready").textContent()).toContain("2");
    await page.screenshot({ path: join(ARTIFACTS, "window.png"), fullPage: true });
    await page.close();
  });

  it("says in plain words when the server's rate limit is reached and until when", async () => {
    // The real server's short window is 15 minutes; a stand-in answers 429 so the wait shows now.
    const limited: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(429, {
        "content-type": "application/json",
        "x-ratelimit-limit": "600,30000",
        "x-ratelimit-usage": "612,4000",
      })
        .end(
          JSON.stringify({
            message: "Rate Limit Exceeded",
            errors: [{ resource: "Application", field: "rate limit", code: "exceeded" }],
          }),
        );
    });
    await new Promise<void>((r) => limited.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => limited.close(r)));
    const folder = join(root, "drop-limited");
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(FIT, "zwift-virtual-cycling-power.fit"), join(folder, "zwift.fit"));
    const stateDir = join(root, "state-limited");
    const store = new FileTokenStore(join(stateDir, "token.json"));
    const url = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`;
    store.save({ server: url, client_id: "1", access_token: "t" });
    const companion = new Companion({
      server: url,
      tokens: new OAuthSession(store),
      stateDir,
      folders: [folder],
      volumeRoots: [],
    });
    await companion.start();
    closers.push(() => companion.stop());
    const ui = await startUiServer({ companion, stateDir, tokenStore: store });
    closers.push(() => ui.close());
    const page = await browser.newPage({ viewport: { width: 1100, height: 600 } });
    await page.goto(ui.url);
    await expect.poll(() => page.locator("#rate-limit").count(), { timeout: 30_000 }).toBe(1);
    expect(await page.locator("#rate-limit").textContent()).toMatch(
      /rate limit was reached\. Uploads wait until .+, when its window resets\./,
    );
    expect(await page.locator('tr.file[data-name="zwift.fit"]').getAttribute("data-status")).toBe("queued");
    await page.screenshot({ path: join(ARTIFACTS, "rate-limited.png"), fullPage: true });
    await page.close();
  });
});
