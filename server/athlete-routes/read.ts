import type { Queryable } from "../../events/db/types.ts";
import { type AthleteRow, findAthletes } from "../../projections/athletes/queries.ts";
import { findRoute, type RouteRow, routesOfAthlete } from "../../projections/routes/queries.ts";
import { notFound } from "../http/errors.ts";
import {
  ownedObject,
  type Release,
  releasedPositions,
  releaseOf,
  seesEverything,
  type Viewer,
  viewerAudience,
  zonesOfOwnersFor,
} from "../privacy/engine.ts";
import { decodePolyline, type LatLng } from "./geometry.ts";

export type { RouteRow };

/** A route as one viewer may see it: the row, and the points (with altitudes) its release lets through. */
export interface SeenRoute {
  row: RouteRow;
  points: LatLng[];
  altitudes: number[] | null;
  /** Whether every recorded point is shown (the owner with read_all). */
  exact: boolean;
}

/**
 * A route through the privacy engine, as for an activity: a private route reaches only its owner's
 * token with read_all (view_private), anyone else gets the documented 404; of a public route,
 * others (and the owner's token without read_all) get no point inside the owner's privacy zones
 * as they are now (zones added after the route was made apply too).
 */
function seen(row: RouteRow, release: Release): SeenRoute {
  const all = decodePolyline(row.polyline);
  const keep = releasedPositions(release, all);
  const altitudes = row.altitudes && row.altitudes.length === all.length ? row.altitudes : null;
  return {
    row,
    points: all.filter((_, i) => keep[i]),
    altitudes: altitudes ? altitudes.filter((_, i) => keep[i]) : null,
    exact: release.exact,
  };
}

/** One route the viewer may see, or 404 Route. */
export async function visibleRoute(db: Queryable, id: number, viewer: Viewer | null): Promise<SeenRoute> {
  const row = await findRoute(db, id);
  if (!row) throw notFound("Route");
  const audience = viewerAudience(viewer);
  const owned = ownedObject(row);
  const release = releaseOf(owned, audience, (await zonesOfOwnersFor(db, [owned], audience)).get(row.athlete_id));
  if (!release.visible) throw notFound("Route");
  return seen(row, release);
}

/** One page of an athlete's routes the viewer may see (private ones only for the owner with read_all). */
export async function visibleRoutesOf(
  db: Queryable,
  athleteId: number,
  viewer: Viewer | null,
  page: { limit: number; offset: number },
): Promise<SeenRoute[]> {
  const withPrivate = seesEverything(ownedObject({ athlete_id: athleteId, private: true }), viewerAudience(viewer));
  const rows = await routesOfAthlete(db, athleteId, { withPrivate, ...page });
  const audience = viewerAudience(viewer);
  const zones = await zonesOfOwnersFor(db, rows.map(ownedObject), audience);
  return rows.map((row) => ({ row, release: releaseOf(ownedObject(row), audience, zones.get(row.athlete_id)) }))
    .filter((r) => r.release.visible)
    .map((r) => seen(r.row, r.release));
}

/** The owners of routes by id, for their summary athlete (represent.ts). */
export async function ownersOf(db: Queryable, routes: SeenRoute[]): Promise<Map<number, AthleteRow>> {
  return await findAthletes(db, [...new Set(routes.map((r) => r.row.athlete_id))]);
}
