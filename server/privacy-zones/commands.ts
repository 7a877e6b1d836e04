import { handleCommand } from "../../events/decider.ts";
import { privacyZoneDecider } from "../../events/privacy-zone/decide.ts";
import { privacyZoneStream } from "../../events/privacy-zone/events.ts";
import type { EventMetadata } from "../../events/types.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { type PrivacyZoneRow, privacyZonesOf } from "../privacy/privacy-zones.ts";

/** Adds a privacy zone for an athlete (DomainError on a bad circle or too many zones). */
export async function addPrivacyZone(
  platform: Platform,
  zone: { athleteId: number; lat: number; lng: number; radiusM: number },
  metadata: EventMetadata,
): Promise<PrivacyZoneRow> {
  const zoneId = await nextId(platform.db, "privacy_zone");
  await handleCommand(platform.store, privacyZoneStream(zone.athleteId), privacyZoneDecider, { type: "create", zoneId, ...zone }, { metadata });
  const created = (await privacyZonesOf(platform.db, zone.athleteId)).find((z) => z.id === zoneId);
  if (!created) throw new Error(`privacy zone ${zoneId} was not recorded`);
  return created;
}

/** Removes one of the athlete's zones (DomainError not_found when it is not theirs). */
export async function removePrivacyZone(platform: Platform, athleteId: number, zoneId: number, metadata: EventMetadata): Promise<void> {
  await handleCommand(platform.store, privacyZoneStream(athleteId), privacyZoneDecider, { type: "delete", zoneId, athleteId }, { metadata });
}

/** The zone as the extension answers it. */
export function privacyZoneJson(row: PrivacyZoneRow) {
  return {
    id: row.id,
    lat: row.lat,
    lng: row.lng,
    radius: row.radius_m,
    created_at: new Date(row.created_at).toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}
