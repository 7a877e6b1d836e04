import type { Queryable } from "../../events/db/types.ts";
import { lastEvent, lastPositionAtTime } from "../../events/log-queries.ts";

/** A point in the log given on the command line: a global position or an ISO 8601 time. */
export type LogBound = { position: number } | { time: string };

const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Parses "12345" (a position) or "2024-05-01" / "2024-05-01T10:00:00Z" (a time, UTC when no zone). */
export function parseBound(text: string, option: string): LogBound {
  const value = text.trim();
  if (/^\d+$/.test(value)) {
    const position = Number(value);
    if (!Number.isSafeInteger(position)) throw new BoundError(`--${option} ${text}: position too large`);
    return { position };
  }
  if (ISO.test(value)) {
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(value) || value.length === 10 ? value : `${value}Z`;
    const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : zoned.replace(" ", "T"));
    if (!Number.isNaN(ms)) return { time: new Date(ms).toISOString() };
  }
  throw new BoundError(
    `--${option} ${text}: expected a global position (an integer) or an ISO 8601 time such as 2024-05-01T10:00:00Z`,
  );
}

/** A bound that does not parse or lies outside the log. */
export class BoundError extends Error {}

export interface LogEnd {
  position: number;
  recordedAt: string | null;
}

/** The last position of the log and when it was recorded. */
export async function logEnd(db: Queryable): Promise<LogEnd> {
  const row = await lastEvent(db);
  return { position: Number(row?.position ?? 0), recordedAt: row?.recorded_at ?? null };
}

/**
 * The last position at or before a bound (inclusive). A bound beyond the end of the log (a
 * larger position, or a time after the last event was recorded) is refused with the log's end.
 */
export async function positionAt(db: Queryable, bound: LogBound, option: string): Promise<number> {
  const end = await logEnd(db);
  const endText = end.recordedAt
    ? `the log ends at position ${end.position}, recorded at ${end.recordedAt}`
    : "the log is empty";
  if ("position" in bound) {
    if (bound.position > end.position) {
      throw new BoundError(`--${option} ${bound.position} is beyond the end of the log: ${endText}`);
    }
    return bound.position;
  }
  if (!end.recordedAt || Date.parse(bound.time) > Date.parse(end.recordedAt)) {
    throw new BoundError(`--${option} ${bound.time} is beyond the end of the log: ${endText}`);
  }
  // Times print with milliseconds; an event recorded within that millisecond counts as at or before it.
  return Number((await lastPositionAtTime(db, bound.time)) ?? 0);
}
