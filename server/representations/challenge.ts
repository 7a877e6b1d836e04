import type { Queryable } from "../../events/db/types.ts";

export interface ChallengeRow {
  id: number;
  name: string;
  type: string;
  dimension: string;
  goal: number;
  start_date: string;
  end_date: string;
  activity_type: string | null;
  segment_id: number | null;
  external_url: string | null;
  description: string;
  mobile_description: string;
  additional_info: string;
  rules: string;
  prizes: string;
  teaser: string;
  url: string;
  logo_url: string;
  color: string;
  social_hashtag: string;
  participant_count: number;
  /** numeric in the read model: arrives as a string. */
  total_dimension: number | string;
  attempt_count: number;
  completed_count: number;
  leaderboard_count: number;
  joined: boolean;
}

/** Challenge columns, its counters (one row kept by the challenges projection) and `joined` for $viewer. */
const columns = (viewer: string) => `c.id, c.name, c.type, c.dimension, c.goal, c.start_date, c.end_date, c.activity_type,
  c.segment_id, c.external_url, c.description, c.mobile_description, c.additional_info, c.rules, c.prizes, c.teaser,
  c.url, c.logo_url, c.color, c.social_hashtag,
  s.participant_count, s.total_dimension, s.attempt_count, s.completed_count, s.leaderboard_count,
  exists (select 1 from challenge_participants j where j.challenge_id = c.id and j.athlete_id = ${viewer}) as joined`;

export async function findChallenge(db: Queryable, id: number, viewerId: number): Promise<ChallengeRow | undefined> {
  const [row] = await db.query<ChallengeRow>(
    `select ${columns("$2")} from challenges c join challenge_counters s on s.challenge_id = c.id where c.id = $1`,
    [id, viewerId],
  );
  return row;
}

export async function joinedChallenges(db: Queryable, athleteId: number): Promise<ChallengeRow[]> {
  return db.query<ChallengeRow>(
    `select ${columns("$1")} from challenges c
       join challenge_participants me on me.challenge_id = c.id and me.athlete_id = $1
       join challenge_counters s on s.challenge_id = c.id
      order by c.start_date desc, c.id desc`,
    [athleteId],
  );
}

/** Summary challenge (resource_state 2): every field but the detail-only texts. */
export function summaryChallenge(row: ChallengeRow) {
  return {
    id: Number(row.id),
    resource_state: 2,
    name: row.name,
    type: row.type,
    joined: row.joined,
    start_date: row.start_date,
    end_date: row.end_date,
    segment_id: row.segment_id === null ? null : Number(row.segment_id),
    activity_type: row.activity_type,
    dimension: row.dimension,
    goal: Number(row.goal),
    goal_hidden: false,
    measurement_unit: "metric",
    milestone_count: 0,
    logo_url: row.logo_url,
    teaser: row.teaser,
    url: row.url,
    color: row.color,
    social_hashtag: row.social_hashtag,
    participant_count: Number(row.participant_count),
    total_dimension: Number(row.total_dimension),
    attempt_count: Number(row.attempt_count),
    completed_count: Number(row.completed_count),
    leaderboard_count: Number(row.leaderboard_count),
    external_url: row.external_url,
  };
}

/** Detailed challenge (resource_state 3): the summary plus description, mobile_description, additional_info, rules, prizes. */
export function detailedChallenge(row: ChallengeRow) {
  return {
    ...summaryChallenge(row),
    resource_state: 3,
    description: row.description,
    mobile_description: row.mobile_description,
    additional_info: row.additional_info,
    rules: row.rules,
    prizes: row.prizes,
  };
}
