import type { Queryable } from "../../events/db/types.ts";

/**
 * Finding what an athlete is not part of yet (the web app's Find page): clubs, athletes and
 * challenges by name (case-insensitive substring; empty matches all), with whether the viewer is
 * already in each. Clubs list public and private clubs alike (joining a private one asks to join);
 * athletes with enhanced privacy are not listed, nor the viewer.
 */

/** A LIKE pattern matching the text anywhere, with the pattern's own characters escaped. */
function contains(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface FoundClub {
  id: string | number;
  name: string;
  sport_type: string;
  city: string | null;
  country: string | null;
  private: boolean;
  member_count: number;
  joined: boolean;
}

export function findClubs(
  db: Queryable,
  viewer: number,
  q: string,
  limit: number,
  offset: number,
): Promise<FoundClub[]> {
  return db.query<FoundClub>(
    `select c.id, c.name, c.sport_type, c.city, c.country, c.private,
            c.member_count,
            exists (select 1 from club_members m where m.club_id = c.id and m.athlete_id = $1) as joined
       from clubs c
      where c.name ilike $2
      order by joined asc, member_count desc, c.id asc
      limit $3 offset $4`,
    [viewer, contains(q), limit, offset],
  );
}

export interface FoundAthlete {
  id: string | number;
  firstname: string;
  lastname: string;
  city: string | null;
  country: string | null;
  following: boolean;
}

export function findAthletes(
  db: Queryable,
  viewer: number,
  q: string,
  limit: number,
  offset: number,
): Promise<FoundAthlete[]> {
  return db.query<FoundAthlete>(
    `select a.id, a.firstname, a.lastname, a.city, a.country,
            exists (select 1 from follows f where f.follower_id = $1 and f.followee_id = a.id) as following
       from athletes a
      where a.id <> $1
        and (a.firstname || ' ' || a.lastname) ilike $2
        and not exists (select 1 from athlete_enhanced_privacy p where p.athlete_id = a.id and p.enhanced_privacy)
      order by following asc, a.firstname asc, a.lastname asc, a.id asc
      limit $3 offset $4`,
    [viewer, contains(q), limit, offset],
  );
}

export interface FoundChallenge {
  id: string | number;
  name: string;
  type: string;
  start_date: string;
  end_date: string;
  participant_count: number;
  joined: boolean;
}

export function findChallenges(
  db: Queryable,
  viewer: number,
  q: string,
  limit: number,
  offset: number,
): Promise<FoundChallenge[]> {
  return db.query<FoundChallenge>(
    `select c.id, c.name, c.type, c.start_date, c.end_date,
            (select count(*)::int from challenge_participants p where p.challenge_id = c.id) as participant_count,
            exists (select 1 from challenge_participants p where p.challenge_id = c.id and p.athlete_id = $1) as joined
       from challenges c
      where c.name ilike $2
      order by joined asc, c.end_date desc, c.id asc
      limit $3 offset $4`,
    [viewer, contains(q), limit, offset],
  );
}
