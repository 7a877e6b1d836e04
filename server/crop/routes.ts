import { z } from "zod";
import { requestActor } from "../actor.ts";
import { activityContext, ownedActivity } from "../activities/access.ts";
import { detailedActivity, findActivity } from "../activities/read.ts";
import { zDetailedActivity } from "../activities/schema.ts";
import { notFound } from "../http/errors.ts";
import { zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import type { Platform } from "../platform.ts";
import type { Auth } from "../http/auth.ts";
import type { Dialect } from "../http/dialect.ts";
import { activityEdits } from "../../projections/activity-edits/queries.ts";
import { crop, split, undo } from "./edits.ts";
import { zActivityEdits, zSplitActivities } from "./schema.ts";

const idParams = z.object({ id: zNumId });
/** Seconds from the activity's start (its `time` stream, its elapsed_time). */
const zSeconds = zInt.pipe(z.number().int().min(0).max(31 * 86400));

const NOTE =
  "The owner's uploaded activity only (another's: 404 when it is not visible, 403 when it is); a manual activity has no recording (400). Times are seconds from the activity's start, as its time stream and elapsed_time count them. Figures, streams, laps, splits, best efforts, segment efforts and achievements are derived again from the original file over the kept part, as at upload.";

async function detailed(platform: Platform, auth: Auth, id: number, dialect: Dialect) {
  const row = await findActivity(platform.db, id);
  if (!row) throw notFound("Activity");
  return await detailedActivity(row, activityContext(platform, auth, dialect));
}

/** Crop, split and undo (server/crop/edits.ts); the edits in effect from the activity-edits read model. */
export const activityEditRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/edits",
    response: zActivityEdits,
    summary: "The crops and splits in effect on the owner's activity (ours), and where it was split from.",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: idParams,
    async handler({ platform, auth, params }) {
      const row = await ownedActivity(platform.db, params.id, auth);
      const rows = await activityEdits(platform.db, params.id);
      const from = rows.find((r) => r.kind === "split_from");
      return {
        activity_id: params.id,
        croppable: row.upload_id !== null,
        split_from: from
          ? { activity_id: from.other_activity_id!, start_date: from.start_date, end_date: from.end_date }
          : null,
        edits: rows.filter((r) => r.kind !== "split_from").map((r) => ({
          edit: r.edit,
          kind: r.kind as "crop" | "split",
          start_date: r.start_date,
          end_date: r.end_date,
          split_activity_id: r.other_activity_id,
          created_at: r.created_at,
        })),
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/activities/:id/crop",
    response: zDetailedActivity,
    summary: "Crop the owner's activity to [start_time, end_time] (ours); answers the cropped activity.",
    description:
      `${NOTE} 0 ≤ start_time < end_time ≤ elapsed_time, keeping less than the whole activity. Undo: DELETE /v3/activities/{id}/edits/{edit}.`,
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Activity",
    params: idParams,
    body: z.object({ start_time: zSeconds, end_time: zSeconds }),
    async handler({ platform, auth, params, body, requestId, dialect }) {
      await ownedActivity(platform.db, params.id, auth);
      await crop(
        platform,
        params.id,
        auth.athleteId,
        { startTime: body.start_time, endTime: body.end_time },
        requestActor(auth, requestId),
      );
      return await detailed(platform, auth, params.id, dialect);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/activities/:id/split",
    response: zSplitActivities,
    status: 201,
    summary:
      "Split the owner's activity in two at `time` (ours): it keeps the part before, the part after becomes a new activity.",
    description:
      `${NOTE} 0 < time < elapsed_time. The new activity takes the original's name, sport, privacy, flags and gear. Undo (on the original): DELETE /v3/activities/{id}/edits/{edit}, which deletes the new one.`,
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Activity",
    params: idParams,
    body: z.object({ time: zSeconds }),
    async handler({ platform, auth, params, body, requestId, dialect }) {
      await ownedActivity(platform.db, params.id, auth);
      const partId = await split(platform, params.id, auth.athleteId, body.time, requestActor(auth, requestId));
      return {
        activity: await detailed(platform, auth, params.id, dialect),
        split_activity: await detailed(platform, auth, partId, dialect),
      };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/activities/:id/edits/:edit",
    response: zDetailedActivity,
    summary: "Undo the latest crop or split of the owner's activity (ours); answers the activity as it was before it.",
    description:
      "Only the latest edit in effect (GET /v3/activities/{id}/edits): an unknown one is a 404, an earlier one a 409. Undoing a split deletes the activity made of its second part (409 while that one has crops or splits of its own).",
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Activity",
    params: z.object({ id: zNumId, edit: zInt.pipe(z.number().int().min(1).max(1_000_000)) }),
    async handler({ platform, auth, params, requestId, dialect }) {
      await ownedActivity(platform.db, params.id, auth);
      await undo(platform, params.id, auth.athleteId, params.edit, requestActor(auth, requestId));
      return await detailed(platform, auth, params.id, dialect);
    },
  }),
];
