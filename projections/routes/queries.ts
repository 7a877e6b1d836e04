import type { Queryable } from "../../events/db/types.ts";

/** The queries of the routes read model (projection.ts): the only SQL naming its table. */

export interface RouteRow {
  id: number;
  athlete_id: number;
  name: string;
  description: string;
  type: 1 | 2;
  sub_type: number;
  private: boolean;
  activity_id: number | null;
  polyline: string;
  altitudes: number[] | null;
  distance: number;
  elevation_gain: number;
  estimated_moving_time: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, athlete_id, name, description, type, sub_type, private, activity_id, polyline, altitudes,
  distance, elevation_gain, estimated_moving_time, created_at, updated_at`;

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

function route(r: RouteRow): RouteRow {
  return {
    ...r,
    id: Number(r.id),
    athlete_id: Number(r.athlete_id),
    type: Number(r.type) === 2 ? 2 : 1,
    sub_type: Number(r.sub_type),
    activity_id: r.activity_id === null ? null : Number(r.activity_id),
    altitudes: typeof r.altitudes === "string" ? JSON.parse(r.altitudes) : r.altitudes,
    distance: Number(r.distance),
    elevation_gain: Number(r.elevation_gain),
    estimated_moving_time: Number(r.estimated_moving_time),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** One route, or undefined (unknown or deleted). */
export async function findRoute(db: Queryable, id: number): Promise<RouteRow | undefined> {
  const [row] = await db.query<RouteRow>(`select ${COLUMNS} from routes where id = $1`, [id]);
  return row ? route(row) : undefined;
}

/**
 * One athlete's routes, newest first, one page: private ones only when `withPrivate` (the privacy
 * engine's answer for this viewer: the owner with read_all).
 */
export async function routesOfAthlete(
  db: Queryable,
  athleteId: number,
  options: { withPrivate: boolean; limit: number; offset: number },
): Promise<RouteRow[]> {
  const rows = await db.query<RouteRow>(
    `select ${COLUMNS} from routes where athlete_id = $1 and ($2::boolean or not private)
      order by id desc limit $3 offset $4`,
    [athleteId, options.withPrivate, options.limit, options.offset],
  );
  return rows.map(route);
}
