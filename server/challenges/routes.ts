import { z } from "zod";
import type { Queryable } from "../../events/db/types.ts";
import { requestActor } from "../actor.ts";
import { joinChallenge, leaveChallenge } from "./commands.ts";
import type { Auth } from "../http/auth.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { paging, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { findClub } from "../../projections/clubs/queries.ts";
import {
  type BoardFilter,
  challengeBoard,
  challengeExists,
  findChallenge,
  joinedChallenges,
} from "../../projections/challenges/queries.ts";
import { CHALLENGE_LEADERBOARD_CONTEXT, challengeLeaderboard } from "./leaderboard-represent.ts";
import { detailedChallenge, summaryChallenge } from "./represent.ts";
import { zChallengeLeaderboardList, zDetailedChallenge, zSummaryChallengeList } from "./schema.ts";

/** Challenge leaderboard page size when per_page is not given (as for segment leaderboards). */
export const CHALLENGE_LEADERBOARD_PER_PAGE = 10;

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

const idParams = z.object({ id: zNumId });

async function participation(
  c: { platform: import("../platform.ts").Platform; auth: Auth; params: { id: number }; requestId: string },
  move: typeof joinChallenge,
) {
  requireChallenges(c.auth);
  await requireChallenge(c.platform.db, c.params.id, c.auth.athleteId);
  await move(c.platform, c.params.id, c.auth.athleteId, requestActor(c.auth, c.requestId));
  return detailedChallenge(await requireChallenge(c.platform.db, c.params.id, c.auth.athleteId));
}

export const challengeRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/challenges/joined",
    response: zSummaryChallengeList,
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
    response: zDetailedChallenge,
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
    response: zChallengeLeaderboardList,
    summary: "Leaderboard entries, best first; filter friends, club (club_id required) or none.",
    description:
      "per_page defaults to 10. On the first page the requester and up to 2 entries before and after are appended when not already present.",
    tag: "Challenges",
    auth: "token",
    resource: "Challenge",
    params: idParams,
    query: z.object({
      filter: z.enum(["friends", "club", "none"]).optional(),
      club_id: zNumId.optional(),
      ...zPaging,
    }),
    async handler({ platform, auth, params, query }) {
      requireChallenges(auth);
      const requireExists = async () => {
        if (!(await challengeExists(platform.db, params.id))) throw notFound("Challenge");
      };
      const filterName = query.filter ?? "none";
      let filter: BoardFilter = { kind: "none" };
      if (filterName === "club") {
        await requireExists();
        if (query.club_id === undefined) throw badRequest("Challenge", "club_id", "missing");
        if (!(await findClub(platform.db, query.club_id))) throw notFound("Club", "club_id");
        filter = { kind: "club", clubId: query.club_id };
      } else if (filterName === "friends") {
        filter = { kind: "friends" };
      }
      const { page, perPage, offset } = paging(query, CHALLENGE_LEADERBOARD_PER_PAGE);
      const entries = challengeLeaderboard(
        await challengeBoard(platform.db, {
          challengeId: params.id,
          viewerId: auth.athleteId,
          filter,
          page,
          perPage,
          offset,
          context: CHALLENGE_LEADERBOARD_CONTEXT,
        }),
      );
      // Participants only exist for existing challenges: the existence check is needed for empty answers only.
      if (entries.length === 0 && filterName !== "club") await requireExists();
      return entries;
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/challenges/:id/athletes",
    response: zDetailedChallenge,
    summary: "Join a challenge for the authenticated athlete; answers the detailed challenge (joined true).",
    description:
      "A challenge with an external_url is joined at that address: 403 Challenge/external_url/join externally.",
    tag: "Challenges",
    auth: "token",
    permission: "write",
    resource: "Challenge",
    params: idParams,
    handler: (c) => participation(c, joinChallenge),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/challenges/:id/athletes",
    response: zDetailedChallenge,
    summary: "Leave a challenge; answers the detailed challenge (joined false).",
    tag: "Challenges",
    auth: "token",
    permission: "write",
    resource: "Challenge",
    params: idParams,
    handler: (c) => participation(c, leaveChallenge),
  }),
];
