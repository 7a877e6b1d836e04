import type { Queryable } from "../../events/db/types.ts";
import { PERIODS_SQL } from "./boards.ts";

/**
 * Followers-only efforts on the leaderboards. The boards of boards.ts hold what everyone sees; an
 * athlete's followers (and the athlete) may also see their followers-only efforts. For each
 * (segment, period, athlete) whose best among the efforts everyone or a follower may see (not
 * shielded) is a followers-only one — faster than their best public effort, or their only one —
 * `segment_follower_bests` keeps that effort (period `all` and the periods of boards.ts). A
 * leaderboard read by a viewer swaps in the rows of the athletes whose followers-only efforts the
 * viewer may see (leaderboard.ts; the privacy engine's predicate decides which). Such rows are few:
 * most efforts are public, and only a faster followers-only one makes a row.
 *
 * Every row's effort is followers-only (`visibility`, kept so the engine's predicate reads it).
 */
export const followerBestsSchema = `
    create table if not exists segment_follower_bests (
      segment_id bigint not null,
      period text not null,
      athlete_id bigint not null,
      effort_id bigint not null,
      activity_id bigint not null,
      elapsed_time integer not null,
      moving_time integer not null,
      start_date timestamptz not null,
      start_date_local timestamp not null,
      sex text,
      birthdate text,
      weight double precision,
      visibility text not null,
      primary key (segment_id, period, athlete_id)
    );
    create index if not exists segment_follower_bests_athlete on segment_follower_bests (athlete_id, segment_id);
`;

const COLUMNS =
  "segment_id, period, athlete_id, effort_id, activity_id, elapsed_time, moving_time, start_date, start_date_local, sex, birthdate, weight, visibility";

/** The rows of the efforts matching `where` (alias e, parameters as the caller passes them). */
function insertSql(where: string): string {
  const order = "c.elapsed_time, c.start_date, c.effort_id";
  return `with src as (
       select e.segment_id, e.athlete_id, e.id as effort_id, e.activity_id, e.elapsed_time, e.moving_time, e.start_date,
              e.start_date_local, a.sex, a.birthdate, a.weight, e.visibility
         from segment_efforts e left join athletes a on a.id = e.athlete_id
        where ${where} and e.visibility in ('everyone', 'followers_only') and not e.shielded),
     per as (
       select 'all'::text as period, c.* from src c
       union all
       select p.period, c.* from src c cross join lateral ${PERIODS_SQL("c.start_date_local")} p(period)),
     followers as (
       select distinct on (c.segment_id, c.athlete_id, c.period) c.* from per c
        order by c.segment_id, c.athlete_id, c.period, ${order}),
     everyone as (
       select distinct on (c.segment_id, c.athlete_id, c.period) c.* from per c where c.visibility = 'everyone'
        order by c.segment_id, c.athlete_id, c.period, ${order})
     insert into segment_follower_bests (${COLUMNS})
     select ${COLUMNS.split(", ").map((c) => `f.${c}`).join(", ")}
       from followers f
       left join everyone v on v.segment_id = f.segment_id and v.athlete_id = f.athlete_id and v.period = f.period
      where f.visibility = 'followers_only' and v.effort_id is distinct from f.effort_id`;
}

/**
 * Recomputes one athlete's rows on some segments from their efforts as they stand. `always` false:
 * only when the athlete has rows there (public efforts were added: a row may now be beaten).
 */
export async function refreshFollowerBests(
  tx: Queryable,
  athleteId: number,
  segmentIds: readonly (number | string)[],
  always: boolean,
): Promise<void> {
  if (segmentIds.length === 0) return;
  const ids = [...new Set(segmentIds.map(String))];
  if (!always) {
    const [held] = await tx.query(
      "select 1 from segment_follower_bests where athlete_id = $1 and segment_id = any($2::bigint[]) limit 1",
      [athleteId, ids],
    );
    if (!held) return;
  }
  await tx.query("delete from segment_follower_bests where athlete_id = $1 and segment_id = any($2::bigint[])", [
    athleteId,
    ids,
  ]);
  await tx.query(insertSql("e.athlete_id = $1 and e.segment_id = any($2::bigint[])"), [athleteId, ids]);
}

/** Every row, from the efforts as they stand (a rebuild's end): what the live path reaches. */
export async function rebuildFollowerBests(tx: Queryable): Promise<void> {
  await tx.query("delete from segment_follower_bests");
  await tx.query(
    insertSql(`(e.segment_id, e.athlete_id) in (
      select segment_id, athlete_id from segment_efforts where visibility = 'followers_only' and not shielded)`),
  );
}

/** An athlete's sex / birthdate / weight changed: their rows follow (as the boards' rows). */
export async function updateFollowerAthlete(
  tx: Queryable,
  athleteId: number,
  changes: { sex?: string | null; birthdate?: string | null; weight?: number | null },
): Promise<void> {
  const params: unknown[] = [athleteId];
  const sets: string[] = [];
  for (const key of ["sex", "birthdate", "weight"] as const) {
    if (changes[key] === undefined) continue;
    params.push(changes[key]);
    sets.push(`${key} = $${params.length}`);
  }
  if (sets.length) {
    await tx.query(`update segment_follower_bests set ${sets.join(", ")} where athlete_id = $1`, params);
  }
}
