import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/actions/applications.ts";
import { createAthlete } from "../../server/actions/athletes.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/platform.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

/**
 * Crash safety on PostgreSQL: two server processes (Deno) on one database take concurrent writes
 * from many athletes; one of them, chosen at random, is SIGKILLed at a random moment in each of 10
 * rounds while the other keeps serving, then restarted. Every write that got a 2xx must be there
 * (read through either server) and `cli verify` must pass.
 */
const ROUNDS = 10;
const ATHLETES = 12;

interface Athlete {
  id: number;
  token: string;
}

const acked = {
  activities: new Map<number, number>(), // activity id → owner index
  kudos: [] as { activityId: number; owner: number; athleteId: number }[],
  comments: [] as { activityId: number; owner: number; text: string }[],
  names: new Map<number, { acked: string; after: Set<string> }>(),
  joins: new Set<number>(),
};

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const servers: (DenoServer | undefined)[] = [undefined, undefined];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const s of servers) await s?.stop("SIGKILL");
  await database?.drop();
});

async function writer(url: string, me: number, athletes: Athlete[], clubId: number, stop: { now: boolean }) {
  const call = api(url);
  const { token } = athletes[me];
  let step = 0;
  while (!stop.now) {
    step++;
    try {
      const kind = step === 1 && acked.activities.size < ATHLETES * 2 ? 1 : Math.floor(Math.random() * 5);
      if (kind === 1) {
        const res = await call("POST", "/v3/activities", {
          token,
          form: { name: `ride ${me}-${step}`, type: "Ride", start_date_local: "2026-05-01T08:00:00Z", elapsed_time: 3600, distance: 20000 },
        });
        if (res.status === 201) acked.activities.set(res.body.id, me);
      } else if (kind === 2) {
        const theirs = [...acked.activities].filter(([, owner]) => owner !== me).map(([id, owner]) => ({ id, owner }));
        const mine = new Set(acked.kudos.filter((k) => k.athleteId === athletes[me].id).map((k) => k.activityId));
        const target = theirs.find((a) => !mine.has(a.id));
        if (target) {
          const res = await call("POST", `/v3/activities/${target.id}/kudos`, { token });
          if (res.status >= 200 && res.status < 300) acked.kudos.push({ activityId: target.id, owner: target.owner, athleteId: athletes[me].id });
        }
      } else if (kind === 3) {
        const any = [...acked.activities][step % Math.max(acked.activities.size, 1)];
        if (any) {
          const text = `comment ${me}-${step}-${Math.random().toString(36).slice(2, 8)}`;
          const res = await call("POST", `/v3/activities/${any[0]}/comments`, { token, form: { text } });
          if (res.status >= 200 && res.status < 300) acked.comments.push({ activityId: any[0], owner: any[1], text });
        }
      } else if (kind === 4) {
        const own = [...acked.activities].find(([, owner]) => owner === me);
        if (own) {
          const name = `edited ${me}-${step}`;
          const entry = acked.names.get(own[0]) ?? { acked: "", after: new Set<string>() };
          entry.after.add(name);
          acked.names.set(own[0], entry);
          const res = await call("PUT", `/v3/activities/${own[0]}`, { token, form: { name } });
          if (res.status === 200) acked.names.set(own[0], { acked: name, after: new Set() });
        }
      } else if (kind === 0 && !acked.joins.has(me)) {
        const res = await call("POST", `/v3/clubs/${clubId}/join`, { token });
        if (res.status === 200 && res.body?.success) acked.joins.add(me);
      }
    } catch {
      return; // the server was killed mid-request: the outcome is unknown, so it is not counted
    }
  }
}

describe("crash safety on PostgreSQL: two servers, one SIGKILLed at random", () => {
  it(`keeps every acknowledged write over ${ROUNDS} kills, and the read models verify`, async () => {
    const env = { DATABASE_URL: database.url, SEED_DEMO: "0", RATE_LIMIT_SHORT: "100000000", RATE_LIMIT_LONG: "100000000" };
    const setup = await openPlatform(configFromEnv({ databaseUrl: database.url, seedDemo: false, quiet: true }));
    const athletes: Athlete[] = [];
    const owner = await createAthlete(setup, { firstname: "Owner", lastname: "App", email: "owner@example.com", password: "password123" });
    const app = await createApplication(setup, { name: "Crash", ownerId: owner, callbackDomain: "localhost", internal: true, kudosEnabled: true });
    for (let i = 0; i < ATHLETES; i++) {
      const id = await createAthlete(setup, { firstname: `Rider${i}`, lastname: "Crash", email: `rider${i}@example.com`, password: "password123" });
      athletes.push({ id, token: await issueToken(setup, { athleteId: id, applicationId: app.client_id, permissions: ["read", "write", "view_private"] }) });
    }
    await setup.close();

    const started = await Promise.all([startDenoServer({ env }), startDenoServer({ env })]);
    servers[0] = started[0];
    servers[1] = started[1];
    const club = await api(servers[0]!.url)("POST", "/v3/clubs", { token: athletes[0].token, form: { name: "Crash Club", sport_type: "cycling" } });
    expect(club.status).toBe(201);
    const clubId = club.body.id as number;
    let survivorWrites = 0;

    for (let round = 0; round < ROUNDS; round++) {
      const victim = Math.random() < 0.5 ? 0 : 1;
      const survivor = 1 - victim;
      const stopVictim = { now: false };
      const stopSurvivor = { now: false };
      const before = acked.activities.size + acked.kudos.length + acked.comments.length;
      // Athletes alternate between the servers, as behind a load balancer.
      const writers = athletes.map((_, i) =>
        i % 2 === victim
          ? writer(servers[victim]!.url, i, athletes, clubId, stopVictim)
          : writer(servers[survivor]!.url, i, athletes, clubId, stopSurvivor)
      );
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 2500));
      await servers[victim]!.stop("SIGKILL");
      stopVictim.now = true;
      // The other server keeps taking writes after its peer died.
      await new Promise((r) => setTimeout(r, 500));
      stopSurvivor.now = true;
      await Promise.all(writers);
      survivorWrites += acked.activities.size + acked.kudos.length + acked.comments.length - before;
      servers[victim] = await startDenoServer({ env });
    }

    const total = acked.activities.size + acked.kudos.length + acked.comments.length + acked.joins.size;
    expect(acked.activities.size).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(ROUNDS);
    expect(survivorWrites).toBeGreaterThan(0);
    let checked = 0;
    for (const [id, ownerIndex] of acked.activities) {
      const call = api(servers[checked++ % 2]!.url);
      const res = await call("GET", `/v3/activities/${id}`, { token: athletes[ownerIndex].token });
      expect(res.status, `activity ${id}`).toBe(200);
      const names = acked.names.get(id);
      if (names?.acked) expect([names.acked, ...names.after]).toContain(res.body.name);
    }
    for (const k of acked.kudos) {
      const call = api(servers[checked++ % 2]!.url);
      const res = await call("GET", `/v3/activities/${k.activityId}/kudos`, { token: athletes[k.owner].token, query: { per_page: 200 } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.map((a: { id: number }) => a.id), `kudos on ${k.activityId}`).toContain(k.athleteId);
    }
    for (const c of acked.comments) {
      const call = api(servers[checked++ % 2]!.url);
      const res = await call("GET", `/v3/activities/${c.activityId}/comments`, { token: athletes[c.owner].token, query: { per_page: 200 } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.map((x: { text: string }) => x.text), `comment on ${c.activityId}`).toContain(c.text);
    }
    for (const me of acked.joins) {
      const res = await api(servers[0]!.url)("GET", "/v3/athlete/clubs", { token: athletes[me].token });
      expect(res.body.map((x: { id: number }) => x.id)).toContain(clubId);
    }
    const verify = await runCli(["verify"], { DATABASE_URL: database.url });
    expect(verify.stdout).toContain("equal to the live ones");
    expect(verify.code).toBe(0);
    console.log(`crash safety (PostgreSQL, 2 servers): ${ROUNDS} SIGKILLs of one server; acknowledged writes kept: ${acked.activities.size} activities, ${acked.kudos.length} kudos, ${acked.comments.length} comments, ${acked.joins.size} club joins; lost: 0`);
  }, 600_000);
});
