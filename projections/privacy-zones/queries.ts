import type { Queryable } from "../../events/db/types.ts";
import type { PrivacyZoneCircle } from "../../shared/privacy-zones.ts";

/** The queries of the privacy_zones read model (projection.ts): the only SQL naming its table. */

export interface PrivacyZoneRow extends PrivacyZoneCircle {
  id: number;
  athlete_id: number;
  created_at: string;
}

const zone = (r: PrivacyZoneRow): PrivacyZoneRow => ({
  ...r,
  id: Number(r.id),
  athlete_id: Number(r.athlete_id),
  lat: Number(r.lat),
  lng: Number(r.lng),
  radius_m: Number(r.radius_m),
});

/** An athlete's privacy zones, oldest first. */
export async function privacyZonesOf(db: Queryable, athleteId: number): Promise<PrivacyZoneRow[]> {
  const rows = await db.query<PrivacyZoneRow>(
    "select id, athlete_id, lat, lng, radius_m, created_at from privacy_zones where athlete_id = $1 order by id",
    [athleteId],
  );
  return rows.map(zone);
}

/** Every athlete's privacy zones (or one athlete's when given), by athlete then oldest first. */
export async function allPrivacyZones(db: Queryable, athleteId: number | null): Promise<PrivacyZoneRow[]> {
  const rows = await db.query<PrivacyZoneRow>(
    `select id, athlete_id, lat, lng, radius_m, created_at from privacy_zones
      where $1::bigint is null or athlete_id = $1 order by athlete_id, id`,
    [athleteId],
  );
  return rows.map(zone);
}

/** The zones of the given athletes, oldest first (athletes without zones have no rows). */
export async function privacyZonesOfAthletes(db: Queryable, athleteIds: readonly number[]) {
  return await db.query<{ athlete_id: number; lat: number; lng: number; radius_m: number }>(
    "select athlete_id, lat, lng, radius_m from privacy_zones where athlete_id = any($1::bigint[]) order by id",
    [athleteIds],
  );
}
