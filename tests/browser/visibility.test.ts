import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";
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
 * "Who can see this" (issue #47 item 1) in Chromium against the server as `npm start` runs it: Ada
 * makes a manual activity followers-only from its edit form and sets her default in the settings;
 * Eddy, who follows her, opens the activity and reads "Followers only"; Grace, who does not, gets
 * the not-found page; the new default gives Ada's next activity to her followers. Screenshots at
 * 1280 and 390 px (tests/artifacts/screens/visibility-*), axe without serious violations.
 */
let server: DenoServer;
let browser: Browser;
let ada: SignedIn, eddy: SignedIn, grace: SignedIn;

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  ada = await signIn(browser, server.url, "ada@example.com");
  eddy = await signIn(browser, server.url, "eddy@example.com");
  grace = await signIn(browser, server.url, "grace@example.com");
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const manual = (page: SignedIn["page"], name: string) =>
  pageApi<{ id: number; visibility: string; athlete: { id: number } }>(page, "/activities", {
    method: "POST",
    body: { name, type: "Run", start_date_local: "2026-03-02T07:00:00Z", elapsed_time: 1800, distance: 6000 },
  });

describe("who can see an activity", () => {
  it("is chosen on the edit form; a follower sees it, anyone else gets the not-found page", async () => {
    const made = await manual(ada.page, "Tempo for friends");
    expect(made.visibility).toBe("everyone");
    const adaId = made.athlete.id;
    await pageApi(eddy.page, `/athletes/${adaId}/follow`, { method: "PUT" });
    await pageApi(grace.page, `/athletes/${adaId}/follow`, { method: "DELETE" });

    const page = ada.page;
    await page.goto(`${server.url}/activities/${made.id}`);
    await page.waitForSelector("#edit-form");
    // The control's label, and its three choices in words.
    const select = page.getByLabel("Who can see this");
    expect(await select.locator("option").allTextContents()).toEqual(["Everyone", "Followers", "Only me"]);
    expect(await select.inputValue()).toBe("everyone");
    await select.selectOption({ label: "Followers" });
    await page.click("#edit-form button[type=submit]");
    await expect.poll(() => page.textContent("#edit-status"), { timeout: 20_000 }).toBe("Saved.");
    expect(await page.textContent("#head")).toContain("Your followers can see it");
    const saved = await pageApi<{ visibility: string; private: boolean }>(page, `/activities/${made.id}`);
    expect(saved).toMatchObject({ visibility: "followers_only", private: false });
    await page.reload();
    await page.waitForSelector("#edit-form");
    expect(await page.getByLabel("Who can see this").inputValue()).toBe("followers_only");
    await page.locator("#edit").scrollIntoViewIfNeeded();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshots(page, "visibility-edit");

    // Eddy follows Ada: the page, with who may see it.
    const seen = await eddy.page.goto(`${server.url}/activities/${made.id}`);
    expect(seen?.status()).toBe(200);
    await eddy.page.waitForFunction(() => document.querySelector("#title")?.textContent === "Tempo for friends");
    expect(await eddy.page.textContent("#head")).toContain("Followers only");
    expect(await eddy.page.locator("#edit-form").count()).toBe(0);
    await screenshots(eddy.page, "visibility-follower");
    // Grace does not: the same page as for an unknown address.
    const refused = await grace.page.goto(`${server.url}/activities/${made.id}`);
    expect(refused?.status()).toBe(404);
    // Eddy's feed lists it, Grace's list of Ada's activities does not.
    const feed = await pageApi<{ id: number }[]>(eddy.page, "/activities/following");
    expect(feed.map((a) => a.id)).toContain(made.id);
    const theirs = await pageApi<{ id: number }[]>(grace.page, `/athletes/${adaId}/activities`);
    expect(theirs.map((a) => a.id)).not.toContain(made.id);
    // Grace's 404 page logs its status in the console (a navigation the test asked for).
    expect([...ada.errors, ...eddy.errors, ...grace.errors.filter((e) => !/404/.test(e))]).toEqual([]);
  }, 300_000);

  it("sets the default in the settings: new activities follow it", async () => {
    const page = ada.page;
    await page.goto(`${server.url}/settings`);
    await page.waitForFunction(() => (window as unknown as { appState?: { settings?: boolean } }).appState?.settings);
    const select = page.getByLabel("Who can see this");
    expect(await select.locator("option").allTextContents()).toEqual(["Everyone", "Followers", "Only me"]);
    await select.selectOption({ label: "Followers" });
    await page.click("#profile-form button[type=submit]");
    await expect.poll(() => page.textContent("#profile-status"), { timeout: 20_000 }).toBe("Saved.");
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { appState?: { settings?: boolean } }).appState?.settings);
    expect(await page.getByLabel("Who can see this").inputValue()).toBe("followers_only");
    const me = await pageApi<{ default_visibility: string }>(page, "/athlete");
    expect(me.default_visibility).toBe("followers_only");
    const next = await manual(page, "Easy spin");
    expect(next.visibility).toBe("followers_only");
    expect(await appState(page, "settings")).toBe(true);
    await page.locator("#profile-form").scrollIntoViewIfNeeded();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshots(page, "visibility-settings");
    expect(ada.errors).toEqual([]);
  }, 180_000);

  it("is chosen on the upload page for the files added next", async () => {
    const page = ada.page;
    await page.goto(`${server.url}/upload`);
    const select = page.getByLabel("Who can see this");
    // Her default (followers, set above) is where it starts.
    expect(await select.inputValue()).toBe("followers_only");
    await select.selectOption({ label: "Only me" });
    await page.setInputFiles("#files", deviceFile("gpx/strava-export-cycling-power-hr-cad-atemp.gpx"));
    const link = page.locator("#uploads li[data-state=done] a");
    await link.waitFor({ timeout: 120_000 });
    const id = Number((await link.getAttribute("href"))!.split("/").pop());
    const made = await pageApi<{ visibility: string; private: boolean }>(page, `/activities/${id}`);
    expect(made).toMatchObject({ visibility: "only_me", private: true });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshots(page, "visibility-upload");
    expect(ada.errors).toEqual([]);
  }, 240_000);
});
