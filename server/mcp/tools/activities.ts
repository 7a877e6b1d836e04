import { z } from "zod";
import { callRoute, refusalText } from "../call-route.ts";
import { clock, exactId, num, round, str } from "../format.ts";
import { activityLine, activitySummary, zActivitySummary, zDate, zId, zLimit, zPage } from "../shapes.ts";
import { defineTool, type Tool } from "../tool.ts";

type Json = Record<string, unknown>;

/** The route's largest page: how far `page` (older clients' paging) walks per call. */
const WALK_PAGE = 200;

/** The search route's cursor (server/feeds/search-routes.ts): the (start, id) of a page's last row. */
const zCursor = z.string().regex(/^-?\d{1,12}\.\d{1,16}$/, "a next_cursor of a previous answer");

export const listActivities = defineTool({
  name: "list_activities",
  title: "List or search activities",
  description:
    "An athlete's activities (the signed-in athlete's unless athlete_id names another), searched on the server over the whole history (GET /v3/athletes/{id}/activities/search), newest first: id, name, sport, local start time with its time zone, distance (m), moving time (s), elevation gain (m), averages. Filters: after/before (local start days, YYYY-MM-DD, inclusive: a year is after YYYY-01-01, before YYYY-12-31), sport_type (e.g. Run, Ride, Swim, TrailRun), name_contains (a part of the name, any case), gear_id, commute, trainer (indoor). `count` is the exact number of matches, `total` all the athlete's activities this connection may see. Page with `cursor`: pass the answer's `next_cursor` (null on the last page) with the same filters until every match is read.",
  input: {
    athlete_id: zId.optional().describe("Another athlete's id; the signed-in athlete when left out."),
    after: zDate.optional().describe("Only activities starting on or after this local day (YYYY-MM-DD)."),
    before: zDate.optional().describe("Only activities starting on or before this local day (YYYY-MM-DD)."),
    sport_type: z.string().max(40).optional().describe(
      "Strava sport type or type, e.g. Run, Ride, Swim, Walk, TrailRun.",
    ),
    name_contains: z.string().max(100).optional().describe("A part of the name (case-insensitive)."),
    gear_id: z.string().max(40).optional().describe("Only activities with this gear."),
    commute: z.boolean().optional().describe("Only commutes (true) or only other activities (false)."),
    trainer: z.boolean().optional().describe("Only indoor/trainer activities (true) or only outdoor ones (false)."),
    cursor: zCursor.optional().describe(
      "The next_cursor of the previous answer: the next (older) page of the same search.",
    ),
    page: zPage.describe("Page number (1 for the first) for clients without cursors; with a cursor it is ignored."),
    limit: zLimit(100, 20),
  },
  output: {
    activities: z.array(zActivitySummary),
    count: z.number().int().describe("How many activities match the filters in all (exact)."),
    total: z.number().int().describe("How many of the athlete's activities this connection may see in all."),
    next_cursor: z.string().nullable().describe("Pass as `cursor` for the next page; null when this is the last."),
    page: z.number().int().describe("The page argument, as given."),
    has_more: z.boolean().describe("Whether older matches follow this page."),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const id = args.athlete_id ?? ctx.auth.athleteId;
    const filters = {
      q: args.name_contains,
      sport_type: args.sport_type,
      from: args.after,
      to: args.before,
      gear_id: args.gear_id,
      commute: args.commute,
      trainer: args.trainer,
    };
    type Search = { count: number; total: number; activities: Json[]; older: string | null };
    const search = (query: Record<string, unknown>) =>
      callRoute(ctx, "GET", "/v3/athletes/:id/activities/search", {
        params: { id },
        query: { ...filters, ...query },
      }) as Promise<
        Search
      >;
    let before = args.cursor;
    const page = args.page;
    // Older clients page by number: walk the keyset to the page's first row, a route's page at a time.
    let skip = args.cursor ? 0 : (args.page - 1) * args.limit;
    while (skip > 0) {
      const step = Math.min(WALK_PAGE, skip);
      const walked = await search({ per_page: step, before });
      skip -= step;
      before = walked.older ?? undefined;
      if (!before) {
        const empty = { count: walked.count, total: walked.total, next_cursor: null, page, has_more: false };
        return {
          structured: { activities: [], ...empty },
          text: `No activities on page ${page}: ${walked.count} match(es) in all.`,
        };
      }
    }
    const answer = await search({ per_page: args.limit, before });
    const activities = answer.activities.map(activitySummary);
    const next = answer.older;
    const structured = {
      activities,
      count: answer.count,
      total: answer.total,
      next_cursor: next,
      page,
      has_more: next !== null,
    };
    const head = `${answer.count} of ${answer.total} activities match; ${activities.length} here${
      next ? `, more with cursor "${next}"` : ", the last of them"
    }.`;
    return {
      structured,
      text: activities.length ? `${head}\n${activities.map(activityLine).join("\n")}` : head,
    };
  },
});

const zLap = z.object({
  index: z.number().int(),
  name: z.string().nullable(),
  distance_m: z.number().nullable(),
  moving_time_s: z.number().nullable(),
  elapsed_time_s: z.number().nullable(),
  average_speed_mps: z.number().nullable(),
  average_heartrate_bpm: z.number().nullable(),
  average_watts_w: z.number().nullable(),
  elevation_gain_m: z.number().nullable(),
});

const zZone = z.object({
  type: z.string().describe("heartrate (bpm) or power (W)."),
  buckets: z.array(z.object({ min: z.number(), max: z.number(), time_s: z.number() })),
});

export const getActivity = defineTool({
  name: "get_activity",
  title: "One activity in detail",
  description:
    "One of the signed-in athlete's activities (GET /v3/activities/{id} and /zones): the summary fields, description, calories (kcal), device, laps (distance m, times s, speed m/s, heart rate bpm, power W), kilometre splits, best efforts (runs: fastest 400 m … marathon in it, s), up to 25 segment efforts (ids for get_segment) and the time (s) in each heart-rate and power zone. Local times are where it was recorded, with the zone named.",
  input: { id: zId.describe("Activity id (from list_activities).") },
  output: {
    activity: zActivitySummary,
    description: z.string().nullable(),
    calories_kcal: z.number().nullable(),
    device_name: z.string().nullable(),
    max_heartrate_bpm: z.number().nullable(),
    max_speed_mps: z.number().nullable(),
    laps: z.array(zLap),
    splits_km: z.array(z.object({
      km: z.number().int(),
      distance_m: z.number(),
      moving_time_s: z.number(),
      pace_per_km: z.string().nullable(),
      elevation_difference_m: z.number().nullable(),
      average_heartrate_bpm: z.number().nullable(),
    })),
    best_efforts: z.array(z.object({ name: z.string(), distance_m: z.number(), elapsed_time_s: z.number() })),
    segment_efforts: z.array(z.object({
      id: z.union([z.number(), z.string()]).describe("Effort id (64-bit: a string beyond 2^53)."),
      segment_id: z.number().int().nullable(),
      name: z.string(),
      elapsed_time_s: z.number(),
      pr_rank: z.number().nullable(),
      kom_rank: z.number().nullable(),
    })),
    segment_effort_count: z.number().int(),
    zones: z.array(zZone),
    zones_note: z.string().nullable().describe("Why zones are missing (the API refused them), else null."),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const a = await callRoute(ctx, "GET", "/v3/activities/:id", { params: { id: args.id } }) as Json;
    // Zones are a subscriber's feature in the API (403 otherwise): the rest of the activity is still answered.
    let zones: Json[] = [], zonesNote: string | null = null;
    try {
      zones = await callRoute(ctx, "GET", "/v3/activities/:id/zones", { params: { id: args.id } }) as Json[];
    } catch (error) {
      zonesNote = refusalText(error) ?? null;
      if (zonesNote === null) throw error;
    }
    const laps = ((a.laps ?? []) as Json[]).map((l, i) => ({
      index: Number(l.lap_index ?? i + 1),
      name: str(l.name),
      distance_m: round(l.distance, 1),
      moving_time_s: num(l.moving_time),
      elapsed_time_s: num(l.elapsed_time),
      average_speed_mps: round(l.average_speed, 3),
      average_heartrate_bpm: round(l.average_heartrate, 1),
      average_watts_w: round(l.average_watts, 1),
      elevation_gain_m: round(l.total_elevation_gain, 1),
    }));
    const splits = ((a.splits_metric ?? []) as Json[]).map((s) => ({
      km: Number(s.split),
      distance_m: round(s.distance, 1) ?? 0,
      moving_time_s: Number(s.moving_time),
      pace_per_km: Number(s.distance) > 0 ? clock(Number(s.moving_time) / Number(s.distance) * 1000) : null,
      elevation_difference_m: round(s.elevation_difference, 1),
      average_heartrate_bpm: round(s.average_heartrate, 1),
    }));
    const efforts = (a.segment_efforts ?? []) as Json[];
    const structured = {
      activity: activitySummary(a),
      description: str(a.description),
      calories_kcal: round(a.calories, 0),
      device_name: str(a.device_name),
      max_heartrate_bpm: round(a.max_heartrate, 0),
      max_speed_mps: round(a.max_speed, 3),
      laps,
      splits_km: splits,
      best_efforts: ((a.best_efforts ?? []) as Json[]).map((b) => ({
        name: String(b.name),
        distance_m: Number(b.distance),
        elapsed_time_s: Number(b.elapsed_time),
      })),
      segment_efforts: efforts.slice(0, 25).map((e) => ({
        id: exactId(e.id),
        segment_id: e.segment ? Number((e.segment as Json).id) : null,
        name: String(e.name),
        elapsed_time_s: Number(e.elapsed_time),
        pr_rank: num(e.pr_rank),
        kom_rank: num(e.kom_rank),
      })),
      segment_effort_count: efforts.length,
      zones: zones.map((z) => ({
        type: String(z.type),
        buckets: ((z.distribution_buckets ?? []) as Json[]).map((b) => ({
          min: Number(b.min),
          max: Number(b.max),
          time_s: Number(b.time),
        })),
      })),
      zones_note: zonesNote,
    };
    const text = [
      activityLine(structured.activity),
      structured.description ? `Description: ${structured.description}` : null,
      laps.length > 1 ? `${laps.length} laps` : null,
      splits.length ? `Splits: ${splits.map((s) => `${s.km}: ${s.pace_per_km}`).join(", ")}` : null,
      structured.best_efforts.length
        ? `Best efforts: ${structured.best_efforts.map((b) => `${b.name} ${clock(b.elapsed_time_s)}`).join(", ")}`
        : null,
      efforts.length ? `${efforts.length} segment efforts` : null,
    ].filter(Boolean).join("\n");
    return { structured, text };
  },
});

/** Units of each stream (the API's streams, docs/app-developers.md). */
export const STREAM_UNITS: Record<string, string> = {
  time: "s since start",
  distance: "m",
  altitude: "m",
  velocity_smooth: "m/s",
  heartrate: "bpm",
  cadence: "rpm (steps per minute per foot for runs)",
  watts: "W",
  temp: "°C",
  grade_smooth: "%",
  moving: "share of samples moving (0–1)",
  latlng: "[latitude, longitude] degrees",
};
const NUMERIC = ["altitude", "velocity_smooth", "heartrate", "cadence", "watts", "temp", "grade_smooth"] as const;

const zSeries = z.object({
  unit: z.string(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
  values: z.array(z.number().nullable()).describe("One mean per bucket (null where the bucket has no sample)."),
});

export const getActivityStreams = defineTool({
  name: "get_activity_streams",
  title: "Activity streams, summarized",
  description:
    "An activity's recorded streams (GET /v3/activities/{id}/streams) summarized for reading, not megabytes of samples: split into `points` equal stretches of distance (or time for activities without distance), each with its start time (s), start distance (m) and the mean of each stream; plus min/max/mean of each over the whole activity, with units (altitude m, velocity_smooth m/s, heartrate bpm, cadence rpm, watts W, temp °C, grade_smooth %). latlng (positions, privacy zones removed as in the API) only when asked.",
  input: {
    id: zId.describe("Activity id."),
    points: z.number().int().min(5).max(200).default(50).describe("How many stretches (5–200, default 50)."),
    types: z.array(z.enum([...NUMERIC, "latlng"])).max(8).optional().describe(
      "Which streams (default every numeric one recorded).",
    ),
  },
  output: {
    activity_id: z.number().int(),
    sample_count: z.number().int(),
    axis: z.enum(["distance", "time"]),
    points: z.number().int(),
    time_s: z.array(z.number()),
    distance_m: z.array(z.number().nullable()),
    streams: z.record(z.string(), zSeries),
    latlng: z.array(z.tuple([z.number(), z.number()]).nullable()).optional(),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const wanted = args.types ?? [...NUMERIC];
    const keys = ["time", "distance", ...wanted].join(",");
    const s = await callRoute(ctx, "GET", "/v3/activities/:id/streams", {
      params: { id: args.id },
      query: { keys, key_by_type: true },
    }) as Record<string, { data: unknown[] }>;
    const samples = (key: string): unknown[] | undefined => s[key]?.data;
    const time = (samples("time") ?? []) as number[];
    const distance = (samples("distance") ?? []) as number[];
    const n = time.length;
    const useDistance = distance.length === n && n > 1 && distance[n - 1] > 0;
    const axis = useDistance ? distance : time;
    const buckets = Math.min(args.points, Math.max(1, n));
    const span = n ? axis[n - 1] - axis[0] : 0;
    const bucketOf = (i: number) =>
      span > 0 ? Math.min(buckets - 1, Math.floor(((axis[i] - axis[0]) / span) * buckets)) : 0;
    const starts: number[] = new Array(buckets).fill(-1);
    for (let i = 0; i < n; i++) if (starts[bucketOf(i)] < 0) starts[bucketOf(i)] = i;
    const streams: Record<string, z.infer<typeof zSeries>> = {};
    for (const key of wanted) {
      if (key === "latlng") continue;
      const data = samples(key) as (number | null)[] | undefined;
      if (!data || data.length !== n) continue;
      const sums = new Array(buckets).fill(0), counts = new Array(buckets).fill(0);
      let min = Infinity, max = -Infinity, total = 0, count = 0;
      for (let i = 0; i < n; i++) {
        const v = data[i];
        if (typeof v !== "number" || !Number.isFinite(v)) continue;
        const b = bucketOf(i);
        sums[b] += v;
        counts[b]++;
        min = Math.min(min, v);
        max = Math.max(max, v);
        total += v;
        count++;
      }
      streams[key] = {
        unit: STREAM_UNITS[key],
        min: count ? round(min, 2) : null,
        max: count ? round(max, 2) : null,
        mean: count ? round(total / count, 2) : null,
        values: sums.map((sum, b) => (counts[b] ? round(sum / counts[b], 2) : null)),
      };
    }
    const at = (arr: number[], i: number) => (i >= 0 && i < arr.length ? arr[i] : null);
    const latlng = wanted.includes("latlng")
      ? starts.map((i) => {
        const p = (samples("latlng") as [number, number][] | undefined)?.[i];
        return p ? [p[0], p[1]] as [number, number] : null;
      })
      : undefined;
    const structured = {
      activity_id: args.id,
      sample_count: n,
      axis: useDistance ? "distance" as const : "time" as const,
      points: buckets,
      time_s: starts.map((i) => at(time, i) ?? 0),
      distance_m: starts.map((i) => round(at(distance, i), 1)),
      streams,
      ...(latlng ? { latlng } : {}),
    };
    const text = `Activity #${args.id}: ${n} samples in ${buckets} stretches of ${structured.axis}.\n${
      Object.entries(streams).map(([k, v]) => `${k} (${v.unit}): min ${v.min}, mean ${v.mean}, max ${v.max}`).join(
        "\n",
      )
    }`;
    return { structured, text };
  },
});

export const activityTools: Tool[] = [listActivities, getActivity, getActivityStreams];
