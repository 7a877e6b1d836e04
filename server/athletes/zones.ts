/**
 * An athlete's training zones (GET /v3/athlete/zones), from which each activity's time in zones is
 * counted (server/activities/zones.ts): heart-rate zones from the athlete's max heart rate, power
 * zones from FTP.
 */
export const DEFAULT_MAX_HEARTRATE = 190;
/** Heartrate zone bounds as fractions of the athlete's max heartrate (5 zones). */
export const HEARTRATE_ZONE_FRACTIONS = [0, 0.6, 0.7, 0.8, 0.9];
/** Power zone bounds as fractions of FTP (7 zones). */
export const POWER_ZONE_FRACTIONS = [0, 0.55, 0.75, 0.9, 1.05, 1.2, 1.5];
/** Without an FTP: fixed 50 W buckets up to 450 W, then open-ended. */
export const DEFAULT_POWER_BOUNDS = [0, 50, 100, 150, 200, 250, 300, 350, 400, 450];
/** Heartrate points per minute spent in each zone (score = points). */
export const HEARTRATE_POINTS_PER_MINUTE = [0.2, 0.4, 0.75, 1.67, 2];

/** Max heartrate: 220 − age at the activity's start (age from birthdate), else 190. */
export function maxHeartrate(birthdate: string | null, startDate: string): number {
  if (!birthdate) return DEFAULT_MAX_HEARTRATE;
  const born = Date.parse(`${birthdate}T00:00:00Z`);
  if (!Number.isFinite(born)) return DEFAULT_MAX_HEARTRATE;
  const age = Math.floor((Date.parse(startDate) - born) / (365.25 * 86400000));
  return age > 0 && age < 120 ? 220 - age : DEFAULT_MAX_HEARTRATE;
}
