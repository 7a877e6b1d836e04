import type { EventData } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { athleteProfileUpdated } from "../../events/athlete/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import {
  segmentCreated,
  segmentEffortsMatched,
  segmentEffortsRematched,
  segmentProfileMeasured,
  segmentStarred,
  segmentUnstarred,
} from "../../events/segment/events.ts";
import type { Projection } from "../projection.ts";
import { segmentsBulk } from "./bulk.ts";
import { everyoneSeesSql } from "../../shared/visibility.ts";
import { privacyZoneCreated, privacyZoneDeleted } from "../../events/privacy-zone/events.ts";
import { addToBoards, rebuildAllBoards, refreshBoards, updateBoardAthlete } from "./boards.ts";
import { shieldChanges, shieldedBy, zonesAfter, zonesOf } from "./zones.ts";
import { rebuildTileTops, refreshTileTops, tileTopsSchema } from "./tiles.ts";
import {
  followerBestsSchema,
  rebuildFollowerBests,
  refreshFollowerBests,
  updateFollowerAthlete,
} from "./follower-boards.ts";

type Created = EventData<typeof segmentCreated>;
type Matched = EventData<typeof segmentEffortsMatched>;

/**
 * Segments, stars, efforts and each athlete's best effort per segment (the leaderboard's rows).
 *
 * - `segments`: geometry, derived facts, and effort_count / athlete_count / star_count. A segment
 *   created without altitudes takes its elevation facts from SegmentProfileMeasured;
 *   `elevation_source` says where they came from ('barometric' / 'gps'; null: its own altitudes or none);
 *   `elevation_difference` (explore's elev_difference) is the profile's last altitude minus its first.
 * - `segment_efforts`: every matched effort; `visibility` follows the activity's, `shielded`
 *   says its start or end lies in the athlete's privacy zones (zones.ts; follows zone changes).
 *   Deleting an activity removes its efforts; an effort not seen by everyone (followers-only,
 *   only-me) or shielded stays out of the public boards and counts.
 * - `segment_bests`: one row per (segment, athlete): their best public effort (elapsed time, then
 *   earlier start, then lower id), with the athlete's sex / birthdate / weight copied for filters.
 * - `segment_period_bests` / `segment_board_counts`: the leaderboard's per-period bests and ranked
 *   counts (see boards.ts).
 * - `segment_follower_bests`: bests among followers-only efforts that beat the public ones
 *   (follower-boards.ts), swapped in for the viewers who may see them.
 * - `segment_activity_facts`: pr_count and achievement_count of each activity (frozen at upload).
 *
 * effort_count and athlete_count are kept incrementally (never recounted over a segment's efforts).
 */
export const segmentsProjection: Projection = {
  name: "segments",
  tables: [
    "segments",
    "segment_stars",
    "segment_efforts",
    "segment_bests",
    "segment_period_bests",
    "segment_board_counts",
    "segment_activity_facts",
    "segment_tile_tops",
    "segment_follower_bests",
  ],
  schema: `
    create table if not exists segments (
      id bigint primary key,
      athlete_id bigint,
      activity_id bigint,
      name text not null,
      activity_type text not null,
      points jsonb not null,
      altitudes jsonb,
      distance double precision not null,
      average_grade double precision not null,
      maximum_grade double precision not null,
      elevation_high double precision,
      elevation_low double precision,
      total_elevation_gain double precision not null,
      climb_category integer not null,
      elevation_source text,
      elevation_difference double precision not null default 0,
      start_lat double precision not null,
      start_lng double precision not null,
      end_lat double precision not null,
      end_lng double precision not null,
      polyline text not null,
      city text,
      state text,
      country text,
      private boolean not null,
      hazardous boolean not null,
      effort_count integer not null default 0,
      athlete_count integer not null default 0,
      star_count integer not null default 0,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index if not exists segments_explore on segments (activity_type, start_lat, start_lng);
    create table if not exists segment_stars (
      athlete_id bigint not null,
      segment_id bigint not null,
      starred_at timestamptz not null,
      primary key (athlete_id, segment_id)
    );
    create table if not exists segment_efforts (
      id bigint primary key,
      segment_id bigint not null,
      activity_id bigint not null,
      athlete_id bigint not null,
      ord integer not null,
      name text not null,
      start_index integer not null,
      end_index integer not null,
      start_date timestamptz not null,
      start_date_local timestamp not null,
      elapsed_time integer not null,
      moving_time integer not null,
      distance double precision not null,
      average_heartrate double precision,
      max_heartrate double precision,
      average_watts double precision,
      average_cadence double precision,
      kom_rank integer,
      pr_rank integer,
      achievements jsonb not null,
      hidden boolean not null,
      visibility text not null,
      start_lat double precision,
      start_lng double precision,
      end_lat double precision,
      end_lng double precision,
      shielded boolean not null default false
    );
    create index if not exists segment_efforts_athlete_only on segment_efforts (athlete_id);
    create index if not exists segment_efforts_activity on segment_efforts (activity_id, ord);
    create index if not exists segment_efforts_segment_local on segment_efforts (segment_id, start_date_local);
    create index if not exists segment_efforts_athlete on segment_efforts (segment_id, athlete_id, elapsed_time);
    create table if not exists segment_bests (
      segment_id bigint not null,
      athlete_id bigint not null,
      effort_id bigint not null,
      activity_id bigint not null,
      elapsed_time integer not null,
      moving_time integer not null,
      start_date timestamptz not null,
      start_date_local timestamp not null,
      sex text,
      birthdate text,
      weight double precision,
      primary key (segment_id, athlete_id)
    );
    create index if not exists segment_bests_board on segment_bests (segment_id, elapsed_time, start_date, effort_id);
    create index if not exists segment_bests_sex on segment_bests (segment_id, sex, elapsed_time, start_date, effort_id);
    create index if not exists segment_bests_birthdate on segment_bests (segment_id, birthdate, elapsed_time);
    create index if not exists segment_bests_athlete on segment_bests (athlete_id, segment_id);
    create table if not exists segment_period_bests (
      segment_id bigint not null,
      period text not null,
      athlete_id bigint not null,
      effort_id bigint not null,
      activity_id bigint not null,
      elapsed_time integer not null,
      moving_time integer not null,
      start_date timestamptz not null,
      start_date_local timestamp not null,
      sex text,
      birthdate text,
      weight double precision,
      primary key (segment_id, period, athlete_id)
    );
    create index if not exists segment_period_bests_board on segment_period_bests (segment_id, period, elapsed_time, start_date, effort_id);
    create index if not exists segment_period_bests_birthdate on segment_period_bests (segment_id, period, birthdate, elapsed_time);
    create index if not exists segment_period_bests_athlete on segment_period_bests (athlete_id, segment_id, period);
    create table if not exists segment_board_counts (
      segment_id bigint not null,
      board text not null,
      shift integer not null,
      slot integer not null,
      n integer not null,
      primary key (segment_id, board, shift, slot)
    );
    create table if not exists segment_activity_facts (
      activity_id bigint primary key,
      pr_count integer not null,
      achievement_count integer not null
    );
    ${tileTopsSchema}
    ${followerBestsSchema}
  `,
  // The boards copy the athletes' sex, birthdate and weight; efforts are shielded by the privacy zones.
  reads: ["athletes", "privacy_zones"],
  bulk: segmentsBulk,
  handles: [
    segmentCreated.type,
    segmentProfileMeasured.type,
    segmentStarred.type,
    segmentUnstarred.type,
    segmentEffortsMatched.type,
    segmentEffortsRematched.type,
    activityDeleted.type,
    activityUpdated.type,
    athleteProfileUpdated.type,
    privacyZoneCreated.type,
    privacyZoneDeleted.type,
  ],
  /** The boards and the segments' effort_count / athlete_count / star_count, set-based, once per rebuild. */
  async finishRebuild(tx: Queryable) {
    await rebuildAllBoards(tx);
    await rebuildFollowerBests(tx);
    // star_count, which stars and unstars leave alone while rebuilding: the segment's stars.
    await tx.query(
      `with n as (select segment_id, count(*)::int as n from segment_stars group by 1)
       update segments s set star_count = coalesce(n.n, 0)
         from segments t left join n on n.segment_id = t.id
        where s.id = t.id and s.star_count <> coalesce(n.n, 0)`,
    );
    await rebuildTileTops(tx);
  },
  async apply(tx: Queryable, event: StoredEvent, rebuilding = false) {
    // While rebuilding, the efforts change as live but the boards and counters are left to finishRebuild.
    const boards = rebuilding ? SKIPPED_BOARDS : LIVE_BOARDS;
    switch (event.type) {
      case segmentCreated.type:
        await created(tx, event.data, event.recordedAt);
        if (!rebuilding) await refreshTileTops(tx, [event.data.segmentId]);
        return;
      case segmentProfileMeasured.type: {
        const d = event.data;
        const [row] = await tx.query<{ before: number; after: number }>(
          `update segments s set average_grade = $2, maximum_grade = $3, elevation_high = $4, elevation_low = $5,
             total_elevation_gain = $6, climb_category = $7, elevation_source = $8, elevation_difference = $9,
             updated_at = $10
             from (select id, climb_category from segments where id = $1 for update) old
           where s.id = old.id
           returning old.climb_category as before, s.climb_category as after`,
          [
            d.segmentId,
            d.averageGrade,
            d.maximumGrade,
            d.elevationHigh,
            d.elevationLow,
            d.totalElevationGain,
            d.climbCategory,
            d.source,
            elevationDifference(d.profile.map((p) => p[1])),
            event.recordedAt,
          ],
        );
        // Explore's lists keep the climb category (and nothing else a measurement changes): only a
        // new category moves them (an upload over 200 new flat segments refreshed 200 lists for nothing).
        if (!rebuilding && row && Number(row.before) !== Number(row.after)) await refreshTileTops(tx, [d.segmentId]);
        return;
      }
      case segmentStarred.type: {
        const d = event.data;
        const rows = await tx.query(
          `insert into segment_stars (athlete_id, segment_id, starred_at) values ($1, $2, $3)
           on conflict do nothing returning segment_id`,
          [d.athleteId, d.segmentId, event.recordedAt],
        );
        if (rows.length && !rebuilding) {
          await tx.query("update segments set star_count = star_count + 1 where id = $1", [d.segmentId]);
        }
        return;
      }
      case segmentUnstarred.type: {
        const d = event.data;
        const rows = await tx.query(
          "delete from segment_stars where athlete_id = $1 and segment_id = $2 returning segment_id",
          [d.athleteId, d.segmentId],
        );
        if (rows.length && !rebuilding) {
          await tx.query("update segments set star_count = star_count - 1 where id = $1", [d.segmentId]);
        }
        return;
      }
      case segmentEffortsMatched.type: {
        const d = event.data;
        await matched(tx, d, boards);
        // Followers-only efforts may make rows; public ones may beat existing rows.
        return boards.followers(tx, d.athleteId, segmentsOf(d), d.visibility === "followers_only");
      }
      case segmentEffortsRematched.type: {
        // The activity's efforts are replaced: out of the boards first, then in again.
        const d = event.data;
        const gone = await tx.query<EffortChange>(
          `delete from segment_efforts where activity_id = $1
           returning segment_id, athlete_id, (${PUBLIC_EFFORT}) as public`,
          [d.activityId],
        );
        await boards.refresh(tx, gone, gone.map((g) => (g.public ? -1 : 0)));
        await matched(tx, d, boards);
        return boards.followers(tx, d.athleteId, [...gone.map((g) => g.segment_id), ...segmentsOf(d)], true);
      }
      case activityDeleted.type: {
        const d = event.data;
        const gone = await tx.query<EffortChange>(
          `delete from segment_efforts where activity_id = $1
           returning segment_id, athlete_id, (${PUBLIC_EFFORT}) as public`,
          [d.activityId],
        );
        await tx.query("delete from segment_activity_facts where activity_id = $1", [d.activityId]);
        await boards.refresh(tx, gone, gone.map((g) => (g.public ? -1 : 0)));
        return boards.followers(tx, d.athleteId, gone.map((g) => g.segment_id), true);
      }
      case activityUpdated.type: {
        const d = event.data;
        if (d.visibility === undefined) return;
        const segments = await tx.query<{ segment_id: string }>(
          "select distinct segment_id::text as segment_id from segment_efforts where activity_id = $1",
          [d.activityId],
        );
        if (segments.length === 0) return;
        if (d.visibility === "everyone") {
          // Seen by everyone now: its efforts join the boards (bests can only improve).
          await boards.add(
            tx,
            `update segment_efforts set visibility = 'everyone' where activity_id = $1 and visibility <> 'everyone'
             returning ${ADDED_COLUMNS}`,
            [d.activityId],
          );
        } else {
          // No longer (or still not) seen by everyone: the efforts that were public leave the boards.
          const changed = await tx.query<EffortChange>(
            `with old as (select id, visibility from segment_efforts where activity_id = $1 and visibility <> $2)
             update segment_efforts e set visibility = $2 from old where e.id = old.id
             returning e.segment_id, e.athlete_id, (old.visibility = 'everyone' and not e.shielded) as public`,
            [d.activityId, d.visibility],
          );
          await boards.refresh(tx, changed, changed.map((c) => (c.public ? -1 : 0)));
        }
        return boards.followers(tx, d.athleteId, segments.map((r) => r.segment_id), true);
      }
      case athleteProfileUpdated.type: {
        const d = event.data;
        await boards.updateAthlete(tx, d.athleteId, d);
        return boards.followersOfAthlete(tx, d.athleteId, d);
      }
      case privacyZoneCreated.type: {
        const d = event.data;
        return zonesChanged(
          tx,
          boards,
          d.athleteId,
          await zonesAfter(tx, { ...d, created: { lat: d.lat, lng: d.lng, radius_m: d.radiusM } }),
        );
      }
      case privacyZoneDeleted.type: {
        const d = event.data;
        return zonesChanged(tx, boards, d.athleteId, await zonesAfter(tx, d));
      }
    }
  },
};

async function created(tx: Queryable, d: Created, recordedAt: string) {
  await tx.query(
    `insert into segments (id, athlete_id, activity_id, name, activity_type, points, altitudes, distance,
       average_grade, maximum_grade, elevation_high, elevation_low, total_elevation_gain, climb_category,
       start_lat, start_lng, end_lat, end_lng, polyline, city, state, country, private, hazardous,
       created_at, updated_at, elevation_difference)
     values ($1,$2,$3,$4,$5,$6::jsonb,$7::jsonb,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$25,$26)`,
    [
      d.segmentId,
      d.athleteId,
      d.activityId,
      d.name,
      d.activityType,
      JSON.stringify(d.points),
      d.altitudes === null ? null : JSON.stringify(d.altitudes),
      d.distance,
      d.averageGrade,
      d.maximumGrade,
      d.elevationHigh,
      d.elevationLow,
      d.totalElevationGain,
      d.climbCategory,
      d.startLatlng[0],
      d.startLatlng[1],
      d.endLatlng[0],
      d.endLatlng[1],
      d.polyline,
      d.city,
      d.state,
      d.country,
      d.private,
      d.hazardous,
      recordedAt,
      elevationDifference(d.altitudes),
    ],
  );
}

/** Explore's elev_difference: the last altitude minus the first (0 without altitudes). */
function elevationDifference(altitudes: number[] | null): number {
  if (!altitudes || altitudes.length < 2) return 0;
  return Math.round((altitudes[altitudes.length - 1] - altitudes[0]) * 10) / 10;
}

/** An athlete's zones changed: efforts now shielded leave the boards, efforts released join them. */
async function zonesChanged(
  tx: Queryable,
  boards: Boards,
  athleteId: number,
  zones: Parameters<typeof shieldedBy>[1],
) {
  const { shield, release } = await shieldChanges(tx, athleteId, zones);
  if (shield.length) {
    const changed = await tx.query<EffortChange>(
      `update segment_efforts e set shielded = true where id = any($1::bigint[])
       returning segment_id, athlete_id, ${everyoneSeesSql("e")} as public`,
      [shield],
    );
    await boards.refresh(tx, changed, changed.map((c) => (c.public ? -1 : 0)));
  }
  if (release.length) {
    await boards.add(
      tx,
      `update segment_efforts set shielded = false where id = any($1::bigint[]) returning ${ADDED_COLUMNS}`,
      [release],
    );
  }
  if (shield.length || release.length) {
    const segments = await tx.query<{ segment_id: string }>(
      "select distinct segment_id::text as segment_id from segment_efforts where id = any($1::bigint[])",
      [[...shield, ...release]],
    );
    await boards.followers(tx, athleteId, segments.map((r) => r.segment_id), true);
  }
}

/**
 * Each effort's end points (the event's recorded positions, else the segment's start and end) and
 * whether they lie in the athlete's zones as they stand at this point of the log.
 */
async function effortEnds(tx: Queryable, d: Matched) {
  const missing = [...new Set(d.efforts.filter((e) => !e.startLatlng || !e.endLatlng).map((e) => e.segmentId))];
  const segments = new Map<number, { start_lat: number; start_lng: number; end_lat: number; end_lng: number }>();
  if (missing.length) {
    const rows = await tx.query<{ id: number; start_lat: number; start_lng: number; end_lat: number; end_lng: number }>(
      "select id, start_lat, start_lng, end_lat, end_lng from segments where id = any($1::bigint[])",
      [missing],
    );
    for (const r of rows) segments.set(Number(r.id), r);
  }
  const zones = await zonesOf(tx, d.athleteId);
  return d.efforts.map((e) => {
    const s = segments.get(e.segmentId);
    const ends = {
      start_lat: e.startLatlng?.[0] ?? s?.start_lat ?? null,
      start_lng: e.startLatlng?.[1] ?? s?.start_lng ?? null,
      end_lat: e.endLatlng?.[0] ?? s?.end_lat ?? null,
      end_lng: e.endLatlng?.[1] ?? s?.end_lng ?? null,
    };
    return { ...ends, shielded: shieldedBy(ends, zones) };
  });
}

async function matched(tx: Queryable, d: Matched, boards: Boards) {
  await tx.query(
    "insert into segment_activity_facts (activity_id, pr_count, achievement_count) values ($1, $2, $3) on conflict (activity_id) do update set pr_count = excluded.pr_count, achievement_count = excluded.achievement_count",
    [d.activityId, d.prCount, d.achievementCount],
  );
  if (d.efforts.length === 0) return;
  const ends = await effortEnds(tx, d);
  const rows = d.efforts.map((e, ord) => ({
    ...ends[ord],
    id: e.effortId,
    segment_id: e.segmentId,
    ord,
    name: e.name,
    start_index: e.startIndex,
    end_index: e.endIndex,
    start_date: e.startDate,
    start_date_local: e.startDateLocal.replace(/Z$/, ""),
    elapsed_time: e.elapsedTime,
    moving_time: e.movingTime,
    distance: e.distance,
    average_heartrate: e.averageHeartrate,
    max_heartrate: e.maxHeartrate,
    average_watts: e.averageWatts,
    average_cadence: e.averageCadence,
    kom_rank: e.komRank,
    pr_rank: e.prRank,
    achievements: e.achievements.map((a) => ({ type_id: a.typeId, type: a.type, rank: a.rank })),
    hidden: e.hidden,
  }));
  // The efforts, their bests, board counts and the segments' counters: one statement (boards.ts).
  await boards.add(
    tx,
    `insert into segment_efforts (id, segment_id, activity_id, athlete_id, ord, name, start_index, end_index,
       start_date, start_date_local, elapsed_time, moving_time, distance, average_heartrate, max_heartrate,
       average_watts, average_cadence, kom_rank, pr_rank, achievements, hidden, visibility,
       start_lat, start_lng, end_lat, end_lng, shielded)
     select r.id, r.segment_id, $2, $3, r.ord, r.name, r.start_index, r.end_index, r.start_date, r.start_date_local,
            r.elapsed_time, r.moving_time, r.distance, r.average_heartrate, r.max_heartrate, r.average_watts,
            r.average_cadence, r.kom_rank, r.pr_rank, r.achievements, r.hidden, $4,
            r.start_lat, r.start_lng, r.end_lat, r.end_lng, r.shielded
       from jsonb_to_recordset($1::jsonb) as r(id bigint, segment_id bigint, ord integer, name text,
            start_index integer, end_index integer, start_date timestamptz, start_date_local timestamp,
            elapsed_time integer, moving_time integer, distance double precision, average_heartrate double precision,
            max_heartrate double precision, average_watts double precision, average_cadence double precision,
            kom_rank integer, pr_rank integer, achievements jsonb, hidden boolean,
            start_lat double precision, start_lng double precision, end_lat double precision, end_lng double precision,
            shielded boolean)
     on conflict (id) do nothing
     returning ${ADDED_COLUMNS}`,
    [JSON.stringify(rows), d.activityId, d.athleteId, d.visibility],
  );
}

/** The segments an efforts event names. */
function segmentsOf(d: Matched): number[] {
  return d.efforts.map((e) => e.segmentId);
}

/** An effort everyone may see (SQL over segment_efforts columns): what the public boards and counts hold. */
const PUBLIC_EFFORT = "visibility = 'everyone' and not shielded";

/** The columns `addToBoards` reads from the added efforts (`unlisted`: not seen by everyone, or shielded). */
const ADDED_COLUMNS =
  `id, segment_id, athlete_id, activity_id, elapsed_time, moving_time, start_date, start_date_local, not (${PUBLIC_EFFORT}) as unlisted`;

interface EffortChange {
  segment_id: number;
  athlete_id: number;
  public?: boolean;
}

/** How a handler keeps the boards (segment_bests, period bests, counts) and the segments' counters. */
interface Boards {
  /** `addedSql` adds or releases efforts (returning ADDED_COLUMNS); their bests may improve. */
  add(tx: Queryable, addedSql: string, params: unknown[]): Promise<void>;
  /** Efforts of these (segment, athlete) pairs were removed or hidden. */
  refresh(tx: Queryable, changes: EffortChange[], effortDeltas: number[]): Promise<void>;
  /** An athlete's sex / birthdate / weight changed. */
  updateAthlete(tx: Queryable, athleteId: number, changes: Parameters<typeof updateBoardAthlete>[2]): Promise<void>;
  /** One athlete's efforts on these segments changed: their followers-only rows (follower-boards.ts). */
  followers(tx: Queryable, athleteId: number, segmentIds: (number | string)[], always: boolean): Promise<void>;
  /** An athlete's sex / birthdate / weight changed: their followers-only rows. */
  followersOfAthlete(
    tx: Queryable,
    athleteId: number,
    changes: Parameters<typeof updateFollowerAthlete>[2],
  ): Promise<void>;
}

/** Live: each change moves the boards and counters incrementally, and explore's tile lists with the counters. */
const LIVE_BOARDS: Boards = {
  add: async (tx, addedSql, params) => refreshTileTops(tx, await addToBoards(tx, addedSql, params)),
  refresh: async (tx, changes, effortDeltas) => {
    if (changes.length === 0) return;
    const efforts = new Map<string, number>();
    changes.forEach((c, k) =>
      efforts.set(String(c.segment_id), (efforts.get(String(c.segment_id)) ?? 0) + effortDeltas[k])
    );
    await refreshTileTops(tx, await refreshBoards(tx, changes, efforts));
  },
  updateAthlete: updateBoardAthlete,
  followers: refreshFollowerBests,
  followersOfAthlete: updateFollowerAthlete,
};

/**
 * Rebuilding: the efforts statement runs alone; the boards and counters are computed once from the
 * rebuilt efforts by `finishRebuild` (what the incremental path reaches, event by event).
 */
const SKIPPED_BOARDS: Boards = {
  add: async (tx, addedSql, params) => void await tx.query(addedSql, params),
  refresh: () => Promise.resolve(),
  updateAthlete: () => Promise.resolve(),
  followers: () => Promise.resolve(),
  followersOfAthlete: () => Promise.resolve(),
};
