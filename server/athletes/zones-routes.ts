import { HEARTRATE_ZONE_FRACTIONS, maxHeartrate, POWER_ZONE_FRACTIONS } from "./zones.ts";
import { notFound } from "../http/errors.ts";
import { defineRoute } from "../http/route.ts";
import { zZones } from "./schema.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";

/** Zone ranges {min, max} from lower bounds; the last is open (max -1), as Strava answers. */
function ranges(bounds: number[]) {
  return bounds.map((min, i) => ({ min, max: i + 1 < bounds.length ? bounds[i + 1] : -1 }));
}

/**
 * Strava's Zones: heart-rate zones derived from the athlete's max heart rate (220 − age today, 190
 * without a birthdate) and, once an FTP is set (PUT /v3/athlete ftp), Coggan's 7 power zones. The
 * same bounds the activity zones (GET /v3/activities/:id/zones) bucket by.
 */
export const athleteZonesRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athlete/zones",
    summary: "The authenticated athlete's heart-rate zones and, with an FTP set, power zones.",
    description:
      "Heart-rate zones at 0/60/70/80/90 % of the max heart rate (220 − age, 190 without a birthdate); power zones at 0/55/75/90/105/120/150 % of FTP (set with PUT /v3/athlete ftp), absent without one. Needs profile:read_all (view_private).",
    tag: "Athlete",
    auth: "token",
    permission: "view_private",
    resource: "Athlete",
    response: zZones,
    async handler({ platform, auth }) {
      const athlete = await findAthlete(platform.db, auth.athleteId);
      if (!athlete) throw notFound("Athlete");
      const max = maxHeartrate(athlete.birthdate, new Date().toISOString());
      const zones: Record<string, unknown> = {
        heart_rate: { custom_zones: false, zones: ranges(HEARTRATE_ZONE_FRACTIONS.map((f) => Math.round(f * max))) },
      };
      if (athlete.ftp) zones.power = { zones: ranges(POWER_ZONE_FRACTIONS.map((f) => Math.round(f * athlete.ftp!))) };
      return zones;
    },
  }),
];
