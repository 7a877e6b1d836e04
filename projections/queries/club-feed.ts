import type { Queryable } from "../../events/db/types.ts";

/**
 * The club feed's activity ids (club_feed_activities ⋈ club_members): the window — the latest
 * `window` activities of current members that the viewer may see (the privacy engine's predicate
 * over alias `f`, its parameters numbered from $5), never an only_me one (a club's feed shows what
 * its members share) —, then `before` and the page inside it, latest first.
 */
export async function clubFeedActivityIds(
  db: Queryable,
  q: {
    clubId: number;
    window: number;
    visible: (alias: string, firstParam: number) => { sql: string; params: unknown[] };
    before?: string;
    limit: number;
    offset: number;
  },
): Promise<number[]> {
  const visible = q.visible("f", 5);
  const params: unknown[] = [q.clubId, q.window, q.limit, q.offset, ...visible.params];
  let before = "";
  if (q.before !== undefined) {
    params.push(q.before);
    before = `where w.start_date < $${params.length}`;
  }
  const rows = await db.query<{ activity_id: number }>(
    `select w.activity_id from (
       select f.activity_id, f.start_date
         from club_feed_activities f
        where f.visibility <> 'only_me' and ${visible.sql}
          and exists (select 1 from club_members m
                       where m.club_id = $1 and m.athlete_id = f.athlete_id and m.membership = 'member')
        order by f.start_date desc, f.activity_id desc
        limit $2
     ) w ${before}
     order by w.start_date desc, w.activity_id desc
     limit $3 offset $4`,
    params,
  );
  return rows.map((r) => Number(r.activity_id));
}
