import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../events/db/postgres.ts";
import type { Db } from "../../events/db/types.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { type Platform } from "../../server/platform.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

/**
 * Readers of the log skip nothing whose transaction commits late: they see only events below the
 * oldest transaction still running on the cluster (another server's append, a long report). A
 * rebuild (`cli verify`, `cli replay`) reads up to the head it took at its start, so when such a
 * transaction hides the last events it waits for them instead of stopping short of its head
 * (which made verify report the newest rows as differences).
 */
describe("rebuild while another transaction is running (PostgreSQL)", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: Platform;
  let other: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    platform = await openPlatform(configFromEnv({ databaseUrl: database.url, seedDemo: false, quiet: true }));
    other = await openPostgres(database.url);
  });
  afterAll(async () => {
    await platform?.close();
    await other?.close();
    await database?.drop();
  });

  it("verify waits for the events a running transaction hides and finds no difference", async () => {
    for (let i = 0; i < 3; i++) {
      await createAthlete(platform, {
        firstname: `Early${i}`,
        lastname: "Rider",
        email: `early${i}@example.com`,
        password: "password123",
      });
    }
    // A transaction with an id, opened before the next appends and left running.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const blocker = other.transaction(async (tx) => {
      await tx.query("select pg_current_xact_id()");
      started();
      await released;
    });
    await running;
    for (let i = 0; i < 3; i++) {
      await createAthlete(platform, {
        firstname: `Late${i}`,
        lastname: "Rider",
        email: `late${i}@example.com`,
        password: "password123",
      });
    }
    const [{ total }] = await platform.db.query<{ total: number }>("select count(*)::int as total from events");
    // While it runs, the newest events are invisible to log readers…
    const visible = await platform.store.readAll(0, { limit: 100_000 });
    expect(visible.length).toBeLessThan(total);
    // …and a verify started now must still rebuild all of them: the blocker ends 800 ms later.
    const verifying = platform.projections.verify();
    setTimeout(release, 800);
    const { report, differences } = await verifying;
    await blocker;
    expect(report.events).toBe(total);
    expect(differences).toEqual([]);
  }, 120_000);
});
