import { z } from "zod";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { SPORT_TYPES } from "../../shared/sport-types.ts";

/**
 * `schema` as the named response model `id` of the OpenAPI document (`#/components/schemas/<id>`),
 * with a description and an example. The id goes to zod's global registry, so the model is emitted
 * once as a component and referenced with `$ref` wherever a response uses it (server/http/openapi.ts).
 * Ids are Strava's model names (SummaryActivity, DetailedSegment, …) where Strava has the model.
 */
export function model<T extends z.ZodType>(id: string, schema: T, description: string, example?: unknown): T {
  return schema.meta({ id, description, ...(example === undefined ? {} : { examples: [example] }) }) as T;
}

/** Building blocks shared by the families. */
export const int = z.number().int();
export const num = z.number();
export const nullableNum = z.number().nullable();
export const nullableInt = z.number().int().nullable();
export const nullableStr = z.string().nullable();
/** An ISO 8601 date-time in UTC or local time, without milliseconds ("2024-05-06T07:08:09Z"). */
export const dateTime = z.string().meta({ format: "date-time" });
/** A calendar date without a time ("2024-05-06"), where Strava's model has one (e.g. athlete_segment_stats.pr_date). */
export const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).meta({ format: "date" });

/**
 * Strava's ActivityType enum: the values a `type` (and a club's `activity_types`) may hold. The
 * service sends the spec's list (shared/activity-types.ts), every one of which is in Strava's enum;
 * newer sports (MountainBikeRide, TrailRun…) belong in `sport_type` fields only.
 */
export const zActivityTypeEnum = model(
  "ActivityType",
  z.enum(ACTIVITY_TYPES),
  "An activity type (Strava's ActivityType); newer sports are reported as their family here and in full in sport_type.",
);
/** Strava's SportType enum: the values a `sport_type` of an activity may hold. */
export const zSportTypeEnum = model("SportType", z.enum(SPORT_TYPES), "A sport type (Strava's SportType).");
export const zLatLng = z.tuple([z.number(), z.number()]);
/** Strava's LatLng: [lat, lng], or null when hidden or unknown. */
export const zNullableLatLng = zLatLng.nullable();

/** Strava's MetaAthlete: {id, resource_state 1}. */
export const zMetaAthlete = model(
  "MetaAthlete",
  z.object({ id: int, resource_state: int }),
  "An athlete by id only (resource_state 1).",
  {
    id: 134815,
    resource_state: 1,
  },
);

/** Strava's MetaActivity: {id, resource_state 1}. */
export const zMetaActivity = model(
  "MetaActivity",
  z.object({ id: int, resource_state: int.optional() }),
  "An activity by id only.",
  {
    id: 12345678987654321,
    resource_state: 1,
  },
);
