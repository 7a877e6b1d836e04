import { rmSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { eventually, Receiver } from "./receiver.ts";

// What ships (Deno): handshake, a signed delivery and the CLI's view of it.
let server: DenoServer;
const receiver = new Receiver();

beforeAll(async () => {
  await receiver.start();
  server = await startDenoServer({ env: { SEED_DEMO: "0", WEBHOOK_RETRY_MS: "50", WEBHOOKS_ALLOW_PRIVATE: "1" } });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await receiver.stop();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const result = await runCli([...args, "--json"], { DATA_DIR: server.dataDir });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

it("subscribes, delivers a signed create and reports it in `webhooks status` on the Deno server", async () => {
  const owner = await cli([
    "athlete",
    "create",
    "--firstname",
    "Dev",
    "--lastname",
    "Owner",
    "--email",
    "webhook-owner@example.com",
    "--password",
    "password123",
  ]);
  const app = await cli([
    "app",
    "create",
    "--name",
    "Hooks",
    "--callback-domain",
    "localhost",
    "--owner",
    String(owner.id),
  ]);
  const { access_token } = await cli([
    "token",
    "issue",
    "--athlete",
    String(owner.id),
    "--client-id",
    String(app.client_id),
    "--scope",
    "view_private,write",
  ]);
  const call = api(server.url);
  const url = receiver.hook("deno", app.client_secret, { respond: (i) => (i === 0 ? 500 : 200) });
  const sub = await call("POST", "/api/v3/push_subscriptions", {
    form: { client_id: app.client_id, client_secret: app.client_secret, callback_url: url, verify_token: "v" },
  });
  expect(sub.status).toBe(201);
  const made = await call("POST", "/api/v3/activities", {
    token: access_token,
    form: { name: "Deno ride", type: "Ride", start_date_local: "2024-05-01T08:00:00Z", elapsed_time: 600 },
  });
  expect(made.status).toBe(201);
  const got = await eventually(() => receiver.acknowledged("deno").length >= 1 && receiver.received("deno"), 30_000);
  expect(got.map((d) => [d.json.aspect_type, d.json.object_id, d.attempt, d.answered, d.signatureValid])).toEqual([
    ["create", made.body.id, "1", 500, true],
    ["create", made.body.id, "2", 200, true],
  ]);
  const status = await cli(["webhooks", "status"]);
  expect(status.subscriptions).toMatchObject([{
    subscription_id: sub.body.id,
    delivered: 1,
    failed: 0,
    pending: 0,
    last_error: "HTTP 500",
  }]);
}, 90_000);
