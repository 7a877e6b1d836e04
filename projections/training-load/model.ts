/**
 * The training-load model (docs/numbers.md, "Training load"): one activity's load from power
 * (TSS, when the activity has a normalized power and the athlete an FTP) or else from heart rate
 * (Banister's TRIMP), and the impulse-response model's fitness (CTL, 42-day), fatigue (ATL, 7-day)
 * and form (TSB = CTL − ATL) over the daily loads. Pure functions: the projection and the API use
 * them alike.
 */

/** Resting heart rate assumed (the athlete profile holds none). */
export const RESTING_HEARTRATE = 60;
/** Max heart rate without a birthdate (as the zones: server/activities/zones.ts). */
export const DEFAULT_MAX_HEARTRATE = 190;
export const CTL_DAYS = 42;
export const ATL_DAYS = 7;

export type LoadMethod = "power" | "heartrate" | "none";

/** 220 − age on the day (age from the birthdate), else 190 — the zones' rule. */
export function maxHeartrateOn(birthdate: string | null, startDate: string): number {
  if (!birthdate) return DEFAULT_MAX_HEARTRATE;
  const born = Date.parse(`${birthdate}T00:00:00Z`);
  if (!Number.isFinite(born)) return DEFAULT_MAX_HEARTRATE;
  const age = Math.floor((Date.parse(startDate) - born) / (365.25 * 86400000));
  return age > 0 && age < 120 ? 220 - age : DEFAULT_MAX_HEARTRATE;
}

/**
 * One activity's load. Power: TSS = t · NP · IF / (FTP · 3600) · 100 with IF = NP / FTP (t the
 * moving time in s). Heart rate: TRIMP = t_min · HRr · k1 · e^(k2 · HRr), HRr = (HRavg − HRrest) /
 * (HRmax − HRrest) clamped to 0…1, k1 = 0.64, k2 = 1.92 (men and unknown), 0.86 and 1.67 (women).
 * Neither: 0. Rounded to 0.1.
 */
export function activityLoad(
  a: {
    movingTime: number;
    normalizedPower: number | null;
    averageHeartrate: number | null;
    startDate: string;
  },
  athlete: { ftp: number | null; birthdate: string | null; sex: string | null },
): { load: number; method: LoadMethod } {
  const t = Math.max(0, a.movingTime);
  if (a.normalizedPower && a.normalizedPower > 0 && athlete.ftp && athlete.ftp > 0) {
    const intensity = a.normalizedPower / athlete.ftp;
    return { load: round1((t * a.normalizedPower * intensity) / (athlete.ftp * 3600) * 100), method: "power" };
  }
  if (a.averageHeartrate && a.averageHeartrate > 0) {
    const max = maxHeartrateOn(athlete.birthdate, a.startDate);
    const reserve = Math.min(1, Math.max(0, (a.averageHeartrate - RESTING_HEARTRATE) / (max - RESTING_HEARTRATE)));
    const [k1, k2] = athlete.sex === "F" ? [0.86, 1.67] : [0.64, 1.92];
    return { load: round1((t / 60) * reserve * k1 * Math.exp(k2 * reserve)), method: "heartrate" };
  }
  return { load: 0, method: "none" };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export interface FitnessDay {
  date: string;
  load: number;
  ctl: number;
  atl: number;
  tsb: number;
}

/**
 * CTL, ATL and TSB for every day from the first load's day through `through` (YYYY-MM-DD): each
 * day CTL += (load − CTL) / 42 and ATL += (load − ATL) / 7 (exponentially weighted averages
 * starting at 0), TSB = CTL − ATL. Days without activities have load 0. Walks every day from the
 * first load: for a bounded window, fitnessWindow.
 */
export function fitnessSeries(dailyLoads: Map<string, number>, through: string): FitnessDay[] {
  const days = [...dailyLoads.keys()].sort();
  if (!days.length) return [];
  return fitnessWindow(days.map((d) => [d, dailyLoads.get(d)!]), days[0], through);
}

const DAY_MS = 86_400_000;

/**
 * The same model's days `from`…`through` (YYYY-MM-DD, inclusive) only: the loads before `from`
 * (`loads`: [day, load] oldest first; days after `through` are left out) are folded one load day at
 * a time, a stretch of g days without load decaying CTL and ATL by (1 − 1/42)^g and (1 − 1/7)^g at
 * once. The work is one step per load day plus one per day of the window, whatever the dates in
 * the data (GET /v3/athletes/:id/fitness asks for a window of at most 3,660 days). The window starts
 * no earlier than the first load's day.
 */
export function fitnessWindow(loads: [string, number][], from: string, through: string): FitnessDay[] {
  if (!loads.length || loads[0][0] > through) return [];
  const start = Math.max(Date.parse(`${from}T00:00:00Z`), Date.parse(`${loads[0][0]}T00:00:00Z`));
  const end = Date.parse(`${through}T00:00:00Z`);
  let ctl = 0, atl = 0;
  // The state at the end of `day` (ms); the day after the last one folded.
  let next = Date.parse(`${loads[0][0]}T00:00:00Z`);
  let i = 0;
  const decay = (days: number) => {
    if (days <= 0) return;
    ctl *= (1 - 1 / CTL_DAYS) ** days;
    atl *= (1 - 1 / ATL_DAYS) ** days;
  };
  while (i < loads.length) {
    const day = loads[i][0];
    const ms = Date.parse(`${day}T00:00:00Z`);
    if (!(ms < start)) break;
    let load = 0;
    while (i < loads.length && loads[i][0] === day) load += loads[i++][1];
    decay((ms - next) / DAY_MS);
    ctl += (load - ctl) / CTL_DAYS;
    atl += (load - atl) / ATL_DAYS;
    next = ms + DAY_MS;
  }
  decay((start - next) / DAY_MS);
  const out: FitnessDay[] = [];
  for (let ms = start; ms <= end; ms += DAY_MS) {
    const date = new Date(ms).toISOString().slice(0, 10);
    let load = 0;
    while (i < loads.length && loads[i][0] === date) load += loads[i++][1];
    ctl += (load - ctl) / CTL_DAYS;
    atl += (load - atl) / ATL_DAYS;
    out.push({ date, load: round1(load), ctl: round1(ctl), atl: round1(atl), tsb: round1(ctl - atl) });
  }
  return out;
}

/**
 * fitnessSeries from a known state on: `start` is the state after a day (null: begin at the first
 * day of `dailyLoads` from 0, as fitnessSeries does), the loads are those of the days after it, and
 * the days from `from` through `through` are answered. The same additions, day after day, as
 * fitnessSeries: the values equal its own for those days.
 */
export function fitnessSeriesFrom(
  start: { day: string; ctl: number; atl: number } | null,
  dailyLoads: Map<string, number>,
  from: string,
  through: string,
): FitnessDay[] {
  const days = [...dailyLoads.keys()].sort();
  if (!start && !days.length) return [];
  let ctl = start?.ctl ?? 0, atl = start?.atl ?? 0;
  const out: FitnessDay[] = [];
  const end = Date.parse(`${through}T00:00:00Z`);
  const first = start ? Date.parse(`${start.day}T00:00:00Z`) + 86_400_000 : Date.parse(`${days[0]}T00:00:00Z`);
  for (let ms = first; ms <= end; ms += 86_400_000) {
    const date = new Date(ms).toISOString().slice(0, 10);
    const load = dailyLoads.get(date) ?? 0;
    ctl += (load - ctl) / CTL_DAYS;
    atl += (load - atl) / ATL_DAYS;
    if (date >= from) {
      out.push({ date, load: round1(load), ctl: round1(ctl), atl: round1(atl), tsb: round1(ctl - atl) });
    }
  }
  return out;
}
