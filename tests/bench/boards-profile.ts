/**
 * Where the segments projection's leaderboard maintenance (`addToBoards`, boards.ts) and the
 * upload-time ranking (`effortBoardCounts`, queries.ts) spend their time, on a synthetic board
 * set in memory: SEGMENTS segments, ATHLETES athletes (sex / weight / birthdate set, so every cohort
 * board is counted), RIDES activities each matching EFFORTS efforts (an uploads-bench-like 6 h
 * ride: ~1,000 efforts on distinct segments). Each activity is ranked (as matchActivity does) and
 * then applied (as its SegmentEffortsMatched is); `--explain` prints EXPLAIN ANALYZE of both
 * statements for the last activity.
 * `npx deno run -A tests/bench/boards-profile.ts [--segments=10000] [--athletes=1] [--rides=4] [--efforts=1000] [--laps=1] [--same] [--explain]`
 */
import process from "node:process";
import { openPglite } from "../../events/db/pglite.ts";
import type { Queryable } from "../../events/db/types.ts";
import { catalogue, type StoredEvent } from "../../events/index.ts";
import { allProjections } from "../../projections/index.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { segmentsProjection } from "../../projections/segments/projection.ts";
import { effortBoardCounts } from "../../projections/segments/queries.ts";
import { EventStore } from "../../events/store.ts";

const arg = (name: string, fallback: number) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.split("=")[1]) : fallback;
};
const SEGMENTS = arg("segments", 10_000);
const ATHLETES = arg("athletes", 1);
const RIDES = arg("rides", 4);
const EFFORTS = arg("efforts", 1000);
const explain = process.argv.includes("--explain");
/** Times a ride passes each of its segments (a 6 h ride on the uploads bench's 20 km loop: ~10). */
const LAPS = arg("laps", 1);

const db = await openPglite(undefined, { searchPath: "rm, public" });
const runner = new ProjectionRunner(db, await EventStore.open(db, catalogue), allProjections);
await runner.migrate();
await db.query(
  `insert into athletes (id, firstname, lastname, email, password_hash, sex, birthdate, weight, created_at, updated_at)
   select i, 'A', 'B', 'a' || i || '@x', 'h', case when i % 2 = 0 then 'F' else 'M' end, (1970 + i % 30) || '-05-01', 60 + i % 30, now(), now()
     from generate_series(1, $1::int) i`,
  [ATHLETES],
);
await db.query(
  `insert into segments (id, athlete_id, activity_id, name, activity_type, points, distance, average_grade, maximum_grade,
     total_elevation_gain, climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at)
   select i, 1, 1, 'S' || i, 'Ride', '[]'::jsonb, 1000, 1, 2, 10, 0, 45, 6, 45.01, 6.01, '', false, false, now(), now()
     from generate_series(1, $1::int) i`,
  [SEGMENTS],
);
await db.exec("analyze");
// PLAN_CACHE_MODE=force_generic_plan|force_custom_plan: how much of a call is planning.
if (process.env.PLAN_CACHE_MODE) await db.exec(`set plan_cache_mode = ${process.env.PLAN_CACHE_MODE}`);

let seed = 1;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
let position = 0;
const timings: Record<string, number[]> = { rank: [], perEffort: [], apply: [] };
const cpu0 = process.cpuUsage();
for (let ride = 0; ride < RIDES; ride++) {
  for (let athlete = 1; athlete <= ATHLETES; athlete++) {
    const activityId = 1 + ride * ATHLETES + athlete;
    const day = `2024-0${1 + (ride % 9)}-1${ride % 10}`;
    // --same: every ride on the same segments (the uploads bench's rides all follow one loop).
    const first = process.argv.includes("--same") ? 0 : Math.floor(random() * Math.max(1, SEGMENTS - EFFORTS));
    const efforts = Array.from({ length: EFFORTS }, (_, n) => ({
      effortId: String(2n ** 53n + BigInt(activityId) * 1024n + BigInt(n)),
      segmentId: 1 + ((first + (n % Math.ceil(EFFORTS / LAPS))) % SEGMENTS),
      name: "S",
      startIndex: n,
      endIndex: n + 10,
      startDate: `${day}T07:${String(n % 60).padStart(2, "0")}:00Z`,
      startDateLocal: `${day}T08:${String(n % 60).padStart(2, "0")}:00Z`,
      elapsedTime: 60 + Math.floor(random() * 600),
      movingTime: 60,
      distance: 1000,
      averageHeartrate: null,
      maxHeartrate: null,
      averageWatts: null,
      averageCadence: null,
      komRank: null,
      prRank: null,
      achievements: [],
      hidden: false,
      startLatlng: [45, 6] as [number, number],
      endLatlng: [45.01, 6.01] as [number, number],
    }));
    const last = ride === RIDES - 1 && athlete === ATHLETES;
    const t0 = performance.now();
    let tr = t0;
    await db.transaction(async (tx) => {
      if (last && explain) await explainRank(tx, athlete, efforts);
      const counts = await effortBoardCounts(tx, athlete, toRank(efforts));
      tr = performance.now();
      const expected = await countedPerEffort(tx, athlete, efforts);
      if (JSON.stringify(counts) !== JSON.stringify(expected)) {
        throw new Error(`effortBoardCounts differs from counting per effort (activity ${activityId})`);
      }
    });
    const t1 = performance.now();
    timings.perEffort.push(t1 - tr);
    const event = {
      position: ++position,
      streamId: `a-${activityId}`,
      streamVersion: 1,
      type: "SegmentEffortsMatched",
      schemaVersion: 1,
      metadata: {},
      recordedAt: "2024-01-01T00:00:00Z",
      data: {
        activityId,
        athleteId: athlete,
        activityType: "Ride",
        visibility: "everyone",
        efforts,
        prCount: 0,
        achievementCount: 0,
      },
    } as unknown as StoredEvent;
    await db.transaction(async (tx) => {
      await segmentsProjection.apply(last && explain ? explaining(tx) : tx, event);
    });
    const t2 = performance.now();
    timings.rank.push(tr - t0);
    timings.apply.push(t2 - t1);
  }
}
const [counts] = await db.query<{ bests: number; periods: number; slots: number }>(
  `select (select count(*)::int from segment_bests) as bests, (select count(*)::int from segment_period_bests) as periods,
          (select count(*)::int from segment_board_counts) as slots`,
);
const cpu = process.cpuUsage(cpu0);
console.log(`process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);
console.log(`segments ${SEGMENTS}, athletes ${ATHLETES}, rides ${RIDES}, efforts/ride ${EFFORTS}:`, counts);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const fmt = (xs: number[]) =>
  `total ${total(xs).toFixed(0)}, median ${median(xs).toFixed(1)}` +
  (xs.length <= 12 ? `: ${xs.map((x) => x.toFixed(0)).join(" ")}` : "");
console.log(`rank (effortBoardCounts) ms per activity: ${fmt(timings.rank)}`);
console.log(
  `the same counted per effort (three correlated lookups each, the former statement) ms: ${fmt(timings.perEffort)}`,
);
console.log(`apply (SegmentEffortsMatched) ms per activity: ${fmt(timings.apply)}`);
if (process.env.PLANS) {
  for (
    const r of await db.query<{ g: number; c: number; s: string }>(
      "select generic_plans as g, custom_plans as c, left(regexp_replace(statement, '\\s+', ' ', 'g'), 70) as s from pg_prepared_statements",
    )
  ) console.log(`generic ${r.g} custom ${r.c}: ${r.s}`);
}
await db.close();

/** A Queryable printing EXPLAIN ANALYZE of the boards statement instead of returning its rows. */
function explaining(tx: Queryable): Queryable {
  return {
    exec: (sql) => tx.exec(sql),
    async query<T>(sql: string, params?: unknown[]): Promise<T[]> {
      if (!/segment_board_counts|segment_bests/.test(sql) || /^\s*delete/.test(sql)) return tx.query<T>(sql, params);
      const plan = await tx.query<{ "QUERY PLAN": string }>(`explain (analyze, summary) ${sql}`, params);
      console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
      return [{ zero: [], read: JSON.stringify({ slots: [], mine: [], own: [] }) }] as T[];
    },
  };
}

async function explainRank(
  tx: Queryable,
  athleteId: number,
  efforts: { segmentId: number; elapsedTime: number; startDateLocal: string }[],
) {
  await effortBoardCounts(explaining(tx), athleteId, toRank(efforts));
}

function toRank(efforts: { segmentId: number; elapsedTime: number; startDateLocal: string }[]) {
  return efforts.map((e) => ({
    segmentId: e.segmentId,
    elapsedTime: e.elapsedTime,
    year: Number(e.startDateLocal.slice(0, 4)),
  }));
}

/** The same numbers counted per effort with three correlated lookups (the statement effortBoardCounts replaced). */
async function countedPerEffort(
  tx: Queryable,
  athleteId: number,
  efforts: { segmentId: number; elapsedTime: number; startDateLocal: string }[],
) {
  const rows = await tx.query<{ own: number; overall: number; yearly: number }>(
    `select (select count(*)::int from segment_efforts e
              where e.segment_id = x.seg and e.athlete_id = $4 and e.elapsed_time < x.t) as own,
            (select count(*)::int from segment_bests b
              where b.segment_id = x.seg and b.athlete_id <> $4 and b.elapsed_time < x.t) as overall,
            (select count(distinct e.athlete_id)::int from segment_efforts e
              where e.segment_id = x.seg and e.athlete_id <> $4 and e.visibility = 'everyone' and not e.shielded and e.elapsed_time < x.t
                and extract(year from e.start_date_local) = x.y) as yearly
       from unnest($1::bigint[], $2::int[], $3::int[]) with ordinality as x(seg, t, y, i) order by x.i`,
    [
      efforts.map((e) => e.segmentId),
      efforts.map((e) => e.elapsedTime),
      efforts.map((e) => Number(e.startDateLocal.slice(0, 4))),
      athleteId,
    ],
  );
  return rows.map((r) => ({ own: Number(r.own), overall: Number(r.overall), yearly: Number(r.yearly) }));
}
