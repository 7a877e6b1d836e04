import { createServer, type Server } from "node:http";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * The OAuth flow in a real browser (Debian's chromium): sign up, register an application, a small
 * third-party web app on 127.0.0.1 connects, revoke. Screenshots of every page go to
 * tests/artifacts/oauth/ (git-ignored).
 */
const ARTIFACTS = join(import.meta.dirname!, "..", "artifacts", "oauth");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

let server: TestServer;
let browser: Browser;
let thirdParty: {
  server: Server;
  url: string;
  credentials: { id: string; secret: string };
  token?: string;
  exchanges: number;
};

const escape = (s: string) => s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body style="font-family:sans-serif"><h1>${title}</h1>${body}</body></html>`;

/** A third-party web app: /connect sends the browser to the consent page, /callback exchanges the code. */
async function startThirdParty(): Promise<typeof thirdParty> {
  const states = new Set<string>();
  const self = { credentials: { id: "", secret: "" }, exchanges: 0 } as typeof thirdParty;
  const srv = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", self.url);
    const send = (status: number, body: string) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
      res.end(body);
    };
    if (url.pathname === "/connect") {
      const state = `st-${states.size + 1}`;
      states.add(state);
      const to = new URL("/oauth/authorize", server.url);
      to.search = new URLSearchParams({
        client_id: self.credentials.id,
        redirect_uri: `${self.url}/callback`,
        response_type: "code",
        approval_prompt: url.searchParams.get("prompt") ?? "force",
        scope: "read,activity:write",
        state,
      }).toString();
      res.writeHead(302, { location: to.toString() });
      return res.end();
    }
    if (url.pathname === "/callback") {
      if (url.searchParams.get("error")) {
        return send(200, html("Access denied", `<p id="result">error=${escape(url.searchParams.get("error")!)}</p>`));
      }
      if (!states.has(url.searchParams.get("state") ?? "")) return send(400, html("Bad state", ""));
      self.exchanges++;
      const tokenRes = await fetch(new URL("/oauth/token", server.url), {
        method: "POST",
        body: new URLSearchParams({
          client_id: self.credentials.id,
          client_secret: self.credentials.secret,
          code: url.searchParams.get("code") ?? "",
        }),
      });
      const tokenBody = await tokenRes.json();
      if (tokenRes.status !== 200) {
        return send(
          200,
          html("Token exchange failed", `<p id="result">${tokenRes.status} ${escape(JSON.stringify(tokenBody))}</p>`),
        );
      }
      self.token = tokenBody.access_token;
      const me = await fetch(new URL("/v3/athlete", server.url), {
        headers: { authorization: `Bearer ${self.token}` },
      });
      const athlete = await me.json();
      return send(
        200,
        html(
          "Connected",
          `<p id="result">API ${me.status}: connected as ${escape(athlete.firstname)} (scope ${
            escape(url.searchParams.get("scope") ?? "")
          })</p>`,
        ),
      );
    }
    if (url.pathname === "/me") {
      const me = await fetch(new URL("/v3/athlete", server.url), {
        headers: { authorization: `Bearer ${self.token}` },
      });
      return send(200, html("Athlete", `<p id="result">API ${me.status}: ${escape(await me.text())}</p>`));
    }
    if (url.pathname === "/lib-callback") return send(200, html("Library callback", "<p>received</p>"));
    send(404, html("Not found", ""));
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as { port: number }).port;
  return Object.assign(self, { server: srv, url: `http://127.0.0.1:${port}` });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function signUp(page: Page, first: string, email: string, password: string): Promise<void> {
  await page.goto(`${server.url}/register?next=/settings/api`);
  await page.fill("#firstname", first);
  await page.fill("#lastname", "Tester");
  await page.fill("#email", email);
  await page.fill("#password", password);
  await Promise.all([page.waitForURL(/\/settings\/api$/), page.click("button[type=submit]")]);
}

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${server.url}/login`);
  await page.fill("#email", email);
  await page.fill("#password", password);
  const [res] = await Promise.all([page.waitForNavigation(), page.click("main button[type=submit]")]);
  return res;
}

const resultText = (page: Page) => page.textContent("#result");

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startTestServer();
  thirdParty = await startThirdParty();
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => thirdParty?.server.close(resolve));
  await server?.close();
});

describe("OAuth in a browser", () => {
  let developer: BrowserContext;
  let athlete: BrowserContext;
  let page: Page;

  it("sign up → register an application → its credentials are shown once", async () => {
    developer = await browser.newContext();
    const dev = await developer.newPage();
    await dev.goto(`${server.url}/register`);
    await shot(dev, "01-sign-up");
    await signUp(dev, "Devon", "devon@example.com", "developer-pass");
    await shot(dev, "02-my-api-application-register");
    await dev.fill("#name", "Third Party Tracker");
    await dev.fill("#website", "https://tracker.example");
    await dev.fill("#description", "Shows your rides on a map.");
    await dev.fill("#callback_domain", "tracker.example");
    await Promise.all([dev.waitForURL(/\/settings\/api$/), dev.click("main button[type=submit]")]);
    await shot(dev, "03-my-api-application-created");
    thirdParty.credentials = {
      id: (await dev.textContent("#client-id"))!.trim(),
      secret: (await dev.textContent("#client-secret"))!.trim(),
    };
    expect(thirdParty.credentials.id).toMatch(/^\d+$/);
    expect(thirdParty.credentials.secret).toMatch(/^[0-9a-f]{40}$/);
    expect(await dev.textContent("#access-token")).toMatch(/^[0-9a-f]{40}$/);
    await dev.reload();
    expect(await dev.locator("#client-secret").count()).toBe(0);
    await shot(dev, "04-my-api-application");
    // Regenerating the secret shows the new one; the old one stops working.
    await Promise.all([dev.waitForURL(/\/settings\/api$/), dev.click("text=Regenerate client secret")]);
    const regenerated = (await dev.textContent("#client-secret"))!.trim();
    expect(regenerated).not.toBe(thirdParty.credentials.secret);
    await shot(dev, "05-my-api-application-secret-regenerated");
    thirdParty.credentials.secret = regenerated;
  });

  it("the third-party app connects: consent → approve → code exchanged → /v3/athlete", async () => {
    athlete = await browser.newContext();
    page = await athlete.newPage();
    await signUp(page, "Ada", "ada@example.com", "athlete-pass");
    await page.goto(`${thirdParty.url}/connect`);
    expect(page.url()).toMatch(/\/oauth\/authorize\?/);
    expect(await page.textContent("h1")).toBe("Authorize Third Party Tracker");
    await shot(page, "06-consent");
    await Promise.all([page.waitForURL(`${thirdParty.url}/callback**`), page.click("#approve")]);
    expect(await resultText(page)).toBe("API 200: connected as Ada (scope read,activity:write)");
    await shot(page, "07-third-party-connected");
    await page.goto(`${thirdParty.url}/me`);
    expect(await resultText(page)).toMatch(/^API 200: /);
  });

  it("presenting the used code again is refused and revokes the tokens issued from it", async () => {
    await page.goBack();
    expect(page.url()).toContain("/callback?");
    await page.reload();
    expect(await resultText(page)).toBe(
      '400 {"message":"Bad Request","errors":[{"resource":"AuthorizationCode","field":"code","code":"invalid"}],"error":"invalid_grant","error_description":"AuthorizationCode code: invalid"}',
    );
    await shot(page, "08-third-party-used-code");
    await page.goto(`${thirdParty.url}/me`);
    expect(await resultText(page)).toMatch(/^API 401: /);
  });

  it("revoke on My apps → the app's next call gets 401", async () => {
    await page.goto(`${thirdParty.url}/connect`);
    await Promise.all([page.waitForURL(`${thirdParty.url}/callback**`), page.click("#approve")]);
    expect(await resultText(page)).toMatch(/^API 200/);
    await page.goto(`${server.url}/settings/apps`);
    expect(await page.textContent("main")).toContain("Third Party Tracker");
    expect(await page.textContent("main")).toContain("Upload and change activities and your profile (write)");
    await shot(page, "09-my-apps");
    await Promise.all([page.waitForURL(/\/settings\/apps$/), page.click("text=Revoke")]);
    expect(await page.textContent("[role=status]")).toBe("Access for Third Party Tracker was revoked.");
    expect(await page.locator("#no-apps").count()).toBe(1);
    await shot(page, "10-my-apps-revoked");
    await page.goto(`${thirdParty.url}/me`);
    expect(await resultText(page)).toBe(
      'API 401: {"message":"Authorization Error","errors":[{"resource":"Athlete","field":"access_token","code":"invalid"}]}',
    );
    await shot(page, "11-third-party-after-revoke");
  });

  it("deny → the app receives error=access_denied", async () => {
    await page.goto(`${thirdParty.url}/connect`);
    await Promise.all([page.waitForURL(`${thirdParty.url}/callback**`), page.click("#deny")]);
    expect(await resultText(page)).toBe("error=access_denied");
    expect(new URL(page.url()).searchParams.get("state")).toMatch(/^st-\d+$/);
    await shot(page, "12-third-party-denied");
  });

  it("approval_prompt=auto skips the consent page once authorized", async () => {
    await page.goto(`${thirdParty.url}/connect?prompt=auto`);
    expect(page.url()).toContain("/oauth/authorize");
    await Promise.all([page.waitForURL(`${thirdParty.url}/callback**`), page.click("#approve")]);
    const exchanges = thirdParty.exchanges;
    const visited: string[] = [];
    page.on("framenavigated", (frame) => visited.push(frame.url()));
    await page.goto(`${thirdParty.url}/connect?prompt=auto`);
    expect(page.url()).toContain(`${thirdParty.url}/callback?`);
    expect(await resultText(page)).toMatch(/^API 200: connected as Ada/);
    expect(thirdParty.exchanges).toBe(exchanges + 1);
    expect(visited.some((u) => u.includes("/oauth/authorize"))).toBe(false);
  });

  it("a redirect_uri on another host shows an error page and never redirects", async () => {
    const url = new URL("/oauth/authorize", server.url);
    url.search = new URLSearchParams({
      client_id: thirdParty.credentials.id,
      redirect_uri: "https://evil.example/steal",
      response_type: "code",
      state: "s",
    }).toString();
    const res = await page.goto(url.toString());
    expect(res?.status()).toBe(400);
    expect(page.url()).toBe(url.toString());
    expect(await page.textContent("[role=alert]")).toContain("Application redirect_uri: invalid");
    await shot(page, "13-authorize-error-redirect-uri");
  });

  it("a form posted without the CSRF token is refused", async () => {
    await page.goto(`${server.url}/settings/apps`);
    await page.goto(`${server.url}/settings/api`);
    await page.fill("#name", "Sneaky");
    await page.fill("#callback_domain", "sneaky.example");
    await page.$eval("main input[name=_csrf]", (el) => el.remove());
    const [res] = await Promise.all([page.waitForNavigation(), page.click("main button[type=submit]")]);
    expect(res?.status()).toBe(403);
    expect(await page.textContent("h1")).toBe("This form has expired");
    await shot(page, "14-csrf-refused");
    await page.goto(`${server.url}/settings/api`);
    expect(await page.locator("#client-id").count()).toBe(0);
  });

  it("sign out, then wrong passwords slow sign-in down", async () => {
    await page.goto(`${server.url}/settings/apps`);
    await Promise.all([page.waitForURL(/\/login$/), page.click("header button")]);
    await shot(page, "15-sign-in");
    await page.goto(`${server.url}/settings/apps`);
    expect(new URL(page.url()).pathname).toBe("/login");
    for (let i = 0; i < 5; i++) {
      const res = await signIn(page, "ada@example.com", `wrong-${i}`);
      expect(res?.status()).toBe(401);
      expect(await page.textContent("[role=alert]")).toBe("Wrong e-mail or password.");
    }
    await shot(page, "16-sign-in-wrong-password");
    const res = await signIn(page, "ada@example.com", "athlete-pass");
    expect(res?.status()).toBe(429);
    expect(await page.textContent("[role=alert]")).toMatch(
      /^Too many failed sign-ins for this account\. Try again in \d+ seconds\.$/,
    );
    await shot(page, "17-sign-in-throttled");
    // Another account is not affected.
    const dev = await signIn(page, "devon@example.com", "developer-pass");
    expect(dev?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/"); // sign-in lands on the feed
  });
});

describe("a standard OAuth 2.0 client library (oauth4webapi)", () => {
  let page: Page;
  const as: oauth.AuthorizationServer = {
    issuer: "http://localhost",
    authorization_endpoint: "",
    token_endpoint: "",
  };
  const insecure = { [oauth.allowInsecureRequests]: true };

  beforeAll(async () => {
    Object.assign(as, {
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
    });
    const context = await browser.newContext();
    page = await context.newPage();
    await signUp(page, "Libby", "libby@example.com", "library-pass");
  });

  async function flow(pkce: boolean) {
    const client: oauth.Client = { client_id: thirdParty.credentials.id };
    const redirectUri = `${thirdParty.url}/lib-callback`;
    const state = oauth.generateRandomState();
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set("client_id", client.client_id);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", "read,activity:read_all");
    url.searchParams.set("state", state);
    url.searchParams.set("approval_prompt", "force");
    if (pkce) {
      url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set("code_challenge_method", "S256");
    }
    await page.goto(url.toString());
    await Promise.all([page.waitForURL(`${redirectUri}**`), page.click("#approve")]);
    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
    const auth = pkce ? oauth.None() : oauth.ClientSecretPost(thirdParty.credentials.secret);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      redirectUri,
      pkce ? verifier : oauth.nopkce,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.expires_in).toBe(21600);
    const me = await fetch(new URL("/v3/athlete", server.url), {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(200);
    expect((await me.json()).firstname).toBe("Libby");
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
    );
    expect(refreshed.access_token).toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  }

  it("completes the code flow with the client secret (no PKCE)", () => flow(false));
  it("completes the code flow as a public client with PKCE (S256)", () => flow(true));
});
