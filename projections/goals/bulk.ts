import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, none } from "../bulk.ts";
import { created, DELETED, EDITS, LAST_VISIBILITY, lastEdit, moved, REDERIVED } from "../activity-timeline.ts";

/**
 * Goals, the activities' contributions and the period totals from the whole log (projections/bulk.ts).
 *
 * - A goal is its GoalSet unless a GoalDeleted of it followed (`fits`: each goal is set once, and
 *   deleted only by its athlete, as the goal decider keeps it).
 * - An activity's contribution is its first creation after its last deletion (a later one changes
 *   nothing), with the type and visibility of the last edits naming them, the figures of its last
 *   re-derivation (a reprocessing, a crop or its undoing) and the day of its last crop or undoing.
 * - The totals: live adds and takes back contributions in numeric (exact: a taken-back contribution
 *   leaves no residue, a row whose count falls to 0 holds zeros and goes), so each period's row is
 *   the sum of the contributions standing at the end, cast as apply casts them (float8 → numeric).
 */
export const goalsBulk: BulkLoader = {
  writtenFor: "f404dcc867f2bb9e",
  async fits(tx: Queryable, log: BulkLog) {
    const [row] = await tx.query<{ fits: boolean }>(
      `select ${
        none(`select 1 from public.replay_log where type = 'GoalSet' and position <= $1
                group by data->>'goalId' having count(*) > 1`)
      } and ${
        none(`select 1 from public.replay_log d
                join public.replay_log s on s.type = 'GoalSet' and s.position <= $1 and s.data->>'goalId' = d.data->>'goalId'
               where d.type = 'GoalDeleted' and d.position <= $1 and s.data->>'athleteId' <> d.data->>'athleteId'`)
      } as fits`,
      [log.until],
    );
    return row.fits;
  },
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `insert into goals (id, athlete_id, type, period, dimension, goal, created_at)
       select (s.data->>'goalId')::bigint, (s.data->>'athleteId')::bigint, s.data->>'type', s.data->>'period',
              s.data->>'dimension', (s.data->>'goal')::float8, s.at
         from public.replay_log s
        where s.type = 'GoalSet' and s.position <= $1
          and not exists (select 1 from public.replay_log d
                           where d.type = 'GoalDeleted' and d.position <= $1 and d.position > s.position
                             and d.data->>'goalId' = s.data->>'goalId')`,
      [log.until],
    );
    await tx.query(
      `with ${DELETED},${
        created(
          `"activityId" bigint, "athleteId" bigint, type text, "startDateLocal" text, visibility text, distance float8,
           "movingTime" int, "elapsedTime" int, "totalElevationGain" float8`,
        )
      },${EDITS},${lastEdit("types", "data->>'type' as type", "data ? 'type'")},${LAST_VISIBILITY},${REDERIVED},${
        moved("w.facts->>'startDateLocal' as local")
      }
       insert into goal_activities (activity_id, athlete_id, type, day, visibility, distance, moving_time, elevation_gain)
       select c."activityId", c."athleteId", coalesce(t.type, c.type), substr(coalesce(m.local, c."startDateLocal"), 1, 10),
              coalesce(v.visibility, c.visibility),
              case when r.id is null then c.distance else (r.facts->>'distance')::float8 end,
              case when r.id is not null then (r.facts->>'movingTime')::int
                   when c.event = 'ActivityRecorded' then c."movingTime" else c."elapsedTime" end,
              case when r.id is not null then (r.facts->>'totalElevationGain')::float8
                   when c.event = 'ActivityRecorded' then c."totalElevationGain" else 0 end
         from created c left join types t on t.id = c."activityId" left join visibilities v on v.id = c."activityId"
         left join rederived r on r.id = c."activityId" left join moved m on m.id = c."activityId"`,
      [log.until],
    );
    // periodKeys in SQL: the week from its Monday, the month, the year of the local day.
    await tx.query(
      `insert into goal_totals (athlete_id, type, period, visibility, count, distance, moving_time, elevation_gain)
       select a.athlete_id, a.type, p.period, a.visibility, count(*)::int, sum(a.distance::float8::numeric),
              sum(a.moving_time)::bigint, sum(a.elevation_gain::float8::numeric)
         from goal_activities a
        cross join lateral (values
          ('w' || to_char(a.day::date - (extract(isodow from a.day::date)::int - 1), 'YYYY-MM-DD')),
          ('m' || substr(a.day, 1, 7)), ('y' || substr(a.day, 1, 4))) as p(period)
        group by a.athlete_id, a.type, p.period, a.visibility`,
    );
  },
};
