import { z } from "zod";
import type { Queryable } from "../../events/db/types.ts";
import { DomainError } from "../../events/decider.ts";
import { relationships } from "../../projections/follows/projection.ts";
import { activityContext } from "../activities/access.ts";
import {
  approveMembership,
  createClub,
  declineMembership,
  demoteAdmin,
  joinClub,
  leaveClub,
  promoteAdmin,
} from "./commands.ts";
import { requestActor } from "../actor.ts";
import { CLUB_DESCRIPTION_MAX, CLUB_NAME_MAX, CLUB_PLACE_MAX } from "../../events/club/decide.ts";
import { CLUB_SPORT_TYPES, CLUB_TYPES } from "../../events/club/events.ts";
import type { Auth } from "../http/auth.ts";
import type { Dialect } from "../http/dialect.ts";
import { notFound } from "../http/errors.ts";
import { paging, zBool, zEpoch, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import type { Platform } from "../platform.ts";
import { athleteFor } from "../athletes/represent.ts";
import { findAthlete, findAthletes } from "../../projections/athletes/queries.ts";
import { clubsOfAthlete, findClub, type MembershipFields, membershipOf } from "../../projections/clubs/queries.ts";
import { clubFeedActivityIds } from "../../projections/queries/club-feed.ts";
import { clubAdmins, clubMembers, followingCount, type MemberRow } from "../../projections/queries/club-members.ts";
import { clubActivities } from "./feed-activities.ts";
import { detailedClub, summaryClub } from "./represent.ts";
import { viewerOf, visibleActivities } from "../privacy/engine.ts";
import { zClubActivityList } from "../activities/schema.ts";
import { zClubAthlete, zClubAthleteList } from "../athletes/schema.ts";
import { zDetailedClub, zMembership, zSummaryClubList } from "./schema.ts";

/** How many of the members' latest activities a club feed reaches (spec: Limits). */
export const CLUB_FEED_WINDOW = 200;

async function requireClub(db: Queryable, id: number) {
  const club = await findClub(db, id);
  if (!club) throw notFound("Club");
  return club;
}

async function clubDetail(db: Queryable, clubId: number, viewerId: number) {
  const club = await requireClub(db, clubId);
  return detailedClub(club, await membershipOf(db, clubId, viewerId), await followingCount(db, clubId, viewerId));
}

/** Summary athletes with friend/follower relative to the viewer and their membership fields. */
async function membersWithFields(db: Queryable, viewerId: number, rows: MemberRow[]) {
  const rel = await relationships(db, viewerId, rows.map((r) => Number(r.id)));
  return rows.map((r) => ({
    ...athleteFor(r, { athleteId: viewerId }, { form: "summary", relationship: rel.get(Number(r.id)) }),
    membership: r.membership,
    // Strava's ClubAthlete: the member status as a word.
    member: r.membership,
    admin: r.admin,
    owner: r.owner,
  } satisfies Record<string, unknown> & MembershipFields));
}

/** The target's membership after a move, as a summary athlete with membership fields. */
async function memberAnswer(db: Queryable, clubId: number, athleteId: number, viewerId: number) {
  const athlete = (await findAthletes(db, [athleteId])).get(athleteId)!;
  const fields = await membershipOf(db, clubId, athleteId);
  const rel = await relationships(db, viewerId, [athleteId]);
  return {
    ...athleteFor(athlete, { athleteId: viewerId }, { form: "summary", relationship: rel.get(athleteId) }),
    ...fields,
  };
}

async function requireAthlete(db: Queryable, id: number) {
  if (!(await findAthlete(db, id))) throw notFound("Athlete", "athlete_id");
}

const clubParams = z.object({ id: zNumId });
const memberParams = z.object({ club_id: zNumId, athlete_id: zNumId });
/**
 * The new club's fields, parsed only: the club decider's `checkNewClub` holds their rules. The
 * lengths and lists are named here for the OpenAPI document alone (`meta` describes, it does not check).
 */
const place = z.string().meta({ maxLength: CLUB_PLACE_MAX }).optional();
const clubForm = z.object({
  name: z.string().meta({ minLength: 1, maxLength: CLUB_NAME_MAX }),
  description: z.string().meta({ maxLength: CLUB_DESCRIPTION_MAX }).optional(),
  club_type: z.string().meta({ enum: [...CLUB_TYPES] }).optional(),
  sport_type: z.string().meta({ enum: [...CLUB_SPORT_TYPES] }).optional(),
  city: place,
  state: place,
  country: place,
  private: zBool.optional(),
});

/** One admin's membership move (approve, decline, promote, demote), answering the target's membership fields. */
function memberMove(
  method: "PUT" | "DELETE",
  path: string,
  move: typeof approveMembership,
  summary: string,
) {
  return defineRoute({
    method,
    path,
    response: zClubAthlete,
    summary,
    tag: "Clubs",
    auth: "token",
    permission: "write",
    resource: "Club",
    params: memberParams,
    description: "Answers the target athlete (summary) with membership, admin and owner after the move.",
    async handler({ platform, auth, params, requestId }) {
      await requireClub(platform.db, params.club_id);
      await requireAthlete(platform.db, params.athlete_id);
      await move(platform, params.club_id, auth.athleteId, params.athlete_id, requestActor(auth, requestId));
      return memberAnswer(platform.db, params.club_id, params.athlete_id, auth.athleteId);
    },
  });
}

/**
 * The club feed: the window (latest CLUB_FEED_WINDOW activities of current members that the caller
 * may see — the privacy engine's rule: a followers-only one for the owner's followers, never an
 * only_me one —, walking the feed table's start index), then `before`/page inside it; bodies from the
 * activities read model.
 */
async function clubFeed(
  platform: Platform,
  clubId: number,
  auth: Auth,
  query: { before?: number; page?: number; per_page?: number },
  dialect: Dialect,
) {
  const { perPage, offset } = paging(query);
  const ids = await clubFeedActivityIds(platform.db, {
    clubId,
    window: CLUB_FEED_WINDOW,
    visible: (alias, first) => visibleActivities(viewerOf(auth), alias, first),
    limit: perPage,
    offset,
    before: query.before === undefined ? undefined : new Date(query.before * 1000).toISOString(),
  });
  const context = activityContext(platform, auth, dialect);
  return clubActivities(ids, { ...context, viewer: viewerOf(auth)! });
}

export const clubRoutes = [
  defineRoute({
    method: "POST",
    path: "/v3/clubs",
    response: zDetailedClub,
    summary:
      "Create a club owned by the authenticated athlete (beyond the spec). Form fields as the Club table names them.",
    tag: "Clubs",
    auth: "token",
    permission: "write",
    resource: "Club",
    body: clubForm,
    status: 201,
    async handler({ platform, auth, body, requestId }) {
      const id = await createClub(platform, {
        name: body.name,
        ownerId: auth.athleteId,
        description: body.description,
        clubType: body.club_type,
        sportType: body.sport_type,
        city: body.city,
        state: body.state,
        country: body.country,
        private: body.private,
      }, requestActor(auth, requestId));
      return clubDetail(platform.db, id, auth.athleteId);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/clubs/:id",
    response: zDetailedClub,
    summary: "A club (detailed, with the requester's membership, admin and owner).",
    tag: "Clubs",
    auth: "token",
    resource: "Club",
    params: clubParams,
    handler: ({ platform, auth, params }) => clubDetail(platform.db, params.id, auth.athleteId),
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athlete/clubs",
    response: zSummaryClubList,
    summary: "Summary clubs the authenticated athlete is a member of, by name.",
    tag: "Clubs",
    auth: "token",
    resource: "Club",
    async handler({ platform, auth }) {
      return (await clubsOfAthlete(platform.db, auth.athleteId)).map(summaryClub);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/clubs/:id/members",
    response: zClubAthleteList,
    summary: "Members (summary athletes with membership fields): those the caller follows first, then by first name.",
    description: "Enhanced Privacy members are listed only to members; admins also see pending requests.",
    tag: "Clubs",
    auth: "token",
    resource: "Club",
    params: clubParams,
    query: z.object(zPaging),
    async handler({ platform, auth, params, query }) {
      await requireClub(platform.db, params.id);
      const viewer = await membershipOf(platform.db, params.id, auth.athleteId);
      const isMember = viewer.membership === "member";
      const { perPage, offset } = paging(query);
      const rows = await clubMembers(platform.db, {
        clubId: params.id,
        viewerId: auth.athleteId,
        withPending: isMember && viewer.admin,
        viewerIsMember: isMember,
        limit: perPage,
        offset,
      });
      return membersWithFields(platform.db, auth.athleteId, rows);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/clubs/:id/admins",
    response: zClubAthleteList,
    summary: "Admins (summary athletes with membership fields): the owner first, then by first name.",
    tag: "Clubs",
    auth: "token",
    resource: "Club",
    params: clubParams,
    query: z.object(zPaging),
    async handler({ platform, auth, params, query }) {
      await requireClub(platform.db, params.id);
      const { perPage, offset } = paging(query);
      const rows = await clubAdmins(platform.db, { clubId: params.id, limit: perPage, offset });
      return membersWithFields(platform.db, auth.athleteId, rows);
    },
  }),
  memberMove(
    "PUT",
    "/v3/clubs/:club_id/members/:athlete_id",
    approveMembership,
    "Approve a pending request to a private club (club admin).",
  ),
  memberMove(
    "DELETE",
    "/v3/clubs/:club_id/members/:athlete_id",
    declineMembership,
    "Decline a pending request to a private club (club admin).",
  ),
  memberMove("PUT", "/v3/clubs/:club_id/admins/:athlete_id", promoteAdmin, "Make a member an admin (club admin)."),
  memberMove(
    "DELETE",
    "/v3/clubs/:club_id/admins/:athlete_id",
    demoteAdmin,
    "Make an admin a plain member (club admin; never the owner).",
  ),
  defineRoute({
    method: "GET",
    path: "/v3/clubs/:id/activities",
    response: zClubActivityList,
    summary: "Recent activities of the club's members (members only; the latest 200 are reachable).",
    description:
      "Summary activities with `guid`, each athlete a summary athlete. `before` (epoch seconds) and `page` cannot be combined (400 naming both). Private activities are not listed. On /api/v3 (Strava's dialect) the items are Strava's ClubActivity (name, distances, times, types; the athlete as first name and last initial) and `before` combines with `page` (docs/app-developers.md, 'Two dialects').",
    tag: "Clubs",
    auth: "token",
    resource: "Club",
    params: clubParams,
    query: z.object({ ...zPaging, before: zEpoch.optional() }),
    exclusive: ["before", "page"],
    async handler({ platform, auth, params, query, dialect }) {
      await requireClub(platform.db, params.id);
      const viewer = await membershipOf(platform.db, params.id, auth.athleteId);
      if (viewer.membership !== "member") {
        throw new DomainError(
          "forbidden",
          "Club",
          "membership",
          "not a member",
          "only club members see club activities",
        );
      }
      return clubFeed(platform, params.id, auth, query, dialect);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/clubs/:id/join",
    response: zMembership,
    summary: "Join a club: member at once (public club or invited), else a pending request.",
    tag: "Clubs",
    auth: "token",
    permission: "write",
    resource: "Club",
    params: clubParams,
    async handler({ platform, auth, params, requestId }) {
      await requireClub(platform.db, params.id);
      await joinClub(platform, params.id, auth.athleteId, requestActor(auth, requestId));
      const after = await membershipOf(platform.db, params.id, auth.athleteId);
      return { success: true, active: after.membership === "member", membership: after.membership };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/clubs/:id/leave",
    response: zMembership,
    summary: "Leave a club (or withdraw a pending request). The owner cannot leave.",
    tag: "Clubs",
    auth: "token",
    permission: "write",
    resource: "Club",
    params: clubParams,
    async handler({ platform, auth, params, requestId }) {
      await requireClub(platform.db, params.id);
      await leaveClub(platform, params.id, auth.athleteId, requestActor(auth, requestId));
      return { success: true, active: false, membership: null };
    },
  }),
];
