import type { Queryable } from "../../events/db/types.ts";
import { parseJsonExact } from "../../shared/json.ts";
import type { GearRow } from "../gear/queries.ts";
import { ACTIVITY_SELECT, type ActivityRow, activityRowWithFacts, type PhotoRow } from "../activities/queries.ts";

/**
 * GET /v3/activities/:id in one SQL statement (activities ⋈ athletes, activity_kudos,
 * privacy_zones, gear with its kept distance, activity_photos, and each detail part given — such as the
 * segment efforts): the activity row with everything its detail needs. PGlite is one connection,
 * so each statement saved is parse/plan/round-trip time saved for every request in the queue.
 */

/**
 * A SQL expression read with the activity row (alias `a` is the activities row, $2 the viewer's
 * athlete id or null, $3 include_all_efforts), returned under `key` in the parts.
 */
export interface ActivityDetailPart {
  key: string;
  sql: string;
}

/**
 * The statement: every JSON value (the facts, zones, gear, photos and each part) comes back as its
 * text, parsed here (`detailRowsOf`), so a caller may first compare the row with one it read before
 * (server/activities/detail-cache.ts: equal rows, equal representation) and parse nothing on a match.
 */
function detailSql(parts: readonly ActivityDetailPart[]): string {
  const extra = parts.map((p, i) => `,\n    (${p.sql})::text as part_${i}`).join("");
  const select = ACTIVITY_SELECT.replace(/\ba\.facts,/, "a.facts::text as facts,");
  if (select === ACTIVITY_SELECT) throw new Error("ACTIVITY_SELECT lists no a.facts");
  return `${
    select.replace(
      /\n\s*from activities a /,
      `,
    $3::boolean as detail_include_all,
    exists (select 1 from activity_kudos k where k.activity_id = a.id and k.athlete_id = $2) as detail_has_kudoed,
    case when $4::boolean and a.athlete_id = $2 then null else
      (select json_agg(json_build_object('lat', z.lat, 'lng', z.lng, 'radius_m', z.radius_m) order by z.id)
         from privacy_zones z where z.athlete_id = a.athlete_id) end::text as detail_zones,
    (select json_build_object('id', g.id, 'athlete_id', g.athlete_id, 'kind', g.kind, 'name', g.name,
         'nickname', g.nickname, 'brand_name', g.brand_name, 'model_name', g.model_name, 'description', g.description,
         'frame_type', g.frame_type, 'weight', g.weight, 'is_primary', g.is_primary, 'retired', g.retired,
         'reminder_distance', g.reminder_distance, 'distance', g.distance)
       from gear g where g.id = a.gear_id)::text as detail_gear,
    (select json_agg(json_build_object('source', p.source, 'position', p.position, 'data', p.data) order by p.position)
       from activity_photos p where p.activity_id = a.id)::text as detail_photos${extra}
  from activities a `,
    )
  } where a.id = $1`;
}

const sqlByParts = new WeakMap<readonly ActivityDetailPart[], { count: number; sql: string }>();

function sqlNow(parts: readonly ActivityDetailPart[]): string {
  let cached = sqlByParts.get(parts);
  if (cached?.count !== parts.length) sqlByParts.set(parts, cached = { count: parts.length, sql: detailSql(parts) });
  return cached.sql;
}

/**
 * The detail statement's row as read: scalars, and the JSON values as their text (null where SQL
 * gave null). Two reads of one activity by one viewer that return equal rows have equal details.
 */
export type ActivityDetailRaw = Omit<ActivityRow, "facts"> & {
  facts: string;
  detail_include_all: boolean;
  detail_has_kudoed: boolean;
  detail_zones: string | null;
  detail_gear: string | null;
  detail_photos: string | null;
  [part: `part_${number}`]: string | null;
};

/**
 * A parameterised query: on PGlite the adapter (events/db/pglite.ts) prepares it once per session
 * and runs it in one bind/describe/execute/sync call, so PostgreSQL plans it once. (An
 * `EXECUTE name(literals)` sent as text went through PGlite's own query path, six protocol round
 * trips per request: 2.4 ms against 0.7 ms for the same statement run prepared.)
 */
function runDetail(
  db: Queryable,
  parts: readonly ActivityDetailPart[],
  params: [number, number | null, boolean, boolean],
): Promise<ActivityDetailRaw[]> {
  return db.query<ActivityDetailRaw>(sqlNow(parts), params);
}

export interface ActivityDetailRows {
  row: ActivityRow;
  hasKudoed: boolean;
  /** The owner's zones when they apply to this viewer (null: the owner with view_private). */
  zones: { lat: number; lng: number; radius_m: number }[] | null;
  gear: GearRow | undefined;
  photos: PhotoRow[];
  /** Each part's raw value by its key. */
  parts: Record<string, unknown>;
}

/** The detail statement's row for this activity and viewer (JSON as text), or undefined when no such row exists. */
export async function activityDetailRaw(
  db: Queryable,
  id: number,
  viewer: { athleteId: number; viewPrivate: boolean } | null,
  includeAllEfforts: boolean,
  parts: readonly ActivityDetailPart[],
): Promise<ActivityDetailRaw | undefined> {
  const [raw] = await runDetail(db, parts, [
    id,
    viewer?.athleteId ?? null,
    includeAllEfforts,
    viewer?.viewPrivate ?? false,
  ]);
  return raw;
}

const parsed = <T>(text: string | null): T | null => (text === null ? null : parseJsonExact(text) as T);

/** The activity with what its detail needs, from the detail statement's row (`activityDetailRaw`). */
export function detailRowsOf(raw: ActivityDetailRaw, parts: readonly ActivityDetailPart[]): ActivityDetailRows {
  const values: Record<string, unknown> = {};
  parts.forEach((p, i) => {
    values[p.key] = parsed(raw[`part_${i}`]);
  });
  const photos = (parsed<PhotoRow[]>(raw.detail_photos) ?? []).map((p) =>
    ({ source: Number(p.source), position: Number(p.position), data: p.data }) as PhotoRow
  );
  const zones = parsed<{ lat: number; lng: number; radius_m: number }[]>(raw.detail_zones);
  return {
    // Built from the row's own columns (no copy of the detail's, no delete).
    row: activityRowWithFacts(raw, parsed<ActivityRow["facts"]>(raw.facts)!),
    hasKudoed: raw.detail_has_kudoed === true,
    zones: zones ? zones.map((z) => ({ lat: Number(z.lat), lng: Number(z.lng), radius_m: Number(z.radius_m) })) : null,
    gear: parsed<GearRow>(raw.detail_gear) ?? undefined,
    photos,
    parts: values,
  };
}

/** The activity with what its detail needs, or undefined when no such row exists. */
export async function activityDetailRows(
  db: Queryable,
  id: number,
  viewer: { athleteId: number; viewPrivate: boolean } | null,
  includeAllEfforts: boolean,
  parts: readonly ActivityDetailPart[],
): Promise<ActivityDetailRows | undefined> {
  const raw = await activityDetailRaw(db, id, viewer, includeAllEfforts, parts);
  return raw ? detailRowsOf(raw, parts) : undefined;
}
