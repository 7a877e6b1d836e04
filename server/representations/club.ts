import { clubSportFields } from "./club-sport.ts";
import type { Queryable } from "../../events/db/types.ts";

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
  (select count(*)::int from club_members m where m.club_id = c.id and m.membership = 'member') as member_count`;

export async function findClub(db: Queryable, id: number): Promise<ClubRow | undefined> {
  const [row] = await db.query<ClubRow>(`select ${CLUB_COLUMNS} from clubs c where c.id = $1`, [id]);
  return row;
}

/** Clubs the athlete is a member of (not pending), by name. */
export async function clubsOfAthlete(db: Queryable, athleteId: number): Promise<(ClubRow & { admin: boolean; owner: boolean })[]> {
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

/** Meta club (resource_state 1): id, resource_state, name. */
export function metaClub(row: Pick<ClubRow, "id" | "name">) {
  return { id: Number(row.id), resource_state: 1, name: row.name };
}

/** Summary club (resource_state 2), the spec's "summary" column. */
export function summaryClub(row: ClubRow) {
  return {
    id: Number(row.id),
    resource_state: 2,
    name: row.name,
    profile_medium: "avatar/club/medium.png",
    profile: "avatar/club/large.png",
    cover_photo: null,
    cover_photo_small: null,
    ...clubSportFields(row.sport_type),
    sport_type: row.sport_type,
    city: row.city,
    state: row.state,
    country: row.country,
    private: row.private,
    member_count: Number(row.member_count),
    featured: false,
    verified: row.verified,
    url: row.url,
  };
}

/** Detailed club (resource_state 3) with the requester's membership fields. */
export function detailedClub(row: ClubRow, requester: MembershipFields, followingCount: number) {
  return {
    ...summaryClub(row),
    resource_state: 3,
    description: row.description,
    club_type: row.club_type,
    owner_id: Number(row.owner_id),
    following_count: followingCount,
    membership: requester.membership,
    admin: requester.admin,
    owner: requester.owner,
  };
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
