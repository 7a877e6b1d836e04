import fc from "fast-check";
import { expect } from "vitest";
import type { Db, Queryable } from "../../events/db/types.ts";
import { catalogue, type StoredEvent } from "../../events/index.ts";
import { EventStore } from "../../events/store.ts";
import { allProjections } from "../../projections/index.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { segmentsProjection } from "../../projections/segments/projection.ts";
import { effortBoardCounts } from "../../projections/segments/queries.ts";
import { rebuildFollowerBests } from "../../projections/segments/follower-boards.ts";
import type { Visibility } from "../../shared/visibility.ts";
import { rebuildBoards } from "../../projections/segments/boards.ts";

/**
 * The counts behind a new effort's kom_rank, pr_rank and year achievement (effortBoardCounts, read
 * once per segment from the board counts) equal counting the efforts themselves, effort by effort:
 * the athlete's own faster efforts (any privacy), other athletes whose best public effort is faster,
 * other athletes with a faster public effort in the effort's calendar year — with ties, private
 * activities, activities made private or deleted, several passes of one segment and two years.
 * And the boards the events left (addToBoards / refreshBoards, incrementally) equal the boards
 * rebuilt from the efforts in one set-based pass (rebuildBoards).
 */

interface Ride {
  athlete: number;
  year: number;
  visibility: Visibility;
  efforts: { segment: number; t: number }[];
}

let position = 0;
function event(type: string, data: Record<string, unknown>): StoredEvent {
  position++;
  return {
    position,
    streamId: `s-${position}`,
    streamVersion: 1,
    type,
    schemaVersion: 1,
    data,
    metadata: {},
    recordedAt: new Date(Date.UTC(2025, 0, 1) + position * 1000).toISOString(),
  } as unknown as StoredEvent;
}

function matched(activityId: number, ride: Ride): StoredEvent {
  return event("SegmentEffortsMatched", {
    activityId,
    athleteId: ride.athlete,
    activityType: "Ride",
    visibility: ride.visibility,
    prCount: 0,
    achievementCount: 0,
    efforts: ride.efforts.map((e, n) => ({
      effortId: String(2n ** 53n + BigInt(activityId) * 1024n + BigInt(n)),
      segmentId: e.segment,
      name: "S",
      startIndex: n,
      endIndex: n + 1,
      startDate: `${ride.year}-06-0${1 + (n % 2)}T07:0${n}:00Z`,
      startDateLocal: `${ride.year}-06-0${1 + (n % 2)}T09:0${n}:00Z`,
      elapsedTime: e.t,
      movingTime: e.t,
      distance: 1000,
      averageHeartrate: null,
      maxHeartrate: null,
      averageWatts: null,
      averageCadence: null,
      komRank: null,
      prRank: null,
      achievements: [],
      hidden: false,
      startLatlng: [45, 6],
      endLatlng: [45.01, 6.01],
    })),
  });
}

/** The same numbers counted effort by effort over the efforts themselves. */
async function countedPerEffort(
  db: Queryable,
  athleteId: number,
  efforts: { segmentId: number; elapsedTime: number; year: number }[],
) {
  const rows = await db.query<{ own: number; overall: number; yearly: number }>(
    `select (select count(*)::int from segment_efforts e
              where e.segment_id = x.seg and e.athlete_id = $4 and e.elapsed_time < x.t) as own,
            (select count(distinct e.athlete_id)::int from segment_efforts e
              where e.segment_id = x.seg and e.athlete_id <> $4 and e.visibility = 'everyone' and not e.shielded and e.elapsed_time < x.t) as overall,
            (select count(distinct e.athlete_id)::int from segment_efforts e
              where e.segment_id = x.seg and e.athlete_id <> $4 and e.visibility = 'everyone' and not e.shielded and e.elapsed_time < x.t
                and extract(year from e.start_date_local) = x.y) as yearly
       from unnest($1::bigint[], $2::int[], $3::int[]) with ordinality as x(seg, t, y, i) order by x.i`,
    [efforts.map((e) => e.segmentId), efforts.map((e) => e.elapsedTime), efforts.map((e) => e.year), athleteId],
  );
  return rows.map((r) => ({ own: Number(r.own), overall: Number(r.overall), yearly: Number(r.yearly) }));
}

/** The bests, period bests, board counts and followers-only bests equal those rebuilt from the efforts from scratch. */
async function expectBoardsAsRebuilt(tx: Queryable) {
  const tables = ["segment_bests", "segment_period_bests", "segment_board_counts", "segment_follower_bests"];
  const dump = async () => {
    const out: Record<string, unknown[]> = {};
    for (const t of tables) out[t] = await tx.query(`select row_to_json(x)::text as r from ${t} x order by 1`);
    return out;
  };
  const incremental = await dump();
  await rebuildBoards(tx, [1, 2, 3]);
  await rebuildFollowerBests(tx);
  expect(incremental).toEqual(await dump());
}

const ride: fc.Arbitrary<Ride> = fc.record({
  athlete: fc.integer({ min: 1, max: 4 }),
  year: fc.constantFrom(2023, 2024),
  visibility: fc.constantFrom<Visibility>("everyone", "everyone", "followers_only", "only_me"),
  // Few segments and times: ties and several passes of one segment in one ride.
  efforts: fc.array(
    fc.record({
      segment: fc.integer({ min: 1, max: 3 }),
      t: fc.integer({ min: 60, max: 200 }).map((t) => t - (t % 7)),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});

/** The property on one database (PGlite or PostgreSQL): `numRuns` random logs. */
export async function checkEffortBoardCounts(db: Db, numRuns: number) {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(ride, { minLength: 0, maxLength: 12 }),
      fc.array(fc.constantFrom<Visibility | "delete">("only_me", "followers_only", "everyone", "delete"), {
        maxLength: 3,
      }),
      ride,
      async (rides, changes, next) => {
        const runner = new ProjectionRunner(db, await EventStore.open(db, catalogue), allProjections);
        await db.exec("drop schema if exists ebc cascade");
        await runner.migrate("ebc");
        await db.transaction(async (tx) => {
          await tx.exec("set local search_path to ebc, public");
          await tx.query(
            `insert into athletes (id, firstname, lastname, email, password_hash, sex, weight, created_at, updated_at)
             select i, 'A', 'B', 'a' || i, 'h', case when i % 2 = 0 then 'F' end, 70, now(), now() from generate_series(1, 4) i`,
          );
          for (const [k, r] of rides.entries()) await segmentsProjection.apply(tx, matched(k + 1, r));
          // Some activities change visibility or are deleted afterwards: their efforts leave or join the boards.
          for (const [k, change] of changes.entries()) {
            const activityId = 1 + ((k * 5) % Math.max(1, rides.length));
            if (activityId > rides.length) continue;
            const athleteId = rides[activityId - 1].athlete;
            await segmentsProjection.apply(
              tx,
              change === "delete"
                ? event("ActivityDeleted", { activityId, athleteId, uploadId: null })
                : event("ActivityUpdated", { activityId, athleteId, visibility: change }),
            );
          }
          await expectBoardsAsRebuilt(tx);
          const efforts = next.efforts.map((e) => ({ segmentId: e.segment, elapsedTime: e.t, year: next.year }));
          const counts = await effortBoardCounts(tx, next.athlete, efforts);
          expect(counts).toEqual(await countedPerEffort(tx, next.athlete, efforts));
          if (counts.some((c) => c.own + c.overall + c.yearly > 0)) checked++;
        });
      },
    ),
    { numRuns },
  );
  // The boards were not all empty: the comparison saw counts above zero.
  expect(checked).toBeGreaterThan(10);
}
