import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { Acked, crashAthletes, expectAllAcked, writer } from "./crash-writes.ts";

const ROUNDS = 10;
const ATHLETES = 12;
const acked = new Acked();

let server: DenoServer | undefined;
afterAll(async () => {
  await server?.stop("SIGKILL");
});

describe("crash safety: SIGKILL at random moments during concurrent writes (Deno, PGlite on disk)", () => {
  it(`keeps every write that got a 2xx over ${ROUNDS} kills, and the read models verify`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "fitness-crash-"));
    const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
    const athletes = await crashAthletes(setup, ATHLETES);
    await setup.close();

    const env = { SEED_DEMO: "0", RATE_LIMIT_SHORT: "100000000", RATE_LIMIT_LONG: "100000000" };
    let clubId = 0;
    for (let round = 0; round < ROUNDS; round++) {
      server = await startDenoServer({ dataDir, env });
      if (round === 0) {
        const club = await api(server.url)("POST", "/v3/clubs", {
          token: athletes[0].token,
          form: { name: "Crash Club", sport_type: "cycling" },
        });
        expect(club.status).toBe(201);
        clubId = club.body.id;
      }
      const stop = { now: false };
      const writers = athletes.map((_, i) => writer(acked, server!.url, i, athletes, clubId, stop));
      await new Promise((r) => setTimeout(r, 1500 + Math.random() * 2500));
      await server.stop("SIGKILL");
      stop.now = true;
      await Promise.all(writers);
    }

    server = await startDenoServer({ dataDir, env });
    expect(acked.activities.size).toBeGreaterThan(0);
    expect(acked.total).toBeGreaterThan(ROUNDS);
    await expectAllAcked(acked, [server.url], athletes, clubId);
    const verify = await runCli(["verify"], { DATA_DIR: dataDir });
    expect(verify.stdout).toContain("equal to the live ones");
    expect(verify.code).toBe(0);
    await server.stop();
    console.log(
      `crash safety: ${ROUNDS} SIGKILLs; acknowledged writes kept: ${acked.activities.size} activities, ${acked.kudos.length} kudos, ${acked.comments.length} comments, ${acked.joins.size} club joins; lost: 0`,
    );
  }, 600_000);
});
