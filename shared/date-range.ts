/**
 * The dates every input accepts: years 1900 to 2200. Wider values are not activities' dates and
 * break later (JavaScript dates end at ±275,760 years, PostgreSQL timestamps at 294,276 AD), so
 * they are refused at the door, and read models can always render what was stored.
 */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2200;
/** Epoch seconds of 1900-01-01T00:00:00Z and 2200-12-31T23:59:59Z. */
export const MIN_EPOCH = Date.UTC(MIN_YEAR, 0, 1) / 1000;
export const MAX_EPOCH = Date.UTC(MAX_YEAR + 1, 0, 1) / 1000 - 1;

export function yearInRange(year: number): boolean {
  return Number.isInteger(year) && year >= MIN_YEAR && year <= MAX_YEAR;
}

export function epochInRange(seconds: number): boolean {
  return Number.isFinite(seconds) && seconds >= MIN_EPOCH && seconds <= MAX_EPOCH;
}

/** An ISO date of epoch seconds, or null when they are outside what any date can show. */
export function isoOfEpoch(seconds: number): string | null {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
