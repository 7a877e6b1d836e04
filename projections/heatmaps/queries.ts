import type { Queryable } from "../../events/db/types.ts";

/**
 * The queries of the heatmaps read models (projection.ts: heatmaps; sources.ts: heatmap_activities,
 * heatmap_privacy_epochs): the only SQL naming their tables. What may be drawn is decided by the
 * privacy engine (server/privacy/engine.ts): callers pass its predicate over the alias `h`.
 */

/** A privacy engine predicate over heatmap_activities aliased `h`, with no parameters. */
export interface PublicPredicate {
  sql: string;
}

export interface HeatmapRow {
  id: number;
  athlete_id: number;
  activity_type_ids: number[];
  start_date_local: number | null;
  end_date_local: number | null;
  status: string;
  status_message: string;
  activities_count: number;
  tiles_count: number;
  tracks_sha256: string | null;
  center_lat: number | null;
  center_lng: number | null;
  center_zoom: number | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, athlete_id, activity_type_ids, start_date_local, end_date_local, status, status_message,
  activities_count, tiles_count, tracks_sha256, center_lat, center_lng, center_zoom, created_at, updated_at`;

function normalize(r: HeatmapRow): HeatmapRow {
  return {
    ...r,
    id: Number(r.id),
    athlete_id: Number(r.athlete_id),
    activity_type_ids: (r.activity_type_ids ?? []).map(Number),
    start_date_local: r.start_date_local === null ? null : Number(r.start_date_local),
    end_date_local: r.end_date_local === null ? null : Number(r.end_date_local),
    center_lat: r.center_lat === null ? null : Number(r.center_lat),
    center_lng: r.center_lng === null ? null : Number(r.center_lng),
  };
}

export async function findHeatmap(db: Queryable, athleteId: number, mapId: number): Promise<HeatmapRow | undefined> {
  const [row] = await db.query<HeatmapRow>(`select ${COLUMNS} from heatmaps where id = $1 and athlete_id = $2`, [
    mapId,
    athleteId,
  ]);
  return row ? normalize(row) : undefined;
}

/** A map by id with what an update needs besides: its points and the position its last update covered. */
export async function findHeatmapById(
  db: Queryable,
  mapId: number,
): Promise<(HeatmapRow & { points_count: number; covered_position: number }) | undefined> {
  const [row] = await db.query<HeatmapRow & { points_count: number | string; covered_position: number | string }>(
    `select ${COLUMNS}, points_count, covered_position from heatmaps where id = $1`,
    [mapId],
  );
  return row
    ? { ...normalize(row), points_count: Number(row.points_count), covered_position: Number(row.covered_position) }
    : undefined;
}

export async function heatmapsOf(db: Queryable, athleteId: number): Promise<HeatmapRow[]> {
  const rows = await db.query<HeatmapRow>(
    `select ${COLUMNS} from heatmaps where athlete_id = $1 order by created_at desc, id desc`,
    [athleteId],
  );
  return rows.map(normalize);
}

/** Heatmaps still to build, oldest first (the build job's pending work). */
export async function pendingHeatmaps(db: Queryable, limit: number): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    "select id from heatmaps where status not in ('done', 'error') order by created_at, id limit $1",
    [limit],
  );
  return rows.map((r) => Number(r.id));
}

/** A map's status, tracks and the athlete's privacy epoch (for tiles), or undefined. */
export async function heatmapTileSource(db: Queryable, athleteId: number, mapId: number) {
  const [row] = await db.query<{ status: string; tracks_sha256: string | null; epoch: number }>(
    `select h.status, h.tracks_sha256, coalesce(e.position, 0) as epoch
       from heatmaps h left join heatmap_privacy_epochs e on e.athlete_id = h.athlete_id
      where h.id = $1 and h.athlete_id = $2`,
    [mapId, athleteId],
  );
  return row;
}

/** The athlete's activities with streams matching the types and the local-time window that pass `visible`. */
export async function heatmapActivitiesMatching(
  db: Queryable,
  visible: PublicPredicate,
  request: { athleteId: number; types: string[]; startDateLocal: number | null; endDateLocal: number | null },
): Promise<number[]> {
  const rows = await db.query<{ activity_id: number }>(
    `select h.activity_id from heatmap_activities h
      where h.athlete_id = $1 and ${visible.sql} and type = any($2::text[]) and streams_sha256 is not null
        and ($3::bigint is null or start_local >= $3) and ($4::bigint is null or end_local <= $4)
      order by activity_id`,
    [request.athleteId, request.types, request.startDateLocal, request.endDateLocal],
  );
  return rows.map((r) => Number(r.activity_id));
}

/** Of the given activities, those that pass `visible`, with their streams blob, by id. */
export async function visibleHeatmapStreams(
  db: Queryable,
  visible: PublicPredicate,
  activityIds: readonly number[],
): Promise<{ activity_id: number; streams_sha256: string | null }[]> {
  if (activityIds.length === 0) return [];
  return await db.query<{ activity_id: number; streams_sha256: string | null }>(
    `select h.activity_id, h.streams_sha256 from heatmap_activities h
      where h.activity_id = any($1::bigint[]) and ${visible.sql} order by h.activity_id`,
    [activityIds],
  );
}

/** Of the given activities, the ids of those that pass `visible`. */
export async function visibleHeatmapActivities(
  db: Queryable,
  visible: PublicPredicate,
  activityIds: readonly number[],
): Promise<number[]> {
  if (activityIds.length === 0) return [];
  const rows = await db.query<{ activity_id: number }>(
    `select h.activity_id from heatmap_activities h where h.activity_id = any($1::bigint[]) and ${visible.sql}`,
    [activityIds],
  );
  return rows.map((r) => Number(r.activity_id));
}

/**
 * Built maps whose athlete has, since the map's last update, changed an activity the map would draw
 * (public, with positions, of its types and window) or holds, or deleted one or changed a privacy
 * zone (the athlete's privacy epoch): the build job updates them. Each map is an indexed probe of
 * the athlete's changes after its position (`heatmap_activities_changed`). `types` is the activity
 * types in the numbering of `activity_type_ids` (1-based).
 */
export async function staleHeatmaps(
  db: Queryable,
  visible: PublicPredicate,
  types: readonly string[],
  limit: number,
): Promise<number[]> {
  const rows = await db.query<{ id: number | string }>(
    `select m.id from heatmaps m left join heatmap_privacy_epochs e on e.athlete_id = m.athlete_id
      where m.status = 'done' and (coalesce(e.position, 0) > m.covered_position or exists (
        select 1 from heatmap_activities h
         where h.athlete_id = m.athlete_id and h.changed_position > m.covered_position
           and (exists (select 1 from heatmap_map_activities ma where ma.map_id = m.id and ma.activity_id = h.activity_id)
             or (${visible.sql} and h.streams_sha256 is not null
               and h.type = any(select ($1::text[])[i] from unnest(m.activity_type_ids) as i)
               and (m.start_date_local is null or h.start_local >= m.start_date_local)
               and (m.end_date_local is null or h.end_local <= m.end_date_local)))))
      order by m.updated_at, m.id limit $2`,
    [types, limit],
  );
  return rows.map((r) => Number(r.id));
}

/** The activities a map was made of (its selection, then its updates). */
export async function heatmapMapActivities(db: Queryable, mapId: number): Promise<number[]> {
  const rows = await db.query<{ activity_id: number | string }>(
    "select activity_id from heatmap_map_activities where map_id = $1 order by activity_id",
    [mapId],
  );
  return rows.map((r) => Number(r.activity_id));
}

/**
 * The position of the athlete's latest change a map follows: an activity's (heatmap_activities) or
 * a deletion's or a zone's (the privacy epoch); 0 without any.
 */
export async function heatmapSourcesPosition(db: Queryable, athleteId: number): Promise<number> {
  const [row] = await db.query<{ p: number | string | null }>(
    `select greatest((select max(changed_position) from heatmap_activities where athlete_id = $1),
                     (select position from heatmap_privacy_epochs where athlete_id = $1)) as p`,
    [athleteId],
  );
  return Number(row?.p ?? 0);
}

/** Of the athlete's activities matching a map, those changed after a log position (ids). */
export async function heatmapActivitiesChangedAfter(
  db: Queryable,
  visible: PublicPredicate,
  request: { athleteId: number; types: string[]; startDateLocal: number | null; endDateLocal: number | null },
  after: number,
): Promise<number[]> {
  const rows = await db.query<{ activity_id: number }>(
    `select h.activity_id from heatmap_activities h
      where h.athlete_id = $1 and h.changed_position > $5 and ${visible.sql} and type = any($2::text[])
        and streams_sha256 is not null
        and ($3::bigint is null or start_local >= $3) and ($4::bigint is null or end_local <= $4)
      order by activity_id`,
    [request.athleteId, request.types, request.startDateLocal, request.endDateLocal, after],
  );
  return rows.map((r) => Number(r.activity_id));
}
