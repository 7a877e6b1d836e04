import type { Queryable } from "../../events/db/types.ts";

/**
 * Which activities an athlete's profile and the following feed list (the web app's extension
 * endpoints, server/feeds/routes.ts): ids in the order to show them. Who may see which
 * activity is not decided here: the caller passes the privacy engine's predicate
 * (`visibleActivities(viewer, alias, firstParam)` of server/privacy/engine.ts), and the rows are
 * then shown through the Activities family's summary representation, which crops privacy zones.
 */
export type VisiblePredicate = (alias: string, firstParam: number) => { sql: string; params: unknown[] };

export interface ListedActivity {
  id: number;
  athleteId: number;
}

const listed = (rows: { id: number | string; athlete_id: number | string }[]): ListedActivity[] =>
  rows.map((r) => ({ id: Number(r.id), athleteId: Number(r.athlete_id) }));

/** One athlete's activities that the viewer may see, newest first. */
export async function athleteActivityIds(
  db: Queryable,
  athleteId: number,
  visible: VisiblePredicate,
  page: { limit: number; offset: number },
): Promise<ListedActivity[]> {
  const v = visible("a", 4);
  const rows = await db.query<{ id: number; athlete_id: number }>(
    `select a.id, a.athlete_id from activities a
      where a.athlete_id = $1 and ${v.sql}
      order by a.start_epoch desc, a.id desc limit $2 offset $3`,
    [athleteId, page.limit, page.offset, ...v.params],
  );
  return listed(rows);
}

/**
 * The following feed of a viewer: their own activities and those of the athletes they follow
 * (follows read model), newest first. Another athlete's activity muted from home feeds
 * (hide_from_home) stays out; the viewer's own stay in.
 */
export async function followingFeedIds(
  db: Queryable,
  viewerId: number,
  visible: VisiblePredicate,
  page: { limit: number; offset: number; before?: number },
): Promise<ListedActivity[]> {
  const v = visible("a", 5);
  // Each author's newest visible activities by their (athlete_id, start_epoch) index, at most a
  // page's worth each, then merged: the cost follows the viewer's follow list and the page, not
  // the number of activities on the server (one scan filtering every activity grew 9× with 10×
  // the data; tests/bench/scale.bench.ts).
  const rows = await db.query<{ id: number; athlete_id: number }>(
    `with authors as (
       select $1::bigint as athlete_id, false as followed
       union all
       select f.followee_id, true from follows f where f.follower_id = $1 and f.followee_id <> $1)
     select a.id, a.athlete_id from authors w
      cross join lateral (
        select a.id, a.athlete_id, a.start_epoch from activities a
         where a.athlete_id = w.athlete_id
           and (not w.followed or coalesce((a.facts->>'hideFromHome')::boolean, false) = false)
           and ($4::bigint is null or a.start_epoch < $4)
           and ${v.sql}
         order by a.start_epoch desc, a.id desc limit $2::int + $3::int) a
      order by a.start_epoch desc, a.id desc limit $2 offset $3`,
    [viewerId, page.limit, page.offset, page.before ?? null, ...v.params],
  );
  return listed(rows);
}

/** How many athletes follow `athleteId`, and how many it follows. */
export async function followCounts(
  db: Queryable,
  athleteId: number,
): Promise<{ followers: number; following: number }> {
  const [row] = await db.query<{ followers: number | string; following: number | string }>(
    `select (select count(*) from follows where followee_id = $1) as followers,
            (select count(*) from follows where follower_id = $1) as following`,
    [athleteId],
  );
  return { followers: Number(row?.followers ?? 0), following: Number(row?.following ?? 0) };
}
