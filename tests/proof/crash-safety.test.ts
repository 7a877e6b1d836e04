import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/actions/applications.ts";
import { createAthlete } from "../../server/actions/athletes.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/platform.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";

const ROUNDS = 10;
const ATHLETES = 12;

interface Athlete {
  id: number;
  token: string;
}

/** What the server acknowledged with a 2xx. */
const acked = {
  activities: new Map<number, number>(), // activity id → owner index
  kudos: [] as { activityId: number; owner: number; athleteId: number }[],
  comments: [] as { activityId: number; owner: number; text: string }[],
  names: new Map<number, { acked: string; after: Set<string> }>(),
  joins: new Set<number>(),
};

let server: DenoServer | undefined;
afterAll(async () => {
  await server?.stop("SIGKILL");
});

async function writer(url: string, me: number, athletes: Athlete[], clubId: number, stop: { now: boolean }) {
  const call = api(url);
  const { token } = athletes[me];
  let step = 0;
  while (!stop.now) {
    step++;
    try {
      // The first write of a round creates an activity; after that any kind, at random.
      const kind = step === 1 && acked.activities.size < ATHLETES ? 1 : Math.floor(Math.random() * 5);
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
      // The server was killed mid-request: the outcome of this write is unknown, so it is not counted.
      return;
    }
  }
}

describe("crash safety: SIGKILL at random moments during concurrent writes (Deno, PGlite on disk)", () => {
  it(`keeps every write that got a 2xx over ${ROUNDS} kills, and the read models verify`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "fitness-crash-"));
    const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
    const athletes: Athlete[] = [];
    const owner = await createAthlete(setup, { firstname: "Owner", lastname: "App", email: "owner@example.com", password: "password123" });
    const app = await createApplication(setup, { name: "Crash", ownerId: owner, callbackDomain: "localhost", internal: true, kudosEnabled: true });
    for (let i = 0; i < ATHLETES; i++) {
      const id = await createAthlete(setup, { firstname: `Rider${i}`, lastname: "Crash", email: `rider${i}@example.com`, password: "password123" });
      athletes.push({ id, token: await issueToken(setup, { athleteId: id, applicationId: app.client_id, permissions: ["read", "write", "view_private"] }) });
    }
    await setup.close();

    const env = { SEED_DEMO: "0" };
    let clubId = 0;
    for (let round = 0; round < ROUNDS; round++) {
      server = await startDenoServer({ dataDir, env });
      if (round === 0) {
        const club = await api(server.url)("POST", "/v3/clubs", { token: athletes[0].token, form: { name: "Crash Club", sport_type: "cycling" } });
        expect(club.status).toBe(201);
        clubId = club.body.id;
      }
      const stop = { now: false };
      const writers = athletes.map((_, i) => writer(server!.url, i, athletes, clubId, stop));
      await new Promise((r) => setTimeout(r, 1500 + Math.random() * 2500));
      await server.stop("SIGKILL");
      stop.now = true;
      await Promise.all(writers);
    }

    server = await startDenoServer({ dataDir, env });
    const call = api(server.url);
    const total = acked.activities.size + acked.kudos.length + acked.comments.length + acked.joins.size;
    expect(acked.activities.size).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(ROUNDS);
    for (const [id, ownerIndex] of acked.activities) {
      const res = await call("GET", `/v3/activities/${id}`, { token: athletes[ownerIndex].token });
      expect(res.status, `activity ${id}`).toBe(200);
      const names = acked.names.get(id);
      if (names?.acked) expect([names.acked, ...names.after]).toContain(res.body.name);
    }
    for (const k of acked.kudos) {
      const res = await call("GET", `/v3/activities/${k.activityId}/kudos`, { token: athletes[k.owner].token, query: { per_page: 200 } });
      expect(res.body.map((a: { id: number }) => a.id), `kudos on ${k.activityId}`).toContain(k.athleteId);
    }
    for (const c of acked.comments) {
      const res = await call("GET", `/v3/activities/${c.activityId}/comments`, { token: athletes[c.owner].token, query: { per_page: 200 } });
      expect(res.body.map((x: { text: string }) => x.text), `comment on ${c.activityId}`).toContain(c.text);
    }
    for (const me of acked.joins) {
      const res = await call("GET", "/v3/athlete/clubs", { token: athletes[me].token });
      expect(res.body.map((x: { id: number }) => x.id)).toContain(clubId);
    }
    const verify = await runCli(["verify"], { DATA_DIR: dataDir });
    expect(verify.stdout).toContain("equal to the live ones");
    expect(verify.code).toBe(0);
    await server.stop();
    console.log(`crash safety: ${ROUNDS} SIGKILLs; acknowledged writes kept: ${acked.activities.size} activities, ${acked.kudos.length} kudos, ${acked.comments.length} comments, ${acked.joins.size} club joins; lost: 0`);
  }, 600_000);
});
