import { z } from "zod";
import { callRoute } from "../call-route.ts";
import { clock, km, localTime, num, round, str } from "../format.ts";
import { zDate, zId } from "../shapes.ts";
import { defineTool, type Tool } from "../tool.ts";

type Json = Record<string, unknown>;

const zTotals = z.object({
  count: z.number().nullable(),
  distance_m: z.number().nullable(),
  moving_time_s: z.number().nullable(),
  elapsed_time_s: z.number().nullable(),
  elevation_gain_m: z.number().nullable(),
});

const totals = (t: unknown) => {
  const o = (t ?? {}) as Json;
  return {
    count: num(o.count),
    distance_m: round(o.distance, 1),
    moving_time_s: num(o.moving_time),
    elapsed_time_s: num(o.elapsed_time),
    elevation_gain_m: round(o.elevation_gain, 1),
  };
};

const PERIODS = ["recent", "ytd", "all"] as const;
const SPORTS = ["ride", "run", "swim"] as const;

export const getProfile = defineTool({
  name: "get_profile",
  title: "Athlete profile and totals",
  description:
    "The signed-in athlete: name, place, weight (kg), FTP (W), units preference, and their totals (GET /v3/athlete and /v3/athletes/{id}/stats): rides, runs and swims over the last 4 weeks ('recent'), this year ('ytd') and all time — count, distance (m), moving and elapsed time (s), elevation gain (m). Start here: the athlete id is what the other tools take.",
  input: {},
  output: {
    athlete: z.object({
      id: z.number().int(),
      name: z.string(),
      city: z.string().nullable(),
      country: z.string().nullable(),
      sex: z.string().nullable(),
      weight_kg: z.number().nullable(),
      ftp_w: z.number().nullable(),
      measurement_preference: z.string().nullable(),
      created_local: z.string().nullable(),
    }),
    totals: z.record(z.string(), zTotals).describe("Keys like ride_recent, run_ytd, swim_all."),
    biggest_ride_distance_m: z.number().nullable(),
    biggest_climb_elevation_gain_m: z.number().nullable(),
  },
  write: false,
  idempotent: true,
  async run(ctx) {
    const me = await callRoute(ctx, "GET", "/v3/athlete") as Json;
    const stats = await callRoute(ctx, "GET", "/v3/athletes/:id/stats", { params: { id: me.id } }) as Json;
    const all: Record<string, z.infer<typeof zTotals>> = {};
    for (const sport of SPORTS) {
      for (const period of PERIODS) all[`${sport}_${period}`] = totals(stats[`${period}_${sport}_totals`]);
    }
    const name = [str(me.firstname), str(me.lastname)].filter(Boolean).join(" ");
    const structured = {
      athlete: {
        id: Number(me.id),
        name,
        city: str(me.city),
        country: str(me.country),
        sex: str(me.sex),
        weight_kg: num(me.weight),
        ftp_w: num(me.ftp),
        measurement_preference: str(me.measurement_preference),
        created_local: localTime(me.created_at),
      },
      totals: all,
      biggest_ride_distance_m: round(stats.biggest_ride_distance, 1),
      biggest_climb_elevation_gain_m: round(stats.biggest_climb_elevation_gain, 1),
    };
    const lines = SPORTS.map((sport) => {
      const ytd = all[`${sport}_ytd`], sum = all[`${sport}_all`];
      return `${sport}: this year ${ytd.count ?? 0} × ${km(ytd.distance_m)} (${
        clock(ytd.moving_time_s) ?? "0:00"
      } moving); all time ${sum.count ?? 0} × ${km(sum.distance_m)}`;
    });
    return {
      structured,
      text: `${name} (athlete ${me.id}${me.city ? `, ${me.city}` : ""})${
        structured.athlete.ftp_w ? `, FTP ${structured.athlete.ftp_w} W` : ""
      }${structured.athlete.weight_kg ? `, ${structured.athlete.weight_kg} kg` : ""}\n${lines.join("\n")}`,
    };
  },
});

export const getRecords = defineTool({
  name: "get_records",
  title: "Personal records and power curve",
  description:
    "An athlete's personal records (GET /v3/athletes/{id}/records): the fastest run of each best-effort distance (400 m … marathon) and the power curve (best mean power in W over 5 s … 1 h of the rides with power), each with the activity it was set in and the local date. Counts only the activities this connection may see. Default: the signed-in athlete.",
  input: { athlete_id: zId.optional().describe("Another athlete's id; the signed-in athlete when left out.") },
  output: {
    best_efforts: z.array(z.object({
      name: z.string(),
      distance_m: z.number(),
      elapsed_time_s: z.number(),
      time: z.string().nullable(),
      pace_per_km: z.string().nullable(),
      date_local: z.string().nullable(),
      activity_id: z.number().int(),
      activity_name: z.string(),
    })),
    power_curve: z.array(z.object({
      duration_s: z.number(),
      watts_w: z.number(),
      date_local: z.string().nullable(),
      activity_id: z.number().int(),
      activity_name: z.string(),
    })),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const id = args.athlete_id ?? ctx.auth.athleteId;
    const r = await callRoute(ctx, "GET", "/v3/athletes/:id/records", { params: { id } }) as Json;
    const best = (r.best_efforts as Json[]).map((e) => {
      const a = e.activity as Json;
      const t = Number(e.elapsed_time), d = Number(e.distance);
      return {
        name: String(e.name),
        distance_m: d,
        elapsed_time_s: t,
        time: clock(t),
        pace_per_km: d > 0 ? clock((t / d) * 1000) : null,
        date_local: localTime(e.start_date_local),
        activity_id: Number(a.id),
        activity_name: String(a.name),
      };
    });
    const curve = (r.power_curve as Json[]).map((p) => {
      const a = p.activity as Json;
      return {
        duration_s: Number(p.duration),
        watts_w: Number(p.watts),
        date_local: localTime(p.start_date_local),
        activity_id: Number(a.id),
        activity_name: String(a.name),
      };
    });
    const text = [
      best.length ? "Best efforts:" : "No run best efforts.",
      ...best.map((b) => `  ${b.name}: ${b.time} (${b.pace_per_km}/km) on ${b.date_local}, activity #${b.activity_id}`),
      curve.length ? "Power curve:" : "No power data.",
      ...curve.map((p) => `  ${p.duration_s} s: ${p.watts_w} W on ${p.date_local}, activity #${p.activity_id}`),
    ].join("\n");
    return { structured: { best_efforts: best, power_curve: curve }, text };
  },
});

const zDay = z.object({ date: z.string(), load: z.number(), ctl: z.number(), atl: z.number(), tsb: z.number() });

export const getFitness = defineTool({
  name: "get_fitness",
  title: "Fitness, fatigue and form over a date range",
  description:
    "The signed-in athlete's training load model by day (GET /v3/athletes/{id}/fitness): fitness (CTL, 42-day weighted daily load), fatigue (ATL, 7-day) and form (TSB = CTL − ATL), from each activity's load (power TSS, else heart-rate TRIMP). Dates are the local calendar days the activities started on. Give from/to (YYYY-MM-DD, at most 3 years back); default the last 6 weeks. Ranges over 120 days are answered one row a week (the range's last day always included) with the summary first.",
  input: {
    from: zDate.optional().describe("First day, YYYY-MM-DD (default 42 days before to)."),
    to: zDate.optional().describe("Last day, YYYY-MM-DD (default today)."),
  },
  output: {
    ftp_w: z.number().nullable(),
    from: z.string(),
    to: z.string(),
    summary: z.object({
      start: zDay.nullable(),
      end: zDay.nullable(),
      peak_ctl: zDay.nullable(),
      lowest_tsb: zDay.nullable(),
      total_load: z.number(),
      activity_count: z.number().int(),
    }),
    sampling: z.enum(["daily", "weekly"]),
    days: z.array(zDay),
  },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const today = new Date().toISOString().slice(0, 10);
    const to = args.to ?? today;
    const from = args.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 41 * 86400_000).toISOString().slice(0, 10);
    if (from > to) throw new RangeError("from must be on or before to");
    const back = Math.ceil((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86400_000) + 1;
    if (back > 3650) throw new RangeError("from is more than 10 years ago: pick a later from");
    const f = await callRoute(ctx, "GET", "/v3/athletes/:id/fitness", {
      params: { id: ctx.auth.athleteId },
      query: { days: Math.max(1, back) },
    }) as Json;
    const inRange = (f.days as z.infer<typeof zDay>[]).filter((d) => d.date >= from && d.date <= to);
    const acts = (f.activities as Json[]).filter((a) => String(a.date) >= from && String(a.date) <= to);
    const weekly = inRange.length > 120;
    const days = weekly ? inRange.filter((_, i) => (inRange.length - 1 - i) % 7 === 0) : inRange;
    const pick = (better: (a: z.infer<typeof zDay>, b: z.infer<typeof zDay>) => boolean) =>
      inRange.reduce<z.infer<typeof zDay> | null>((best, d) => (!best || better(d, best) ? d : best), null);
    const summary = {
      start: inRange[0] ?? null,
      end: inRange.at(-1) ?? null,
      peak_ctl: pick((a, b) => a.ctl > b.ctl),
      lowest_tsb: pick((a, b) => a.tsb < b.tsb),
      total_load: Math.round(acts.reduce((s, a) => s + Number(a.load), 0) * 10) / 10,
      activity_count: acts.length,
    };
    const d = (x: z.infer<typeof zDay> | null) => x ? `CTL ${x.ctl} · ATL ${x.atl} · TSB ${x.tsb} (${x.date})` : "—";
    const text = `Fitness ${from} … ${to} (local days): start ${d(summary.start)}; end ${d(summary.end)}; peak ${
      d(summary.peak_ctl)
    }; lowest form ${d(summary.lowest_tsb)}; ${summary.activity_count} activities, load ${summary.total_load}.`;
    return {
      structured: { ftp_w: num(f.ftp), from, to, summary, sampling: weekly ? "weekly" : "daily", days } as const,
      text,
    };
  },
});

export const athleteTools: Tool[] = [getProfile, getRecords, getFitness];
