import type { Queryable } from "../../events/db/types.ts";
import type { ActivityFacts } from "./projection.ts";
import type { Visibility } from "../../shared/visibility.ts";

/**
 * The queries of the activities read model (projection.ts: activities, activity_kudos,
 * activity_comments, activity_photos): the only SQL naming its tables. Rows come back as stored
 * (numbers normalised); representations turn them into JSON.
 */

/** A row of the activities read model, with the owner's premium flag. */
export interface ActivityRow {
  id: number;
  athlete_id: number;
  upload_id: number | null;
  external_id: string | null;
  name: string;
  type: string;
  description: string | null;
  start_date: string;
  start_date_local: string;
  timezone: string;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  total_elevation_gain: number;
  visibility: Visibility;
  commute: boolean;
  trainer: boolean;
  manual: boolean;
  gear_id: string | null;
  kudos_count: number;
  comment_count: number;
  photo_count: number;
  total_photo_count: number;
  facts: ActivityFacts;
  owner_premium: boolean;
}

/** The columns of an ActivityRow (alias `a`; the owner's premium flag from athletes `ath`); append `where …`. */
export const ACTIVITY_SELECT = `select a.id, a.athlete_id, a.upload_id, a.external_id, a.name, a.type, a.description,
    a.start_date, a.start_date_local, a.timezone, a.distance, a.moving_time, a.elapsed_time,
    a.total_elevation_gain, a.visibility, a.commute, a.trainer, a.manual, a.gear_id, a.kudos_count,
    a.comment_count, a.photo_count, a.total_photo_count, a.facts, coalesce(ath.premium, false) as owner_premium
  from activities a left join athletes ath on ath.id = a.athlete_id`;

/**
 * An ActivityRow from a row read with ACTIVITY_SELECT's columns (other columns the statement read,
 * such as the detail's parts, are left out): built field by field, one shape for every row (a
 * spread copied whatever the row held, 16 µs a GET under load when the row had lost its shape).
 */
export function normalizeActivityRow(raw: ActivityRow): ActivityRow {
  return activityRowWithFacts(raw, typeof raw.facts === "string" ? JSON.parse(raw.facts) : raw.facts);
}

/** normalizeActivityRow with the row's facts given already parsed (the detail reads them as text). */
export function activityRowWithFacts(raw: Omit<ActivityRow, "facts">, facts: ActivityFacts): ActivityRow {
  return {
    id: Number(raw.id),
    athlete_id: Number(raw.athlete_id),
    upload_id: raw.upload_id === null ? null : Number(raw.upload_id),
    external_id: raw.external_id,
    name: raw.name,
    type: raw.type,
    description: raw.description,
    start_date: raw.start_date,
    start_date_local: raw.start_date_local,
    timezone: raw.timezone,
    distance: Number(raw.distance),
    moving_time: raw.moving_time,
    elapsed_time: raw.elapsed_time,
    total_elevation_gain: Number(raw.total_elevation_gain),
    visibility: raw.visibility,
    commute: raw.commute,
    trainer: raw.trainer,
    manual: raw.manual,
    gear_id: raw.gear_id,
    kudos_count: raw.kudos_count,
    comment_count: raw.comment_count,
    photo_count: raw.photo_count,
    total_photo_count: raw.total_photo_count,
    facts,
    owner_premium: raw.owner_premium,
  };
}

export async function findActivity(db: Queryable, id: number): Promise<ActivityRow | undefined> {
  const [row] = await db.query<ActivityRow>(`${ACTIVITY_SELECT} where a.id = $1`, [id]);
  return row ? normalizeActivityRow(row) : undefined;
}

/** Who owns an activity and who may see it: what deciding who may see it needs (no facts read). */
export async function activityOwnership(
  db: Queryable,
  id: number,
): Promise<{ athlete_id: number; visibility: Visibility } | undefined> {
  const [row] = await db.query<{ athlete_id: number | string; visibility: Visibility }>(
    "select athlete_id, visibility from activities where id = $1",
    [id],
  );
  return row ? { athlete_id: Number(row.athlete_id), visibility: row.visibility } : undefined;
}

/**
 * SQL true when activity `id` (a placeholder) is in the read model (not deleted) and its row, as
 * alias `a`, satisfies `predicate` (the privacy engine's, server/privacy): for an append that checks
 * who may see the activity in its own statement (server/activities/access.ts).
 */
export function activityRowSql(id: string, predicate: string): string {
  return `exists (select 1 from activities a where a.id = ${id}::bigint and ${predicate})`;
}

/** Activities by id (any order; deleted ones absent), normalised. */
export async function activitiesByIds(db: Queryable, ids: readonly number[]): Promise<ActivityRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<ActivityRow>(`${ACTIVITY_SELECT} where a.id = any($1::bigint[])`, [[...ids]]);
  return rows.map(normalizeActivityRow);
}

/**
 * A page of one athlete's activities that the viewer may see (`visible`: the privacy engine's
 * predicate over alias `a`, its parameters numbered from $2): newest first, or oldest first when
 * `after` is given; `before`/`after` are epoch seconds on start_date.
 */
export async function athleteActivitiesPage(
  db: Queryable,
  athleteId: number,
  visible: (alias: string, firstParam: number) => { sql: string; params: unknown[] },
  window: { before?: number; after?: number; limit: number; offset: number },
): Promise<ActivityRow[]> {
  const predicate = visible("a", 2);
  const params: unknown[] = [athleteId, ...predicate.params];
  let where = `a.athlete_id = $1 and ${predicate.sql}`;
  let order = "a.start_epoch desc, a.id desc";
  if (window.before !== undefined) {
    params.push(window.before);
    where += ` and a.start_epoch < $${params.length}`;
  }
  if (window.after !== undefined) {
    params.push(window.after);
    where += ` and a.start_epoch > $${params.length}`;
    order = "a.start_epoch asc, a.id asc";
  }
  params.push(window.limit, window.offset);
  const rows = await db.query<ActivityRow>(
    `${ACTIVITY_SELECT} where ${where} order by ${order} limit $${params.length - 1} offset $${params.length}`,
    params,
  );
  return rows.map(normalizeActivityRow);
}

/** Of these activities, those the athlete has given kudos. */
export async function kudoedByAthlete(
  db: Queryable,
  athleteId: number,
  activityIds: readonly number[],
): Promise<Set<number>> {
  if (activityIds.length === 0) return new Set();
  const rows = await db.query<{ activity_id: number }>(
    "select activity_id from activity_kudos where athlete_id = $1 and activity_id = any($2::bigint[])",
    [athleteId, [...activityIds]],
  );
  return new Set(rows.map((r) => Number(r.activity_id)));
}

/** The athletes who gave kudos, in the order they gave them (a page). */
export async function kudoersOf(db: Queryable, activityId: number, limit: number, offset: number): Promise<number[]> {
  const rows = await db.query<{ athlete_id: number }>(
    "select athlete_id from activity_kudos where activity_id = $1 order by position asc limit $2 offset $3",
    [activityId, limit, offset],
  );
  return rows.map((r) => Number(r.athlete_id));
}

export interface CommentRow {
  id: number;
  activity_id: number;
  athlete_id: number;
  text: string;
  created_at: string;
}

/** An activity's comments, oldest first (a page). */
export function commentsOf(db: Queryable, activityId: number, limit: number, offset: number): Promise<CommentRow[]> {
  return db.query<CommentRow>(
    `select id, activity_id, athlete_id, text, created_at from activity_comments
      where activity_id = $1 order by position asc limit $2 offset $3`,
    [activityId, limit, offset],
  );
}

export async function findComment(db: Queryable, commentId: number): Promise<CommentRow | undefined> {
  const [row] = await db.query<CommentRow>(
    "select id, activity_id, athlete_id, text, created_at from activity_comments where id = $1",
    [commentId],
  );
  return row;
}

export interface Rendition {
  size: number;
  width: number;
  height: number;
  sha256: string;
  contentType: string;
}

export interface NativePhotoData {
  activityId: number;
  athleteId: number;
  uniqueId: string;
  caption: string;
  createdAt: string;
  uploadedAt: string;
  location: [number, number] | null;
  renditions: Rendition[];
}

export interface ExternalPhotoData {
  photoId: number;
  activityId: number;
  athleteId: number;
  ref: string;
  uid: string;
  caption: string;
  url: string;
  uploadedAt: string;
  createdAt: string;
  location: [number, number] | null;
}

export type PhotoRow =
  | { source: 1; position: number; data: NativePhotoData }
  | { source: 2; position: number; data: ExternalPhotoData };

/** An activity's photos of the given sources (1 native, 2 linked), in order. */
export async function photosOf(
  db: Queryable,
  activityId: number,
  sources: readonly (1 | 2)[] = [1, 2],
): Promise<PhotoRow[]> {
  const rows = await db.query<{ source: number; position: number; data: unknown }>(
    "select source, position, data from activity_photos where activity_id = $1 and source = any($2::int[]) order by position",
    [activityId, [...sources]],
  );
  return rows.map((r) =>
    ({
      source: Number(r.source),
      position: Number(r.position),
      data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
    }) as PhotoRow
  );
}

/** A native photo by its unique id, or undefined. */
export async function nativePhoto(db: Queryable, uniqueId: string): Promise<NativePhotoData | undefined> {
  const [row] = await db.query<{ data: unknown }>("select data from activity_photos where key = $1", [`n:${uniqueId}`]);
  if (!row) return undefined;
  return (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as NativePhotoData;
}

/**
 * For each named best effort: how many of the athlete's other activities have a faster one of the
 * same name (the input of a PR rank).
 */
export async function fasterBestEfforts(
  db: Queryable,
  athleteId: number,
  activityId: number,
  efforts: readonly { name: string; elapsedTime: number }[],
): Promise<Map<string, number>> {
  const rows = await db.query<{ name: string; better: number }>(
    `select e.name, count(b.elapsed)::int as better
       from jsonb_to_recordset($3::jsonb) as e(name text, elapsed integer)
       left join (
         select be->>'name' as name, (be->>'elapsedTime')::int as elapsed
           from activities a, jsonb_array_elements(a.facts->'bestEfforts') as be
          where a.athlete_id = $1 and a.id <> $2
       ) b on b.name = e.name and b.elapsed < e.elapsed
      group by e.name`,
    [athleteId, activityId, JSON.stringify(efforts.map((e) => ({ name: e.name, elapsed: e.elapsedTime })))],
  );
  return new Map(rows.map((r) => [r.name, Number(r.better)]));
}

/** The editable type and visibility of an activity as it stands (undefined once deleted). */
export async function activityTypeAndPrivacy(
  db: Queryable,
  activityId: number,
): Promise<{ type: string; visibility: Visibility } | undefined> {
  const [row] = await db.query<{ type: string; visibility: Visibility }>(
    "select type, visibility from activities where id = $1",
    [activityId],
  );
  return row;
}

/** Every uploaded activity's id, oldest first. */
export async function uploadedActivityIds(db: Queryable): Promise<number[]> {
  const rows = await db.query<{ id: number }>("select id from activities where upload_id is not null order by id");
  return rows.map((r) => Number(r.id));
}

/** The time zone (Strava-style text, "(GMT+01:00) Europe/Paris") of the athlete's latest activity, or null. */
export async function latestActivityTimezone(db: Queryable, athleteId: number): Promise<string | null> {
  const [row] = await db.query<{ timezone: string }>(
    "select timezone from activities where athlete_id = $1 order by start_epoch desc, id desc limit 1",
    [athleteId],
  );
  return row?.timezone ?? null;
}
