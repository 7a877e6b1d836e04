import type { Queryable } from "../../events/db/types.ts";

/**
 * The reads of the training-volume read model (projection.ts): sums by bucket and sport over the
 * visibility classes the caller may see (the privacy engine says which). Every read is a range of
 * the table's primary key, bounded by the request's window.
 */

export type VolumePeriod = "day" | "week" | "month" | "year";

export interface VolumeBucket {
  /** The bucket's first day (YYYY-MM-DD): the day, the week's Monday, the month's or the year's first. */
  start: string;
  sport: string;
  count: number;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  elevation_gain: number;
}

interface Row {
  start: string;
  sport: string;
  count: number | string;
  distance: number | string;
  moving_time: number | string;
  elapsed_time: number | string;
  elevation_gain: number | string;
}

const bucket = (r: Row): VolumeBucket => ({
  start: r.start,
  sport: r.sport,
  count: Number(r.count),
  distance: Number(r.distance),
  moving_time: Number(r.moving_time),
  elapsed_time: Number(r.elapsed_time),
  elevation_gain: Number(r.elevation_gain),
});

const SUMS = `sum(count)::int as count, sum(distance) as distance, sum(moving_time) as moving_time,
  sum(elapsed_time) as elapsed_time, sum(elevation_gain) as elevation_gain`;

/**
 * An athlete's totals by bucket and sport between two local days (inclusive, YYYY-MM-DD), over the
 * given visibility classes; weeks start on Monday (a week's bucket may start before `from`: only
 * its days from `from` on count). Buckets without activities are absent; ordered by start, sport.
 */
export async function volumeBuckets(
  db: Queryable,
  athleteId: number,
  classes: readonly string[],
  period: VolumePeriod,
  from: string,
  to: string,
): Promise<VolumeBucket[]> {
  if (period === "year") {
    const rows = await db.query<Row>(
      `select year::text || '-01-01' as start, sport, ${SUMS}
         from volume_years
        where athlete_id = $1 and year between $2 and $3 and visibility = any($4::text[])
        group by year, sport order by year, sport`,
      [athleteId, Number(from.slice(0, 4)), Number(to.slice(0, 4)), classes],
    );
    return rows.map(bucket);
  }
  const start = period === "day"
    ? "day"
    : period === "week"
    ? "to_char(date_trunc('week', day::date), 'YYYY-MM-DD')"
    : "substr(day, 1, 7) || '-01'";
  const rows = await db.query<Row>(
    `select ${start} as start, sport, ${SUMS}
       from volume_days
      where athlete_id = $1 and day between $2 and $3 and visibility = any($4::text[])
      group by 1, sport order by 1, sport`,
    [athleteId, from, to, classes],
  );
  return rows.map(bucket);
}

/** How many activities of an athlete there are in the given classes (all time). */
export async function activityCount(db: Queryable, athleteId: number, classes: readonly string[]): Promise<number> {
  const [row] = await db.query<{ n: number | string | null }>(
    "select sum(count) as n from volume_years where athlete_id = $1 and visibility = any($2::text[])",
    [athleteId, classes],
  );
  return Number(row?.n ?? 0);
}
