import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: TestAthlete;
let fan: TestAthlete;
let activityId: number;
let privateId: number;
beforeAll(async () => {
  server = await startTestServer();
  owner = await server.athlete({ firstname: "Ada" });
  fan = await server.athlete({ firstname: "Eddy", lastname: "Merckx", city: "Brussels" });
  const form = { name: "Ride", type: "Ride", start_date_local: "2024-05-01T10:00:00Z", elapsed_time: 600 };
  activityId = (await server.api("POST", "/v3/activities", { token: owner.token, form })).body.id;
  privateId =
    (await server.api("POST", "/v3/activities", { token: owner.token, form: { ...form, private: 1 } })).body.id;
});
afterAll(() => server.close());

describe("comments", () => {
  it("creates comments (201 with the comment) and lists them oldest first with summary athletes", async () => {
    const first = await server.api("POST", `/v3/activities/${activityId}/comments`, {
      token: fan.token,
      form: { text: "Chapeau!" },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: first.body.id,
      activity_id: activityId,
      resource_state: 2,
      text: "Chapeau!",
      athlete: expect.objectContaining({
        id: fan.id,
        resource_state: 2,
        firstname: "Eddy",
        lastname: "Merckx",
        city: "Brussels",
        friend: null,
        follower: null,
      }),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    await server.api("POST", `/v3/activities/${activityId}/comments`, { token: owner.token, form: { text: "Thanks" } });
    const list = await server.api("GET", `/v3/activities/${activityId}/comments`, { token: fan.token });
    expect(list.status).toBe(200);
    expect(list.body.map((c: { text: string }) => c.text)).toEqual(["Chapeau!", "Thanks"]);
    const page2 = await server.api("GET", `/v3/activities/${activityId}/comments`, {
      token: fan.token,
      query: { page: 2, per_page: 1 },
    });
    expect(page2.body.map((c: { text: string }) => c.text)).toEqual(["Thanks"]);
    const activity = await server.api("GET", `/v3/activities/${activityId}`, { token: owner.token });
    expect(activity.body.comment_count).toBe(2);
  });

  it("refuses comments from applications that are not internal: 403", async () => {
    const app = await server.application({ internal: false });
    const outsider = await server.athlete({ applicationId: app.client_id });
    const res = await server.api("POST", `/v3/activities/${activityId}/comments`, {
      token: outsider.token,
      form: { text: "hi" },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: "Forbidden",
      errors: [{ resource: "Application", field: "comments", code: "not internal" }],
    });
  });

  it("refuses empty or too long text (400), missing write (401), another's private activity (404)", async () => {
    const empty = await server.api("POST", `/v3/activities/${activityId}/comments`, {
      token: fan.token,
      form: { text: "" },
    });
    expect(empty.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "Comment", field: "text", code: "missing" }],
    });
    const long = await server.api("POST", `/v3/activities/${activityId}/comments`, {
      token: fan.token,
      form: { text: "x".repeat(2001) },
    });
    expect(long.body.errors).toEqual([{ resource: "Comment", field: "text", code: "invalid" }]);
    const reader = await server.token(fan.id, fan.applicationId, ["read"]);
    expect(
      (await server.api("POST", `/v3/activities/${activityId}/comments`, { token: reader, form: { text: "x" } }))
        .status,
    ).toBe(401);
    expect(
      (await server.api("POST", `/v3/activities/${privateId}/comments`, { token: fan.token, form: { text: "x" } }))
        .status,
    ).toBe(404);
    expect((await server.api("GET", `/v3/activities/${privateId}/comments`, { token: fan.token })).status).toBe(404);
  });

  it("lets the commenter or the activity owner delete a comment, nobody else (403)", async () => {
    const a = await server.api("POST", `/v3/activities/${activityId}/comments`, {
      token: fan.token,
      form: { text: "one" },
    });
    const b = await server.api("POST", `/v3/activities/${activityId}/comments`, {
      token: fan.token,
      form: { text: "two" },
    });
    const stranger = await server.athlete();
    const refused = await server.api("DELETE", `/v3/activities/${activityId}/comments/${a.body.id}`, {
      token: stranger.token,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.errors).toEqual([{ resource: "Comment", field: "id", code: "forbidden" }]);
    expect(
      (await server.api("DELETE", `/v3/activities/${activityId}/comments/${a.body.id}`, { token: fan.token })).status,
    ).toBe(204);
    expect(
      (await server.api("DELETE", `/v3/activities/${activityId}/comments/${b.body.id}`, { token: owner.token })).status,
    ).toBe(204);
    const gone = await server.api("DELETE", `/v3/activities/${activityId}/comments/${b.body.id}`, {
      token: owner.token,
    });
    expect(gone.status).toBe(404);
    expect(gone.body.errors).toEqual([{ resource: "Comment", field: "id", code: "invalid" }]);
    const texts = (await server.api("GET", `/v3/activities/${activityId}/comments`, { token: owner.token })).body.map((
      c: { text: string },
    ) => c.text);
    expect(texts).not.toContain("one");
    expect(texts).not.toContain("two");
  });
});

describe("kudos", () => {
  it("gives kudos (201): kudos_count and has_kudoed follow; the owner lists the kudoers", async () => {
    const res = await server.api("POST", `/v3/activities/${activityId}/kudos`, { token: fan.token });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({});
    const mine = await server.api("GET", `/v3/activities/${activityId}`, { token: owner.token });
    expect(mine.body.kudos_count).toBe(1);
    expect(mine.body.has_kudoed).toBe(false);
    const list = await server.api("GET", `/v3/activities/${activityId}/kudos`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({ id: fan.id, resource_state: 2, firstname: "Eddy", friend: null, follower: null }),
    ]);
  });

  it("refuses kudos twice (409) and on one's own activity (403)", async () => {
    const twice = await server.api("POST", `/v3/activities/${activityId}/kudos`, { token: fan.token });
    expect(twice.status).toBe(409);
    expect(twice.body.errors).toEqual([{ resource: "Kudos", field: "athlete", code: "already exists" }]);
    const own = await server.api("POST", `/v3/activities/${activityId}/kudos`, { token: owner.token });
    expect(own.status).toBe(403);
    expect(own.body.errors).toEqual([{ resource: "Kudos", field: "athlete", code: "own activity" }]);
  });

  it("refuses applications without kudos (403), missing write (401), another's private activity (404)", async () => {
    const app = await server.application({ kudos: false });
    const outsider = await server.athlete({ applicationId: app.client_id });
    const res = await server.api("POST", `/v3/activities/${activityId}/kudos`, { token: outsider.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: "Forbidden",
      errors: [{ resource: "Application", field: "kudos", code: "not enabled" }],
    });
    const reader = await server.athlete({ permissions: ["read"] });
    expect((await server.api("POST", `/v3/activities/${activityId}/kudos`, { token: reader.token })).status).toBe(401);
    expect((await server.api("POST", `/v3/activities/${privateId}/kudos`, { token: fan.token })).status).toBe(404);
  });

  it("a privacy change or a deletion takes effect at once for kudos (who may see is kept in memory)", async () => {
    const form = { name: "Soon private", type: "Ride", start_date_local: "2024-05-02T10:00:00Z", elapsed_time: 600 };
    const id = (await server.api("POST", "/v3/activities", { token: owner.token, form })).body.id;
    const second = await server.athlete({ firstname: "Second" });
    const third = await server.athlete({ firstname: "Third" });
    // Seen (and remembered) as public by a first kudos…
    expect((await server.api("POST", `/v3/activities/${id}/kudos`, { token: fan.token })).status).toBe(201);
    // …made private: the next athlete's kudos is refused at once, as for any private activity.
    const edit = await server.api("PUT", `/v3/activities/${id}`, { token: owner.token, json: { private: true } });
    expect(edit.status).toBe(200);
    expect((await server.api("POST", `/v3/activities/${id}/kudos`, { token: second.token })).status).toBe(404);
    // Public again: accepted at once.
    await server.api("PUT", `/v3/activities/${id}`, { token: owner.token, json: { private: false } });
    expect((await server.api("POST", `/v3/activities/${id}/kudos`, { token: second.token })).status).toBe(201);
    // Deleted: 404 at once.
    expect((await server.api("DELETE", `/v3/activities/${id}`, { token: owner.token })).status).toBe(204);
    expect((await server.api("POST", `/v3/activities/${id}/kudos`, { token: third.token })).status).toBe(404);
  });

  it("shows the kudos list to the owner only (403 for others)", async () => {
    const res = await server.api("GET", `/v3/activities/${activityId}/kudos`, { token: fan.token });
    expect(res.status).toBe(403);
    expect((await server.api("GET", "/v3/activities/0/kudos", { token: owner.token })).status).toBe(400);
  });
});
