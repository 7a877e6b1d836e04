/** What a replay's progress line says; drawn by the CLI's thread or by its redraw thread. */

/** The latest counts of a replay, or none yet (it is still preparing). */
export interface ProgressCounts {
  applied: number;
  total: number;
}

/** Elapsed time, counts, a 30-character bar and the rate; "preparing" before the first counts. */
export function progressLine(label: string, elapsedMs: number, counts: ProgressCounts | undefined): string {
  const seconds = elapsedMs / 1000;
  if (!counts) return `${label}: preparing (schema, statistics, counting the log)… ${seconds.toFixed(1)} s`;
  const fraction = counts.total ? counts.applied / counts.total : 1;
  const width = 30;
  const filled = Math.round(fraction * width);
  const rate = counts.applied / Math.max(seconds, 1e-9);
  return `${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${counts.applied}/${counts.total} events, ${
    Math.round(rate)
  } events/s, ${seconds.toFixed(1)} s`;
}

/**
 * The text that redraws the line in place: a carriage return, and padding so a shorter line fully
 * covers the previous one. `shared` is the memory the CLI's thread writes the counts to.
 */
export function redrawText(label: string, startedAt: number, shared: Float64Array): string {
  const counts = shared[HAS_COUNTS] ? { applied: shared[APPLIED], total: shared[TOTAL] } : undefined;
  return `\r${progressLine(label, Date.now() - startedAt, counts).padEnd(100)}`;
}

/**
 * The state the CLI's thread shares with the redraw thread: the counts (Float64) and a lock word
 * (Int32) that every write of the line holds, so the CLI's own last line is never overwritten.
 */
export const SHARED_BYTES = 32;
export const APPLIED = 0;
export const TOTAL = 1;
/** 1 once counts were reported. */
export const HAS_COUNTS = 2;
/** Index of the lock in the Int32 view of the last 8 bytes: 0 free, 1 held, 2 stopped. */
export const LOCK = 6;
