import { z } from "zod";
import { callRoute } from "../call-route.ts";
import { clock, exactId, localTime, num, round, str } from "../format.ts";
import { zDate, zId, zLimit, zPage } from "../shapes.ts";
import { defineTool, type Tool } from "../tool.ts";

type Json = Record<string, unknown>;

const zSegment = z.object({
  id: z.number().int().describe("Segment id (get_segment, get_segment_leaderboard, list_my_segment_efforts)."),
  name: z.string(),
  activity_type: z.string().nullable(),
  distance_m: z.number().nullable(),
  average_grade_pct: z.number().nullable(),
  elevation_gain_m: z.number().nullable(),
  climb_category: z.number().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  start_latlng: z.array(z.number()).nullable(),
  end_latlng: z.array(z.number()).nullable(),
});

const latlng = (v: unknown) => (Array.isArray(v) && v.length === 2 ? (v as number[]) : null);

function segmentOf(s: Json) {
  return {
    id: Number(s.id),
    name: String(s.name),
    activity_type: str(s.activity_type),
    distance_m: round(s.distance, 1),
    average_grade_pct: round(s.average_grade ?? s.avg_grade, 1),
    elevation_gain_m: round(s.total_elevation_gain ?? s.elev_difference, 1),
    climb_category: num(s.climb_category),
    city: str(s.city),
    country: str(s.country),
    start_latlng: latlng(s.start_latlng),
    end_latlng: latlng(s.end_latlng),
  };
}

export const exploreSegments = defineTool({
  name: "explore_segments",
  title: "Find segments in an area",
  description:
    "Up to 10 segments that start inside a map box (GET /v3/segments/explore), most attempted first: id, name, distance (m), average grade (%), elevation difference (m), climb category (0 = none … 5 = HC).",
  input: {
    south: z.number().min(-90).max(90).describe("Southern latitude of the box (degrees)."),
    west: z.number().min(-180).max(180).describe("Western longitude (degrees)."),
    north: z.number().min(-90).max(90).describe("Northern latitude (degrees)."),
    east: z.number().min(-180).max(180).describe("Eastern longitude (degrees)."),
    activity_type: z.enum(["riding", "running"]).default("riding"),
  },
  output: { segments: z.array(zSegment) },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const r = await callRoute(ctx, "GET", "/v3/segments/explore", {
      query: { bounds: [args.south, args.west, args.north, args.east].join(","), activity_type: args.activity_type },
    }) as Json;
    const segments = (r.segments as Json[]).map(segmentOf);
    return {
      structured: { segments },
      text: segments.length
        ? segments.map((s) => `#${s.id} "${s.name}" ${s.distance_m} m at ${s.average_grade_pct} %`).join("\n")
        : "No segments start in that box.",
    };
  },
});

export const getSegment = defineTool({
  name: "get_segment",
  title: "One segment",
  description:
    "A segment (GET /v3/segments/{id}): its distance (m), grade (%), elevation gain (m), place, how many efforts and athletes, and the signed-in athlete's personal record on it (elapsed time s, local date, activity id).",
  input: { id: zId.describe("Segment id.") },
  output: {
    segment: zSegment,
    effort_count: z.number().nullable(),
    athlete_count: z.number().nullable(),
    star_count: z.number().nullable(),
    my_pr: z.object({
      elapsed_time_s: z.number(),
      time: z.string().nullable(),
      date: z.string().nullable(),
      activity_id: z.number().nullable(),
      effort_count: z.number(),
    }).nullable(),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const s = await callRoute(ctx, "GET", "/v3/segments/:id", { params: { id: args.id } }) as Json;
    const stats = s.athlete_segment_stats as Json | undefined;
    const my = stats && stats.pr_elapsed_time != null
      ? {
        elapsed_time_s: Number(stats.pr_elapsed_time),
        time: clock(stats.pr_elapsed_time),
        date: str(stats.pr_date),
        activity_id: num(stats.pr_activity_id),
        effort_count: Number(stats.effort_count ?? 0),
      }
      : null;
    const segment = segmentOf(s);
    return {
      structured: {
        segment,
        effort_count: num(s.effort_count),
        athlete_count: num(s.athlete_count),
        star_count: num(s.star_count),
        my_pr: my,
      },
      text: `#${segment.id} "${segment.name}": ${segment.distance_m} m at ${segment.average_grade_pct} %, ${
        s.effort_count ?? 0
      } efforts by ${s.athlete_count ?? 0} athletes. ${
        my ? `Your PR ${my.time} on ${my.date}.` : "No effort of yours."
      }`,
    };
  },
});

const zEntry = z.object({
  rank: z.number().int(),
  athlete_id: z.number().int(),
  athlete_name: z.string(),
  elapsed_time_s: z.number(),
  time: z.string().nullable(),
  date_local: z.string().nullable(),
  activity_id: z.number().int(),
});

export const getSegmentLeaderboard = defineTool({
  name: "get_segment_leaderboard",
  title: "Segment leaderboard",
  description:
    "A segment's leaderboard (GET /v3/segments/{id}/leaderboard): each athlete's best elapsed time (s), ranked, with the signed-in athlete's own entry and its neighbours. Filters: gender, date_range (this_year, this_month, this_week, today), following, club_id. Only efforts this connection may see count.",
  input: {
    id: zId.describe("Segment id."),
    gender: z.enum(["M", "F"]).optional(),
    date_range: z.enum(["this_year", "this_month", "this_week", "today"]).optional(),
    following: z.boolean().optional().describe("Only athletes the signed-in athlete follows."),
    club_id: zId.optional().describe("Only members of this club (one of the athlete's)."),
    page: zPage,
    limit: zLimit(50, 10),
  },
  output: { entry_count: z.number().describe("Athletes on the board with this filter."), entries: z.array(zEntry) },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const r = await callRoute(ctx, "GET", "/v3/segments/:id/leaderboard", {
      params: { id: args.id },
      query: {
        gender: args.gender,
        date_range: args.date_range,
        following: args.following,
        club_id: args.club_id,
        page: args.page,
        per_page: args.limit,
      },
    }) as Json;
    const entries = (r.entries as Json[]).map((e) => ({
      rank: Number(e.rank),
      athlete_id: Number(e.athlete_id),
      athlete_name: String(e.athlete_name),
      elapsed_time_s: Number(e.elapsed_time),
      time: clock(e.elapsed_time),
      date_local: localTime(e.start_date_local),
      activity_id: Number(e.activity_id),
    }));
    return {
      structured: { entry_count: Number(r.entry_count), entries },
      text: `${r.entry_count} athletes.\n${
        entries.map((e) => `${e.rank}. ${e.athlete_name} ${e.time} (${e.date_local})`).join("\n")
      }`,
    };
  },
});

export const listMySegmentEfforts = defineTool({
  name: "list_my_segment_efforts",
  title: "My efforts on a segment",
  description:
    "The signed-in athlete's efforts on one segment (GET /v3/segment_efforts), oldest first: elapsed and moving time (s), local start, average heart rate (bpm) and power (W), the activity it belongs to. Optionally between two local days (from/to, YYYY-MM-DD).",
  input: {
    segment_id: zId.describe("Segment id."),
    from: zDate.optional().describe("First local day (needs to)."),
    to: zDate.optional().describe("Last local day (needs from)."),
    page: zPage,
    limit: zLimit(100, 30),
  },
  output: {
    efforts: z.array(z.object({
      id: z.union([z.number(), z.string()]).describe("Effort id (64-bit: a string beyond 2^53)."),
      activity_id: z.number().int(),
      start_local: z.string().nullable(),
      elapsed_time_s: z.number(),
      moving_time_s: z.number(),
      time: z.string().nullable(),
      average_heartrate_bpm: z.number().nullable(),
      average_watts_w: z.number().nullable(),
      pr_rank: z.number().nullable(),
    })),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    if ((args.from === undefined) !== (args.to === undefined)) {
      throw new RangeError("give both from and to, or neither");
    }
    const rows = await callRoute(ctx, "GET", "/v3/segment_efforts", {
      query: {
        segment_id: args.segment_id,
        start_date_local: args.from ? `${args.from}T00:00:00Z` : undefined,
        end_date_local: args.to ? `${args.to}T23:59:59Z` : undefined,
        page: args.page,
        per_page: args.limit,
      },
    }) as Json[];
    const efforts = rows.map((e) => ({
      id: exactId(e.id),
      activity_id: Number(e.activity_id),
      start_local: localTime(e.start_date_local),
      elapsed_time_s: Number(e.elapsed_time),
      moving_time_s: Number(e.moving_time),
      time: clock(e.elapsed_time),
      average_heartrate_bpm: round(e.average_heartrate, 1),
      average_watts_w: round(e.average_watts, 1),
      pr_rank: num(e.pr_rank),
    }));
    return {
      structured: { efforts },
      text: efforts.length
        ? efforts.map((e) => `${e.start_local}: ${e.time} (activity #${e.activity_id})`).join("\n")
        : "No efforts of yours on this segment in that window.",
    };
  },
});

export const segmentTools: Tool[] = [exploreSegments, getSegment, getSegmentLeaderboard, listMySegmentEfforts];
