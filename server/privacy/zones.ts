import type { Queryable } from "../../events/db/types.ts";
import { insidePrivacyZone, privacyZonesOf } from "./privacy-zones.ts";

/**
 * For each point, whether it lies outside every privacy zone of the athlete (true = keep), read
 * from the `privacy_zones` read model (Heatmaps family, `server/privacy/privacy-zones.ts`).
 * Points without a position (null) are kept. Used for activity streams seen by others.
 */
export async function pointsOutsideZones(
  db: Queryable,
  athleteId: number,
  points: readonly ([number, number] | null)[],
): Promise<boolean[]> {
  const zones = await privacyZonesOf(db, athleteId);
  if (zones.length === 0) return points.map(() => true);
  return points.map((p) => p === null || !insidePrivacyZone(p, zones));
}
