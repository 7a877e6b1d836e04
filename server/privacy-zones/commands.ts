import { handleCommand } from "../../events/decider.ts";
import { privacyZoneDecider } from "../../events/privacy-zone/decide.ts";
import { privacyZoneStream } from "../../events/privacy-zone/events.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { type Actor, appendOptions } from "../actor.ts";
import { type PrivacyZoneRow, privacyZonesOf } from "../privacy/privacy-zones.ts";

/** Adds a privacy zone for an athlete (DomainError on a bad circle or too many zones). */
export async function addPrivacyZone(
  platform: Platform,
  zone: { athleteId: number; lat: number; lng: number; radiusM: number },
  actor: Actor,
): Promise<PrivacyZoneRow> {
  const zoneId = await nextId(platform.db, "privacy_zone");
  await handleCommand(platform.store, privacyZoneStream(zone.athleteId), privacyZoneDecider, {
    type: "create",
    zoneId,
    ...zone,
  }, appendOptions(actor));
  const created = (await privacyZonesOf(platform.db, zone.athleteId)).find((z) => z.id === zoneId);
  if (!created) throw new Error(`privacy zone ${zoneId} was not recorded`);
  return created;
}

/** Removes one of the athlete's zones (DomainError not_found when it is not theirs). */
export async function removePrivacyZone(
  platform: Platform,
  athleteId: number,
  zoneId: number,
  actor: Actor,
): Promise<void> {
  await handleCommand(platform.store, privacyZoneStream(athleteId), privacyZoneDecider, {
    type: "delete",
    zoneId,
    athleteId,
  }, appendOptions(actor));
}
