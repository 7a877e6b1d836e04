import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { WebClient } from "../oauth/web-client.ts";
import { freshEmail, signUp } from "./web-attacks.ts";

/**
 * The attack: an application granted only the public (read) scope creates and deletes the
 * athlete's heatmaps. The spec: "write … required by all write operations". Tokens come from the
 * real pages and OAuth flow of the Deno server: the public token shown on My API application, and
 * a write token from /oauth/authorize + /oauth/token.
 */
let server: DenoServer;
let publicToken: string;
let writeToken: string;
let athleteId: number;

beforeAll(async () => {
  server = await startDenoServer({ env: { SEED_DEMO: "0" } });
  const web = new WebClient(server.url);
  expect((await signUp(web, freshEmail("heatmap"), "correct horse battery")).status).toBe(303);
  const form = await web.get("/settings/api");
  expect(
    (await web.post("/settings/api", {
      _csrf: WebClient.csrf(form.text),
      name: "Scope app",
      callback_domain: "localhost",
    })).status,
  ).toBe(303);
  const page = (await web.get("/settings/api")).text;
  const clientId = /id="client-id">(\d+)</.exec(page)![1];
  const clientSecret = /id="client-secret">([^<]+)</.exec(page)![1];
  publicToken = /id="access-token">([^<]+)</.exec(page)![1];
  const back = await web.authorize({
    client_id: clientId,
    redirect_uri: "http://localhost:9/cb",
    response_type: "code",
    scope: "read,write",
    approval_prompt: "force",
  });
  const exchanged = await api(server.url)("POST", "/oauth/token", {
    form: {
      client_id: clientId,
      client_secret: clientSecret,
      code: back.searchParams.get("code")!,
      grant_type: "authorization_code",
    },
  });
  expect(exchanged.status).toBe(200);
  writeToken = exchanged.body.access_token;
  athleteId = exchanged.body.athlete.id;
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

describe("heatmap create and delete need the write scope (Deno server)", () => {
  it("refuses a public-scope token with 401 write_permission and changes nothing", async () => {
    const call = api(server.url);
    const created = await call("POST", "/v3/athlete/heatmaps", {
      token: publicToken,
      form: { activity_type_ids: "1" },
    });
    expect(created.status).toBe(401);
    expect(created.body.errors[0].field).toBe("write_permission");
    expect((await call("GET", "/v3/athlete/heatmaps", { token: publicToken })).body).toEqual([]);

    const mine = await call("POST", "/v3/athlete/heatmaps", { token: writeToken, form: { activity_type_ids: "1" } });
    expect(mine.status).toBe(201);
    const path = `/v3/athletes/${athleteId}/heatmaps/${mine.body.id}`;
    const deleted = await call("DELETE", path, { token: publicToken });
    expect(deleted.status).toBe(401);
    expect(deleted.body.errors[0].field).toBe("write_permission");
    expect((await call("GET", path, { token: publicToken })).status).toBe(200);
    expect((await call("DELETE", path, { token: writeToken })).status).toBe(204);
    const listed = (await call("GET", "/v3/athlete/heatmaps", { token: publicToken })).body;
    console.log(
      `heatmap scopes: public token create ${created.status}, delete ${deleted.status}; write token create ${mine.status}; maps left ${listed.length}`,
    );
    expect(listed).toEqual([]);
  }, 120_000);
});
