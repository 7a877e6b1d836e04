import { z } from "zod";

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
export const zLatLng = z.tuple([z.number(), z.number()]);
/** Strava's LatLng: [lat, lng], or null when hidden or unknown. */
export const zNullableLatLng = zLatLng.nullable();

/** Strava's MetaAthlete: {id, resource_state 1}. */
export const zMetaAthlete = model("MetaAthlete", z.object({ id: int, resource_state: int }), "An athlete by id only (resource_state 1).", {
  id: 134815,
  resource_state: 1,
});

/** Strava's MetaActivity: {id, resource_state 1}. */
export const zMetaActivity = model("MetaActivity", z.object({ id: int, resource_state: int.optional() }), "An activity by id only.", {
  id: 12345678987654321,
  resource_state: 1,
});

