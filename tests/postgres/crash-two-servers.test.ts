import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { createTestDatabase } from "../helpers/postgres.ts";
import { Acked, crashAthletes, expectAllAcked, writer } from "../proof/crash-writes.ts";

/**
 * Crash safety on PostgreSQL: two server processes (Deno) on one database take concurrent writes
 * from many athletes; one of them, chosen at random, is SIGKILLed at a random moment in each of 10
 * rounds while the other keeps serving, then restarted. Every write that got a 2xx must be there
 * (read through either server) and `cli verify` must pass.
 */
const ROUNDS = 10;
const ATHLETES = 12;

const acked = new Acked();

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const servers: (DenoServer | undefined)[] = [undefined, undefined];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const s of servers) await s?.stop("SIGKILL");
  await database?.drop();
});

describe("crash safety on PostgreSQL: two servers, one SIGKILLed at random", () => {
  it(`keeps every acknowledged write over ${ROUNDS} kills, and the read models verify`, async () => {
    const env = {
      DATABASE_URL: database.url,
      SEED_DEMO: "0",
      RATE_LIMIT_SHORT: "100000000",
      RATE_LIMIT_LONG: "100000000",
    };
    const setup = await openPlatform(configFromEnv({ databaseUrl: database.url, seedDemo: false, quiet: true }));
    const athletes = await crashAthletes(setup, ATHLETES);
    await setup.close();

    const started = await Promise.all([startDenoServer({ env }), startDenoServer({ env })]);
    servers[0] = started[0];
    servers[1] = started[1];
    const club = await api(servers[0]!.url)("POST", "/v3/clubs", {
      token: athletes[0].token,
      form: { name: "Crash Club", sport_type: "cycling" },
    });
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
          ? writer(acked, servers[victim]!.url, i, athletes, clubId, stopVictim)
          : writer(acked, servers[survivor]!.url, i, athletes, clubId, stopSurvivor)
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

    expect(acked.activities.size).toBeGreaterThan(0);
    expect(acked.total).toBeGreaterThan(ROUNDS);
    expect(survivorWrites).toBeGreaterThan(0);
    await expectAllAcked(acked, servers.map((s) => s!.url), athletes, clubId);
    const verify = await runCli(["verify"], { DATABASE_URL: database.url });
    expect(verify.stdout).toContain("equal to the live ones");
    expect(verify.code).toBe(0);
    console.log(
      `crash safety (PostgreSQL, 2 servers): ${ROUNDS} SIGKILLs of one server; acknowledged writes kept: ${acked.activities.size} activities, ${acked.kudos.length} kudos, ${acked.comments.length} comments, ${acked.joins.size} club joins; lost: 0`,
    );
  }, 600_000);
});
