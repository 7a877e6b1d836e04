/**
 * Sign-in against the real server's OAuth: authorization code + PKCE (S256), loopback redirect on
 * 127.0.0.1, no client secret; the consent page is approved in Chromium. Then refresh before expiry,
 * and a revoked sign-in gives a plain message instead of a crash.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UploadClient } from "../../desktop/core/api.ts";
import { FileTokenStore, OAuthSession, signIn } from "../../desktop/core/oauth.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const ARTIFACTS = join(import.meta.dirname!, "..", "artifacts", "companion");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const root = mkdtempSync(join(tmpdir(), "companion-signin-"));
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  [server, browser] = await Promise.all([
    startTestServer(),
    chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("sign-in with PKCE on a loopback redirect", () => {
  it("signs in without a client secret, refreshes before expiry, and explains a revoked sign-in", async () => {
    const app = await server.application();
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/register?next=/settings/api`);
    await page.fill("#firstname", "Kim");
    await page.fill("#lastname", "Cyclist");
    await page.fill("#email", "kim@example.com");
    await page.fill("#password", "kim-password-1");
    await Promise.all([page.waitForURL(/\/settings\/api$/), page.click("button[type=submit]")]);

    let authorizeUrl = "";
    const token = await signIn({
      server: server.url,
      clientId: String(app.client_id),
      timeoutMs: 30_000,
      open: async (url) => {
        authorizeUrl = url;
        await page.goto(url);
        await Promise.all([page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback/), page.click("#approve")]);
      },
    });
    const authorize = new URL(authorizeUrl);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorize.searchParams.get("scope")).toBe("write");
    expect(await page.textContent("h1")).toBe("Signed in");
    await page.screenshot({ path: join(ARTIFACTS, "signed-in.png") });
    expect(token).toMatchObject({
      client_id: String(app.client_id),
      athlete: { firstname: "Kim", lastname: "Cyclist" },
    });
    expect(token.client_secret).toBeUndefined();
    expect(token.refresh_token).toBeTruthy();

    const store = new FileTokenStore(join(root, "token.json"));
    store.save(token);
    const session = new OAuthSession(store);
    const me = await server.api("GET", "/v3/athlete", { token: await session.accessToken() });
    expect(me.status).toBe(200);
    expect(me.body.firstname).toBe("Kim");

    // Close to expiry: the next request refreshes first (the server rotates the refresh token).
    store.save({ ...token, expires_at: Math.floor(Date.now() / 1000) + 60 });
    const fresh = await session.accessToken();
    expect(store.load()!.refresh_token).not.toBe(token.refresh_token);
    expect(store.load()!.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000) + 60);
    expect((await server.api("GET", "/v3/athlete", { token: fresh })).status).toBe(200);

    // Revoked: a plain message, the file would stay queued.
    expect((await server.api("POST", "/oauth/deauthorize", { token: fresh })).status).toBe(200);
    const result = await new UploadClient(server.url, session).status("1");
    expect(result).toEqual({ hold: "unauthorized", message: expect.stringMatching(/Sign in again/) });
  });
});
