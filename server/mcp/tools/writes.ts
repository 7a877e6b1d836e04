import { z } from "zod";
import { callRoute } from "../call-route.ts";
import { activityLine, activitySummary, zActivitySummary, zId } from "../shapes.ts";
import { defineTool, type Tool } from "../tool.ts";

/**
 * The tools that change the log: only with the write scope (call-route.ts refuses without it, as
 * the API does), each through the API route's command (an event through its decider).
 */

type Json = Record<string, unknown>;

export const updateActivity = defineTool({
  name: "update_activity",
  title: "Rename, describe or recategorise an activity",
  description:
    "Changes one of the signed-in athlete's activities (PUT /v3/activities/{id}; needs the write scope): name, description, sport_type (e.g. Run, TrailRun, Ride, GravelRide, Walk, Hike), commute, trainer. Fields left out stay as they are. Answers the activity as it is now.",
  input: {
    id: zId.describe("Activity id."),
    name: z.string().min(1).max(255).optional(),
    description: z.string().max(5000).optional(),
    sport_type: z.string().max(40).optional().describe("Strava sport type."),
    commute: z.boolean().optional(),
    trainer: z.boolean().optional().describe("Indoor / on a trainer."),
  },
  output: { activity: zActivitySummary, description: z.string().nullable() },
  write: true,
  idempotent: true,
  async run(ctx, args) {
    const { id, ...fields } = args;
    if (Object.values(fields).every((v) => v === undefined)) {
      throw new RangeError("nothing to change: give at least one of name, description, sport_type, commute, trainer");
    }
    const a = await callRoute(ctx, "PUT", "/v3/activities/:id", { params: { id }, body: fields }) as Json;
    const activity = activitySummary(a);
    return {
      structured: { activity, description: typeof a.description === "string" ? a.description : null },
      text: `Updated: ${activityLine(activity)}`,
    };
  },
});

export const createManualActivity = defineTool({
  name: "create_manual_activity",
  title: "Add a manual activity",
  description:
    "Adds an activity without a recording (POST /v3/activities; needs the write scope): name, sport_type, local start (YYYY-MM-DDTHH:MM:SS, with an offset like +02:00 when known), elapsed time (s), distance (m), description, and whether it is private, on a trainer or a commute. Not idempotent: calling twice adds two.",
  input: {
    name: z.string().min(1).max(255),
    sport_type: z.string().max(40).describe("Strava sport type, e.g. Run, Ride, Swim, Workout."),
    start_local: z.string().max(40).describe("Local start, ISO 8601, e.g. 2024-05-04T07:30:00+02:00."),
    elapsed_time_s: z.number().int().min(0).max(365 * 86400),
    distance_m: z.number().min(0).max(1e8).optional(),
    description: z.string().max(5000).optional(),
    private: z.boolean().optional(),
    trainer: z.boolean().optional(),
    commute: z.boolean().optional(),
  },
  output: { activity: zActivitySummary },
  write: true,
  idempotent: false,
  async run(ctx, args) {
    const a = await callRoute(ctx, "POST", "/v3/activities", {
      body: {
        name: args.name,
        sport_type: args.sport_type,
        start_date_local: args.start_local,
        elapsed_time: args.elapsed_time_s,
        distance: args.distance_m,
        description: args.description,
        private: args.private,
        trainer: args.trainer,
        commute: args.commute,
      },
    }) as Json;
    const activity = activitySummary(a);
    return { structured: { activity }, text: `Created: ${activityLine(activity)}` };
  },
});

export const giveKudos = defineTool({
  name: "give_kudos",
  title: "Give kudos",
  description:
    "Gives kudos to another athlete's activity as the signed-in athlete (POST /v3/activities/{id}/kudos; needs the write scope): never on one's own, once per activity.",
  input: { activity_id: zId.describe("The activity to give kudos to.") },
  output: { activity_id: z.number().int(), given: z.boolean() },
  write: true,
  idempotent: false,
  async run(ctx, args) {
    await callRoute(ctx, "POST", "/v3/activities/:id/kudos", { params: { id: args.activity_id } });
    return {
      structured: { activity_id: args.activity_id, given: true },
      text: `Kudos given to activity #${args.activity_id}.`,
    };
  },
});

export const addComment = defineTool({
  name: "add_comment",
  title: "Comment on an activity",
  description:
    "Writes a comment on an activity the signed-in athlete may see, in their name (POST /v3/activities/{id}/comments; needs the write scope). Not idempotent: calling twice comments twice.",
  input: {
    activity_id: zId.describe("The activity to comment on."),
    text: z.string().min(1).max(1000).describe("The comment (plain text)."),
  },
  output: { comment_id: z.number().int(), activity_id: z.number().int(), text: z.string() },
  write: true,
  idempotent: false,
  async run(ctx, args) {
    const c = await callRoute(ctx, "POST", "/v3/activities/:id/comments", {
      params: { id: args.activity_id },
      body: { text: args.text },
    }) as Json;
    return {
      structured: { comment_id: Number(c.id), activity_id: args.activity_id, text: String(c.text) },
      text: `Comment #${c.id} added to activity #${args.activity_id}.`,
    };
  },
});

export const writeTools: Tool[] = [updateActivity, createManualActivity, giveKudos, addComment];
