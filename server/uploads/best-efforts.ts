import type { Queryable } from "../../events/db/types.ts";

interface BestEffort {
  name: string;
  elapsedTime: number;
  prRank: number | null;
}

/**
 * PR ranks of a run's best efforts at upload time (1–3 or null), among the athlete's earlier best
 * efforts of the same distance name: competition ranking, so a tie shares the rank. Recorded in the
 * event and never updated.
 */
export async function rankBestEfforts<T extends BestEffort>(
  db: Queryable,
  athleteId: number,
  activityId: number,
  efforts: T[],
): Promise<T[]> {
  if (efforts.length === 0) return efforts;
  const rows = await db.query<{ name: string; better: number }>(
    `select e.name, count(b.elapsed)::int as better
       from jsonb_to_recordset($3::jsonb) as e(name text, elapsed integer)
       left join (
         select be->>'name' as name, (be->>'elapsedTime')::int as elapsed
           from activities a, jsonb_array_elements(a.facts->'bestEfforts') as be
          where a.athlete_id = $1 and a.id <> $2
       ) b on b.name = e.name and b.elapsed < e.elapsed
      group by e.name`,
    [athleteId, activityId, JSON.stringify(efforts.map((e) => ({ name: e.name, elapsed: e.elapsedTime })))],
  );
  const better = new Map(rows.map((r) => [r.name, r.better]));
  return efforts.map((e) => {
    const rank = (better.get(e.name) ?? 0) + 1;
    return { ...e, prRank: rank <= 3 ? rank : null };
  });
}
