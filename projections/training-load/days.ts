import type { Queryable } from "../../events/db/types.ts";
import { ATL_DAYS, CTL_DAYS } from "./model.ts";

/**
 * The fitness model's state kept by day (`training_load_days`): for each athlete, each scope (`all`
 * activities, or `public` ones only) and each day with activities, the day's load and the CTL and
 * ATL after it — the fold of model.ts's `fitnessSeries` up to that day, so a request folds only its
 * own window forward from the state before it (projections/training-load/queries.ts: fitnessWindow).
 * A change on a day refolds that athlete's days from there on (an activity recorded today: one row);
 * a rebuild folds every athlete once at its end. The arithmetic is fitnessSeries' own, day after day
 * (days without activities decay with load 0), so the stored doubles are exactly its values.
 */
export const DAYS_SCHEMA = `
    create table if not exists training_load_days (
      athlete_id bigint not null,
      scope text not null,
      day text not null,
      load double precision not null,
      ctl double precision not null,
      atl double precision not null,
      primary key (athlete_id, scope, day)
    );`;

const DAY_MS = 86_400_000;
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);

interface Load {
  athlete_id: number | string;
  day: string;
  load: number;
  private: boolean;
}

/** Folds loads (ordered by day, then activity) from a state after `since` (null: the first day). */
function fold(
  loads: Load[],
  start: { day: string; ctl: number; atl: number } | null,
): { day: string; load: number; ctl: number; atl: number }[] {
  const daily = new Map<string, number>();
  for (const l of loads) daily.set(l.day, (daily.get(l.day) ?? 0) + Number(l.load));
  const days = [...daily.keys()].sort();
  if (days.length === 0) return [];
  const out: { day: string; load: number; ctl: number; atl: number }[] = [];
  let ctl = start?.ctl ?? 0, atl = start?.atl ?? 0;
  let at = start ? dayMs(start.day) + DAY_MS : dayMs(days[0]);
  for (const day of days) {
    const ms = dayMs(day);
    // A gap of years (a date far from the rest) decays in one step: the fold's cost follows the
    // activities' days, never the span between them.
    const gap = Math.floor((ms - at) / DAY_MS);
    if (gap > 366) {
      ctl *= Math.pow(1 - 1 / CTL_DAYS, gap);
      atl *= Math.pow(1 - 1 / ATL_DAYS, gap);
      at += gap * DAY_MS;
    }
    for (; at < ms; at += DAY_MS) {
      ctl += (0 - ctl) / CTL_DAYS;
      atl += (0 - atl) / ATL_DAYS;
    }
    const load = daily.get(day)!;
    ctl += (load - ctl) / CTL_DAYS;
    atl += (load - atl) / ATL_DAYS;
    out.push({ day, load, ctl, atl });
    at = ms + DAY_MS;
  }
  return out;
}

async function write(tx: Queryable, athleteId: number, scope: string, rows: ReturnType<typeof fold>) {
  if (rows.length === 0) return;
  await tx.query(
    `insert into training_load_days (athlete_id, scope, day, load, ctl, atl)
     select $1, $2, r.day, r.load, r.ctl, r.atl
       from jsonb_to_recordset($3::jsonb) as r(day text, load double precision, ctl double precision, atl double precision)`,
    [athleteId, scope, JSON.stringify(rows)],
  );
}

/** Refolds an athlete's days from `from` (YYYY-MM-DD) on, in both scopes, from the rows as they are now. */
export async function refoldDays(tx: Queryable, athleteId: number, from: string): Promise<void> {
  await tx.query("delete from training_load_days where athlete_id = $1 and day >= $2", [athleteId, from]);
  const loads = await tx.query<Load>(
    `select athlete_id, day, load, visibility = 'only_me' as private from training_load_activities
      where athlete_id = $1 and day >= $2 order by day, activity_id`,
    [athleteId, from],
  );
  for (const scope of ["all", "public"]) {
    const [before] = await tx.query<{ day: string; ctl: number; atl: number }>(
      `select day, ctl, atl from training_load_days where athlete_id = $1 and scope = $2 and day < $3
        order by day desc limit 1`,
      [athleteId, scope, from],
    );
    const list = scope === "all" ? loads : loads.filter((l) => !l.private);
    const start = before ? { day: before.day, ctl: Number(before.ctl), atl: Number(before.atl) } : null;
    await write(tx, athleteId, scope, fold(list, start));
  }
}

/** Rows a rebuild writes per statement (every athlete's days, both scopes, in few statements). */
const FOLDED_PAGE = 20_000;

/** A rebuild's end: every athlete's days folded once from the rebuilt rows, written a page at a time. */
export async function foldAllDays(tx: Queryable): Promise<void> {
  const loads = await tx.query<Load>(
    "select athlete_id, day, load, visibility = 'only_me' as private from training_load_activities order by athlete_id, day, activity_id",
  );
  let page: { a: number; s: string; day: string; load: number; ctl: number; atl: number }[] = [];
  const flush = async () => {
    if (page.length === 0) return;
    await tx.query(
      `insert into training_load_days (athlete_id, scope, day, load, ctl, atl)
       select r.a, r.s, r.day, r.load, r.ctl, r.atl
         from jsonb_to_recordset($1::jsonb)
              as r(a bigint, s text, day text, load double precision, ctl double precision, atl double precision)`,
      [JSON.stringify(page)],
    );
    page = [];
  };
  let from = 0;
  while (from < loads.length) {
    let to = from;
    while (to < loads.length && String(loads[to].athlete_id) === String(loads[from].athlete_id)) to++;
    const athleteLoads = loads.slice(from, to);
    const a = Number(loads[from].athlete_id);
    for (const [s, list] of [["all", athleteLoads], ["public", athleteLoads.filter((l) => !l.private)]] as const) {
      for (const row of fold(list, null)) page.push({ a, s, ...row });
    }
    if (page.length >= FOLDED_PAGE) await flush();
    from = to;
  }
  await flush();
}
