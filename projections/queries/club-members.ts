import type { Queryable } from "../../events/db/types.ts";
import { athleteColumns, type AthleteRow } from "../athletes/queries.ts";

/**
 * A club's members and admins with their athletes (club_members ⋈ athletes, with follows for the
 * viewer's order and athlete_enhanced_privacy for who is listed), and how many members the viewer
 * follows (club_members ⋈ follows).
 */

export type MemberRow = AthleteRow & { membership: "member" | "pending"; admin: boolean; owner: boolean };

const ATHLETE_COLS = athleteColumns("a");

/**
 * Members, those the viewer follows first, then by first name. Pending requests only when
 * `withPending` (admins); Enhanced Privacy members only when `viewerIsMember` (or themselves).
 */
export function clubMembers(
  db: Queryable,
  q: { clubId: number; viewerId: number; withPending: boolean; viewerIsMember: boolean; limit: number; offset: number },
): Promise<MemberRow[]> {
  return db.query<MemberRow>(
    `select ${ATHLETE_COLS}, m.membership, m.admin, m.owner
       from club_members m join athletes a on a.id = m.athlete_id
       left join follows f on f.follower_id = $2 and f.followee_id = m.athlete_id
       left join athlete_enhanced_privacy p on p.athlete_id = m.athlete_id
      where m.club_id = $1
        and (m.membership = 'member' or $3::boolean)
        and ($4::boolean or coalesce(p.enhanced_privacy, false) = false or m.athlete_id = $2)
      order by (f.follower_id is not null) desc, lower(a.firstname), lower(a.lastname), a.id
      limit $5 offset $6`,
    [q.clubId, q.viewerId, q.withPending, q.viewerIsMember, q.limit, q.offset],
  );
}

/** Admins (members only): the owner first, then by first name. */
export function clubAdmins(db: Queryable, q: { clubId: number; limit: number; offset: number }): Promise<MemberRow[]> {
  return db.query<MemberRow>(
    `select ${ATHLETE_COLS}, m.membership, m.admin, m.owner
       from club_members m join athletes a on a.id = m.athlete_id
      where m.club_id = $1 and m.admin and m.membership = 'member'
      order by m.owner desc, lower(a.firstname), lower(a.lastname), a.id
      limit $2 offset $3`,
    [q.clubId, q.limit, q.offset],
  );
}

/** Members of the club the viewer follows. */
export async function followingCount(db: Queryable, clubId: number, viewerId: number): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from club_members m join follows f on f.followee_id = m.athlete_id and f.follower_id = $2
      where m.club_id = $1 and m.membership = 'member'`,
    [clubId, viewerId],
  );
  return Number(row.n);
}
