import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { WebClient } from "../oauth/web-client.ts";
import { freshEmail, signInWith, signUp } from "./web-attacks.ts";

/**
 * The attack: CR, LF or NUL (and characters a header cannot hold at all) in input that ends up in
 * a response header — the sign-in page's next, the OAuth state and redirect_uri, a JSONP callback,
 * a path the sign-in redirect comes back to. Before, the runtime refused such a Location and the
 * server answered 500. Now no header is built from unchecked input: every answer is a 2xx-4xx,
 * no header is injected, and every Location is a plain serialized URL.
 */
const VALUES = [
  "/settings/apps\r\nSet-Cookie: injected=1",
  "/settings/apps\nX-Injected: 1",
  "/settings/apps\rX-Injected: 1",
  "/settings/apps\u0000X-Injected: 1",
  "\r\n\r\n<html>injected</html>",
  "/x%0d%0aX-Injected:%201",
  "/caf\u00e9/\u2028/\u65e5\u672c",
  "/\u0085X-Injected: 1",
];

let server: DenoServer;
const password = "correct horse battery";
let email: string;
let athlete: WebClient;
let clientId: string;

beforeAll(async () => {
  server = await startDenoServer({ env: { SEED_DEMO: "0" } });
  athlete = new WebClient(server.url);
  email = freshEmail("headers");
  expect((await signUp(athlete, email, password)).status).toBe(303);
  const page = await athlete.get("/settings/api");
  const created = await athlete.post("/settings/api", {
    _csrf: WebClient.csrf(page.text),
    name: "Header app",
    callback_domain: "localhost",
  });
  expect(created.status).toBe(303);
  clientId = /id="client-id">(\d+)</.exec((await athlete.get("/settings/api")).text)![1];
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

interface Seen {
  status: number;
  headers: Headers;
  location: string | null;
}

function problems(where: string, res: Seen): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`${where}: ${res.status}`);
  for (const [name, value] of res.headers) {
    if (name.includes("injected") || /injected/i.test(name)) out.push(`${where}: header ${name}`);
    if (name === "set-cookie" && /injected/i.test(value)) out.push(`${where}: cookie ${value}`);
    // deno-lint-ignore no-control-regex -- a control character in a response header is what this probe looks for
    if (/[\u0000-\u001f\u007f]/.test(value)) out.push(`${where}: control character in ${name}`);
  }
  if (res.location !== null && !/^[\x21-\x7e]+$/.test(res.location)) {
    out.push(`${where}: Location not a plain URL: ${JSON.stringify(res.location)}`);
  }
  return out;
}

describe("no header is built from unchecked input (Deno server)", () => {
  it("answers every CR / LF / NUL / non-ASCII value without a 5xx or an injected header", async () => {
    const found: string[] = [];
    let requests = 0;
    const see = (where: string, res: Seen) => {
      requests++;
      found.push(...problems(where, res));
    };
    for (const value of VALUES) {
      const q = encodeURIComponent(value);
      // Signed in, GET /login?next= redirects; signed out it renders the form.
      see("GET /login (signed in)", await athlete.get(`/login?next=${q}`));
      see("GET /login (anonymous)", await new WebClient(server.url).get(`/login?next=${q}`));
      see("GET /register", await new WebClient(server.url).get(`/register?next=${q}`));
      // POST /login with the right password: the 303 carries next.
      see("POST /login", await signInWith(new WebClient(server.url), email, password, value));
      // A page that needs sign-in: its own URL becomes next.
      see("GET /settings/apps?…", await new WebClient(server.url).get(`/settings/apps?x=${q}`));
      // OAuth: state and redirect_uri travel to the client's Location.
      const query = {
        client_id: clientId,
        redirect_uri: "http://localhost:9/cb",
        response_type: "code",
        scope: "read",
        state: value,
      };
      const consent = await athlete.get(
        `/oauth/authorize?${new URLSearchParams({ ...query, approval_prompt: "force" })}`,
      );
      see("GET /oauth/authorize", consent);
      if (consent.status === 200) {
        const fields = WebClient.hiddenFields(consent.text);
        see(
          "POST /oauth/authorize (approve)",
          await athlete.post("/oauth/authorize", { ...fields, decision: "approve" }),
        );
      }
      see("GET /oauth/authorize (auto)", await athlete.get(`/oauth/authorize?${new URLSearchParams(query)}`));
      const badUri = { ...query, redirect_uri: `http://localhost:9/cb${value}` };
      see("GET /oauth/authorize (redirect_uri)", await athlete.get(`/oauth/authorize?${new URLSearchParams(badUri)}`));
      // JSONP callback on the API.
      see("GET /api/v3/athlete?callback=", await athlete.get(`/api/v3/athlete?callback=${q}`));
    }
    // POST /register creates an athlete each time (real password cost): one per kind of character.
    for (const value of VALUES.slice(0, 4)) {
      see("POST /register", await signUp(new WebClient(server.url), freshEmail("headers"), password, value));
    }
    // A sibling found on the way: text the database cannot store, posted in a page's form, is a 400
    // before anything is written (it was a 500 from the database).
    const nul = await new WebClient(server.url).get("/register");
    const refused = await new WebClient(server.url).request("POST", "/register", {
      _csrf: WebClient.csrf(nul.text),
      firstname: "N\u0000",
      lastname: "Ul",
      email: freshEmail("nul"),
      password,
    });
    see("POST /register with U+0000", refused);
    expect(refused.status).toBe(400);
    console.log(
      `header injection: ${VALUES.length} hostile values, ${requests} requests; 5xx or injected headers ${found.length}`,
    );
    expect(found).toEqual([]);
  }, 600_000);
});
