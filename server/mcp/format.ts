/**
 * Values as a model reads them best: dates in the local time of where they happened with the time
 * zone named, durations in seconds and as h:mm:ss, distances in metres, speeds in m/s, 64-bit ids
 * as JSON numbers when exact (strings beyond 2^53).
 */

/** "(GMT+01:00) Europe/Paris" → "Europe/Paris"; an IANA name as it is; null when none. */
export function zoneName(timezone: unknown): string | null {
  if (typeof timezone !== "string" || !timezone) return null;
  const match = /^\([^)]*\)\s*(.+)$/.exec(timezone);
  return (match ? match[1] : timezone).trim() || null;
}

/** A local ISO time ("2024-05-04T09:31:12Z", the API's start_date_local) → "2024-05-04 09:31". */
export function localTime(startDateLocal: unknown): string | null {
  if (typeof startDateLocal !== "string" || startDateLocal.length < 16) return null;
  return `${startDateLocal.slice(0, 10)} ${startDateLocal.slice(11, 16)}`;
}

/** Seconds → "1:02:03" (or "2:03"). */
export function clock(seconds: unknown): string | null {
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return null;
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? `${h}:` : ""}${mm}:${String(sec).padStart(2, "0")}`;
}

/** A number rounded to `digits` decimals; null for anything else. */
export function round(value: unknown, digits = 1): number | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** An id as JSON can carry it exactly: a number up to 2^53, a string beyond (segment efforts). */
export function exactId(value: unknown): number | string {
  if (typeof value === "bigint") return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  if (typeof value === "number") return value;
  return String(value);
}

export const str = (value: unknown): string | null => (typeof value === "string" ? value : null);
export const num = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;
export const bool = (value: unknown): boolean | null => (typeof value === "boolean" ? value : null);

/** km with one decimal, for the readable text. */
export const km = (metres: unknown): string => typeof metres === "number" ? `${(metres / 1000).toFixed(1)} km` : "—";
