import { z } from "zod";
import { clock, exactId, localTime, num, round, str, zoneName } from "./format.ts";

/**
 * The building blocks the tools' answers share: an activity in a few fields (units in the names),
 * paging arguments, dates. Every value is copied from the API's answer, renamed and rounded, never
 * computed anew (the tests compare them with the API's).
 */

export const zLimit = (max: number, fallback: number) =>
  z.number().int().min(1).max(max).default(fallback).describe(`How many to return (1–${max}, default ${fallback}).`);
export const zPage = z.number().int().min(1).max(1000).default(1).describe("Page number, 1 for the first.");
export const zDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date as YYYY-MM-DD");
export const zId = z.number().int().positive();

export const zActivitySummary = z.object({
  id: z.number().int().describe("Activity id (get_activity, get_activity_streams accept it)."),
  name: z.string(),
  sport_type: z.string().nullable(),
  start_local: z.string().nullable().describe("Start, local time where it was recorded: YYYY-MM-DD HH:MM."),
  time_zone: z.string().nullable().describe("The IANA time zone of start_local."),
  distance_m: z.number().nullable(),
  moving_time_s: z.number().nullable(),
  moving_time: z.string().nullable().describe("moving_time_s as h:mm:ss."),
  elapsed_time_s: z.number().nullable(),
  elevation_gain_m: z.number().nullable(),
  average_speed_mps: z.number().nullable(),
  average_heartrate_bpm: z.number().nullable(),
  average_watts_w: z.number().nullable(),
  athlete_id: z.number().int().nullable(),
  private: z.boolean().nullable(),
});
export type ActivitySummary = z.infer<typeof zActivitySummary>;

type Json = Record<string, unknown>;

/** An activity of the API (summary or detailed representation) in the fields a model needs first. */
export function activitySummary(a: Json): ActivitySummary {
  const athlete = a.athlete as Json | undefined;
  return {
    id: Number(exactId(a.id)),
    name: str(a.name) ?? "",
    sport_type: str(a.sport_type),
    start_local: localTime(a.start_date_local),
    time_zone: zoneName(a.timezone),
    distance_m: round(a.distance, 1),
    moving_time_s: num(a.moving_time),
    moving_time: clock(a.moving_time),
    elapsed_time_s: num(a.elapsed_time),
    elevation_gain_m: round(a.total_elevation_gain, 1),
    average_speed_mps: round(a.average_speed, 3),
    average_heartrate_bpm: round(a.average_heartrate, 1),
    average_watts_w: round(a.average_watts, 1),
    athlete_id: athlete && athlete.id !== undefined ? Number(exactId(athlete.id)) : null,
    private: typeof a.private === "boolean" ? a.private : null,
  };
}

/** One line of text for an activity. */
export function activityLine(a: ActivitySummary): string {
  const parts = [
    `#${a.id}`,
    a.start_local ? `${a.start_local}${a.time_zone ? ` ${a.time_zone}` : ""}` : null,
    a.sport_type,
    `"${a.name}"`,
    a.distance_m !== null ? `${(a.distance_m / 1000).toFixed(2)} km` : null,
    a.moving_time ? `moving ${a.moving_time}` : null,
    a.elevation_gain_m !== null ? `+${Math.round(a.elevation_gain_m)} m` : null,
    a.average_heartrate_bpm !== null ? `${Math.round(a.average_heartrate_bpm)} bpm` : null,
    a.average_watts_w !== null ? `${Math.round(a.average_watts_w)} W` : null,
  ];
  return parts.filter(Boolean).join(" · ");
}
