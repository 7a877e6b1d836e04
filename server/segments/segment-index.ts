import type { Queryable } from "../../events/db/types.ts";
import { segmentsAfter } from "../../projections/segments/queries.ts";
import type { LatLng } from "./geometry.ts";
import { type MatchableSegment, SegmentIndex } from "./matching.ts";

export interface IndexedSegmentMeta {
  name: string;
  private: boolean;
  athleteId: number | null;
}

interface Cached {
  index: SegmentIndex;
  /** Every segment added, in id order (what derive workers replicate; see track-matches.ts). */
  entries: MatchableSegment[];
  /** Names this index among the databases of the process. */
  source: string;
  meta: Map<number, IndexedSegmentMeta>;
  maxId: number;
  refreshing: Promise<void> | null;
}

const caches = new WeakMap<object, Cached>();
let sources = 0;

/**
 * The in-memory matching index of a database's segments, built from the `segments` read model and
 * kept current: before each use, segments with ids above the highest one loaded are read (an index
 * range scan, usually empty) and added. Segments never change geometry once created, so adding is
 * all that is needed; the static spatial index is rebuilt once enough have been added.
 */
export async function segmentIndexFor(
  db: Queryable,
): Promise<
  { index: SegmentIndex; meta: Map<number, IndexedSegmentMeta>; entries: readonly MatchableSegment[]; source: string }
> {
  let cached = caches.get(db);
  if (!cached) {
    cached = {
      index: new SegmentIndex(),
      entries: [],
      source: `segments-${++sources}`,
      meta: new Map(),
      maxId: 0,
      refreshing: null,
    };
    caches.set(db, cached);
  }
  const c = cached;
  while (c.refreshing) await c.refreshing;
  c.refreshing = (async () => {
    const batch = 20_000;
    for (;;) {
      const rows = await segmentsAfter(db, c.maxId, batch);
      if (rows.length === 0) break;
      const added = rows.map((r) => ({
        id: Number(r.id),
        activityType: r.activity_type,
        points: JSON.parse(r.points) as LatLng[],
      }));
      c.index.add(added);
      for (const a of added) c.entries.push(a);
      for (const r of rows) {
        c.meta.set(Number(r.id), {
          name: r.name,
          private: r.private,
          athleteId: r.athlete_id === null ? null : Number(r.athlete_id),
        });
      }
      c.maxId = Number(rows[rows.length - 1].id);
      if (rows.length < batch) break;
    }
  })();
  try {
    await c.refreshing;
  } finally {
    c.refreshing = null;
  }
  return { index: c.index, meta: c.meta, entries: c.entries, source: c.source };
}

/** Drops the database's index (rebuilt from the read model on next use): after an athlete's erasure. */
export function forgetSegmentIndex(db: Queryable): void {
  caches.delete(db);
}
