import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appState, launchChromium, screenshots, signIn } from "../helpers/browser.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";

/**
 * Issue 33, defect 2: all athletes' pages share one API application ("Web app"); it was capped at
 * 600 requests per 15 minutes for everyone, so one busy athlete locked every other one out, and the
 * page said "You are not allowed to do that." for the rate limit's 403. Now the web app's budget is
 * per athlete (ATHLETE_RATE_LIMIT_SHORT, small here so that it is reached at once) and the page says
 * "Too many requests, try again in N s" with N from the response.
 */
const BUDGET = 40;
const QUARTER = 15 * 60_000;

let server: DenoServer;
let browser: Browser;

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000, env: { ATHLETE_RATE_LIMIT_SHORT: String(BUDGET) } });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the web app's rate limit", () => {
  it("is per athlete: one athlete past the budget is told to wait N s, another's feed still loads", async () => {
    // The short window resets at :00, :15, :30, :45: start well inside one.
    const left = QUARTER - (Date.now() % QUARTER);
    if (left < 90_000) await new Promise((r) => setTimeout(r, left + 1_000));

    const ada = await signIn(browser, server.url, "ada@example.com", () => [/status of 403/]);
    await ada.page.waitForFunction(() => (window as unknown as { appState?: { totals?: boolean } }).appState?.totals);
    const token = (await ada.page.getAttribute('meta[name="api-token"]', "content"))!;
    expect(token).toBeTruthy();
    // Ada's budget, spent over HTTP with her pages' token.
    let refused: Response | undefined;
    for (let i = 0; i < BUDGET + 5 && !refused; i++) {
      const res = await fetch(`${server.url}/v3/athlete`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) refused = res;
      else await res.arrayBuffer();
    }
    expect(refused?.status).toBe(403);
    expect(await refused!.json()).toEqual({
      message: "Rate Limit Exceeded",
      errors: [{ resource: "Application", field: "rate limit", code: "exceeded" }],
    });
    expect(refused!.headers.get("x-ratelimit-limit")).toBe(`${BUDGET},30000`);
    const wait = Number(refused!.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(QUARTER / 1000);

    // Eddy, on the same "Web app" application, is not affected.
    const eddy = await signIn(browser, server.url, "eddy@example.com");
    await eddy.page.waitForFunction(() =>
      (window as unknown as { appState?: { totals?: boolean; feedPages?: number } }).appState?.totals
    );
    await eddy.page.waitForSelector("#clubs-title");
    await eddy.page.waitForFunction(() =>
      (window as unknown as { appState?: { feedPages?: number } }).appState?.feedPages !== undefined
    );
    expect(await appState(eddy.page, "feedPages")).toBe(1);
    expect(await eddy.page.textContent("#feed-status")).not.toMatch(/not allowed|too many/i);
    expect(await eddy.page.locator("main [role=alert]").count()).toBe(0);
    expect(eddy.errors).toEqual([]);

    // Ada's feed says how long to wait, with N from the response.
    await ada.page.reload();
    await ada.page.waitForFunction(
      () => /Too many requests/.test(document.getElementById("feed-status")?.textContent ?? ""),
      null,
      { timeout: 30_000 },
    );
    const said = (await ada.page.textContent("#feed-status"))!;
    const match = /^Too many requests, try again in (\d+) s\.$/.exec(said);
    expect(match, said).not.toBeNull();
    const now = await fetch(`${server.url}/v3/athlete`, { headers: { authorization: `Bearer ${token}` } });
    const expected = Number(now.headers.get("retry-after"));
    expect(Math.abs(Number(match![1]) - expected)).toBeLessThanOrEqual(5);
    expect(await ada.page.textContent("main")).not.toContain("You are not allowed");
    await screenshots(ada.page, "feed-rate-limited");
    // Only the refused requests (Chromium logs each 403) reached the console.
    expect(ada.errors).toEqual([]);
    await ada.context.close();
    await eddy.context.close();
  }, 240_000);
});
