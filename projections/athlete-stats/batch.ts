import type { Queryable } from "../../events/db/types.ts";
import { isOneOf, type StoredEvent } from "../../events/index.ts";
import { type Contribution, statsGroupOf } from "./groups.ts";

/** A row of athlete_stats_activities: an activity's contribution, its sport and its two achievement counts. */
interface Row extends Contribution {
  sport: string;
  segment_achievements: number;
  best_effort_achievements: number;
}

/** A row of athlete_stats_days. */
interface Day {
  athlete_id: number;
  grp: string;
  day: string;
  visibility: string;
  count: number;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  elevation_gain: number;
  achievement_count: number;
}

const ROW_COLUMNS =
  "activity_id, athlete_id, sport, grp, day, visibility, distance, moving_time, elapsed_time, elevation_gain, " +
  "segment_achievements, best_effort_achievements, achievement_count";
const DAY_COLUMNS =
  "athlete_id, grp, day, visibility, count, distance, moving_time, elapsed_time, elevation_gain, achievement_count";
const dayKey = (athleteId: number, grp: string, day: string, visibility: string) =>
  `${athleteId}|${grp}|${day}|${visibility}`;
const dayOf = (startDateLocal: string) => startDateLocal.slice(0, 10);

/**
 * A run of the projection's events folded in memory, then written back with a few statements:
 * the rows of the activities the run touches and the day totals of their athletes are read once,
 * each event does to them exactly what `apply`'s statements do (the same IEEE additions in the
 * same order, so the double precision totals match to the bit), and the rows that changed are
 * upserted (or deleted) at the end.
 */
export async function foldRun(tx: Queryable, events: StoredEvent[]): Promise<void> {
  const ids = new Set<number>();
  const athletes = new Set<number>();
  // The days a run can touch: its creations', its crops' and those of the rows it reads (an edit keeps the day).
  const dates = new Set<string>();
  for (const e of events) {
    if ("activityId" in e.data && typeof e.data.activityId === "number") ids.add(e.data.activityId);
    if (isOneOf(e, ["ActivityRecorded", "ActivityCreated"])) {
      athletes.add(e.data.athleteId);
      dates.add(dayOf(e.data.startDateLocal));
    }
    // A crop or its undoing moves the start: its new day too.
    if (isOneOf(e, ["ActivityCropped", "ActivityCropUndone"])) {
      athletes.add(e.data.athleteId);
      dates.add(dayOf(e.data.facts.startDateLocal));
    }
  }
  const rows = new Map<number, Row | null>();
  for (
    const r of await tx.query<Row>(
      `select ${ROW_COLUMNS} from athlete_stats_activities where activity_id = any($1::bigint[])`,
      [[...ids]],
    )
  ) {
    const row = { ...r, activity_id: Number(r.activity_id), athlete_id: Number(r.athlete_id) };
    rows.set(row.activity_id, row);
    athletes.add(row.athlete_id);
    dates.add(row.day);
  }
  const days = new Map<string, Day | null>();
  for (
    const r of await tx.query<Day>(
      `select ${DAY_COLUMNS} from athlete_stats_days where athlete_id = any($1::bigint[]) and day = any($2::text[])`,
      [[...athletes], [...dates]],
    )
  ) {
    const day: Day = {
      ...r,
      athlete_id: Number(r.athlete_id),
      moving_time: Number(r.moving_time),
      elapsed_time: Number(r.elapsed_time),
    };
    days.set(dayKey(day.athlete_id, day.grp, day.day, day.visibility), day);
  }
  const touchedRows = new Set<number>();
  const touchedDays = new Set<string>();

  const move = (c: Row, sign: 1 | -1) => {
    if (c.grp === null) return;
    const key = dayKey(c.athlete_id, c.grp, c.day, c.visibility);
    touchedDays.add(key);
    const t = days.get(key);
    if (t) {
      t.count += sign;
      t.distance = t.distance + sign * c.distance;
      t.moving_time = t.moving_time + sign * c.moving_time;
      t.elapsed_time = t.elapsed_time + sign * c.elapsed_time;
      t.elevation_gain = t.elevation_gain + sign * c.elevation_gain;
      t.achievement_count = t.achievement_count + sign * c.achievement_count;
    } else {
      days.set(key, {
        athlete_id: c.athlete_id,
        grp: c.grp,
        day: c.day,
        visibility: c.visibility,
        count: sign,
        distance: sign * c.distance,
        moving_time: sign * c.moving_time,
        elapsed_time: sign * c.elapsed_time,
        elevation_gain: sign * c.elevation_gain,
        achievement_count: sign * c.achievement_count,
      });
    }
    if (sign < 0 && days.get(key)!.count <= 0) days.set(key, null);
  };
  /** `change` of projection.ts: the old contribution out, the edit, the achievements, the new one in. */
  const change = (activityId: number, edit: ((row: Row) => Row | null) | null) => {
    if (edit) {
      const before = rows.get(activityId);
      if (before) {
        move(before, -1);
        rows.set(activityId, edit({ ...before }));
        touchedRows.add(activityId);
      }
    }
    const row = rows.get(activityId);
    if (!row) return;
    row.achievement_count = row.segment_achievements + (row.sport === "Run" ? row.best_effort_achievements : 0);
    touchedRows.add(activityId);
    move(row, 1);
  };
  const insert = (row: Row) => {
    if (!rows.get(row.activity_id)) {
      rows.set(row.activity_id, row);
      touchedRows.add(row.activity_id);
    }
    change(row.activity_id, null);
  };

  for (const event of events) {
    switch (event.type) {
      case "ActivityRecorded": {
        const d = event.data;
        const sport = d.sportType ?? d.type;
        insert({
          activity_id: d.activityId,
          athlete_id: d.athleteId,
          sport,
          grp: statsGroupOf(sport),
          day: dayOf(d.startDateLocal),
          visibility: d.visibility,
          distance: d.distance,
          moving_time: d.movingTime,
          elapsed_time: d.elapsedTime,
          elevation_gain: d.totalElevationGain,
          segment_achievements: 0,
          best_effort_achievements: d.bestEfforts.filter((e) => e.prRank !== null).length,
          achievement_count: 0,
        });
        break;
      }
      case "ActivityCreated": {
        const d = event.data;
        const sport = d.sportType ?? d.type;
        insert({
          activity_id: d.activityId,
          athlete_id: d.athleteId,
          sport,
          grp: statsGroupOf(sport),
          day: dayOf(d.startDateLocal),
          visibility: d.visibility,
          distance: d.distance,
          moving_time: d.elapsedTime,
          elapsed_time: d.elapsedTime,
          elevation_gain: 0,
          segment_achievements: 0,
          best_effort_achievements: 0,
          achievement_count: 0,
        });
        break;
      }
      case "ActivityUpdated": {
        const d = event.data;
        const sport = d.sportType ?? d.type;
        if (sport === undefined && d.visibility === undefined) break;
        change(d.activityId, (r) => ({
          ...r,
          sport: sport ?? r.sport,
          grp: sport === undefined ? r.grp : statsGroupOf(sport),
          visibility: d.visibility ?? r.visibility,
        }));
        break;
      }
      case "ActivityReprocessed": {
        const { activityId, facts } = event.data;
        change(activityId, (r) => ({
          ...r,
          distance: facts.distance,
          moving_time: facts.movingTime,
          elapsed_time: facts.elapsedTime,
          elevation_gain: facts.totalElevationGain,
          best_effort_achievements: facts.bestEfforts.filter((e) => e.prRank !== null).length,
        }));
        break;
      }
      case "ActivityCropped":
      case "ActivityCropUndone": {
        const { activityId, facts } = event.data;
        change(activityId, (r) => ({
          ...r,
          day: dayOf(facts.startDateLocal),
          distance: facts.distance,
          moving_time: facts.movingTime,
          elapsed_time: facts.elapsedTime,
          elevation_gain: facts.totalElevationGain,
          best_effort_achievements: facts.bestEfforts.filter((e) => e.prRank !== null).length,
        }));
        break;
      }
      case "SegmentEffortsMatched":
      case "SegmentEffortsRematched": {
        const d = event.data;
        change(d.activityId, (r) => ({ ...r, segment_achievements: d.achievementCount }));
        break;
      }
      case "ActivityDeleted":
        change(event.data.activityId, () => null);
        break;
    }
  }

  const kept = [...touchedRows].map((id) => rows.get(id)).filter((r): r is Row => !!r);
  const gone = [...touchedRows].filter((id) => !rows.get(id));
  if (gone.length) await tx.query("delete from athlete_stats_activities where activity_id = any($1::bigint[])", [gone]);
  if (kept.length) {
    await tx.query(
      `insert into athlete_stats_activities (${ROW_COLUMNS})
       select ${ROW_COLUMNS} from jsonb_to_recordset($1::jsonb) as r(activity_id bigint, athlete_id bigint, sport text,
         grp text, day text, visibility text, distance double precision, moving_time integer, elapsed_time integer,
         elevation_gain double precision, segment_achievements integer, best_effort_achievements integer,
         achievement_count integer)
       on conflict (activity_id) do update set ${
        ROW_COLUMNS.split(", ").slice(1).map((c) => `${c} = excluded.${c}`).join(", ")
      }`,
      [JSON.stringify(kept)],
    );
  }
  const keptDays = [...touchedDays].map((k) => days.get(k)).filter((d): d is Day => !!d);
  const goneDays = [...touchedDays].filter((k) => !days.get(k)).map((k) => k.split("|"));
  if (goneDays.length) {
    await tx.query(
      `delete from athlete_stats_days t
        using unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) as g(a, grp, day, visibility)
        where t.athlete_id = g.a and t.grp = g.grp and t.day = g.day and t.visibility = g.visibility`,
      [
        goneDays.map((g) => Number(g[0])),
        goneDays.map((g) => g[1]),
        goneDays.map((g) => g[2]),
        goneDays.map((g) => g[3]),
      ],
    );
  }
  if (keptDays.length) {
    await tx.query(
      `insert into athlete_stats_days (${DAY_COLUMNS})
       select ${DAY_COLUMNS} from jsonb_to_recordset($1::jsonb) as r(athlete_id bigint, grp text, day text,
         visibility text, count integer,
         distance double precision, moving_time bigint, elapsed_time bigint, elevation_gain double precision,
         achievement_count integer)
       on conflict (athlete_id, grp, day, visibility) do update set ${
        DAY_COLUMNS.split(", ").slice(4).map((c) => `${c} = excluded.${c}`).join(", ")
      }`,
      [JSON.stringify(keptDays)],
    );
  }
}
