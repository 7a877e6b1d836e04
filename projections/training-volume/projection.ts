import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { visibilityClassOf } from "../../shared/visibility.ts";
import type { Projection } from "../projection.ts";
import { trainingVolumeBulk } from "./bulk.ts";

/**
 * Training volume (docs/web-app.md, "Volume and totals"): what each activity adds to its athlete's
 * totals — local start day, sport (sport_type, else type), visibility class, distance, moving and
 * elapsed time, elevation gain — and the sums of those per athlete, day, sport and class
 * (`volume_days`) and per year (`volume_years`). A month, a week or a year of any athlete is one
 * indexed range read of `volume_days` whatever its distance from today; all time is a read of
 * `volume_years`. Readers add up the classes the privacy engine lets their viewer see.
 *
 * Live, an event takes the activity's old contribution out of its day and year and puts the new one
 * in; a rebuild keeps only the contributions and sums them once at its end (`finishRebuild`).
 * Distances and elevations are `numeric`: sums of exact decimals do not depend on the order of the
 * additions, so the incremental totals equal the set-based ones to the digit (`cli verify`).
 */

/** One activity's contribution (a row of volume_activities). */
interface Contribution {
  activity_id: number;
  athlete_id: number;
  visibility: string;
  day: string;
  sport: string;
  distance: number | string;
  moving_time: number;
  elapsed_time: number;
  elevation_gain: number | string;
}

const COLUMNS = "activity_id, athlete_id, visibility, day, sport, distance, moving_time, elapsed_time, elevation_gain";

const dayOf = (startDateLocal: string) => startDateLocal.slice(0, 10);

/** The contribution a recording or a manual creation inserts. */
function contributionOf(event: StoredEvent): Contribution | null {
  if (event.type === activityRecorded.type) {
    const d = event.data;
    return {
      activity_id: d.activityId,
      athlete_id: d.athleteId,
      visibility: visibilityClassOf(d),
      day: dayOf(d.startDateLocal),
      sport: d.sportType ?? d.type,
      distance: d.distance,
      moving_time: d.movingTime,
      elapsed_time: d.elapsedTime,
      elevation_gain: d.totalElevationGain,
    };
  }
  if (event.type === activityCreated.type) {
    const d = event.data;
    return {
      activity_id: d.activityId,
      athlete_id: d.athleteId,
      visibility: visibilityClassOf(d),
      day: dayOf(d.startDateLocal),
      sport: d.sportType ?? d.type,
      distance: d.distance,
      moving_time: d.elapsedTime,
      elapsed_time: d.elapsedTime,
      elevation_gain: 0,
    };
  }
  return null;
}

/** An edit of a contribution as one SQL update (null: the event changes nothing here). */
function editOf(event: StoredEvent): { activityId: number; sql: string; params: unknown[] } | null {
  switch (event.type) {
    case activityUpdated.type: {
      const d = event.data;
      const sport = d.sportType ?? d.type;
      if (sport === undefined && d.visibility === undefined) return null;
      return {
        activityId: d.activityId,
        sql: `update volume_activities set sport = coalesce($2, sport), visibility = coalesce($3, visibility)
               where activity_id = $1`,
        params: [
          d.activityId,
          sport ?? null,
          d.visibility ?? null,
        ],
      };
    }
    case activityDeleted.type:
      return {
        activityId: event.data.activityId,
        sql: "delete from volume_activities where activity_id = $1",
        params: [event.data.activityId],
      };
  }
  const derived = rederivationOf(event);
  if (!derived) return null;
  // Any re-derivation of an activity's facts from its recording moves its figures the same way (and its day with its start).
  const { activityId, facts, start } = derived;
  return {
    activityId,
    sql: `update volume_activities set distance = $2, moving_time = $3, elapsed_time = $4, elevation_gain = $5,
            day = coalesce($6, day)
           where activity_id = $1`,
    params: [
      activityId,
      facts.distance,
      facts.movingTime,
      facts.elapsedTime,
      facts.totalElevationGain,
      start === null ? null : dayOf(start.startDateLocal),
    ],
  };
}

export const trainingVolumeProjection: Projection = {
  name: "training-volume",
  tables: ["volume_activities", "volume_days", "volume_years"],
  schema: `
    create table if not exists volume_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      visibility text not null,
      day text not null,
      sport text not null,
      distance numeric(20, 3) not null,
      moving_time integer not null,
      elapsed_time integer not null,
      elevation_gain numeric(20, 3) not null
    );
    create table if not exists volume_days (
      athlete_id bigint not null,
      day text not null,
      visibility text not null,
      sport text not null,
      count integer not null,
      distance numeric(20, 3) not null,
      moving_time bigint not null,
      elapsed_time bigint not null,
      elevation_gain numeric(20, 3) not null,
      primary key (athlete_id, day, visibility, sport)
    );
    create table if not exists volume_years (
      athlete_id bigint not null,
      year integer not null,
      visibility text not null,
      sport text not null,
      count integer not null,
      distance numeric(20, 3) not null,
      moving_time bigint not null,
      elapsed_time bigint not null,
      elevation_gain numeric(20, 3) not null,
      primary key (athlete_id, year, visibility, sport)
    );
  `,
  isolated: true,
  bulk: trainingVolumeBulk,
  handles: [
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityDeleted.type,
    ...REDERIVATION_TYPES,
  ],
  async applyBatch(tx: Queryable, events: StoredEvent[], rebuilding?: boolean) {
    if (!rebuilding) {
      for (const event of events) await this.apply(tx, event, false);
      return;
    }
    // A rebuild keeps contributions only: runs of creations go in with one statement each.
    let run: Contribution[] = [];
    const flush = async () => {
      if (run.length) await insertContributions(tx, run);
      run = [];
    };
    for (const event of events) {
      const row = contributionOf(event);
      if (row) run.push(row);
      else {
        await flush();
        await this.apply(tx, event, true);
      }
    }
    await flush();
  },
  async apply(tx: Queryable, event: StoredEvent, rebuilding?: boolean) {
    const row = contributionOf(event);
    if (row) {
      const inserted = await insertContributions(tx, [row]);
      if (inserted.length && !rebuilding) await move(tx, inserted[0], 1);
      return;
    }
    const edit = editOf(event);
    if (!edit) return;
    const activityId = edit.activityId;
    if (rebuilding) {
      await tx.query(edit.sql, edit.params);
      return;
    }
    const [before] = await tx.query<Contribution>(
      `select ${COLUMNS} from volume_activities where activity_id = $1`,
      [activityId],
    );
    if (!before) return;
    await move(tx, before, -1);
    await tx.query(edit.sql, edit.params);
    const [after] = await tx.query<Contribution>(`select ${COLUMNS} from volume_activities where activity_id = $1`, [
      activityId,
    ]);
    if (after) await move(tx, after, 1);
  },
  async finishRebuild(tx: Queryable) {
    await tx.exec(`
      insert into volume_days (athlete_id, day, visibility, sport, count, distance, moving_time, elapsed_time, elevation_gain)
      select athlete_id, day, visibility, sport, count(*), sum(distance), sum(moving_time), sum(elapsed_time),
             sum(elevation_gain)
        from volume_activities group by athlete_id, day, visibility, sport;
      insert into volume_years (athlete_id, year, visibility, sport, count, distance, moving_time, elapsed_time, elevation_gain)
      select athlete_id, substr(day, 1, 4)::int, visibility, sport, count(*), sum(distance), sum(moving_time),
             sum(elapsed_time), sum(elevation_gain)
        from volume_activities group by athlete_id, substr(day, 1, 4)::int, visibility, sport;
    `);
  },
};

/** Inserts contributions (a creation of an id already present changes nothing); answers those inserted. */
function insertContributions(tx: Queryable, rows: Contribution[]): Promise<Contribution[]> {
  return tx.query<Contribution>(
    `insert into volume_activities (${COLUMNS})
     select ${COLUMNS} from jsonb_to_recordset($1::jsonb) as r(activity_id bigint, athlete_id bigint, visibility text,
       day text, sport text, distance numeric, moving_time integer, elapsed_time integer, elevation_gain numeric)
     on conflict (activity_id) do nothing
     returning ${COLUMNS}`,
    [JSON.stringify(rows)],
  );
}

/** Adds (+1) or takes out (-1) a contribution from its day's and its year's sums; a sum of no activity is removed. */
async function move(tx: Queryable, c: Contribution, sign: 1 | -1) {
  const params = [
    c.athlete_id,
    c.day,
    c.visibility,
    c.sport,
    sign,
    String(c.distance),
    sign * c.moving_time,
    sign * c.elapsed_time,
    String(c.elevation_gain),
  ];
  const sums = `count = t.count + excluded.count, distance = t.distance + excluded.distance,
       moving_time = t.moving_time + excluded.moving_time, elapsed_time = t.elapsed_time + excluded.elapsed_time,
       elevation_gain = t.elevation_gain + excluded.elevation_gain`;
  await tx.query(
    `insert into volume_days as t (athlete_id, day, visibility, sport, count, distance, moving_time, elapsed_time, elevation_gain)
     values ($1, $2, $3, $4, $5::int, $5::int * $6::numeric, $7, $8, $5::int * $9::numeric)
     on conflict (athlete_id, day, visibility, sport) do update set ${sums}`,
    params,
  );
  await tx.query(
    `insert into volume_years as t (athlete_id, year, visibility, sport, count, distance, moving_time, elapsed_time, elevation_gain)
     values ($1, substr($2, 1, 4)::int, $3, $4, $5::int, $5::int * $6::numeric, $7, $8, $5::int * $9::numeric)
     on conflict (athlete_id, year, visibility, sport) do update set ${sums}`,
    params,
  );
  if (sign < 0) {
    await tx.query(
      `delete from volume_days where athlete_id = $1 and day = $2 and visibility = $3 and sport = $4 and count <= 0`,
      [c.athlete_id, c.day, c.visibility, c.sport],
    );
    await tx.query(
      `delete from volume_years where athlete_id = $1 and year = substr($2, 1, 4)::int and visibility = $3
          and sport = $4 and count <= 0`,
      [c.athlete_id, c.day, c.visibility, c.sport],
    );
  }
}
