import { DEVICES } from "../helpers/fixtures.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { burstClient } from "./http-burst.ts";
import { manyAthletes as manyAthletesOf } from "./fast-athletes.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

/**
 * Races on one resource over real HTTP: every request is in flight at once, and the outcome must be
 * exactly what a serial run would give (no lost kudos, no double kudos, no double activity).
 */

const KUDOERS = 1_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 100_000_000, rateLimitLong: 100_000_000 });
});
afterAll(() => server.close());

const manyAthletes = (count: number, applicationId: number, tag: string) =>
  manyAthletesOf(server.platform, count, applicationId, tag);

async function createActivity(owner: TestAthlete, form: Record<string, string | number | boolean> = {}) {
  const res = await server.api("POST", "/v3/activities", {
    token: owner.token,
    form: {
      name: "Race target",
      type: "Ride",
      start_date_local: "2026-05-01T08:00:00Z",
      elapsed_time: 3600,
      distance: 20000,
      ...form,
    },
  });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

/** Fires every request at once and tallies the statuses. */
async function all(requests: (() => Promise<{ status: number }>)[]) {
  const results = await Promise.all(requests.map((r) => r()));
  const statuses = new Map<number, number>();
  for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  return { results, statuses, fiveHundreds: results.filter((r) => r.status >= 500).length };
}

describe("concurrency: kudos", () => {
  it(
    `${KUDOERS} parallel kudos from ${KUDOERS} athletes on one activity → kudos_count exactly ${KUDOERS}`,
    async () => {
      const owner = await server.athlete();
      const activityId = await createActivity(owner);
      const kudoers = await manyAthletes(KUDOERS, owner.applicationId, "kudoer");
      const burst = burstClient(server.url);
      const { statuses, fiveHundreds } = await all(
        kudoers.map((a) => () => burst.send("POST", `/v3/activities/${activityId}/kudos`, a.token)),
      );
      burst.close();
      expect(fiveHundreds).toBe(0);
      expect(Object.fromEntries(statuses)).toEqual({ 201: KUDOERS });
      const activity = await server.api("GET", `/v3/activities/${activityId}`, { token: owner.token });
      expect(activity.body.kudos_count).toBe(KUDOERS);
      const ids = new Set<number>();
      for (let page = 1;; page++) {
        const res = await server.api("GET", `/v3/activities/${activityId}/kudos`, {
          token: owner.token,
          query: { page, per_page: 200 },
        });
        expect(res.status).toBe(200);
        if (res.body.length === 0) break;
        for (const a of res.body as { id: number }[]) ids.add(a.id);
      }
      expect(ids.size).toBe(KUDOERS);
      console.log(
        `concurrency: ${KUDOERS} parallel kudos → kudos_count ${activity.body.kudos_count}, 5xx ${fiveHundreds}`,
      );
    },
    300_000,
  );

  it("100 parallel identical kudos from one athlete → exactly one", async () => {
    const owner = await server.athlete();
    const fan = await server.athlete();
    const activityId = await createActivity(owner);
    const { statuses, fiveHundreds } = await all(
      Array.from(
        { length: 100 },
        () => () => server.api("POST", `/v3/activities/${activityId}/kudos`, { token: fan.token }),
      ),
    );
    expect(fiveHundreds).toBe(0);
    // Every answer is a 2xx or a documented 4xx; at least one succeeded.
    for (const status of statuses.keys()) {
      expect(status < 300 || (status >= 400 && status < 500), `status ${status}`).toBe(true);
    }
    expect(statuses.get(201) ?? 0).toBeGreaterThanOrEqual(1);
    const activity = await server.api("GET", `/v3/activities/${activityId}`, { token: owner.token });
    expect(activity.body.kudos_count).toBe(1);
    const kudoers = await server.api("GET", `/v3/activities/${activityId}/kudos`, { token: owner.token });
    expect(kudoers.body.map((a: { id: number }) => a.id)).toEqual([fan.id]);
  });
});

describe("concurrency: clubs", () => {
  it(
    "parallel join requests to a private club, approved in parallel by two admins → every requester a member once",
    async () => {
      const owner = await server.athlete();
      const club = await server.api("POST", "/v3/clubs", {
        token: owner.token,
        form: { name: "Race Club", sport_type: "cycling", private: true },
      });
      expect(club.status).toBe(201);
      const clubId = club.body.id as number;
      const second = await server.athlete();
      // The second admin is invited by joining (pending), approved, then promoted.
      expect((await server.api("POST", `/v3/clubs/${clubId}/join`, { token: second.token })).status).toBe(200);
      expect((await server.api("PUT", `/v3/clubs/${clubId}/members/${second.id}`, { token: owner.token })).status).toBe(
        200,
      );
      expect((await server.api("PUT", `/v3/clubs/${clubId}/admins/${second.id}`, { token: owner.token })).body.admin)
        .toBe(true);

      const requesters = await manyAthletes(60, owner.applicationId, "joiner");
      // Each requester asks twice at once: still one pending request.
      const joins = await all(
        requesters.flatMap((a) =>
          [0, 1].map(() => () => server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token }))
        ),
      );
      expect(joins.fiveHundreds).toBe(0);
      expect(Object.fromEntries(joins.statuses)).toEqual({ 200: requesters.length * 2 });
      for (const r of joins.results as unknown as { body: { membership: string } }[]) {
        expect(r.body.membership).toBe("pending");
      }

      // Both admins approve every request at the same time.
      const approvals = await all(
        requesters.flatMap((a) =>
          [owner, second].map((admin) => () =>
            server.api("PUT", `/v3/clubs/${clubId}/members/${a.id}`, { token: admin.token })
          )
        ),
      );
      expect(approvals.fiveHundreds).toBe(0);
      for (const status of approvals.statuses.keys()) {
        expect([200, 404]).toContain(status); // 404 "no request": the other admin was first
      }
      expect(approvals.statuses.get(200) ?? 0).toBeGreaterThanOrEqual(requesters.length);

      const detail = await server.api("GET", `/v3/clubs/${clubId}`, { token: owner.token });
      expect(detail.body.member_count).toBe(requesters.length + 2);
      const members = new Map<number, number>();
      for (let page = 1;; page++) {
        const res = await server.api("GET", `/v3/clubs/${clubId}/members`, {
          token: owner.token,
          query: { page, per_page: 200 },
        });
        if (res.body.length === 0) {
          break;
        }
        for (const m of res.body as { id: number; membership: string }[]) {
          expect(m.membership).toBe("member");
          members.set(m.id, (members.get(m.id) ?? 0) + 1);
        }
      }
      for (const a of requesters) expect(members.get(a.id), `athlete ${a.id}`).toBe(1);
      expect(members.size).toBe(requesters.length + 2);
    },
    120_000,
  );

  it("parallel joins to a public club → member_count counts each athlete once", async () => {
    const owner = await server.athlete();
    const club = await server.api("POST", "/v3/clubs", {
      token: owner.token,
      form: { name: "Open Race Club", sport_type: "running" },
    });
    const clubId = club.body.id as number;
    const joiners = await manyAthletes(40, owner.applicationId, "open");
    const joins = await all(
      joiners.flatMap((a) =>
        [0, 1, 2].map(() => () => server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token }))
      ),
    );
    expect(joins.fiveHundreds).toBe(0);
    expect(Object.fromEntries(joins.statuses)).toEqual({ 200: joiners.length * 3 });
    const detail = await server.api("GET", `/v3/clubs/${clubId}`, { token: owner.token });
    expect(detail.body.member_count).toBe(joiners.length + 1);
  }, 60_000);
});

describe("concurrency: uploads", () => {
  async function pollAll(athlete: TestAthlete, ids: number[]) {
    const final = new Map<number, { status: string; activity_id: number | null; error: string | null }>();
    for (let round = 0; round < 600 && final.size < ids.length; round++) {
      for (const id of ids) {
        if (final.has(id)) continue;
        const res = await server.api("GET", `/v3/uploads/${id}`, { token: athlete.token });
        expect(res.status).toBe(200);
        if (res.body.status !== "Your activity is still being processed.") final.set(id, res.body);
      }
      if (final.size < ids.length) await new Promise((r) => setTimeout(r, 100));
    }
    return final;
  }

  it("parallel uploads of the same file → one activity; the others are refused as duplicates", async () => {
    const rider = await server.athlete();
    const bytes = readFileSync(join(DEVICES, "fit/garmin-edge1000-cycling-short-3formats.fit"));
    const upload = () => {
      const form = new FormData();
      form.set("file", new Blob([bytes]), "ride.fit");
      form.set("data_type", "fit");
      return server.api("POST", "/v3/uploads", { token: rider.token, multipart: form });
    };
    const { results, statuses, fiveHundreds } = await all(Array.from({ length: 20 }, () => upload));
    expect(fiveHundreds).toBe(0);
    for (const status of statuses.keys()) expect([201, 400]).toContain(status);
    const accepted = (results as { status: number; body: { id: number } }[]).filter((r) => r.status === 201).map((r) =>
      r.body.id
    );
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    const final = await pollAll(rider, accepted);
    expect(final.size).toBe(accepted.length); // none stuck "still being processed"
    const ready = [...final.values()].filter((u) => u.activity_id !== null);
    expect(ready.length).toBe(1);
    for (const u of final.values()) if (u.activity_id === null) expect(u.error).toMatch(/duplicate of activity/);
    const list = await server.api("GET", "/v3/athlete/activities", { token: rider.token, query: { per_page: 200 } });
    expect(list.body.map((a: { id: number }) => a.id)).toEqual([ready[0].activity_id]);
    console.log(`concurrency: 20 parallel uploads of one file → ${accepted.length} accepted, 1 activity`);
  }, 120_000);
});
