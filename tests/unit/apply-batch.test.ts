import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db, Queryable } from "../../events/db/types.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { athletesProjection } from "../../projections/athletes/projection.ts";
import { followsProjection } from "../../projections/follows/projection.ts";
import type { Projection } from "../../projections/projection.ts";

let db: Db;
beforeAll(async () => {
  db = await openPglite();
});
afterAll(() => db.close());

let position = 0;
function recorded(type: string, data: unknown): RecordedEvent {
  position++;
  return {
    position,
    streamId: "s",
    streamVersion: position,
    type,
    schemaVersion: 1,
    data,
    metadata: {},
    recordedAt: new Date(Date.UTC(2025, 0, 1) + position * 1000).toISOString(),
  };
}

async function tables(projection: Projection, schema: string, run: (tx: Queryable) => Promise<void>) {
  return db.transaction(async (tx) => {
    await tx.exec(`drop schema if exists ${schema} cascade; create schema ${schema}`);
    await tx.exec(`set local search_path to ${schema}, public`);
    await tx.exec(projection.schema);
    await run(tx);
    const out: Record<string, unknown[]> = {};
    for (const table of projection.tables) {
      out[table] = await tx.query(`select * from ${table} order by 1, 2`);
    }
    return out;
  });
}

/** Applying a run in one batch must leave exactly the tables that applying it event by event leaves. */
async function sameAsOneByOne(projection: Projection, before: RecordedEvent[], run: RecordedEvent[]) {
  const single = await tables(projection, "by_one", async (tx) => {
    for (const e of [...before, ...run]) await projection.apply(tx, e);
  });
  const batched = await tables(projection, "by_batch", async (tx) => {
    for (const e of before) await projection.apply(tx, e);
    await projection.applyBatch!(tx, run);
  });
  expect(batched).toEqual(single);
}

describe("batched projection handlers equal one-by-one application", () => {
  it("follows: any interleaving of follow and unfollow, over rows that existed before", async () => {
    const op = fc.record({
      follow: fc.boolean(),
      a: fc.integer({ min: 1, max: 4 }),
      b: fc.integer({ min: 1, max: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 8 }),
        fc.array(op, { minLength: 1, maxLength: 40 }),
        async (pre, ops) => {
          const toEvent = (o: { follow: boolean; a: number; b: number }) =>
            recorded(o.follow ? "AthleteFollowed" : "AthleteUnfollowed", { athleteId: o.a, targetId: o.b });
          await sameAsOneByOne(followsProjection, pre.map(toEvent), ops.map(toEvent));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("athletes: registrations in batches with profile updates in between", async () => {
    const register = (id: number) =>
      recorded("AthleteRegistered", {
        athleteId: id,
        firstname: `F${id}`,
        lastname: "L",
        email: `a${id}@example.com`,
        passwordHash: "x",
        sex: id % 2 ? "M" : "F",
        premium: id % 3 === 0,
        city: null,
        state: null,
        country: "France",
        birthdate: "1990-01-02",
        weight: 60.5 + id,
      });
    const update = (id: number) =>
      recorded("AthleteProfileUpdated", { athleteId: id, city: `City ${id}`, weight: 55.25 });
    await sameAsOneByOne(athletesProjection, [register(1)], [
      register(2),
      register(3),
      update(2),
      register(4),
      update(1),
      update(4),
    ]);
  });
});
