import { z } from "zod";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { athleteStats } from "../../projections/athlete-stats/queries.ts";
import { relationships } from "../../projections/follows/projection.ts";
import {
  athleteActivityIds,
  followCounts,
  followingFeedIds,
  type ListedActivity,
} from "../../projections/queries/athlete-feeds.ts";
import { activityContext } from "../activities/access.ts";
import { requestActor } from "../actor.ts";
import { followAthlete, unfollowAthlete } from "../athletes/commands.ts";
import { activityStatsBody } from "../athletes/stats-routes.ts";
import type { Auth } from "../http/auth.ts";
import type { Dialect } from "../http/dialect.ts";
import { notFound } from "../http/errors.ts";
import { paging, zEpoch, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { zActivityStats } from "../athletes/schema.ts";
import { zAthleteProfile, zFeedActivities, zSummaryAthlete } from "./schema.ts";
import type { Platform } from "../platform.ts";
import { loadVisibilitiesSeen, viewerOf, visibleActivities } from "../privacy/engine.ts";
import { athleteFor } from "../athletes/represent.ts";
import { feedActivities } from "../clubs/feed-activities.ts";

/**
 * Extensions for the web app's athlete pages and feed (docs/web-app.md, "Extension endpoints"):
 * follow / unfollow (the follow decider), another athlete's profile counts, activities and totals,
 * and the following feed Strava once had (`GET /v3/activities/following`). Every list passes the
 * privacy engine: its predicate chooses the rows, the summary representation crops privacy zones.
 */

const idParams = z.object({ id: zNumId });
const todayUtc = () => new Date().toISOString().slice(0, 10);

/** Listed activities as summaries, each with its athlete as a summary athlete (with friend/follower). */
export async function shown(platform: Platform, auth: Auth, listed: ListedActivity[], dialect: Dialect) {
  const summaries = await feedActivities(listed.map((l) => l.id), {
    ...activityContext(platform, auth, dialect),
    viewer: { athleteId: auth.athleteId, viewPrivate: auth.permissions.has("view_private") },
  }, "summary");
  return summaries.map(({ guid: _guid, ...summary }) => summary);
}

async function existingAthlete(platform: Platform, id: number) {
  const row = await findAthlete(platform.db, id);
  if (!row) throw notFound("Athlete");
  return row;
}

/** Follows or unfollows an existing athlete, answering them as a summary with the new relationship. */
async function followMove(
  platform: Platform,
  auth: Auth,
  targetId: number,
  requestId: string,
  move: typeof followAthlete,
) {
  const row = await existingAthlete(platform, targetId);
  await move(platform, auth.athleteId, targetId, requestActor(auth, requestId));
  const rel = await relationships(platform.db, auth.athleteId, [targetId]);
  return athleteFor(row, auth, { form: "summary", relationship: rel.get(targetId) });
}

export const athleteFeedRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/activities/following",
    summary:
      "Extension: the following feed — the authenticated athlete's activities and those of the athletes they follow, newest first (summary activities with a summary athlete).",
    description:
      "As Strava's retired `GET /v3/activities/following`. `before` (epoch seconds) and page/per_page page through it. Others' only_me activities never appear (their followers_only ones do: the caller follows them); another athlete's activity hidden from home feeds neither; privacy zones are cropped for the viewer.",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    query: z.object({ before: zEpoch.optional(), ...zPaging }),
    response: zFeedActivities,
    async handler({ platform, auth, query, dialect }) {
      const { perPage, offset } = paging(query);
      const viewer = viewerOf(auth);
      const listed = await followingFeedIds(
        platform.db,
        auth.athleteId,
        (alias, first) => visibleActivities(viewer, alias, first),
        {
          limit: perPage,
          offset,
          before: query.before,
        },
      );
      return await shown(platform, auth, listed, dialect);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/activities",
    summary:
      "Extension: an athlete's activities that the authenticated athlete may see, newest first (summary activities).",
    description:
      "Another athlete's only_me activities never appear, their followers_only ones only to their followers; privacy zones are cropped for the viewer. 404 for an unknown athlete.",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: idParams,
    query: z.object({ ...zPaging }),
    response: zFeedActivities,
    async handler({ platform, auth, params, query, dialect }) {
      await existingAthlete(platform, params.id);
      const { perPage, offset } = paging(query);
      const viewer = viewerOf(auth);
      const listed = await athleteActivityIds(
        platform.db,
        params.id,
        (alias, first) => visibleActivities(viewer, alias, first),
        {
          limit: perPage,
          offset,
        },
      );
      return await shown(platform, auth, listed, dialect);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/totals",
    summary:
      "Extension: any athlete's activity stats (Strava's ActivityStats) as the caller may see them — totals of the activities the caller may see (everyone's; followers-only ones too for the athlete's followers and the athlete; only_me ones for the athlete's own token with view_private). `GET /v3/athletes/:id/stats` stays the athlete's own (403 for others, as Strava's).",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: idParams,
    response: zActivityStats,
    async handler({ platform, auth, params }) {
      await existingAthlete(platform, params.id);
      const seen = await loadVisibilitiesSeen(platform.db, viewerOf(auth), params.id);
      return activityStatsBody(await athleteStats(platform.db, params.id, todayUtc(), seen));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/profile",
    summary:
      "Extension: {athlete, follower_count, friend_count}: an athlete's summary (friend/follower relative to the authenticated athlete) beside their follower and following counts.",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: idParams,
    response: zAthleteProfile,
    async handler({ platform, auth, params }) {
      const row = await existingAthlete(platform, params.id);
      const [rel, counts] = await Promise.all([
        relationships(platform.db, auth.athleteId, [params.id]),
        followCounts(platform.db, params.id),
      ]);
      // The counts sit beside the athlete, not in it: an athlete seen by others carries the summary fields only.
      return {
        athlete: athleteFor(row, auth, { form: "summary", relationship: rel.get(params.id) }),
        follower_count: counts.followers,
        friend_count: counts.following,
      };
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v3/athletes/:id/follow",
    summary: 'Extension: follow an athlete (idempotent). Answers the athlete\'s summary with friend "accepted".',
    description: "400 for oneself, 404 for an unknown athlete.",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "Athlete",
    params: idParams,
    response: zSummaryAthlete,
    handler: ({ platform, auth, params, requestId }) => followMove(platform, auth, params.id, requestId, followAthlete),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/athletes/:id/follow",
    summary: "Extension: stop following an athlete (idempotent). Answers the athlete's summary with friend null.",
    description: "400 for oneself, 404 for an unknown athlete.",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "Athlete",
    params: idParams,
    response: zSummaryAthlete,
    handler: ({ platform, auth, params, requestId }) =>
      followMove(platform, auth, params.id, requestId, unfollowAthlete),
  }),
];
