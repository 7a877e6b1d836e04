import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { createTestDatabase } from "../helpers/postgres.ts";
import { burstClient } from "../proof/http-burst.ts";
import { manyAthletes } from "../proof/fast-athletes.ts";

/**
 * The kudos race on PostgreSQL with two server processes: 1,000 athletes give kudos to one activity
 * at once, half through each server; kudos_count must be exactly 1,000. Then one athlete sends 100
 * identical kudos through both servers at once: exactly one counts.
 */
const KUDOERS = 1_000;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const servers: DenoServer[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  await database?.drop();
});

describe("kudos race on PostgreSQL, two servers", () => {
  it(
    `${KUDOERS} parallel kudos through two servers → kudos_count exactly ${KUDOERS}; 100 identical → one`,
    async () => {
      const setup = await openPlatform(configFromEnv({ databaseUrl: database.url, seedDemo: false, quiet: true }));
      const ownerId = await createAthlete(setup, {
        firstname: "Popular",
        lastname: "Rider",
        email: "popular@example.com",
        password: "password123",
      });
      const app = await createApplication(setup, {
        name: "Race",
        ownerId,
        callbackDomain: "localhost",
        internal: true,
        kudosEnabled: true,
      });
      const [owner] = await manyAthletes(setup, 1, app.client_id, "owner", ["read", "write", "view_private"]);
      const kudoers = await manyAthletes(setup, KUDOERS, app.client_id, "kudoer");
      await setup.close();

      const env = {
        DATABASE_URL: database.url,
        SEED_DEMO: "0",
        RATE_LIMIT_SHORT: "100000000",
        RATE_LIMIT_LONG: "100000000",
      };
      servers.push(...await Promise.all([startDenoServer({ env }), startDenoServer({ env })]));
      const created = await api(servers[0].url)("POST", "/v3/activities", {
        token: owner.token,
        form: { name: "Race target", type: "Ride", start_date_local: "2026-05-01T08:00:00Z", elapsed_time: 3600 },
      });
      expect(created.status).toBe(201);
      const activityId = created.body.id as number;

      const bursts = servers.map((s) => burstClient(s.url, 64));
      const results = await Promise.all(
        kudoers.map((a, i) => bursts[i % 2].send("POST", `/v3/activities/${activityId}/kudos`, a.token)),
      );
      const statuses = new Map<number, number>();
      for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expect(Object.fromEntries(statuses)).toEqual({ 201: KUDOERS });
      for (const s of servers) {
        const res = await api(s.url)("GET", `/v3/activities/${activityId}`, { token: owner.token });
        expect(res.body.kudos_count).toBe(KUDOERS);
      }

      const fan = kudoers[0];
      const second = await api(servers[1].url)("POST", "/v3/activities", {
        token: owner.token,
        form: { name: "Second target", type: "Ride", start_date_local: "2026-05-02T08:00:00Z", elapsed_time: 3600 },
      });
      const same = await Promise.all(
        Array.from(
          { length: 100 },
          (_, i) => bursts[i % 2].send("POST", `/v3/activities/${second.body.id}/kudos`, fan.token),
        ),
      );
      for (const r of same) {
        expect(r.status < 300 || (r.status >= 400 && r.status < 500), `status ${r.status} ${r.text}`).toBe(true);
      }
      const after = await api(servers[0].url)("GET", `/v3/activities/${second.body.id}`, { token: owner.token });
      expect(after.body.kudos_count).toBe(1);
      for (const b of bursts) {
        b.close();
      }
      console.log(
        `kudos race (PostgreSQL, 2 servers): ${KUDOERS} parallel kudos → kudos_count ${KUDOERS}; statuses ${
          JSON.stringify(Object.fromEntries(statuses))
        }; 100 identical → 1`,
      );
    },
    600_000,
  );
});
