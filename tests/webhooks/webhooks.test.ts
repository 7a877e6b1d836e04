import { deviceFile } from "../helpers/fixtures.ts";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushSubscriptionsProjection } from "../../projections/push-subscriptions/projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { allCommands } from "../../server/cli-commands.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type Delivery, eventually, Receiver } from "./receiver.ts";

let server: TestServer;
const receiver = new Receiver();

type App = Awaited<ReturnType<TestServer["application"]>>;

beforeAll(async () => {
  await receiver.start();
  // The receiver listens on 127.0.0.1: private callbacks are allowed explicitly (WEBHOOKS_ALLOW_PRIVATE).
  server = await startTestServer({ webhookRetryMs: 50, webhookAttempts: 3, webhooksAllowPrivate: true });
});

afterAll(async () => {
  await server?.close();
  await receiver.stop();
});

async function subscribe(app: App, callbackUrl: string, verifyToken = "STRAVA") {
  return await server.api("POST", "/v3/push_subscriptions", {
    form: {
      client_id: app.client_id,
      client_secret: app.client_secret,
      callback_url: callbackUrl,
      verify_token: verifyToken,
    },
  });
}

async function list(app: App) {
  return await server.api("GET", "/v3/push_subscriptions", {
    query: { client_id: app.client_id, client_secret: app.client_secret },
  });
}

/** A new application subscribed to its own callback path (the receiver verifies its signatures). */
async function subscribedApp(name: string, respond?: (attemptIndex: number) => number) {
  const app = await server.application();
  const res = await subscribe(app, receiver.hook(name, app.client_secret, { respond }));
  expect(res.status).toBe(201);
  return { app, subscriptionId: res.body.id as number };
}

async function createActivity(token: string, fields: Record<string, string | number> = {}) {
  const res = await server.api("POST", "/v3/activities", {
    token,
    form: {
      name: "Morning Ride",
      type: "Ride",
      start_date_local: "2024-05-01T08:00:00Z",
      elapsed_time: 3600,
      ...fields,
    },
  });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

async function update(token: string, id: number, form: Record<string, string | number>) {
  const res = await server.api("PUT", `/v3/activities/${id}`, { token, form });
  expect(res.status).toBe(200);
}

const summary = (d: Delivery) => ({ ...d.json, event_time: typeof d.json.event_time });

describe("push subscription management", () => {
  it("creates a subscription after the handshake, lists it and refuses a second one", async () => {
    const app = await server.application();
    const url = receiver.hook("manage", app.client_secret);
    const res = await subscribe(app, url, "my-token");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ resource_state: 2, application_id: app.client_id, callback_url: url });
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const handshake = receiver.handshakes.filter((h) => h.path === "/hooks/manage").at(-1)!;
    expect(handshake.query.get("hub.mode")).toBe("subscribe");
    expect(handshake.query.get("hub.verify_token")).toBe("my-token");
    expect(handshake.query.get("hub.challenge")).toMatch(/^[0-9a-f]{32}$/);

    const listed = await list(app);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([res.body]);
    // Also under /api/v3 and with the credentials as query parameters on POST.
    const again = await server.api("POST", "/api/v3/push_subscriptions", {
      query: { client_id: app.client_id, client_secret: app.client_secret, callback_url: url, verify_token: "x" },
    });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "PushSubscription", field: "", code: "already exists" }],
    });
  });

  it.each(
    [
      ["wrong-challenge"],
      ["slow"],
      ["error"],
      ["not-json"],
    ] as const,
  )("refuses a callback whose handshake fails (%s) and records nothing", async (mode) => {
    const app = await server.application();
    const url = receiver.hook(`refuse-${mode}`, app.client_secret, { handshake: mode });
    const res = await subscribe(app, url);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "PushSubscription", field: "callback url", code: "not verifiable" }],
    });
    expect(receiver.handshakes.some((h) => h.path === `/hooks/refuse-${mode}`)).toBe(true);
    expect((await list(app)).body).toEqual([]);
  });

  it("refuses bad credentials and bad fields with the documented 400s", async () => {
    const app = await server.application();
    const url = receiver.hook("fields", app.client_secret);
    const cases: [Record<string, string | number>, Record<string, string>][] = [
      [{ client_secret: app.client_secret, callback_url: url, verify_token: "t" }, {
        resource: "Application",
        field: "client_id",
        code: "missing",
      }],
      [{ client_id: "abc", client_secret: app.client_secret, callback_url: url, verify_token: "t" }, {
        resource: "Application",
        field: "client_id",
        code: "invalid",
      }],
      [{ client_id: 999999, client_secret: app.client_secret, callback_url: url, verify_token: "t" }, {
        resource: "Application",
        field: "client_id",
        code: "invalid",
      }],
      [{ client_id: app.client_id, callback_url: url, verify_token: "t" }, {
        resource: "Application",
        field: "client_secret",
        code: "missing",
      }],
      [{ client_id: app.client_id, client_secret: "wrong", callback_url: url, verify_token: "t" }, {
        resource: "Application",
        field: "client_secret",
        code: "invalid",
      }],
      [{ client_id: app.client_id, client_secret: app.client_secret, verify_token: "t" }, {
        resource: "PushSubscription",
        field: "callback_url",
        code: "missing",
      }],
      [{ client_id: app.client_id, client_secret: app.client_secret, callback_url: url }, {
        resource: "PushSubscription",
        field: "verify_token",
        code: "missing",
      }],
      [{ client_id: app.client_id, client_secret: app.client_secret, callback_url: url, verify_token: "" }, {
        resource: "PushSubscription",
        field: "verify_token",
        code: "missing",
      }],
      [{
        client_id: app.client_id,
        client_secret: app.client_secret,
        callback_url: "ftp://127.0.0.1/x",
        verify_token: "t",
      }, { resource: "PushSubscription", field: "callback url", code: "not verifiable" }],
      [{
        client_id: app.client_id,
        client_secret: app.client_secret,
        callback_url: `${url}?${"a".repeat(300)}`,
        verify_token: "t",
      }, { resource: "PushSubscription", field: "callback url", code: "not verifiable" }],
    ];
    for (const [form, error] of cases) {
      const res = await server.api("POST", "/v3/push_subscriptions", { form });
      expect(res.status, JSON.stringify(form)).toBe(400);
      expect(res.body.errors).toEqual([error]);
    }
    const noCredentials = await server.api("GET", "/v3/push_subscriptions");
    expect(noCredentials.status).toBe(400);
    expect(noCredentials.body.errors).toEqual([{ resource: "Application", field: "client_id", code: "missing" }]);
    const badJson = await server.api("POST", "/v3/push_subscriptions", {
      headers: { "content-type": "application/json" },
      json: undefined,
      form: undefined,
    });
    expect(badJson.status).toBe(400);
    expect((await list(app)).body).toEqual([]);
  });

  it("deletes the subscription (204), then it is gone; another application's id is 404", async () => {
    const { app, subscriptionId } = await subscribedApp("delete-me");
    const other = await server.application();
    const foreign = await server.api("DELETE", `/v3/push_subscriptions/${subscriptionId}`, {
      query: { client_id: other.client_id, client_secret: other.client_secret },
    });
    expect(foreign.status).toBe(404);
    const res = await server.api("DELETE", `/v3/push_subscriptions/${subscriptionId}`, {
      query: { client_id: app.client_id, client_secret: app.client_secret },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await list(app)).body).toEqual([]);
    const twice = await server.api("DELETE", `/v3/push_subscriptions/${subscriptionId}`, {
      form: { client_id: app.client_id, client_secret: app.client_secret },
    });
    expect(twice.status).toBe(404);
    const badId = await server.api("DELETE", "/v3/push_subscriptions/abc", {
      query: { client_id: app.client_id, client_secret: app.client_secret },
    });
    expect(badId.status).toBe(400);
    // A new subscription may be created after the delete.
    const again = await subscribe(app, receiver.hook("delete-me-again", app.client_secret));
    expect(again.status).toBe(201);
  });
});

describe("event delivery", () => {
  it("delivers create, title/type/privacy updates, delete and deauthorization, signed and in order", async () => {
    const { app, subscriptionId } = await subscribedApp("events");
    const athlete = await server.athlete({
      applicationId: app.client_id,
      permissions: ["read", "write", "view_private"],
    });
    const id = await createActivity(athlete.token);
    await update(athlete.token, id, { name: "Messy" });
    await update(athlete.token, id, { type: "Run" });
    await update(athlete.token, id, { private: 1 });
    await update(athlete.token, id, { name: "Tidy", type: "Walk", private: 0 });
    await update(athlete.token, id, { commute: 1 }); // nothing a subscriber is told about
    const deleted = await server.api("DELETE", `/v3/activities/${id}`, { token: athlete.token });
    expect(deleted.status).toBe(204);
    const deauth = await server.api("POST", "/oauth/deauthorize", { form: { access_token: athlete.token } });
    expect(deauth.status).toBe(200);

    const got = await eventually(() => receiver.acknowledged("events").length >= 7 && receiver.acknowledged("events"));
    const base = {
      object_type: "activity",
      object_id: id,
      owner_id: athlete.id,
      subscription_id: subscriptionId,
      event_time: "number",
    };
    expect(got.map(summary)).toEqual([
      { ...base, aspect_type: "create", updates: {} },
      { ...base, aspect_type: "update", updates: { title: "Messy" } },
      { ...base, aspect_type: "update", updates: { type: "Run" } },
      { ...base, aspect_type: "update", updates: { private: "true" } },
      { ...base, aspect_type: "update", updates: { title: "Tidy", type: "Walk", private: "false" } },
      { ...base, aspect_type: "delete", updates: {} },
      {
        object_type: "athlete",
        object_id: athlete.id,
        owner_id: athlete.id,
        subscription_id: subscriptionId,
        event_time: "number",
        aspect_type: "update",
        updates: { authorized: "false" },
      },
    ]);
    expect(got.every((d) => d.signatureValid)).toBe(true);
    expect(new Set(got.map((d) => d.deliveryId)).size).toBe(7);
    expect(got.every((d) => d.attempt === "1")).toBe(true);
    expect(Object.keys(got[0].json)).toEqual([
      "aspect_type",
      "event_time",
      "object_id",
      "object_type",
      "owner_id",
      "subscription_id",
      "updates",
    ]);
    expect(Math.abs((got[0].json.event_time as number) - Date.now() / 1000)).toBeLessThan(3600);
  });

  it("announces an uploaded activity once its upload is processed (ActivityRecorded)", async () => {
    const { app, subscriptionId } = await subscribedApp("upload");
    const athlete = await server.athlete({ applicationId: app.client_id });
    const file = readFileSync(deviceFile("gpx/strava-export-running-hr.gpx"));
    const multipart = new FormData();
    multipart.set("file", new Blob([file]), "run.gpx");
    multipart.set("data_type", "gpx");
    const res = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart });
    expect(res.status).toBe(201);
    const got = await eventually(
      () => receiver.acknowledged("upload").length >= 1 && receiver.acknowledged("upload"),
      60_000,
    );
    const status = await server.api("GET", `/v3/uploads/${res.body.id}`, { token: athlete.token });
    expect(status.body.activity_id).toBeGreaterThan(0);
    expect(got.map(summary)).toEqual([{
      aspect_type: "create",
      object_type: "activity",
      object_id: status.body.activity_id,
      owner_id: athlete.id,
      subscription_id: subscriptionId,
      event_time: "number",
      updates: {},
    }]);
  });

  it("sends nothing to an application the athlete never authorized", async () => {
    const stranger = await subscribedApp("stranger");
    const friend = await subscribedApp("friend");
    const other = await server.athlete({ applicationId: friend.app.client_id });
    const own = await server.athlete({ applicationId: stranger.app.client_id });
    const unseen = await createActivity(other.token, { name: "Not for the stranger" });
    const seen = await createActivity(own.token, { name: "For the stranger" });
    // Deliveries to one subscription are in log order: once the later activity has arrived, the
    // earlier one would have come first had it been sent.
    const got = await eventually(() =>
      receiver.acknowledged("stranger").length >= 1 && receiver.acknowledged("stranger")
    );
    expect(got.map((d) => d.json.object_id)).toEqual([seen]);
    const friendGot = await eventually(() =>
      receiver.acknowledged("friend").length >= 1 && receiver.acknowledged("friend")
    );
    expect(friendGot.map((d) => d.json.object_id)).toEqual([unseen]);
    expect(friendGot[0].signatureValid).toBe(true);
    // Signed with each application's own secret: the stranger's secret does not verify the friend's body.
    expect(receiver.received("stranger").every((d) => d.json.owner_id === own.id)).toBe(true);
  });

  it("shows private activities only with view_private: turning private is a delete, public again a create", async () => {
    const { app, subscriptionId } = await subscribedApp("no-private");
    const athlete = await server.athlete({ applicationId: app.client_id, permissions: ["read", "write"] });
    // The athlete edits with another application of theirs that may see private activities.
    const editor = await server.token(athlete.id, (await server.application()).client_id);
    const hidden = await createActivity(editor, { name: "Secret", private: 1 });
    const open = await createActivity(editor, { name: "Open" });
    await update(editor, hidden, { name: "Still secret" });
    await update(editor, open, { private: 1 });
    await update(editor, open, { name: "Renamed while private" });
    await update(editor, open, { private: 0 });
    await update(editor, open, { name: "Open again" });
    const got = await eventually(() =>
      receiver.acknowledged("no-private").length >= 4 && receiver.acknowledged("no-private")
    );
    const base = {
      object_type: "activity",
      object_id: open,
      owner_id: athlete.id,
      subscription_id: subscriptionId,
      event_time: "number",
    };
    expect(got.map(summary)).toEqual([
      { ...base, aspect_type: "create", updates: {} },
      { ...base, aspect_type: "delete", updates: {} },
      { ...base, aspect_type: "create", updates: {} },
      { ...base, aspect_type: "update", updates: { title: "Open again" } },
    ]);
    // Deleting a private activity is not announced either; the next public event is.
    expect((await server.api("DELETE", `/v3/activities/${hidden}`, { token: editor })).status).toBe(204);
    await update(editor, open, { type: "Run" });
    const later = await eventually(() =>
      receiver.acknowledged("no-private").length >= 5 && receiver.acknowledged("no-private")
    );
    expect(later.slice(4).map(summary)).toEqual([{ ...base, aspect_type: "update", updates: { type: "Run" } }]);
  });

  it("retries a receiver that fails twice, with the same body and delivery id, then delivers the next", async () => {
    const { app } = await subscribedApp("flaky", (i) => (i < 2 ? 503 : 200));
    const athlete = await server.athlete({ applicationId: app.client_id });
    const first = await createActivity(athlete.token, { name: "Retried" });
    const second = await createActivity(athlete.token, { name: "After" });
    const got = await eventually(() => receiver.acknowledged("flaky").length >= 2 && receiver.received("flaky"));
    expect(got.map((d) => [d.json.object_id, d.attempt, d.answered])).toEqual([
      [first, "1", 503],
      [first, "2", 503],
      [first, "3", 200],
      [second, "1", 200],
    ]);
    expect(new Set(got.slice(0, 3).map((d) => d.body)).size).toBe(1);
    expect(new Set(got.slice(0, 3).map((d) => d.deliveryId)).size).toBe(1);
    expect(got.every((d) => d.signatureValid)).toBe(true);
  });

  it("gives up after the configured attempts and moves on to the next event", async () => {
    const { app } = await subscribedApp("down", (i) => (i < 3 ? 500 : 200));
    const athlete = await server.athlete({ applicationId: app.client_id });
    const lost = await createActivity(athlete.token, { name: "Lost" });
    const next = await createActivity(athlete.token, { name: "Next" });
    const got = await eventually(() => receiver.acknowledged("down").length >= 1 && receiver.received("down"));
    expect(got.map((d) => [d.json.object_id, d.attempt, d.answered])).toEqual([
      [lost, "1", 500],
      [lost, "2", 500],
      [lost, "3", 500],
      [next, "1", 200],
    ]);
  });

  it("stops delivering once the subscription is deleted", async () => {
    const { app, subscriptionId } = await subscribedApp("cancelled", () => 500);
    const athlete = await server.athlete({ applicationId: app.client_id });
    await createActivity(athlete.token, { name: "Never acknowledged" });
    await eventually(() => receiver.received("cancelled").length >= 1);
    const res = await server.api("DELETE", `/v3/push_subscriptions/${subscriptionId}`, {
      query: { client_id: app.client_id, client_secret: app.client_secret },
    });
    expect(res.status).toBe(204);
    const rows = await eventually(async () => {
      const r = await server.platform.db.query<{ status: string }>(
        "select status from public.webhook_deliveries where subscription_id = $1",
        [subscriptionId],
      );
      return r.length > 0 && r.every((row) => row.status !== "pending") && r;
    });
    expect(rows.map((r) => r.status).filter((s) => s === "delivered")).toEqual([]);
  });
});

describe("read model", () => {
  it("push_subscriptions is reproduced exactly by a replay of the log (cli verify)", async () => {
    const runner = new ProjectionRunner(server.platform.db, server.platform.store, [pushSubscriptionsProjection]);
    const { differences, tables } = await runner.verify();
    expect(tables).toBe(1);
    expect(differences).toEqual([]);
    const [{ n }] = await server.platform.db.query<{ n: number }>("select count(*)::int as n from push_subscriptions");
    expect(n).toBeGreaterThan(3);
  });
});

describe("cli", () => {
  it("webhooks status lists subscriptions with their delivery counts and last error", async () => {
    const command = allCommands.find((c) => c.name === "webhooks status")!;
    const result = await command.run(server.platform, {}, { progress: () => {}, interactive: false }) as {
      subscriptions: { callback_url: string; delivered: number; failed: number; last_error: string | null }[];
    };
    const flaky = result.subscriptions.find((s) => s.callback_url.endsWith("/hooks/flaky"))!;
    expect(flaky).toMatchObject({ delivered: 2, failed: 0, last_error: "HTTP 503" });
    const down = result.subscriptions.find((s) => s.callback_url.endsWith("/hooks/down"))!;
    expect(down).toMatchObject({ delivered: 1, failed: 1, last_error: "HTTP 500" });
    expect(command.format!(result)).toContain("2 delivered, 0 failed");
  });
});
