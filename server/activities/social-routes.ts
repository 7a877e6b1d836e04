import { z } from "zod";
import type { Queryable } from "../../events/db/types.ts";
import { relationships } from "../../projections/follows/projection.ts";
import { requestActor } from "../actor.ts";
import { ownedActivity, requireVisibleActivity, visibleActivityCondition } from "./access.ts";
import { addComment, deleteComment, giveKudos, giveKudosAtOnce } from "./commands.ts";
import { MAX_COMMENT } from "./input.ts";
import { forbidden, notFound } from "../http/errors.ts";
import type { Auth } from "../http/auth.ts";
import { paging, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { athleteFor } from "../athletes/represent.ts";
import { findAthletes } from "../../projections/athletes/queries.ts";
import { zComment, zCommentList, zEmpty, zSummaryAthleteList } from "./schema.ts";
import { type CommentRow, commentsOf, findComment, kudoersOf } from "../../projections/activities/queries.ts";

async function commentsWithAthletes(db: Queryable, viewerId: number, rows: CommentRow[]) {
  const ids = rows.map((r) => Number(r.athlete_id));
  const athletes = await findAthletes(db, ids);
  const rel = await relationships(db, viewerId, [...new Set(ids)]);
  return rows.map((r) => {
    const athlete = athletes.get(Number(r.athlete_id));
    return {
      id: Number(r.id),
      activity_id: Number(r.activity_id),
      resource_state: 2,
      text: r.text,
      athlete: athlete
        ? athleteFor(athlete, { athleteId: viewerId }, { form: "summary", relationship: rel.get(Number(r.athlete_id)) })
        : { id: Number(r.athlete_id), resource_state: 1 },
      created_at: r.created_at,
    };
  });
}

function requireInternal(auth: Auth) {
  if (!auth.application.internal) throw forbidden("Application", "comments", "not internal");
}

export const activitySocialRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/comments",
    response: zCommentList,
    summary: "Comments on an activity, oldest first.",
    tag: "Activities",
    auth: "token",
    resource: "Comment",
    params: z.object({ id: zNumId }),
    query: z.object(zPaging),
    async handler({ platform, auth, params, query }) {
      await requireVisibleActivity(platform.db, params.id, auth);
      const { perPage, offset } = paging(query);
      const rows = await commentsOf(platform.db, params.id, perPage, offset);
      return await commentsWithAthletes(platform.db, auth.athleteId, rows);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/activities/:id/comments",
    response: zComment,
    summary: "Comment on an activity (internal applications only). 201 with the comment.",
    description: `text: 1 to ${MAX_COMMENT} characters.`,
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Comment",
    params: z.object({ id: zNumId }),
    body: z.object({ text: z.string().trim().min(1).max(MAX_COMMENT) }),
    status: 201,
    async handler({ platform, auth, params, body, requestId }) {
      requireInternal(auth);
      await requireVisibleActivity(platform.db, params.id, auth);
      const commentId = await addComment(platform, params.id, auth.athleteId, body.text, requestActor(auth, requestId));
      const row = await findComment(platform.db, commentId);
      if (!row) throw notFound("Comment");
      const [comment] = await commentsWithAthletes(platform.db, auth.athleteId, [row]);
      return comment;
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/activities/:activity_id/comments/:id",
    summary: "Delete a comment (activity owner or comment author; internal applications only). 204.",
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Comment",
    params: z.object({ activity_id: zNumId, id: zNumId }),
    status: 204,
    async handler({ platform, auth, params, requestId }) {
      requireInternal(auth);
      await requireVisibleActivity(platform.db, params.activity_id, auth);
      await deleteComment(platform, params.activity_id, params.id, auth.athleteId, requestActor(auth, requestId));
      return null;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/kudos",
    response: zSummaryAthleteList,
    summary: "Athletes who gave kudos (summary), for the activity owner only.",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: z.object({ id: zNumId }),
    query: z.object(zPaging),
    async handler({ platform, auth, params, query }) {
      await ownedActivity(platform.db, params.id, auth);
      const { perPage, offset } = paging(query);
      const ids = await kudoersOf(platform.db, params.id, perPage, offset);
      const athletes = await findAthletes(platform.db, ids);
      const rel = await relationships(platform.db, auth.athleteId, ids);
      return ids.flatMap((id) => {
        const row = athletes.get(id);
        return row ? [athleteFor(row, auth, { form: "summary", relationship: rel.get(id) })] : [];
      });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/activities/:id/kudos",
    response: zEmpty,
    summary:
      "Give kudos as the token's athlete (applications with kudos enabled; not on one's own activity, not twice). 201 {}.",
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Kudos",
    params: z.object({ id: zNumId }),
    status: 201,
    async handler({ platform, auth, params, requestId }) {
      if (!auth.application.kudosEnabled) throw forbidden("Application", "kudos", "not enabled");
      const actor = requestActor(auth, requestId);
      // One statement when it can be (a first kudos too); else, or refused, the ordinary way.
      const visible = visibleActivityCondition(platform.db, params.id, auth);
      if (await giveKudosAtOnce(platform, params.id, auth.athleteId, actor, visible)) return {};
      await requireVisibleActivity(platform.db, params.id, auth);
      await giveKudos(platform, params.id, auth.athleteId, actor);
      return {};
    },
  }),
];
