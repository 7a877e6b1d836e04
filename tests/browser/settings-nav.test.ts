import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshots, seriousAxeViolations, type SignedIn, signIn } from "../helpers/browser.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";

/**
 * Issue 33: the settings sub-pages (server-rendered, server/web/layout.tsx) show the app's main
 * navigation — the same entries as the feed, Settings current — and keep their CSP (no console
 * error, no serious axe violation, at 1280 and 390 px).
 */

let server: DenoServer;
let browser: Browser;
let ada: SignedIn;

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  ada = await signIn(browser, server.url, "ada@example.com");
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The main navigation's entries (label → href) and the current one. */
const navOf = (page: Page) =>
  page.evaluate(() => ({
    entries: [...document.querySelectorAll('header nav[aria-label="Main"] a')].map((a) =>
      `${a.textContent} ${a.getAttribute("href")}`
    ),
    current: document.querySelector('header nav[aria-label="Main"] a[aria-current="page"]')?.textContent ?? null,
    font: getComputedStyle(document.querySelector('header nav[aria-label="Main"] a')!).fontWeight,
    background: getComputedStyle(document.querySelector("header")!).backgroundColor,
  }));

describe("the settings pages' navigation", () => {
  it("equals the feed's, with Settings current", async () => {
    const { page, errors } = ada;
    await page.goto(`${server.url}/`);
    const feed = await navOf(page);
    expect(feed.entries.length).toBe(10);
    expect(feed.current).toBe("Feed");
    const settings = await page.goto(`${server.url}/settings`).then(() => navOf(page));
    expect(settings.entries).toEqual(feed.entries);
    expect(settings.current).toBe("Settings");
    for (const path of ["/settings/apps", "/settings/api", "/settings/account", "/settings/import"]) {
      const response = await page.goto(`${server.url}${path}`);
      expect(response!.status()).toBe(200);
      expect(response!.headers()["content-security-policy"]).toContain("default-src 'none'");
      const nav = await navOf(page);
      expect(nav.entries, path).toEqual(feed.entries);
      expect(nav.current, path).toBe("Settings");
      expect(nav.font).toBe(feed.font);
      expect(nav.background).toBe(feed.background);
      expect(await seriousAxeViolations(page), path).toEqual([]);
      const name = path.slice(1).replace("/", "-");
      await screenshots(page, `nav-${name}`);
      await page.setViewportSize({ width: 390, height: 844 });
      // One row that scrolls sideways on a phone, as on the app's pages; nothing wider than the screen.
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        path,
      ).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page), `${path} at 390 px`).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    // The links on the sub-pages work: Feed goes back to the feed.
    await Promise.all([page.waitForURL(`${server.url}/`), page.click('header nav a:text-is("Feed")')]);
    expect(errors).toEqual([]);
  }, 120_000);
});
