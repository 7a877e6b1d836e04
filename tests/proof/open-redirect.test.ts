import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { WebClient } from "../oauth/web-client.ts";
import { freshEmail, signInWith, signUp } from "./web-attacks.ts";

/**
 * The attack: a link to our sign-in page whose `next` sends the browser off-site once signed in
 * (phishing with our own domain in the address bar). Every hostile form is tried at every place a
 * redirect target comes from input — GET /login while signed in, POST /login, POST /register, the
 * next carried in the sign-up form — against the Deno server as `npm start` runs it. Each Location
 * is resolved the way a browser does (WHATWG URL against the page's address) and must stay on our
 * origin.
 */
const HOSTILE = [
  "/\t/evil.example/x",
  "/\t\\evil.example/x",
  "//evil.example",
  "///evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "\\/evil.example",
  "https://evil.example",
  "HTTPS://evil.example/x",
  "http:evil.example",
  "https:/evil.example",
  " //evil.example",
  "/.//evil.example",
  "/x/..//evil.example",
  "/%2e%2e//evil.example",
  "%2F%2Fevil.example",
  "/%2F%2Fevil.example",
  "/%5Cevil.example",
  "/%09/evil.example",
  "javascript:alert(document.domain)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "http://localhost@evil.example/",
  "//evil.example@localhost",
  "/\u3000/evil.example",
  "\u0000//evil.example",
];

let server: DenoServer;
const password = "correct horse battery";
let email: string;
let signedIn: WebClient;
// Signed in once per hostile value; a separate account, as each athlete keeps only their 20 newest sessions.
let loginEmail: string;

beforeAll(async () => {
  server = await startDenoServer({ env: { SEED_DEMO: "0" } });
  signedIn = new WebClient(server.url);
  email = freshEmail("redirect");
  expect((await signUp(signedIn, email, password)).status).toBe(303);
  loginEmail = freshEmail("redirect-login");
  expect((await signUp(new WebClient(server.url), loginEmail, password)).status).toBe(303);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** Where a browser goes with this Location, seen from the page it was on. */
function destination(location: string | null, from: string): URL {
  expect(location, "a redirect has a Location").not.toBeNull();
  return new URL(location!, new URL(from, server.url));
}

describe("open redirect after sign-in (Deno server)", () => {
  it("never sends the browser off-site, whatever next says, at every entry point", async () => {
    const own = new URL(server.url).origin;
    const offSite: string[] = [];
    const failures: string[] = [];
    let redirects = 0;
    const check = (where: string, next: string, res: { status: number; location: string | null }, from: string) => {
      // A form field holding U+0000 is refused as unstorable text (400, header-injection.test.ts).
      if (where.startsWith("POST") && next.includes("\u0000") && res.status === 400) return;
      if (res.status >= 500 || ![302, 303].includes(res.status)) {
        failures.push(`${where} ${JSON.stringify(next)}: ${res.status}`);
        return;
      }
      redirects++;
      const to = destination(res.location, from);
      if (to.origin !== own) offSite.push(`${where} ${JSON.stringify(next)} → ${res.location}`);
    };

    for (const next of HOSTILE) {
      // Signed in: GET /login?next=… redirects at once.
      const direct = await signedIn.get(`/login?next=${encodeURIComponent(next)}`);
      check("GET /login", next, direct, "/login");

      // The sign-up form carries next in a hidden field: it must already be a local path.
      const anonymous = new WebClient(server.url);
      const form = await anonymous.get(`/register?next=${encodeURIComponent(next)}`);
      expect(form.status).toBe(200);
      const carried = WebClient.hiddenFields(form.text).next;
      if (new URL(carried, server.url).origin !== own) {
        offSite.push(`GET /register hidden next ${JSON.stringify(next)} → ${carried}`);
      }

      // POST /login with the right password and a hostile next.
      const login = await signInWith(new WebClient(server.url), loginEmail, password, next);
      check("POST /login", next, login, "/login");
    }
    // POST /register (a new athlete each time, at the server's real password cost): a sample that
    // covers each family (tab, backslash, scheme, protocol-relative, dot segments, encoded).
    for (
      const next of [
        "/\t/evil.example/x",
        "/\\evil.example",
        "https://evil.example",
        "//evil.example",
        "/.//evil.example",
        "javascript:alert(1)",
      ]
    ) {
      const res = await signUp(new WebClient(server.url), freshEmail("redirect"), password, next);
      check("POST /register", next, res, "/register");
    }

    // Our own pages are still reachable through next (the rule is not "always the default").
    const own1 = await signedIn.get(`/login?next=${encodeURIComponent("/settings/api?tab=1#top")}`);
    expect(destination(own1.location, "/login").href).toBe(new URL("/settings/api?tab=1#top", server.url).href);

    console.log(
      `open redirect: ${HOSTILE.length} hostile next values, ${redirects} redirects checked; off-site ${offSite.length}; 5xx or non-redirects ${failures.length}`,
    );
    expect(failures).toEqual([]);
    expect(offSite).toEqual([]);
  }, 600_000);

  it("an OAuth request while signed out comes back to the consent page, on our origin", async () => {
    // toSignIn builds next from the request URL: a hostile path must not become an off-site next.
    const anonymous = new WebClient(server.url);
    for (
      const path of [
        "/oauth/authorize?client_id=1&x=//evil.example",
        "/settings/api?next=https://evil.example",
        "/settings/apps",
      ]
    ) {
      const res = await anonymous.get(path);
      expect(res.status).toBeLessThan(500);
      if (res.status !== 302) continue;
      const to = destination(res.location, path);
      expect(to.origin).toBe(new URL(server.url).origin);
      expect(to.pathname).toBe("/login");
      const next = to.searchParams.get("next")!;
      expect(new URL(next, server.url).origin).toBe(new URL(server.url).origin);
    }
  }, 60_000);
});
