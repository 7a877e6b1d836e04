import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kudosGiven } from "../../events/activity/changes.ts";
import { activityStream } from "../../events/activity/events.ts";
import { ConcurrencyError } from "../../events/types.ts";
import { systemActor } from "../../server/actor.ts";
import { createActivity, giveKudos } from "../../server/activities/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import type { Platform } from "../../server/platform.ts";

/**
 * A kudos's append, its read-model change and the checkpoint are one statement (events/store.ts,
 * FusedInline; the activities projection's `fuse`): what it leaves must equal `apply` (a rebuild,
 * `verify`), a refused append must leave nothing, and it must really be one statement.
 */
describe("an append fused with its inline projections", () => {
  let platform: Platform;
  const athletes: number[] = [];
  const activities: number[] = [];
  beforeAll(async () => {
    platform = await openPlatform(
      configFromEnv({ databaseUrl: undefined, dataDir: undefined, quiet: true, seedDemo: false }),
    );
    for (let i = 0; i < 4; i++) {
      athletes.push(
        await createAthlete(platform, {
          firstname: `K${i}`,
          lastname: "R",
          email: `k${i}@example.com`,
          password: "password123",
        }),
      );
    }
    for (let i = 0; i < 3; i++) {
      const activityId = await nextId(platform.db, "activity");
      await createActivity(platform, {
        activityId,
        athleteId: athletes[0],
        name: `Ride ${i}`,
        type: "Ride",
        sportType: "Ride",
        startDate: "2026-01-01T08:00:00Z",
        startDateLocal: "2026-01-01T09:00:00Z",
        timezone: "(GMT+01:00) Europe/Paris",
        elapsedTime: 3600,
        distance: 20_000,
        description: null,
        visibility: "everyone",
        trainer: false,
        commute: false,
      }, systemActor("test"));
      activities.push(activityId);
    }
  }, 120_000);
  afterAll(() => platform.close());

  it("a kudos is one statement, and leaves the read models as applying its event does", async () => {
    const statements: string[] = [];
    const query = platform.db.query.bind(platform.db);
    const transaction = platform.db.transaction.bind(platform.db);
    platform.db.query = ((sql: string, params?: unknown[]) => {
      statements.push(sql);
      return query(sql, params);
    }) as typeof platform.db.query;
    platform.db.transaction = ((fn, options) => {
      statements.push("transaction");
      return transaction(fn, options);
    }) as typeof platform.db.transaction;
    try {
      await giveKudos(platform, activities[0], athletes[1], systemActor("test"));
    } finally {
      platform.db.query = query;
      platform.db.transaction = transaction;
    }
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/insert into events[\s\S]*insert into activity_kudos[\s\S]*projection_checkpoints/);
    for (const [a, b] of [[0, 2], [0, 3], [1, 1], [2, 3]]) {
      await giveKudos(platform, activities[a], athletes[b], systemActor("test"));
    }
    // A second kudos of the same athlete appended past the decider: the row stays, the count too.
    const stream = activityStream(activities[0]);
    await platform.store.append(stream, "any", [
      kudosGiven.create({ activityId: activities[0], athleteId: athletes[1] }),
    ]);
    const [row] = await platform.db.query<{ kudos_count: number }>("select kudos_count from activities where id = $1", [
      activities[0],
    ]);
    expect(row.kudos_count).toBe(3);
    const { differences, report } = await platform.projections.verify();
    expect(report.events).toBeGreaterThan(10);
    expect(differences).toEqual([]);
  }, 120_000);

  it("a refused append (another version) writes nothing: no event, no kudos, no count, no checkpoint", async () => {
    const stream = activityStream(activities[2]);
    const count = async () =>
      (await platform.db.query<{ events: number; kudos: number; count: number; checkpoint: number }>(
        `select (select count(*)::int from events) as events,
                (select count(*)::int from activity_kudos where activity_id = $1) as kudos,
                (select kudos_count from activities where id = $1) as count,
                (select position::int from projection_checkpoints where name = 'activities') as checkpoint`,
        [activities[2]],
      ))[0];
    const before = await count();
    await expect(
      platform.store.append(stream, 99, [kudosGiven.create({ activityId: activities[2], athleteId: athletes[2] })]),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await count()).toEqual(before);
  });
});
