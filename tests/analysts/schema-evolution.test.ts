import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEvent, eventCatalogue } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import { catalogue } from "../../events/index.ts";
import { EventStore } from "../../events/store.ts";
import { allProjections } from "../../projections/index.ts";
import type { Projection } from "../../projections/projection.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * A weight log whose shape changed twice, as a real event type would:
 *   v1 {athleteId, weightLbs}            (an old server recorded pounds)
 *   v2 {athleteId, weightKg}             (v1 → v2 converts pounds to kilograms)
 *   v3 {athleteId, weightKg, source}     (v2 → v3 adds the source, "manual" for old events)
 * Defined here (test-only), next to a read model that only knows today's shape.
 */
const weightRecorded = defineEvent({
  type: "TestWeightRecorded",
  version: 3,
  description: "Test-only: an athlete recorded their weight.",
  schema: z.object({ athleteId: z.number().int(), weightKg: z.number(), source: z.enum(["manual", "scale"]) }),
  upcasters: {
    1: (d) => ({ athleteId: d.athleteId, weightKg: Math.round((d.weightLbs as number) * 0.45359237 * 10) / 10 }),
    2: (d) => ({ ...d, source: "manual" }),
  },
});

const weightsProjection: Projection = {
  name: "test_weights",
  tables: ["test_weights"],
  schema:
    "create table if not exists test_weights (athlete_id bigint, position bigint primary key, weight_kg double precision not null, source text not null)",
  handles: [weightRecorded.type],
  async apply(tx: Queryable, event) {
    // Today's shape only: a v1 event reaching here un-upcast would fail the not-null constraint.
    const d = weightRecorded.schema.parse(event.data);
    await tx.query("insert into test_weights values ($1, $2, $3, $4)", [
      d.athleteId,
      event.position,
      d.weightKg,
      d.source,
    ]);
  },
};

describe("schema evolution: old-version events replay into today's read models through upcasters", () => {
  let server: TestServer;
  let athleteId: number;
  /** The server's log, read and written with the platform's catalogue plus the test-only type. */
  let store: EventStore;

  beforeAll(async () => {
    server = await startTestServer();
    athleteId = (await server.athlete()).id;
    store = new EventStore(server.platform.db, eventCatalogue([...catalogue.definitions, weightRecorded]));
    // As old servers wrote them: rows with older schema versions, inserted directly.
    for (const [version, data] of [[1, { athleteId, weightLbs: 154 }], [2, { athleteId, weightKg: 71.5 }]] as const) {
      await server.platform.db.query(
        `insert into events (stream_id, stream_version, type, schema_version, data)
         values ($1, $2, $3, $4, $5::jsonb)`,
        [`weights-${athleteId}`, version, weightRecorded.type, version, JSON.stringify(data)],
      );
    }
    // And one written today through the store.
    await store.append(`weights-${athleteId}`, 2, [
      weightRecorded.create({ athleteId, weightKg: 70, source: "scale" }),
    ]);
  });

  afterAll(() => server.close());

  it("reads keep the stored schema version and give today's shape", async () => {
    const events = await store.readStream(`weights-${athleteId}`);
    expect(events.map((e) => [e.schemaVersion, e.data])).toEqual([
      [1, { athleteId, weightKg: 69.9, source: "manual" }],
      [2, { athleteId, weightKg: 71.5, source: "manual" }],
      [3, { athleteId, weightKg: 70, source: "scale" }],
    ]);
    const [stored] = await server.platform.db.query<{ data: unknown }>(
      "select data from events where stream_id = $1 and stream_version = 1",
      [`weights-${athleteId}`],
    );
    expect(stored.data).toEqual({ athleteId, weightLbs: 154 });
  });

  it("a replay builds today's read models (with the real ones) from the mixed-version log", async () => {
    const runner = new ProjectionRunner(server.platform.db, store, [...allProjections, weightsProjection]);
    const report = await runner.rebuild("rm_evolution");
    expect(report.events).toBe(await store.headPosition());
    const rows = await server.platform.db.query<{ weight_kg: number; source: string }>(
      "select weight_kg, source from rm_evolution.test_weights order by position",
    );
    expect(rows).toEqual([{ weight_kg: 69.9, source: "manual" }, { weight_kg: 71.5, source: "manual" }, {
      weight_kg: 70,
      source: "scale",
    }]);
    const [{ n }] = await server.platform.db.query<{ n: number }>(
      "select count(*)::int as n from rm_evolution.athletes where id = $1",
      [athleteId],
    );
    expect(n).toBe(1);
    await server.platform.db.exec("drop schema rm_evolution cascade");
  });

  it("an old version without an upcaster path is a clear error, not silent data", async () => {
    await server.platform.db.query(
      `insert into events (stream_id, stream_version, type, schema_version, data) values ($1, 1, $2, 0, '{}'::jsonb)`,
      [`weights-broken-${athleteId}`, weightRecorded.type],
    );
    await expect(store.readStream(`weights-broken-${athleteId}`)).rejects.toThrow(
      "no upcaster for TestWeightRecorded v0 → v1",
    );
  });
});
