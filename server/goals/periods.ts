import { zoneOffsetSeconds } from "../ingest/timezone.ts";

/**
 * The periods a goal is measured over: the week (from Monday), the calendar month and year that
 * hold the athlete's today, in local dates — the keys the goals read model totals by.
 */
export interface CurrentPeriods {
  week: { key: string; start: string; end: string };
  month: { key: string; start: string; end: string };
  year: { key: string; start: string; end: string };
}

/**
 * The offset from UTC (seconds) of a Strava-style timezone text at an instant: "(GMT+01:00)
 * Europe/Paris" by its zone (so summer time follows), else by its GMT offset; 0 when unreadable.
 */
export function timezoneOffsetSeconds(timezone: string | null | undefined, at: number): number {
  if (!timezone) return 0;
  const zone = /\)\s*([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+|UTC)$/.exec(timezone)?.[1];
  if (zone) {
    try {
      return zoneOffsetSeconds(zone, at);
    } catch {
      // not a zone this runtime knows: the written offset below
    }
  }
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(timezone);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : 0;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The athlete's local date at `now` in their time zone (a Strava-style timezone text; UTC without one). */
export function localDate(timezone: string | null | undefined, now: Date): string {
  return day(now.getTime() + timezoneOffsetSeconds(timezone, now.getTime()) * 1000);
}

/** The week (Monday to Sunday), month and year holding a local date (YYYY-MM-DD). */
export function currentPeriods(today: string): CurrentPeriods {
  const t = Date.parse(`${today}T00:00:00Z`);
  const monday = t - ((new Date(t).getUTCDay() + 6) % 7) * 86_400_000;
  const [y, m] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
  const monthEnd = Date.UTC(y, m, 0);
  return {
    week: { key: `w${day(monday)}`, start: day(monday), end: day(monday + 6 * 86_400_000) },
    month: { key: `m${today.slice(0, 7)}`, start: `${today.slice(0, 7)}-01`, end: day(monthEnd) },
    year: { key: `y${today.slice(0, 4)}`, start: `${today.slice(0, 4)}-01-01`, end: `${today.slice(0, 4)}-12-31` },
  };
}
