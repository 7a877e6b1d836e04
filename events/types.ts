/** Who caused an event: acting athlete, application and request. */
export interface EventMetadata {
  athleteId?: number;
  applicationId?: number;
  requestId?: string;
  /** Free-form origin, e.g. "cli", "seed", "job:upload". */
  source?: string;
}

/** An event as stored: data is already upcast to the current schema version. */
export interface RecordedEvent<T = unknown> {
  position: number;
  streamId: string;
  streamVersion: number;
  type: string;
  /** The schema version the event was written with. */
  schemaVersion: number;
  data: T;
  metadata: EventMetadata;
  /** ISO 8601 UTC time the event was recorded. */
  recordedAt: string;
}

export type ExpectedVersion = number | "any";

export interface AppendResult {
  streamId: string;
  /** The stream's version after the append. */
  nextExpectedVersion: number;
  firstPosition: number;
  lastPosition: number;
  /** True when the idempotency key had been used: nothing new was written. */
  duplicate: boolean;
  events: RecordedEvent[];
}

/** The expected version did not match the stream's version. */
export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`stream ${streamId}: expected version ${expected}, found ${actual}`);
    this.name = "ConcurrencyError";
  }
}

/** A read model's unique constraint refused the append (e.g. an email already registered). */
export class UniqueViolationError extends Error {
  constructor(readonly constraint: string) {
    super(`unique constraint ${constraint} refused the append`);
    this.name = "UniqueViolationError";
  }
}

/**
 * An append's condition (AppendOptions.condition: the state an optimistic decision assumed) did not
 * hold: nothing was written; the caller decides again on the stream as read.
 */
export class ConditionNotMetError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId}: the append's condition did not hold`);
    this.name = "ConditionNotMetError";
  }
}
