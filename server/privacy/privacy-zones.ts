import type { Queryable } from "../../events/db/types.ts";
import { insidePrivacyZone, type PrivacyZoneCircle } from "../../shared/privacy-zones.ts";

export { insidePrivacyZone, type PrivacyZoneCircle };

export interface PrivacyZoneRow extends PrivacyZoneCircle {
  id: number;
  athlete_id: number;
  created_at: string;
}

/** An athlete's privacy zones (the `privacy_zones` read model), oldest first. */
export async function privacyZonesOf(db: Queryable, athleteId: number): Promise<PrivacyZoneRow[]> {
  const rows = await db.query<PrivacyZoneRow>(
    "select id, athlete_id, lat, lng, radius_m, created_at from privacy_zones where athlete_id = $1 order by id",
    [athleteId],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), athlete_id: Number(r.athlete_id), lat: Number(r.lat), lng: Number(r.lng), radius_m: Number(r.radius_m) }));
}
