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

/*
 * The dates the platform believes for an activity (docs/proof.md, "Believable dates"): one rule for
 * every way an activity gets a start — uploads (and the recordings of an archive), manual
 * activities (the API, the web form, an archive's rows) and edits. A start before the first GPS
 * date or more than a day ahead of the server's clock is no activity's: it is refused (400 naming
 * the field, or an upload's error status saying why), so nothing downstream ever meets it.
 */

/** 1980-01-06T00:00:00Z, the GPS epoch (week 0 of GPS time): no satellite-timed recording starts before it. */
export const FIRST_ACTIVITY_START = "1980-01-06T00:00:00Z";
export const FIRST_ACTIVITY_MS = Date.parse(FIRST_ACTIVITY_START);
/** How far past the server's clock a start may be: a day (time zones up to UTC+14, a device clock set ahead). */
export const MAX_START_AHEAD_MS = 86_400_000;

/**
 * Why an activity's start (an ISO instant, UTC) is not believable at `nowMs`, or null when it is:
 * a sentence for an upload's error status or an archive row's report.
 */
export function activityStartProblem(startDate: string, nowMs: number = Date.now()): string | null {
  const ms = Date.parse(startDate);
  if (!Number.isFinite(ms)) return `${startDate} is not a date`;
  if (ms < FIRST_ACTIVITY_MS) {
    return `${startDate} is before ${
      FIRST_ACTIVITY_START.slice(0, 10)
    } (the first GPS date), the earliest start this platform accepts`;
  }
  if (ms > nowMs + MAX_START_AHEAD_MS) {
    return `${startDate} is in the future (more than a day after the server's clock, ${
      new Date(nowMs).toISOString().slice(0, 16)
    }Z)`;
  }
  return null;
}

/*
 * Reads over a range of dates (docs/proof.md, "Reads over a date range"): the range is the
 * request's — a window the caller chose, capped — never the span of the data, so a stored start far
 * from the others (an activity of 9999 kept from before the rule above) costs nothing.
 */

/** The longest window of days a read walks day by day (ten years and a bit). */
export const MAX_WINDOW_DAYS = 3660;

/** YYYY-MM-DD of epoch ms (UTC). */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The day `days` after (or before, when negative) YYYY-MM-DD `day`. */
export function addDays(day: string, days: number): string {
  return dayOf(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000);
}

/**
 * The window of `days` days (1…MAX_WINDOW_DAYS; clamped) ending on `through` (YYYY-MM-DD,
 * inclusive): its first day and its last.
 */
export function dayWindow(days: number, through: string): { from: string; through: string; days: number } {
  const n = Math.min(MAX_WINDOW_DAYS, Math.max(1, Math.floor(days)));
  return { from: addDays(through, -(n - 1)), through, days: n };
}
