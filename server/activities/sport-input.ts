import { z } from "zod";
import { SPORT_TYPES, type SportType, sportTypeOf } from "../../shared/sport-types.ts";

/** A sport type, case-insensitive, one of Strava's SportType list. */
export const zSportType = z.string().transform((value, ctx): SportType => {
  const sport = sportTypeOf(value);
  if (!sport) {
    ctx.addIssue({ code: "custom", message: `one of ${SPORT_TYPES.join(", ")}` });
    return z.NEVER;
  }
  return sport;
});

/** A create body needs type or sport_type: without both, the same 400 names type as missing. */
export function requireTypeOrSport(value: unknown, ctx: z.RefinementCtx): void {
  const v = (value ?? {}) as { type?: unknown; sport_type?: unknown };
  if (typeof value === "object" && v.type === undefined && v.sport_type === undefined) {
    ctx.addIssue({ code: "custom", path: ["type"], message: "type or sport_type is required" });
  }
}
