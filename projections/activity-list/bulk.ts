import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit } from "../bulk.ts";
import { created, DELETED, EDITS, LAST_SPORT, moved, UTC_ISO } from "../activity-timeline.ts";

/**
 * The activity list from the whole log (projections/bulk.ts), in one statement. Per activity, what
 * `apply` leaves event by event: the first creation after its last deletion (a later one finds the
 * row and changes nothing), each column the value of the last edit after it that names it (the
 * sport type: the edit's sport type, else its type), its start and local day those of the last crop
 * or undoing after it (ActivityCropped, ActivityCropUndone; a reprocessing keeps the start).
 *
 * What JavaScript computes is read as it does: a start that is UTC ISO 8601 is read in SQL (as
 * Date.parse reads it), any other by Date.parse afterwards; a name of ASCII letters is lower-cased
 * in SQL (as toLowerCase), any other by toLowerCase afterwards. An unreadable start is a LogMisfit.
 */
const ASCII = "^[\\x01-\\x7f]*$";

/** The ActivityUpdated keys that set a column (the sport type apart). */
const EDITED = ["name", "type", "gearId", "commute", "trainer", "visibility"] as const;

export const activityListBulk: BulkLoader = {
  writtenFor: "3df2b56efef512c6",
  async load(tx: Queryable, log: BulkLog) {
    const odd = await tx.query<{ id: string; start: string; name: string }>(
      `with ${DELETED},${
        created(
          `"activityId" bigint, "athleteId" bigint, name text, type text, "sportType" text, "startDate" text,
           "startDateLocal" text, commute boolean, trainer boolean, visibility text`,
        )
      },${EDITS},
       edit_values as (
         select distinct on (e.id, k.key) e.id, k.key, e.data->k.key as value
           from edits e cross join (values ${EDITED.map((k) => `('${k}')`).join(", ")}) as k(key)
          where e.data ? k.key
          order by e.id, k.key, e.position desc),
       edited as (select id, jsonb_object_agg(key, value) as set from edit_values group by id),
${LAST_SPORT},${moved(`w.facts->>'startDate' as "startDate", w.facts->>'startDateLocal' as "startDateLocal"`)},
       rows as materialized (
         select c."activityId" as id, c."athleteId" as athlete, coalesce(m."startDate", c."startDate") as start,
                substr(coalesce(m."startDateLocal", c."startDateLocal"), 1, 10) as day,
                case when u.set ? 'name' then u.set->>'name' else c.name end as name,
                case when u.set ? 'type' then u.set->>'type' else c.type end as type,
                coalesce(s.sport, c."sportType", c.type) as sport,
                case when u.set ? 'gearId' then u.set->>'gearId' end as gear,
                case when u.set ? 'commute' then (u.set->'commute')::boolean else c.commute end as commute,
                case when u.set ? 'trainer' then (u.set->'trainer')::boolean else c.trainer end as trainer,
                case when u.set ? 'visibility' then u.set->>'visibility' else c.visibility end as visibility
           from created c left join edited u on u.id = c."activityId" left join sports s on s.id = c."activityId"
           left join moved m on m.id = c."activityId"),
       written as (
         insert into activity_list (activity_id, athlete_id, start_epoch, local_day, name_lower, type, sport_type,
           gear_id, commute, trainer, visibility)
         select id, athlete,
                case when start ~ '${UTC_ISO}' then floor(extract(epoch from start::timestamptz))::bigint else 0 end,
                day, case when name ~ '${ASCII}' then lower(name) else name end, type, sport, gear, commute, trainer,
                visibility
           from rows
         returning 1)
       -- (A data-modifying CTE runs whether or not the statement reads it.)
       select id::text as id, start, name from rows where start !~ '${UTC_ISO}' or name !~ '${ASCII}'`,
      [log.until],
    );
    // What SQL does not read as JavaScript does: the other starts (Date.parse) and names (toLowerCase).
    for (const { id, start, name } of odd) {
      const epoch = Math.floor(Date.parse(start) / 1000);
      if (!Number.isFinite(epoch)) throw new LogMisfit(`activity ${id}: start ${start} unreadable`);
      await tx.query("update activity_list set start_epoch = $2, name_lower = $3 where activity_id = $1", [
        id,
        epoch,
        name.toLowerCase(),
      ]);
    }
  },
};
