import type { Queryable } from "../../events/db/types.ts";

export interface AthleteRow {
  id: number;
  firstname: string;
  lastname: string;
  email: string;
  sex: string | null;
  premium: boolean;
  city: string | null;
  state: string | null;
  country: string | null;
  birthdate: string | null;
  weight: number | null;
  ftp: number | null;
  created_at: string;
  updated_at: string;
}

const ATHLETE_COLUMNS =
  "id, firstname, lastname, email, sex, premium, city, state, country, birthdate, weight, ftp, created_at, updated_at";

export async function findAthlete(db: Queryable, id: number): Promise<AthleteRow | undefined> {
  const [row] = await db.query<AthleteRow>(`select ${ATHLETE_COLUMNS} from athletes where id = $1`, [id]);
  return row;
}

export async function findAthletes(db: Queryable, ids: number[]): Promise<Map<number, AthleteRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<AthleteRow>(
    `select ${ATHLETE_COLUMNS} from athletes where id = any($1::bigint[])`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [Number(r.id), r]));
}

/** Meta athlete: id and resource_state only. */
export function metaAthlete(id: number) {
  return { id, resource_state: 1 };
}

/** Relationship of the listed athlete to the viewer (follows); null when unknown or self. */
export interface Relationship {
  friend: string | null;
  follower: string | null;
}

/** Summary athlete (resource_state 2) as the spec's Athlete table lists it. */
export function summaryAthlete(row: AthleteRow, relationship: Relationship = { friend: null, follower: null }) {
  return {
    id: Number(row.id),
    username: null,
    resource_state: 2,
    firstname: row.firstname,
    lastname: row.lastname,
    bio: null,
    city: row.city,
    state: row.state,
    country: row.country,
    sex: row.sex,
    premium: row.premium,
    summit: row.premium,
    created_at: row.created_at,
    updated_at: row.updated_at,
    badge_type_id: row.premium ? 1 : 0,
    weight: row.weight,
    profile_medium: "avatar/athlete/medium.png",
    profile: "avatar/athlete/large.png",
    friend: relationship.friend,
    follower: relationship.follower,
  };
}

/** Detailed athlete (resource_state 3): the summary plus the real service's detail fields. */
export function detailedAthlete(
  row: AthleteRow,
  extras: { followerCount?: number; friendCount?: number; clubs?: unknown[]; bikes?: unknown[]; shoes?: unknown[] } = {},
) {
  return {
    ...summaryAthlete(row),
    resource_state: 3,
    follower_count: extras.followerCount ?? 0,
    friend_count: extras.friendCount ?? 0,
    mutual_friend_count: 0,
    athlete_type: 0,
    date_preference: "%m/%d/%Y",
    measurement_preference: "meters",
    ftp: row.ftp,
    weight: row.weight ?? 0,
    clubs: extras.clubs ?? [],
    bikes: extras.bikes ?? [],
    shoes: extras.shoes ?? [],
  };
}
