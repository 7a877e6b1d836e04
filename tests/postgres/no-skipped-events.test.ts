import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../events/db/postgres.ts";
import type { Db } from "../../events/db/types.ts";
import { CATCH_UP_START, EventStore } from "../../events/store.ts";
import { counted, freshStore, testCatalogue } from "../helpers/store-contract.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const dbs: Db[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const db of dbs) await db.close().catch(() => {});
  await database.drop();
});

describe("catch-up reading on PostgreSQL", () => {
  it("never skips an event whose transaction commits after a later position became visible", async () => {
    const writers = 8;
    const appendsPerWriter = 40;
    const readerDb = await openPostgres(database.url);
    dbs.push(readerDb);
    const reader = await freshStore(readerDb);

    // Each writer has its own connection pool; a random sleep inside the append's transaction, after
    // its positions were taken, makes commits land out of position order.
    const stores: EventStore[] = [];
    for (let w = 0; w < writers; w++) {
      const db = await openPostgres(database.url, { max: 3 });
      dbs.push(db);
      const store = new EventStore(db, testCatalogue);
      store.onAppend(async (tx) => {
        await tx.query("select pg_sleep(random() * 0.03)");
      });
      stores.push(store);
    }

    const written = new Set<number>();
    const seen: number[] = [];
    let cursor = CATCH_UP_START;
    let writing = true;
    let doneAt = Infinity;
    const follow = (async () => {
      while (writing || true) {
        const page = await reader.readAfter(cursor, 50);
        for (const e of page.events) seen.push(e.position);
        cursor = page.cursor;
        if (page.events.length === 0) {
          // A transaction elsewhere on the cluster (another suite) may hold the snapshot's xmin back
          // for a while, so an empty page after the writers finished does not mean the end: read on
          // until every written event was seen or 15 s have passed (a skipped event never comes back).
          if (!writing && (seen.length >= writers * appendsPerWriter * 2 || Date.now() > doneAt + 15_000)) break;
          await new Promise((r) => setTimeout(r, 2));
        }
      }
    })();

    await Promise.all(stores.map(async (store, w) => {
      for (let i = 0; i < appendsPerWriter; i++) {
        const r = await store.append(`writer-${w}-${i % 4}`, "any", [
          counted.create({ n: i }),
          counted.create({ n: -i }),
        ]);
        for (const e of r.events) written.add(e.position);
      }
    }));
    doneAt = Date.now();
    writing = false;
    await follow;

    expect(written.size).toBe(writers * appendsPerWriter * 2);
    expect(seen.length).toBe(written.size);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...written].every((p) => seen.includes(p))).toBe(true);
    // Within each stream the reader saw events in stream order.
    const all = await reader.readAll(0, { limit: 100000 });
    const order = new Map(seen.map((p, i) => [p, i]));
    const byStream = new Map<string, number[]>();
    for (const e of all) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), order.get(e.position)!]);
    for (const indexes of byStream.values()) expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
  });
});
