import { describe, expect, it } from "vitest";
import type { Db } from "../../events/db/types.ts";
import { z } from "zod";
import { defineEvent, eventCatalogue } from "../../events/catalogue.ts";
import { eraseAthleteFromLog } from "../../events/erasure.ts";
import { freshStore } from "./store-contract.ts";

const started = defineEvent({
  type: "ErasureTestStarted",
  description: "test: a stream started by an athlete",
  schema: z.object({ athleteId: z.number().int(), name: z.string(), file: z.string().optional() }),
});
const touched = defineEvent({
  type: "ErasureTestTouched",
  description: "test: an athlete acting on another's stream",
  schema: z.object({ athleteId: z.number().int(), text: z.string() }),
});
const followed = defineEvent({
  type: "ErasureTestFollowed",
  description: "test: an athlete following another",
  schema: z.object({ athleteId: z.number().int(), targetId: z.number().int() }),
});
const owned = defineEvent({
  type: "ErasureTestOwned",
  description: "test: something owned (internal or not)",
  schema: z.object({ ownerId: z.number().int(), internal: z.boolean() }),
});

const erasureTestCatalogue = eventCatalogue([started, touched, followed, owned]);

const sha = (c: string) => c.repeat(64);

/** The log's erasure rewrite (events/erasure.ts) on one kind of database (PGlite, PostgreSQL). */
export function erasureContract(label: string, open: () => Promise<Db>): void {
  describe(`an athlete's erasure from the log, the one sanctioned rewrite (${label})`, () => {
    it("removes the athlete's streams and the events naming them elsewhere, keeps the rest and the blobs others name", async () => {
      const db = await open();
      const store = await freshStore(db, erasureTestCatalogue);
      for (const s of ["a", "b", "c"]) {
        await db.query("insert into blobs (sha256, content, size) values ($1, $2, 1)", [sha(s), new Uint8Array([1])]);
      }
      // Athlete 5's ride (names blob a and blob b), athlete 6's ride (names blob b) with 5's comment
      // and 6's own comment; 6 follows 5 and 7; 5 owns an application and created the internal one.
      await store.append("thing-1", 0, [
        started.create({ athleteId: 5, name: "Quaxley loop", file: sha("a") }),
        touched.create({ athleteId: 5, text: "own note " + sha("b") }),
      ]);
      await store.append("thing-2", 0, [started.create({ athleteId: 6, name: "Other loop", file: sha("b") })]);
      await store.append("thing-2", 1, [
        touched.create({ athleteId: 5, text: "Quaxley was here" }),
        touched.create({ athleteId: 6, text: "thanks" }),
      ], { metadata: { athleteId: 6 } });
      await store.append("follows-6", 0, [
        followed.create({ athleteId: 6, targetId: 5 }),
        followed.create({ athleteId: 6, targetId: 7 }),
      ]);
      await store.append("app-1", 0, [owned.create({ ownerId: 5, internal: false })]);
      await store.append("app-web", 0, [owned.create({ ownerId: 5, internal: true })]);
      // An admin action of 5 on 6's stream, naming only 6: stays (5 is only in its metadata).
      await store.append("thing-2", 3, [touched.create({ athleteId: 6, text: "approved" })], {
        metadata: { athleteId: 5 },
      });

      const erased = await eraseAthleteFromLog(db, 5);
      const left = await db.query<{ stream_id: string; type: string; data: Record<string, unknown> }>(
        "select stream_id, type, data from events order by global_position",
      );
      expect(left.map((e) => `${e.stream_id}:${e.type}`)).toEqual([
        "thing-2:ErasureTestStarted",
        "thing-2:ErasureTestTouched",
        "follows-6:ErasureTestFollowed",
        "app-web:ErasureTestOwned",
        "thing-2:ErasureTestTouched",
      ]);
      expect(JSON.stringify(left)).not.toContain("Quaxley");
      expect(erased.events).toBe(5);
      expect(erased.streams).toBe(4);
      // Blob a was named only by 5's events; b is still named by 6's ride; c by nobody (untouched).
      expect(erased.orphanBlobs).toEqual([sha("a")]);

      // The stream versions left keep their numbers; the next append follows the highest.
      await store.append("thing-2", "any", [touched.create({ athleteId: 6, text: "later" })]);
      const [v] = await db.query<{ v: number }>(
        "select max(stream_version)::int as v from events where stream_id = 'thing-2'",
      );
      expect(Number(v.v)).toBe(5);

      // Outside an erasure's transaction the log still refuses every change; inside one, updates too.
      await expect(db.query("delete from events where stream_id = 'thing-2'")).rejects.toThrow(/append-only/);
      await expect(db.transaction(async (tx) => {
        await tx.query("select set_config('events.erasure', 'athlete-6', true)");
        await tx.query("update events set data = '{}' where stream_id = 'thing-2'");
      })).rejects.toThrow(/append-only/);
      await expect(db.exec("truncate events")).rejects.toThrow(/append-only/);
      // A second erasure of the same athlete finds nothing more.
      expect((await eraseAthleteFromLog(db, 5)).events).toBe(0);
      await db.close();
    });
  });
}
