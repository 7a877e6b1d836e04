import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit, none, ONE_CREATION_PER_STREAM } from "../bulk.ts";
import { REDERIVED_TYPES } from "../activity-timeline.ts";

/** GearUpdated's keys that set a column as they are (text and numbers; `primary` and `retired` apart). */
const TEXT_KEYS = {
  name: "name",
  nickname: "nickname",
  brandName: "brand_name",
  modelName: "model_name",
  description: "description",
};

/**
 * Gear from the whole log (projections/bulk.ts), in one statement; no recording is decoded in
 * JavaScript. What `apply` leaves, event by event:
 *
 * - a gear is its GearAdded with, key by key, the value of the last GearUpdated naming it; it is
 *   primary as the last of these said: its own addition, its own updates naming `primary`, and,
 *   after its addition, another gear of the athlete's kind added primary or updated to primary
 *   (which made it not primary);
 * - each activity's row is its creation (its athlete and distance) with the gear of the last edit
 *   naming one and the distance of the last re-derivation after it, unless deleted since;
 * - a gear's distance is the sum, in exact numeric, of every move `apply` made to it: an edit
 *   moving an activity from a gear to another (its distance out of the one, into the other), a
 *   re-derivation changing an activity's distance (the old out, the new in), a deletion (its
 *   distance out) — each counted only where `apply`'s update found the gear: added before the move,
 *   the athlete of the event moving it. Summing every move (not only what stands at the end) keeps
 *   the numeric's scale as the additions one by one leave it.
 *
 * `fits`: each gear is added once, each update names a gear its athlete added before (the gear
 * decider keeps both: `primary`'s clearing reads the gear's kind), and each activity is created once
 * (one creation per stream, each on its activity's stream, checked as the creations are decoded).
 */
export const gearBulk: BulkLoader = {
  writtenFor: "61b141890519c013",
  async fits(tx: Queryable, log: BulkLog) {
    const [row] = await tx.query<{ fits: boolean }>(
      `select ${
        none(`select 1 from public.replay_log where type = 'GearAdded' and position <= $1
                group by data->>'gearId' having count(*) > 1`)
      } and ${
        none(`select 1 from public.replay_log u
                left join public.replay_log a on a.type = 'GearAdded' and a.position < u.position
                      and a.data->>'gearId' = u.data->>'gearId' and a.data->>'athleteId' = u.data->>'athleteId'
               where u.type = 'GearUpdated' and u.position <= $1 and a.position is null`)
      } and ${ONE_CREATION_PER_STREAM} as fits`,
      [log.until],
    );
    return row.fits;
  },
  async load(tx: Queryable, log: BulkLog) {
    const [misfit] = await tx.query<{ streams: number }>(
      `with added as materialized (
         select a.position, f.*
           from public.replay_log a
          cross join lateral jsonb_to_record(a.data) as f("gearId" text, "athleteId" bigint, kind text, name text,
                nickname text, "brandName" text, "modelName" text, description text, "frameType" int, weight float8,
                "primary" boolean)
          where a.type = 'GearAdded' and a.position <= $1),
       updates as materialized (
         select position, data->>'gearId' as id, data
           from public.replay_log where type = 'GearUpdated' and position <= $1),
       update_values as (
         select distinct on (u.id, k.key) u.id, k.key, u.data->k.key as value
           from updates u cross join (values ${
        [...Object.keys(TEXT_KEYS), "retired", "reminderDistance"].map((k) => `('${k}')`).join(", ")
      }) as k(key)
          where u.data ? k.key
          order by u.id, k.key, u.position desc),
       updated as (select id, jsonb_object_agg(key, value) as set from update_values group by id),
       made_primary as (
         select g."athleteId", g.kind, g."gearId", g.position from added g where g."primary"
         union all
         select g."athleteId", g.kind, g."gearId", u.position
           from updates u join added g on g."gearId" = u.id where u.data->'primary' = 'true'::jsonb),
       primary_changes as (
         select "gearId" as id, position, "primary" as value from added
         union all
         select id, position, (data->'primary')::boolean from updates where data ? 'primary'
         union all
         select g."gearId", p.position, false
           from made_primary p join added g on g."athleteId" = p."athleteId" and g.kind = p.kind
                and g."gearId" <> p."gearId" and g.position < p.position),
       primaries as (select distinct on (id) id, value from primary_changes order by id, position desc),
       creations as materialized (
         select e.position, e.stream_id, f."activityId" as id, f."athleteId" as athlete, f.distance
           from public.replay_log e
          cross join lateral jsonb_to_record(e.data) as f("activityId" bigint, "athleteId" bigint, distance float8)
          where e.type in ('ActivityRecorded', 'ActivityCreated') and e.position <= $1),
       changes as (
         select c.id, c.position, 'created' as kind, c.athlete, null::jsonb as gear, c.distance
           from creations c
         union all
         select c.id, e.position, case when e.type = 'ActivityUpdated' then 'edited'
                                       when e.type = 'ActivityDeleted' then 'deleted' else 'rederived' end,
                (e.data->>'athleteId')::bigint,
                case when e.type = 'ActivityUpdated' then e.data->'gearId' end,
                case when e.type in (${REDERIVED_TYPES}) then (e.data->'facts'->>'distance')::float8 end
           from public.replay_log e join creations c on c.id = (e.data->>'activityId')::bigint and e.position > c.position
          where e.type in ('ActivityUpdated', ${REDERIVED_TYPES}, 'ActivityDeleted') and e.position <= $1
            and (e.type <> 'ActivityUpdated' or e.data ? 'gearId')),
       live as (
         select * from (select ch.*, min(position) filter (where kind = 'deleted') over (partition by id) as deleted_at
                          from changes ch) x
          where position <= coalesce(deleted_at, position)),
       states as (
         select id, position, kind, athlete,
                ((array_agg(gear) filter (where gear is not null) over w)[count(gear) over w]) #>> '{}' as gear,
                (array_agg(distance) filter (where distance is not null) over w)[count(distance) over w] as distance
           from live
         window w as (partition by id order by position rows between unbounded preceding and current row)),
       steps as (
         select s.*, lag(s.gear) over p as old_gear, lag(s.distance) over p as old_distance
           from states s window p as (partition by id order by position)),
       moves as (
         select old_gear as gear, athlete, position, -old_distance as distance
           from steps
          where kind = 'deleted'
             or kind = 'edited' and old_gear is distinct from gear
             or kind = 'rederived' and old_distance <> distance
         union all
         select gear, athlete, position, old_distance from steps where kind = 'edited' and old_gear is distinct from gear
         union all
         select gear, athlete, position, distance from steps where kind = 'rederived' and old_distance <> distance),
       distances as (
         select g."gearId" as id, sum(m.distance::numeric) as distance
           from moves m join added g on g."gearId" = m.gear and g."athleteId" = m.athlete and g.position < m.position
          group by g."gearId"),
       gear_rows as (
         insert into gear (id, athlete_id, kind, name, nickname, brand_name, model_name, description, frame_type, weight,
           is_primary, retired, reminder_distance, distance, position)
         select g."gearId", g."athleteId", g.kind, ${
        Object.entries(TEXT_KEYS).map(([key]) =>
          `case when u.set ? '${key}' then u.set->>'${key}' else g.${
            key === "name" || key === "description" ? key : `"${key}"`
          } end`
        ).join(", ")
      }, g."frameType", g.weight, p.value, coalesce((u.set->'retired')::boolean, false),
                (u.set->>'reminderDistance')::float8, coalesce(d.distance, 0), g.position
           from added g join primaries p on p.id = g."gearId" left join updated u on u.id = g."gearId"
           left join distances d on d.id = g."gearId"
         returning 1),
       activity_rows as (
         insert into gear_activities (activity_id, athlete_id, gear_id, distance)
         select s.id, c.athlete, s.gear, s.distance
           from (select distinct on (id) * from states order by id, position desc) s join creations c on c.id = s.id
          where s.kind <> 'deleted'
         returning 1)
       select count(*)::int as streams from creations where stream_id <> 'activity-' || id`,
      [log.until],
    );
    if (misfit.streams > 0) throw new LogMisfit(`${misfit.streams} creations off their activity's stream`);
  },
};
