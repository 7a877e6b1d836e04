import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import {
  appState,
  launchChromium,
  pageApi,
  screenshots,
  seriousAxeViolations,
  type SignedIn,
  signIn,
} from "../helpers/browser.ts";

/**
 * Gear care (issue #47 item 2) in Chromium against the server as `npm start` runs it: Ada opens her
 * bike from the settings, sets "Replace at" below its distance, and reads "Replace at 40 km" beside
 * its name on the gear page, on her ride's page and on her feed; "Retire" marks it "Retired", takes it
 * out of the gear picker of her other activities (the ride that names it keeps it, marked) and off the
 * feed's reminders. Screenshots at 1280 and 390 px (tests/artifacts/screens/gear-*), axe without
 * serious violations.
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

interface Gear {
  id: string;
  name: string;
  distance: number;
  retired: boolean;
  reminder_reached: boolean;
}

describe("gear care in the web app", () => {
  it("sets a reminder, shows 'Replace at …' where the bike appears, and retires it", async () => {
    const page = ada.page;
    const me = await pageApi<{ bikes: Gear[] }>(page, "/athlete");
    const bike = me.bikes[0];
    expect(bike.distance).toBeGreaterThan(40_000);
    const activities = await pageApi<{ id: number; gear_id: string | null; name: string }[]>(
      page,
      "/athlete/activities",
    );
    const ride = activities.find((a) => a.gear_id === bike.id)!;
    const other = activities.find((a) => !a.gear_id)!;

    await page.goto(`${server.url}/settings`);
    await page.waitForFunction(() => (window as unknown as { appState?: { settings?: boolean } }).appState?.settings);
    await Promise.all([
      page.waitForURL(`${server.url}/gear/${bike.id}`),
      page.click(`#gear a[href="/gear/${bike.id}"]`),
    ]);
    await page.waitForFunction(() => (window as unknown as { appState?: { gear?: boolean } }).appState?.gear);
    expect(await page.textContent("#gear-distance")).toBe(`${Math.round(bike.distance / 1000)} km`);
    expect(await page.locator("#gear-name .badge").count()).toBe(0);

    await page.getByLabel("Replace at (km)").fill("40");
    await page.click("#reminder-form button[type=submit]");
    await expect.poll(() => page.textContent("#reminder-status"), { timeout: 20_000 }).toBe("Reminder saved.");
    // Said beside its own button, not in the Retire card.
    expect(await page.textContent("#gear-status")).toBe("");
    expect(await page.textContent("#gear-name .badge.replace")).toBe("Replace at 40 km");
    const saved = await pageApi<Gear & { reminder_distance: number }>(page, `/gear/${bike.id}`);
    expect([saved.reminder_distance, saved.reminder_reached]).toEqual([40_000, true]);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshots(page, "gear-reminder");

    // The ride's page: its gear, with the reminder beside the name.
    await page.goto(`${server.url}/activities/${ride.id}`);
    await page.waitForSelector("#activity-gear");
    expect(await page.textContent("#summary")).toContain("Replace at 40 km");
    // The feed: gear to replace.
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() =>
      (window as unknown as { appState?: { gearReminders?: boolean } }).appState?.gearReminders
    );
    expect(await page.isVisible("#gear-reminders")).toBe(true);
    expect(await page.textContent("#gear-due")).toContain(`${bike.name}Replace at 40 km`);
    await screenshots(page, "gear-feed");

    // Retire: marked, out of the pickers and the feed's reminders, kept with its distance.
    await page.goto(`${server.url}/gear/${bike.id}`);
    await page.waitForFunction(() => (window as unknown as { appState?: { gear?: boolean } }).appState?.gear);
    await page.getByRole("button", { name: "Retire" }).click();
    await expect.poll(() => page.textContent("#gear-status"), { timeout: 20_000 }).toBe("Retired.");
    expect(await page.textContent("#gear-name .badge.retired")).toBe("Retired");
    expect(await page.getByRole("button", { name: "Put back in use" }).count()).toBe(1);
    expect(await page.textContent("#gear-distance")).toBe(`${Math.round(bike.distance / 1000)} km`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshots(page, "gear-retired");

    await page.goto(`${server.url}/activities/${other.id}`);
    await page.waitForSelector("#edit-form");
    const offered = await page.locator("#edit-gear option").allTextContents();
    expect(offered).not.toContain(bike.name);
    expect(offered.some((o) => o.includes(bike.name))).toBe(false);
    await page.goto(`${server.url}/activities/${ride.id}`);
    await page.waitForSelector("#edit-form");
    expect(await page.locator("#edit-gear option:checked").textContent()).toBe(`${bike.name} (retired)`);
    expect(await page.textContent("#summary")).toContain("Retired");
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() =>
      (window as unknown as { appState?: { gearReminders?: boolean } }).appState?.gearReminders
    );
    expect(await page.isVisible("#gear-reminders")).toBe(false);
    expect(await appState(page, "gearReminders")).toBe(true);
    expect(ada.errors).toEqual([]);
  }, 300_000);
});
