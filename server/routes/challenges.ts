import { z } from "zod";
import type { Queryable } from "../../events/db/types.ts";
import { handleCommand } from "../../events/decider.ts";
import { challengeDecider } from "../../events/challenge/decide.ts";
import { challengeStream } from "../../events/challenge/events.ts";
import type { Auth } from "../http/auth.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { paging, zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { findClub } from "../representations/club.ts";
import { detailedChallenge, findChallenge, joinedChallenges, summaryChallenge } from "../representations/challenge.ts";

/** Challenge leaderboard page size when per_page is not given (as for segment leaderboards). */
export const CHALLENGE_LEADERBOARD_PER_PAGE = 10;
/** Entries shown before and after the requester on the first page (spec: Limits). */
export const CHALLENGE_LEADERBOARD_CONTEXT = 2;

/** Challenges are enabled per application: others get 403 Application/challenges/not enabled. */
function requireChallenges(auth: Auth): void {
  if (!auth.application.challengesEnabled) {
    throw new ApiError(403, "Forbidden", [{ resource: "Application", field: "challenges", code: "not enabled" }]);
  }
}

async function requireChallenge(db: Queryable, id: number, viewerId: number) {
  const row = await findChallenge(db, id, viewerId);
  if (!row) throw notFound("Challenge");
  return row;
}

interface EntryRow {
  athlete_id: number;
  firstname: string;
  lastname: string;
  value: number;
  score: number;
  activity_id: number | null;
  activity_count: number;
  success_count: number;
  overall_rank: number;
  rank: number;
}

/**
 * Leaderboard rows (participants with progress, best score first, ties by athlete id) with their
 * competition ranks: rank among the filtered board, overall_rank among everyone. Every part walks
 * the (challenge_id, score desc, athlete_id) index, so a deep board costs what a page costs.
 */
function entriesQuery(filter: string, where: string, order: string, limit: string): string {
  const board = "q.challenge_id = p.challenge_id and q.activity_count > 0";
  return `select p.athlete_id, a.firstname, a.lastname, p.value, p.score, p.activity_id, p.activity_count, p.success_count,
      1 + (select count(*) from challenge_participants q where ${board} and q.score > p.score and ${filter.replaceAll("p.", "q.")})::int as rank,
      1 + (select count(*) from challenge_participants q where ${board} and q.score > p.score)::int as overall_rank
    from (select p.* from challenge_participants p
           where p.challenge_id = $1 and p.activity_count > 0 and ${filter} and ${where}
           order by ${order} ${limit}) p
    join athletes a on a.id = p.athlete_id
    order by p.score desc, p.athlete_id`;
}

function entry(row: EntryRow) {
  return {
    rank: Number(row.rank),
    overall_rank: Number(row.overall_rank),
    athlete_id: Number(row.athlete_id),
    athlete_name: `${row.firstname} ${row.lastname}`,
    athlete_profile: "avatar/athlete/large.png",
    total_dimension: Number(row.value),
    activity_id: row.activity_id === null ? null : Number(row.activity_id),
    activity_count: Number(row.activity_count),
    success_count: Number(row.success_count),
  };
}

const idParams = z.object({ id: zNumId });

async function participation(
  c: { platform: import("../platform.ts").Platform; auth: Auth; params: { id: number }; requestId: string },
  type: "join" | "leave",
) {
  requireChallenges(c.auth);
  await requireChallenge(c.platform.db, c.params.id, c.auth.athleteId);
  await handleCommand(c.platform.store, challengeStream(c.params.id), challengeDecider, { type, athleteId: c.auth.athleteId }, {
    metadata: { athleteId: c.auth.athleteId, applicationId: c.auth.applicationId, requestId: c.requestId },
  });
  return detailedChallenge(await requireChallenge(c.platform.db, c.params.id, c.auth.athleteId));
}

export const challengeRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/challenges/joined",
    summary: "Summary challenges the authenticated athlete joined (latest start first).",
    tag: "Challenges",
    auth: "token",
    resource: "Challenge",
    async handler({ platform, auth }) {
      requireChallenges(auth);
      return (await joinedChallenges(platform.db, auth.athleteId)).map(summaryChallenge);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/challenges/:id",
    summary: "A challenge (detailed).",
    tag: "Challenges",
    auth: "token",
    resource: "Challenge",
    params: idParams,
    async handler({ platform, auth, params }) {
      requireChallenges(auth);
      return detailedChallenge(await requireChallenge(platform.db, params.id, auth.athleteId));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/challenges/:id/leaderboard",
    summary: "Leaderboard entries, best first; filter friends, club (club_id required) or none.",
    description: "per_page defaults to 10. On the first page the requester and up to 2 entries before and after are appended when not already present.",
    tag: "Challenges",
    auth: "token",
    resource: "Challenge",
    params: idParams,
    query: z.object({
      filter: z.enum(["friends", "club", "none"]).optional(),
      club_id: zNumId.optional(),
      page: zInt.pipe(z.number().int().min(1)).optional(),
      per_page: zInt.pipe(z.number().int().min(1).max(200)).optional(),
    }),
    async handler({ platform, auth, params, query }) {
      requireChallenges(auth);
      const [exists] = await platform.db.query("select 1 from challenges where id = $1", [params.id]);
      if (!exists) throw notFound("Challenge");
      const filterName = query.filter ?? "none";
      const args: unknown[] = [params.id];
      let filter = "true";
      if (filterName === "club") {
        if (query.club_id === undefined) throw badRequest("Challenge", "club_id", "missing");
        if (!(await findClub(platform.db, query.club_id))) throw notFound("Club", "club_id");
        args.push(query.club_id);
        filter = `exists (select 1 from club_members m where m.club_id = $2 and m.athlete_id = p.athlete_id and m.membership = 'member')`;
      } else if (filterName === "friends") {
        args.push(auth.athleteId);
        filter = `(p.athlete_id = $2 or exists (select 1 from follows f where f.follower_id = $2 and f.followee_id = p.athlete_id))`;
      }
      const { page, perPage, offset } = paging(query, CHALLENGE_LEADERBOARD_PER_PAGE);
      const n = args.length;
      const rows = await platform.db.query<EntryRow>(
        entriesQuery(filter, "true", "p.score desc, p.athlete_id", `limit $${n + 1} offset $${n + 2}`),
        [...args, perPage, offset],
      );
      const entries = rows.map(entry);
      const shown = new Set(rows.map((r) => Number(r.athlete_id)));
      if (page === 1 && !shown.has(auth.athleteId)) {
        const [me] = await platform.db.query<{ score: number }>(
          `select p.score from challenge_participants p where p.challenge_id = $1 and p.activity_count > 0 and ${filter}
             and p.athlete_id = $${n + 1}`,
          [...args, auth.athleteId],
        );
        if (me) {
          const ctx = [...args, auth.athleteId, me.score, CHALLENGE_LEADERBOARD_CONTEXT];
          const ahead = `(p.score > $${n + 2} or (p.score = $${n + 2} and p.athlete_id < $${n + 1}))`;
          const behind = `(p.score < $${n + 2} or (p.score = $${n + 2} and p.athlete_id >= $${n + 1}))`;
          const before = await platform.db.query<EntryRow>(
            entriesQuery(filter, ahead, "p.score asc, p.athlete_id desc", `limit $${n + 3}`), ctx);
          const after = await platform.db.query<EntryRow>(
            entriesQuery(filter, behind, "p.score desc, p.athlete_id", `limit $${n + 3} + 1`), ctx);
          for (const r of [...before, ...after]) if (!shown.has(Number(r.athlete_id))) entries.push(entry(r));
        }
      }
      return entries;
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/challenges/:id/athletes",
    summary: "Join a challenge for the authenticated athlete; answers the detailed challenge (joined true).",
    description: "A challenge with an external_url is joined at that address: 403 Challenge/external_url/join externally.",
    tag: "Challenges",
    auth: "token",
    permission: "write",
    resource: "Challenge",
    params: idParams,
    handler: (c) => participation(c, "join"),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/challenges/:id/athletes",
    summary: "Leave a challenge; answers the detailed challenge (joined false).",
    tag: "Challenges",
    auth: "token",
    permission: "write",
    resource: "Challenge",
    params: idParams,
    handler: (c) => participation(c, "leave"),
  }),
];
