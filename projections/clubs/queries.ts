import type { Queryable } from "../../events/db/types.ts";

/**
 * The queries of the clubs read model (projection.ts: clubs, club_members, club_invitations,
 * athlete_enhanced_privacy): the only SQL naming its tables. Joins with other read models (members
 * with their athletes, the club feed) are in projections/queries/club-members.ts and club-feed.ts.
 */

export interface ClubRow {
  id: number;
  name: string;
  description: string | null;
  club_type: string;
  sport_type: string;
  city: string | null;
  state: string | null;
  country: string | null;
  private: boolean;
  verified: boolean;
  owner_id: number;
  url: string;
  member_count: number;
}

/** The requester's (or a listed athlete's) relation to a club. */
export interface MembershipFields {
  membership: "member" | "pending" | null;
  admin: boolean;
  owner: boolean;
}

export const NO_MEMBERSHIP: MembershipFields = { membership: null, admin: false, owner: false };

const CLUB_COLUMNS = `c.id, c.name, c.description, c.club_type, c.sport_type, c.city, c.state, c.country,
  c.private, c.verified, c.owner_id, c.url,
  c.member_count`;

/** Whether a club already has this URL slug. */
export async function clubUrlTaken(db: Queryable, url: string): Promise<boolean> {
  const [taken] = await db.query("select 1 from clubs where url = $1", [url]);
  return taken !== undefined;
}

export async function findClub(db: Queryable, id: number): Promise<ClubRow | undefined> {
  const [row] = await db.query<ClubRow>(`select ${CLUB_COLUMNS} from clubs c where c.id = $1`, [id]);
  return row;
}

/** Clubs the athlete is a member of (not pending), by name. */
export async function clubsOfAthlete(
  db: Queryable,
  athleteId: number,
): Promise<(ClubRow & { admin: boolean; owner: boolean })[]> {
  return db.query(
    `select ${CLUB_COLUMNS}, cm.admin, cm.owner from clubs c
       join club_members cm on cm.club_id = c.id and cm.athlete_id = $1 and cm.membership = 'member'
      order by lower(c.name), c.id`,
    [athleteId],
  );
}

export async function membershipOf(db: Queryable, clubId: number, athleteId: number): Promise<MembershipFields> {
  const [row] = await db.query<{ membership: "member" | "pending"; admin: boolean; owner: boolean }>(
    "select membership, admin, owner from club_members where club_id = $1 and athlete_id = $2",
    [clubId, athleteId],
  );
  return row ? { membership: row.membership, admin: row.admin, owner: row.owner } : { ...NO_MEMBERSHIP };
}

/** Whether the athlete is a member (not pending) of the club; false when clubs are not installed at all. */
export async function isClubMember(db: Queryable, clubId: number, athleteId: number): Promise<boolean> {
  const [{ table }] = await db.query<{ table: string | null }>("select to_regclass('club_members')::text as table");
  if (!table) return false;
  const member = await db.query(
    "select 1 from club_members where club_id = $1 and athlete_id = $2 and membership = 'member'",
    [clubId, athleteId],
  );
  return member.length > 0;
}
