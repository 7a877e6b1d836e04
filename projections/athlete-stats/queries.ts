import type { Queryable } from "../../events/db/types.ts";
import type { StatsGroup } from "./groups.ts";
import type { Visibility } from "../../shared/visibility.ts";

/** One of Strava's ActivityTotal objects. */
export interface ActivityTotal {
  count: number;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  elevation_gain: number;
  achievement_count?: number;
}

export interface AthleteStatsRead {
  biggestRideDistance: number | null;
  biggestClimbElevationGain: number | null;
  totals: Record<"recent" | "ytd" | "all", Record<StatsGroup, ActivityTotal>>;
}

const GROUPS: StatsGroup[] = ["ride", "run", "swim"];

/** The first day of the "recent" window: 4 weeks ending today (today and the 27 days before). */
export function recentFrom(today: string): string {
  const t = Date.parse(`${today}T00:00:00Z`) - 27 * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * An athlete's totals from the day buckets: recent (the 4 weeks ending `today`), year to date
 * (`today`'s year) and all time, by group; and the biggest ride and climb of their rides — all of
 * activities of the given visibilities (those the reader's viewer may see: the privacy engine's
 * `visibilitiesSeen`). `today` is YYYY-MM-DD, compared with the activities' local start days.
 */
export async function athleteStats(
  db: Queryable,
  athleteId: number,
  today: string,
  visibilities: readonly Visibility[],
): Promise<AthleteStatsRead> {
  const rows = await db.query<{
    period: "recent" | "ytd" | "all";
    grp: StatsGroup;
    count: number;
    distance: number;
    moving_time: number;
    elapsed_time: number;
    elevation_gain: number;
    achievement_count: number;
  }>(
    `select p.period, d.grp, coalesce(sum(d.count), 0)::int as count, coalesce(sum(d.distance), 0)::float8 as distance,
            coalesce(sum(d.moving_time), 0)::int as moving_time, coalesce(sum(d.elapsed_time), 0)::int as elapsed_time,
            coalesce(sum(d.elevation_gain), 0)::float8 as elevation_gain,
            coalesce(sum(d.achievement_count), 0)::int as achievement_count
       from athlete_stats_days d
       join (values ('recent', $2::text, $3::text), ('ytd', $4::text, $3::text), ('all', '', '9999')) as p(period, first, last)
         on d.day >= p.first and d.day <= p.last
      where d.athlete_id = $1 and d.visibility = any($5::text[])
      group by p.period, d.grp`,
    [athleteId, recentFrom(today), today, `${today.slice(0, 4)}-01-01`, visibilities],
  );
  const [biggest] = await db.query<{ distance: number | null; climb: number | null }>(
    `select max(distance)::float8 as distance, max(elevation_gain)::float8 as climb
       from athlete_stats_activities where athlete_id = $1 and grp = 'ride' and visibility = any($2::text[])`,
    [athleteId, visibilities],
  );
  const empty = (): ActivityTotal => ({ count: 0, distance: 0, moving_time: 0, elapsed_time: 0, elevation_gain: 0 });
  const totals = {} as AthleteStatsRead["totals"];
  for (const period of ["recent", "ytd", "all"] as const) {
    totals[period] = {} as Record<StatsGroup, ActivityTotal>;
    for (const grp of GROUPS) totals[period][grp] = { ...empty(), achievement_count: 0 };
  }
  for (const r of rows) {
    const total: ActivityTotal = {
      count: r.count,
      distance: round1(r.distance),
      moving_time: r.moving_time,
      elapsed_time: r.elapsed_time,
      elevation_gain: round1(r.elevation_gain),
      // Every period (Strava's model declares it on ActivityTotal; its own answers carry it on the recent totals).
      achievement_count: r.achievement_count,
    };
    totals[r.period][r.grp] = total;
  }
  return {
    biggestRideDistance: biggest?.distance ?? null,
    biggestClimbElevationGain: biggest?.climb ?? null,
    totals,
  };
}

/** Sums of floats kept in a day bucket carry rounding residue; Strava answers tenths. */
function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
