import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { RANK_LEVELS, rankKeySql } from "../../projections/challenges/rank-counts.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";

const MEMBERS = 5_000;
const ACTIVITIES = 100_000;
const PARTICIPANTS = 50_000;
const SAMPLES = 40;
/** The facts jsonb of a manual-like activity in the activities read model (no GPS, no laps). */
export const FACTS = {
  elevHigh: null,
  elevLow: null,
  startLatlng: null,
  endLatlng: null,
  averageSpeed: 5.5,
  maxSpeed: 10,
  averageCadence: null,
  averageTemp: null,
  averageWatts: null,
  maxWatts: null,
  weightedAverageWatts: null,
  kilojoules: null,
  deviceWatts: null,
  hasHeartrate: false,
  averageHeartrate: null,
  maxHeartrate: null,
  calories: null,
  sufferScore: null,
  deviceName: null,
  workoutType: null,
  polyline: null,
  summaryPolyline: null,
  streamsSha256: null,
  laps: [],
  splitsMetric: [],
  splitsStandard: [],
  bestEfforts: [],
};

async function time(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return percentiles(samples).p50;
}

/**
 * Club feed and challenge leaderboard p50 over HTTP, next to the bare SQL each needs. The bulk data
 * (athletes, members, activities, participants and the leaderboard's rank counts) is written straight
 * into the read models with generate_series, not through events — it is not replayable, which a
 * benchmark does not need (writing 150,000 events would take longer than the 3-minute budget).
 */
export const clubsBench: BenchSuite = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-clubs-"));
  const server = await startServer(
    configFromEnv({
      port: 0,
      dataDir,
      seedDemo: false,
      quiet: true,
      databaseUrl: undefined,
      runJobs: false,
      rateLimitShort: 1e9,
      rateLimitLong: 1e9,
    }),
  );
  try {
    const { platform } = server;
    const db = platform.db;
    const me = await createAthlete(platform, {
      firstname: "Bench",
      lastname: "Mark",
      email: "bench@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Bench",
      ownerId: me,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
      challengesEnabled: true,
    });
    const token = await issueToken(platform, {
      athleteId: me,
      applicationId: app.client_id,
      permissions: ["read", "write"],
    });
    const clubId = 1_000_001;
    const challengeId = 2_000_001;
    const base = 10_000_000;
    await db.exec(`
      insert into athletes (id, firstname, lastname, email, password_hash, premium, created_at, updated_at)
        select ${base} + g, 'Rider' || g, 'Bulk', 'r' || g || '@bulk.example', 'x', false, now(), now()
          from generate_series(1, ${PARTICIPANTS}) g;
      insert into clubs (id, name, club_type, sport_type, private, verified, owner_id, url, created_at, updated_at)
        values (${clubId}, 'Bench club', 'casual_club', 'cycling', false, false, ${me}, 'bench-club', now(), now());
      insert into club_members (club_id, athlete_id, membership, admin, owner, since)
        values (${clubId}, ${me}, 'member', true, true, now());
      insert into club_members (club_id, athlete_id, membership, admin, owner, since)
        select ${clubId}, ${base} + g, 'member', false, false, now() from generate_series(1, ${MEMBERS - 1}) g;
      update clubs set member_count = ${MEMBERS} where id = ${clubId};
      insert into activities (id, athlete_id, name, type, start_date, start_epoch, start_date_local, timezone, distance,
          moving_time, elapsed_time, total_elevation_gain, visibility, commute, trainer, manual, facts, recorded_position)
        select g, ${base} + 1 + (g % ${MEMBERS * 2}), 'Ride ' || g, 'Ride',
               to_char((timestamptz '2024-01-01' + g * interval '7 minutes') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
               extract(epoch from timestamptz '2024-01-01' + g * interval '7 minutes')::bigint,
               to_char((timestamptz '2024-01-01' + g * interval '7 minutes') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
               '(GMT+00:00) UTC', 20000, 3600, 3700, 100, case when g % 10 = 0 then 'only_me' else 'everyone' end, false, false, false, $facts$${
      JSON.stringify(FACTS)
    }$facts$::jsonb, g
          from generate_series(1, ${ACTIVITIES}) g;
      insert into club_feed_activities (activity_id, athlete_id, start_date, visibility)
        select id, athlete_id, start_date::timestamptz, visibility from activities;
      insert into challenges (id, name, type, dimension, goal, start_date, end_date, description, mobile_description,
          additional_info, rules, prizes, teaser, url, logo_url, color, social_hashtag, created_at)
        values (${challengeId}, 'Bench', 'CumulativeChallenge', 'distance', 100000, '2024-01-01', '2024-12-31', '', '', '',
          '', '', '', 'bench', '', '', '', now());
      insert into challenge_participants (challenge_id, athlete_id, joined_at, value, score, activity_id, activity_count, success_count, completed)
        select ${challengeId}, ${base} + g, now(), (g * 7919) % 200000, (g * 7919) % 200000, g, 1 + g % 5, 0, (g * 7919) % 200000 >= 100000
          from generate_series(1, ${PARTICIPANTS - 1}) g;
      insert into challenge_participants (challenge_id, athlete_id, joined_at, value, score, activity_id, activity_count, success_count, completed)
        values (${challengeId}, ${me}, now(), 100000, 100000, 1, 1, 0, true);
      update challenge_participants set rank_key = ${rankKeySql("score")} where challenge_id = ${challengeId};
      insert into challenge_counters (challenge_id, participant_count, total_dimension, attempt_count, completed_count, leaderboard_count)
        select ${challengeId}, count(*), coalesce(sum(value::numeric), 0), coalesce(sum(activity_count), 0),
               count(*) filter (where completed), count(*) filter (where activity_count > 0)
          from challenge_participants where challenge_id = ${challengeId};
      insert into challenge_rank_counts (challenge_id, level, node, n)
        select ${challengeId}, k, p.rank_key >> (4 * k), count(*)
          from challenge_participants p, generate_series(0, ${RANK_LEVELS - 1}) k
         where p.challenge_id = ${challengeId} and p.activity_count > 0
         group by k, p.rank_key >> (4 * k);
      analyze;
    `);
    const get = async (path: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    const feed = await time(() => get(`/v3/clubs/${clubId}/activities`));
    const feedSql = await time(() =>
      db.query(
        `select x.*, a.firstname, a.lastname from activities x
         join club_members m on m.athlete_id = x.athlete_id and m.club_id = $1 and m.membership = 'member'
         join athletes a on a.id = x.athlete_id
        where x.visibility = 'everyone' order by x.start_epoch desc limit 30`,
        [clubId],
      )
    );
    const board = await time(() => get(`/v3/challenges/${challengeId}/leaderboard`));
    const boardSql = await time(() =>
      db.query(
        `select p.athlete_id, p.value, a.firstname, a.lastname from challenge_participants p join athletes a on a.id = p.athlete_id
        where p.challenge_id = $1 and p.activity_count > 0 order by p.score desc limit 10`,
        [challengeId],
      )
    );
    const detail = await time(() => get(`/v3/challenges/${challengeId}`));
    // What every read did before the counters row: add the counters up over all participants.
    const detailSql = await time(() =>
      db.query(
        `select c.*, s.* from challenges c cross join lateral (
         select count(*)::int as participant_count, coalesce(sum(p.value), 0)::double precision as total_dimension,
                coalesce(sum(p.activity_count), 0)::int as attempt_count, (count(*) filter (where p.completed))::int as completed_count,
                (count(*) filter (where p.activity_count > 0))::int as leaderboard_count
           from challenge_participants p where p.challenge_id = c.id) s where c.id = $1`,
        [challengeId],
      )
    );
    const detailRow = await time(() =>
      db.query(
        "select c.*, s.* from challenges c join challenge_counters s on s.challenge_id = c.id where c.id = $1",
        [challengeId],
      )
    );
    const figures: BenchFigure[] = [
      {
        suite: "clubs",
        name: `club activity feed p50 (${MEMBERS} members, ${ACTIVITIES} activities, HTTP)`,
        ours: feed,
        baseline: feedSql,
        baselineName: "raw SQL top 30",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "clubs",
        name: `challenge leaderboard p50 (${PARTICIPANTS} participants, first page + context, HTTP)`,
        ours: board,
        baseline: boardSql,
        baselineName: "raw SQL top 10",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "clubs",
        name: `challenge detail p50 (${PARTICIPANTS} participants, HTTP)`,
        ours: detail,
        baseline: detailSql,
        baselineName: "raw SQL: counters summed over the participants, as each read did before",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "clubs",
        name: "challenge detail: raw SQL read of the challenge and its counters row",
        ours: detailRow,
        baseline: detailSql,
        baselineName: "raw SQL: counters summed over the participants",
        unit: "ms",
        higherIsBetter: false,
      },
    ];
    return figures;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
