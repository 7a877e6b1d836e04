import { z } from "zod";
import { activityStartProblem } from "../../shared/date-range.ts";
import { ACTIVITY_TYPES, type ActivityType, activityTypeOf } from "../../shared/activity-types.ts";

/** Documented maximum lengths (the spec leaves them open). */
export const MAX_NAME = 255;
export const MAX_DESCRIPTION = 10000;
export const MAX_COMMENT = 2000;
export const MAX_CAPTION = 2000;

/** An activity type, case-insensitive, one of the spec's list. */
export const zActivityType = z.string().transform((value, ctx): ActivityType => {
  const type = activityTypeOf(value);
  if (!type) {
    ctx.addIssue({ code: "custom", message: `one of ${ACTIVITY_TYPES.join(", ")}` });
    return z.NEVER;
  }
  return type;
});

export const zName = z.string().trim().min(1).max(MAX_NAME);
export const zDescription = z.string().max(MAX_DESCRIPTION);

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

export interface LocalStart {
  /** The true UTC instant, YYYY-MM-DDThh:mm:ssZ. */
  startDate: string;
  /** Local wall-clock time written as if UTC. */
  startDateLocal: string;
  timezone: string;
}

/**
 * An ISO 8601 local date-time (a four-digit year), with its offset when given. Whether an activity
 * may start then is the rule of shared/date-range.ts (zStartDateLocal).
 */
const zLocalDateTime = z.string().transform((value, ctx): LocalStart => {
  const m = ISO.exec(value.trim());
  const fail = () => {
    ctx.addIssue({ code: "custom", message: "an ISO 8601 date-time" });
    return z.NEVER;
  };
  if (!m) return fail();
  const [, y, mo, d, h, mi, s = "00", zone] = m;
  const localMs = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  const check = new Date(localMs);
  if (
    Number.isNaN(localMs) || check.getUTCFullYear() !== +y || check.getUTCMonth() !== +mo - 1 ||
    check.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59
  ) return fail();
  let offsetMin = 0;
  if (zone && zone !== "Z") {
    const digits = zone.replace(":", "");
    offsetMin = (digits[0] === "-" ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
    if (Math.abs(offsetMin) > 14 * 60) return fail();
  }
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const sign = offsetMin < 0 ? "-" : "+";
  const hh = String(Math.floor(Math.abs(offsetMin) / 60)).padStart(2, "0");
  const mm = String(Math.abs(offsetMin) % 60).padStart(2, "0");
  return {
    startDate: iso(localMs - offsetMin * 60000),
    startDateLocal: iso(localMs),
    timezone: offsetMin === 0 ? "(GMT+00:00) UTC" : `(GMT${sign}${hh}:${mm}) UTC${sign}${hh}:${mm}`,
  };
});

/**
 * start_date_local of a manual activity. With an offset (…+02:00) the offset gives start_date and
 * the timezone; without one (or with Z) the local time is taken as UTC.
 */
export function parseStartDateLocal(value: string): LocalStart | null {
  const parsed = zLocalDateTime.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * start_date_local of a manual activity, parsed (see parseStartDateLocal) and believable: its
 * start_date within the platform's one rule for activity dates (shared/date-range.ts), else the
 * field is refused (400 naming it).
 */
export const zStartDateLocal = z.string().transform((value, ctx): LocalStart => {
  const start = parseStartDateLocal(value);
  const problem = start ? activityStartProblem(start.startDate) : "an ISO 8601 date-time";
  if (!start || problem) {
    ctx.addIssue({ code: "custom", message: problem ?? "an ISO 8601 date-time" });
    return z.NEVER;
  }
  return start;
});
