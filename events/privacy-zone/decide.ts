import {
  PRIVACY_ZONE_MAX_PER_ATHLETE,
  PRIVACY_ZONE_MAX_RADIUS_M,
  PRIVACY_ZONE_MIN_RADIUS_M,
} from "../../shared/privacy-zones.ts";
import { type Decider, DomainError } from "../decider.ts";
import { privacyZoneCreated, privacyZoneDeleted, type PrivacyZoneEvent } from "./events.ts";

export interface PrivacyZonesState {
  zones: Set<number>;
}

export type PrivacyZoneCommand =
  | { type: "create"; zoneId: number; athleteId: number; lat: number; lng: number; radiusM: number }
  | { type: "delete"; zoneId: number; athleteId: number };

/** One athlete's privacy zones: valid circles only, a bounded number, deleting only one's own. */
export const privacyZoneDecider: Decider<PrivacyZonesState, PrivacyZoneCommand, PrivacyZoneEvent> = {
  initialState: () => ({ zones: new Set() }),
  evolve(state, event: PrivacyZoneEvent) {
    const zones = new Set(state.zones);
    if (event.type === privacyZoneCreated.type) zones.add(event.data.zoneId);
    if (event.type === privacyZoneDeleted.type) zones.delete(event.data.zoneId);
    return { zones };
  },
  decide(command, state) {
    if (command.type === "delete") {
      if (!state.zones.has(command.zoneId)) throw new DomainError("not_found", "PrivacyZone", "id", "invalid");
      return [privacyZoneDeleted.create({ zoneId: command.zoneId, athleteId: command.athleteId })];
    }
    const { lat, lng, radiusM } = command;
    if (!Number.isFinite(lat) || lat < -90 || lat > 90) {
      throw new DomainError("invalid", "PrivacyZone", "lat", "invalid");
    }
    if (!Number.isFinite(lng) || lng < -180 || lng > 180) {
      throw new DomainError("invalid", "PrivacyZone", "lng", "invalid");
    }
    if (!Number.isFinite(radiusM) || radiusM < PRIVACY_ZONE_MIN_RADIUS_M || radiusM > PRIVACY_ZONE_MAX_RADIUS_M) {
      throw new DomainError("invalid", "PrivacyZone", "radius", "invalid");
    }
    if (state.zones.size >= PRIVACY_ZONE_MAX_PER_ATHLETE) {
      throw new DomainError("invalid", "PrivacyZone", "id", "too many");
    }
    return [privacyZoneCreated.create({ zoneId: command.zoneId, athleteId: command.athleteId, lat, lng, radiusM })];
  },
};
