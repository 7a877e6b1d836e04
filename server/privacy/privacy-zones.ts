import { insidePrivacyZone, type PrivacyZoneCircle } from "../../shared/privacy-zones.ts";

export { insidePrivacyZone, type PrivacyZoneCircle };
/** An athlete's zones are read from the privacy_zones read model's queries. */
export { type PrivacyZoneRow, privacyZonesOf } from "../../projections/privacy-zones/queries.ts";
