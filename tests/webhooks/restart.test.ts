import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { eventually, Receiver } from "./receiver.ts";

// Both servers use this directory; startTestServer's close() removes only its own temp dir, so the
// platform (log, outbox cursor, pending deliveries) survives the first server's stop.
const dataDir = mkdtempSync(join(tmpdir(), "fitness-webhooks-restart-"));
const receiver = new Receiver();
let running: TestServer | undefined;

beforeAll(async () => {
  await receiver.start();
});

afterAll(async () => {
  await running?.close();
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it("keeps pending deliveries across a restart and delivers them, then what follows, in order", async () => {
  // First server: the receiver is down (503) and retries are far apart.
  running = await startTestServer({ dataDir, webhookAttempts: 5, webhookRetryMs: 1500, webhooksAllowPrivate: true });
  const first = running;
  const app = await first.application();
  const url = receiver.hook("restart", app.client_secret, { respond: () => 503 });
  const created = await first.api("POST", "/v3/push_subscriptions", {
    form: { client_id: app.client_id, client_secret: app.client_secret, callback_url: url, verify_token: "v" },
  });
  expect(created.status).toBe(201);
  const athlete = await first.athlete({ applicationId: app.client_id });
  const made = await first.api("POST", "/v3/activities", {
    token: athlete.token,
    form: { name: "Before restart", type: "Run", start_date_local: "2024-06-01T07:00:00Z", elapsed_time: 1800 },
  });
  expect(made.status).toBe(201);
  await eventually(() => receiver.received("restart").length >= 1);
  await first.close();
  running = undefined;
  const failedAttempts = receiver.received("restart").length;
  expect(failedAttempts).toBeLessThan(5);
  // Second server on the same data: the receiver is back.
  receiver.respond("restart", () => 200);
  running = await startTestServer({ dataDir, webhookAttempts: 5, webhookRetryMs: 50, webhooksAllowPrivate: true });
  const second = running;
  const after = await second.api("POST", "/v3/activities", {
    token: athlete.token,
    form: { name: "After restart", type: "Ride", start_date_local: "2024-06-02T07:00:00Z", elapsed_time: 3600 },
  });
  expect(after.status).toBe(201);

  const got = await eventually(() => receiver.acknowledged("restart").length >= 2 && receiver.received("restart"));
  const acknowledged = got.filter((d) => d.answered === 200);
  expect(acknowledged.map((d) => [d.json.object_id, d.json.aspect_type])).toEqual([
    [made.body.id, "create"],
    [after.body.id, "create"],
  ]);
  // The delivery that failed before the restart is the one delivered after it: same id, same bytes.
  const before = got.slice(0, failedAttempts);
  expect(before.every((d) => d.deliveryId === acknowledged[0].deliveryId && d.body === acknowledged[0].body)).toBe(
    true,
  );
  expect(acknowledged[0].attempt).toBe(String(failedAttempts + 1));
  expect(got.every((d) => d.signatureValid)).toBe(true);
});
