import type { Queryable } from "../../events/db/types.ts";
import { insidePrivacyZone, type PrivacyZoneCircle } from "../../shared/privacy-zones.ts";

/**
 * Efforts and the owner's privacy zones. An effort whose recorded start or end lies inside one of
 * its athlete's zones is `shielded`: like a private effort it stays out of every board, count and
 * rank others read, and the read side shows it to its owner only (server/privacy/engine.ts,
 * `effortsOthersSee`). The flag follows zone changes: a new zone shields older efforts, a removed
 * one releases them (replay reproduces both, since only event data and the zones as they stood at
 * that point of the log are read).
 */

/** An effort's end points as stored in segment_efforts (start_lat … end_lng). */
export interface EffortEnds {
  start_lat: number | null;
  start_lng: number | null;
  end_lat: number | null;
  end_lng: number | null;
}

/** Whether an effort's start or end lies inside any of the zones (the engine's inside test). */
export function shieldedBy(effort: EffortEnds, zones: readonly PrivacyZoneCircle[]): boolean {
  if (zones.length === 0) return false;
  const ends: [number | null, number | null][] = [[effort.start_lat, effort.start_lng], [
    effort.end_lat,
    effort.end_lng,
  ]];
  return ends.some(([lat, lng]) =>
    lat !== null && lng !== null && insidePrivacyZone([Number(lat), Number(lng)], zones)
  );
}

/** One athlete's zones as the privacy_zones read model holds them at this point of the log. */
export async function zonesOf(tx: Queryable, athleteId: number): Promise<PrivacyZoneCircle[]> {
  const rows = await tx.query<{ id: number; lat: number; lng: number; radius_m: number }>(
    "select id, lat, lng, radius_m from privacy_zones where athlete_id = $1 order by id",
    [athleteId],
  );
  return rows.map((r) => ({ lat: Number(r.lat), lng: Number(r.lng), radius_m: Number(r.radius_m) }));
}

/**
 * The zones after a zone event, whether or not the privacy_zones projection has applied it yet:
 * the stored zones without the event's zone, plus the event's zone when it was created.
 */
export async function zonesAfter(
  tx: Queryable,
  change: { zoneId: number; athleteId: number; created?: PrivacyZoneCircle },
): Promise<PrivacyZoneCircle[]> {
  const rows = await tx.query<{ id: number; lat: number; lng: number; radius_m: number }>(
    "select id, lat, lng, radius_m from privacy_zones where athlete_id = $1 and id <> $2 order by id",
    [change.athleteId, change.zoneId],
  );
  const zones = rows.map((r) => ({ lat: Number(r.lat), lng: Number(r.lng), radius_m: Number(r.radius_m) }));
  if (change.created) zones.push(change.created);
  return zones;
}

/** The athlete's efforts whose shielded flag must change under these zones. */
export async function shieldChanges(
  tx: Queryable,
  athleteId: number,
  zones: readonly PrivacyZoneCircle[],
): Promise<{ shield: string[]; release: string[] }> {
  const rows = await tx.query<EffortEnds & { id: string; shielded: boolean }>(
    `select id::text as id, start_lat, start_lng, end_lat, end_lng, shielded from segment_efforts
      where athlete_id = $1 and (shielded or $2::boolean)`,
    [athleteId, zones.length > 0],
  );
  const shield: string[] = [], release: string[] = [];
  for (const r of rows) {
    const now = shieldedBy(r, zones);
    if (now && !r.shielded) shield.push(r.id);
    else if (!now && r.shielded) release.push(r.id);
  }
  return { shield, release };
}
