import { REDERIVATION_TYPES } from "../events/activity/rederived.ts";
import { WINDOW_FACT_TYPES } from "../events/activity/cropped.ts";

/**
 * An activity's timeline in the log, as the bulk loaders (projections/bulk.ts) of the read models
 * that keep a row per activity read it: SQL fragments (common table expressions over
 * `public.replay_log`, `$1` = the last position rebuilt) written once and composed by each loader.
 *
 * What `apply` leaves per activity, event by event, in those read models: only what follows its
 * last deletion counts (`DELETED`); its row is its first creation after that (`created`: a later
 * creation finds the row and changes nothing); each column an edit names holds the last edit's
 * value after the creation (`EDITS`, `lastEdit`); its measured figures are those of the last
 * re-derivation after the creation (`REDERIVED`: a reprocessing, a crop or its undoing —
 * events/activity/rederived.ts), its start that of the last crop or undoing (`moved`).
 */

/** SQL lists: the re-derivations, and those of them that move the start (crops and their undoing). */
export const REDERIVED_TYPES = REDERIVATION_TYPES.map((t) => `'${t}'`).join(", ");
export const WINDOWED_TYPES = WINDOW_FACT_TYPES.map((t) => `'${t}'`).join(", ");

/** A UTC ISO 8601 time (a regular expression), which PostgreSQL and JavaScript's Date.parse read alike. */
export const UTC_ISO = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$";

/** CTE `deleted` (id, at): each activity's last deletion. */
export const DELETED = `
  deleted as (
    select (data->>'activityId')::bigint as id, max(position) as at
      from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1)`;

/**
 * CTE `created`: each activity's first creation (ActivityRecorded, or ActivityCreated too) after its
 * last deletion (needs `DELETED` before it): `position`, `event` (its type), what `select` adds, and
 * the columns `record` decodes from its data (jsonb_to_record's column list; `"activityId" bigint`
 * among them: the CTEs below join on it).
 */
export function created(
  record: string,
  { select = "", recordedOnly = false, materialized = false }: {
    /** More select-list items (of `e`, the event), each followed by a comma. */
    select?: string;
    /** Only recordings (ActivityRecorded), not manual creations. */
    recordedOnly?: boolean;
    materialized?: boolean;
  } = {},
): string {
  const types = recordedOnly ? "'ActivityRecorded'" : "'ActivityRecorded', 'ActivityCreated'";
  return `
  created as ${materialized ? "materialized " : ""}(
    select distinct on (c."activityId") c.*
      from (select e.position, e.type as event, ${select} f.*
              from public.replay_log e
             cross join lateral jsonb_to_record(e.data) as f(${record})
             where e.type in (${types}) and e.position <= $1) c
      left join deleted d on d.id = c."activityId"
     where c.position > coalesce(d.at, 0)
     order by c."activityId", c.position)`;
}

/** CTE `edits` (id, position, data): each activity's edits (ActivityUpdated) after its creation. */
export const EDITS = `
  edits as (
    select u.id, u.position, u.data
      from (select (data->>'activityId')::bigint as id, position, data
              from public.replay_log where type = 'ActivityUpdated' and position <= $1) u
      join created c on c."activityId" = u.id and u.position > c.position)`;

/** CTE `name` (id, and `value`): the value of each activity's last edit for which `where` holds (needs `EDITS`). */
export const lastEdit = (name: string, value: string, where: string) => `
  ${name} as (
    select distinct on (id) id, ${value} from edits where ${where} order by id, position desc)`;

/** CTE `visibilities` (id, visibility): the visibility of each activity's last edit naming one. */
export const LAST_VISIBILITY = lastEdit("visibilities", "data->>'visibility' as visibility", "data ? 'visibility'");

/** CTE `sports` (id, sport): the sport of the last edit naming a sport type or type (the sport type, else the type). */
export const LAST_SPORT = lastEdit(
  "sports",
  "coalesce(data->>'sportType', data->>'type') as sport",
  "data ? 'sportType' or data ? 'type'",
);

/**
 * CTE `rederivations` (id, position, type, facts): each activity's re-derivations after its creation
 * (for a loader that reads more than the last one).
 */
export const REDERIVATIONS = `
  rederivations as (
    select r.id, r.position, r.type, r.facts
      from (select (data->>'activityId')::bigint as id, position, type, data->'facts' as facts
              from public.replay_log where type in (${REDERIVED_TYPES}) and position <= $1) r
      join created c on c."activityId" = r.id and r.position > c.position)`;

/** CTE `rederived` (id, facts): the facts of each activity's last re-derivation after its creation. */
export const REDERIVED = `
  rederived as (
    select distinct on (r.id) r.id, r.facts
      from (select (data->>'activityId')::bigint as id, position, data->'facts' as facts
              from public.replay_log where type in (${REDERIVED_TYPES}) and position <= $1) r
      join created c on c."activityId" = r.id and r.position > c.position
     order by r.id, r.position desc)`;

/**
 * CTE `moved` (id, and `columns` of `w.facts`): each activity's last crop or undoing after its
 * creation (the start it moved the activity to).
 */
export const moved = (columns: string) => `
  moved as (
    select distinct on (w.id) w.id, ${columns}
      from (select (data->>'activityId')::bigint as id, position, data->'facts' as facts
              from public.replay_log where type in (${WINDOWED_TYPES}) and position <= $1) w
      join created c on c."activityId" = w.id and w.position > c.position
     order by w.id, w.position desc)`;
