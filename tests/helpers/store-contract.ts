import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEvent, type EventCatalogue, eventCatalogue } from "../../events/catalogue.ts";
import type { Db } from "../../events/db/types.ts";
import { EVENT_STORE_SCHEMA } from "../../events/schema.ts";
import { CATCH_UP_START, EventStore } from "../../events/store.ts";
import { ConcurrencyError } from "../../events/types.ts";

export const counted = defineEvent({
  type: "TestCounted",
  description: "test-only event",
  schema: z.object({ n: z.number().int() }),
});

/** A test-only event at schema version 2 whose v1 had `count` instead of `n`. */
export const renamed = defineEvent({
  type: "TestRenamed",
  version: 2,
  description: "test-only event with an upcaster",
  schema: z.object({ n: z.number().int(), label: z.string() }),
  upcasters: { 1: (d) => ({ n: d.count, label: "from v1" }) },
});

/** The test-only events' catalogue, given to the contract's stores. */
export const testCatalogue: EventCatalogue = eventCatalogue([counted, renamed]);

export async function freshStore(db: Db, catalogue: EventCatalogue = testCatalogue): Promise<EventStore> {
  await db.exec(EVENT_STORE_SCHEMA);
  return new EventStore(db, catalogue);
}

/**
 * readAll hides events above the oldest transaction still running anywhere in the cluster (so a
 * late commit is never skipped). On a PostgreSQL shared with other test files that horizon can
 * trail for a moment; wait until it has passed `position` (10 s at most, then let the test fail).
 */
async function untilReadable(store: EventStore, position: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await store.readAll(position - 1, { limit: 1 })).length === 1) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let streamCounter = 0;
const stream = (name: string) => `${name}-${Date.now().toString(36)}-${++streamCounter}`;

/**
 * The event store contract, run against every adapter (PGlite here, PostgreSQL in tests/postgres):
 * the same behaviour must hold on both engines.
 */
export function storeContract(engine: string, open: () => Promise<Db>) {
  describe(`event store contract (${engine})`, () => {
    const withStore = async (fn: (store: EventStore, db: Db) => Promise<void>) => {
      const db = await open();
      try {
        await fn(await freshStore(db), db);
      } finally {
        await db.close();
      }
    };

    it("appends to a new stream with expected version 0 and numbers versions from 1", () =>
      withStore(async (store) => {
        const s = stream("a");
        const result = await store.append(s, 0, [counted.create({ n: 1 }), counted.create({ n: 2 })], {
          metadata: { athleteId: 7, applicationId: 3, requestId: "r1" },
        });
        expect(result.nextExpectedVersion).toBe(2);
        expect(result.duplicate).toBe(false);
        expect(result.lastPosition).toBe(result.firstPosition + 1);
        const events = await store.readStream(s);
        expect(events.map((e) => [e.streamVersion, e.type, e.data])).toEqual([
          [1, "TestCounted", { n: 1 }],
          [2, "TestCounted", { n: 2 }],
        ]);
        expect(events[0].metadata).toEqual({ athleteId: 7, applicationId: 3, requestId: "r1" });
        expect(events[0].schemaVersion).toBe(1);
        expect(Number.isNaN(Date.parse(events[0].recordedAt))).toBe(false);
      }));

    it("rejects a version mismatch with a typed conflict and writes nothing", () =>
      withStore(async (store) => {
        const s = stream("b");
        await store.append(s, 0, [counted.create({ n: 1 })]);
        await expect(store.append(s, 0, [counted.create({ n: 2 })])).rejects.toBeInstanceOf(ConcurrencyError);
        await expect(store.append(s, 5, [counted.create({ n: 2 })])).rejects.toMatchObject({
          name: "ConcurrencyError",
          expected: 5,
          actual: 1,
        });
        expect((await store.readStream(s)).length).toBe(1);
        await store.append(s, "any", [counted.create({ n: 3 })]);
        expect((await store.readStream(s)).map((e) => e.streamVersion)).toEqual([1, 2]);
      }));

    it("answers a repeated idempotency key with the original result and writes nothing new", () =>
      withStore(async (store) => {
        const s = stream("c");
        const first = await store.append(s, 0, [counted.create({ n: 1 })], { idempotencyKey: `k-${s}` });
        const again = await store.append(s, 0, [counted.create({ n: 99 })], { idempotencyKey: `k-${s}` });
        expect(again.duplicate).toBe(true);
        expect(again.firstPosition).toBe(first.firstPosition);
        expect(again.nextExpectedVersion).toBe(1);
        expect(again.events.map((e) => e.data)).toEqual([{ n: 1 }]);
        expect((await store.readStream(s)).length).toBe(1);
      }));

    it("refuses events that do not match their schema or type, writing nothing", () =>
      withStore(async (store) => {
        const s = stream("d");
        await expect(store.append(s, 0, [{ type: "TestCounted", data: { n: "x" } }])).rejects.toThrow(
          /invalid TestCounted/,
        );
        await expect(store.append(s, 0, [{ type: "NoSuchEvent", data: {} }])).rejects.toThrow(/unknown event type/);
        expect(await store.readStream(s)).toEqual([]);
      }));

    it("refuses updates, deletes and truncation of events in the database itself", () =>
      withStore(async (store, db) => {
        const s = stream("e");
        await store.append(s, 0, [counted.create({ n: 1 })]);
        await expect(db.query("update events set data = '{}' where stream_id = $1", [s])).rejects.toThrow(
          /append-only/,
        );
        await expect(db.query("delete from events where stream_id = $1", [s])).rejects.toThrow(/append-only/);
        await expect(db.exec("truncate events")).rejects.toThrow(/append-only/);
        expect((await store.readStream(s))[0].data).toEqual({ n: 1 });
      }));

    it("rolls the append back when an inline projection fails", () =>
      withStore(async (store) => {
        const s = stream("f");
        store.onAppend(async (_tx, events) => {
          if (events.some((e) => (e.data as { n: number }).n < 0)) throw new Error("projection refused");
        });
        await expect(store.append(s, 0, [counted.create({ n: 1 }), counted.create({ n: -1 })])).rejects.toThrow(
          "projection refused",
        );
        expect(await store.readStream(s)).toEqual([]);
        await store.append(s, 0, [counted.create({ n: 2 })]);
        expect((await store.readStream(s)).length).toBe(1);
      }));

    it("reads all events after a position in order, by type and up to a position", () =>
      withStore(async (store) => {
        const head = await store.headPosition();
        const s1 = stream("g");
        const s2 = stream("h");
        await store.append(s1, 0, [counted.create({ n: 1 })]);
        await store.append(s2, 0, [renamed.create({ n: 2, label: "x" })]);
        const r = await store.append(s1, 1, [counted.create({ n: 3 })]);
        await untilReadable(store, r.lastPosition);
        const all = await store.readAll(head);
        expect(all.map((e) => e.streamId)).toEqual([s1, s2, s1]);
        expect(all.map((e) => e.position)).toEqual([...all.map((e) => e.position)].sort((a, b) => a - b));
        expect((await store.readAll(head, { types: ["TestRenamed"] })).map((e) => e.streamId)).toEqual([s2]);
        expect((await store.readAll(head, { until: r.firstPosition - 1 })).length).toBe(2);
        expect((await store.readAll(head, { limit: 1 })).length).toBe(1);
      }));

    it("upcasts stored events of an older schema version when reading", () =>
      withStore(async (store, db) => {
        const s = stream("i");
        await db.query(
          `insert into events (stream_id, stream_version, type, schema_version, data) values ($1, 1, 'TestRenamed', 1, '{"count": 41}')`,
          [s],
        );
        const [event] = await store.readStream(s);
        expect(event.schemaVersion).toBe(1);
        expect(event.data).toEqual({ n: 41, label: "from v1" });
      }));

    it("lets exactly one of several concurrent appends with the same expected version win", () =>
      withStore(async (store) => {
        const s = stream("j");
        await store.append(s, 0, [counted.create({ n: 0 })]);
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) => store.append(s, 1, [counted.create({ n: i + 1 })])),
        );
        expect(results.filter((r) => r.status === "fulfilled").length).toBe(1);
        for (const r of results) {
          if (r.status === "rejected") expect(r.reason).toBeInstanceOf(ConcurrencyError);
        }
        expect((await store.readStream(s)).map((e) => e.streamVersion)).toEqual([1, 2]);
      }));

    it("follows the log with a catch-up cursor", () =>
      withStore(async (store) => {
        let cursor = CATCH_UP_START;
        const seen: number[] = [];
        const drain = async () => {
          for (;;) {
            const page = await store.readAfter(cursor, 2);
            if (page.events.length === 0) return;
            seen.push(...page.events.map((e) => e.position));
            cursor = page.cursor;
          }
        };
        // Events of earlier tests may be hidden for a moment by another file's open transaction:
        // wait until they are readable, so the first drain really reaches the head.
        const head = await store.headPosition();
        if (head > 0) await untilReadable(store, head);
        await drain();
        const before = seen.length;
        const s = stream("k");
        const r = await store.append(s, 0, [
          counted.create({ n: 1 }),
          counted.create({ n: 2 }),
          counted.create({ n: 3 }),
        ]);
        await untilReadable(store, r.lastPosition);
        await drain();
        expect(seen.slice(before)).toEqual([r.firstPosition, r.firstPosition + 1, r.firstPosition + 2]);
        await drain();
        expect(new Set(seen).size).toBe(seen.length);
      }));
  });
}
