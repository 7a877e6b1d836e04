import type { z } from "zod";
import type { zPrivacyZone } from "../athletes/schema.ts";
import type { PrivacyZoneRow } from "../privacy/privacy-zones.ts";

/** The zone as the extension answers it. */
export function privacyZoneJson(row: PrivacyZoneRow): z.input<typeof zPrivacyZone> {
  return {
    id: row.id,
    lat: row.lat,
    lng: row.lng,
    radius: row.radius_m,
    created_at: new Date(row.created_at).toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}
